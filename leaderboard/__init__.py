"""Catalog and scores: suites, tasks, rubric items, models, runs, reported figures; metrics,
leaderboard pages and the public API."""
