"""App config for trajectories."""

from django.apps import AppConfig


class TrajectoriesConfig(AppConfig):
    name = "trajectories"
    verbose_name = "Trajectories and judgments"

    def ready(self):
        # media lose their public mark when their run stops being published, in every process
        from trajectories.recording import public_marks  # noqa: F401
