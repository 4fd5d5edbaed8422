"""Tests of leaderboard/scoring: metrics, outcomes, bootstrap, run filters, the page cache and published versions."""
