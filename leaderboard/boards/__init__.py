"""Pages and API routers of the catalog, runs and scores: the leaderboard, comparisons, the reported
leaderboard, analysis and run pages. Uses everything below it; nothing but URLs imports it."""
