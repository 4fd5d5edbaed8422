"""Pages and API routers of the catalog, runs and scores: the leaderboard (`board`, its display
`board_display`, its page `views_board`), the two-run comparison (`comparison`), the reported
leaderboard (`reported`), analysis pages (`views_analysis`, `api_analysis`), catalog and run pages
(`views`, `api_catalog`; a run's consistency over its attempts: `run_consistency`), the methodology
and submission guide (`views_pages`) and the board's API (`api_board`, `api_filters`). May use every
room below it; only URLs, the API root and the template tags import it."""
