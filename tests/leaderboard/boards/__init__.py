"""Tests of leaderboard/boards: the leaderboard, the read-only API, task pages and search."""
