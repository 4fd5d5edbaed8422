"""App config for trajectories."""

from django.apps import AppConfig
from django.core import checks


class TrajectoriesConfig(AppConfig):
    name = "trajectories"
    verbose_name = "Trajectories and judgments"

    def ready(self):
        # media lose their public mark, and steps their published flag (step search), when their run stops
        # being published, in every process
        from trajectories.recording import public_marks, published_steps  # noqa: F401
        from trajectories.recording.contamination import check_patterns

        # bad contamination patterns in settings are refused when the site starts (manage.py check)
        checks.register(check_patterns)
