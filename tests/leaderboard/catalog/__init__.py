"""Tests of leaderboard/catalog: task and rubric import, reported figures, badges and who sees which runs."""
