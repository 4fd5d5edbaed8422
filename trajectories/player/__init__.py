"""The trajectory player and trajectory pages: the player's payloads (`payloads`), its API router
(`api`), the player, comparison and step search views (`views`), the trajectory list and detail pages
(`trajectory_pages`) and step search across trajectories (`step_search`). May use recording, scoring,
the catalog, the anonymous page cache (mypcbench_site.page_cache) and the models (judgments through
them)."""
