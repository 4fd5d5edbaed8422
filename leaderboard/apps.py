"""App config for the leaderboard (catalog and scores)."""

from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboard and catalog"
