"""App config for the leaderboard (catalog and scores)."""

from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboard and catalog"

    def ready(self):
        # the signal receivers that version what visitors see, in every process (web and workers)
        from leaderboard.scoring import public_version  # noqa: F401
