"""App config for trajectories."""

from django.apps import AppConfig


class TrajectoriesConfig(AppConfig):
    name = "trajectories"
    verbose_name = "Trajectories and judgments"
