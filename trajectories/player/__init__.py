"""The trajectory player and trajectory pages: the player's payloads (`payloads`), its API router
(`api`), the player and comparison views (`views`) and the trajectory list and detail pages
(`trajectory_pages`). May use recording, scoring, the catalog, the anonymous page cache
(mypcbench_site.page_cache) and the models (judgments through them)."""
