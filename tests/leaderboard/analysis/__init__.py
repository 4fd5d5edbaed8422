"""Tests of leaderboard/analysis: the analysis pages, their API and filters."""
