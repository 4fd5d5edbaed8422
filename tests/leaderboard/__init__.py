"""Tests of leaderboard/: the catalog, scoring, the boards and the analysis pages."""
