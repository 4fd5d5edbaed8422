"""`manage.py rescan_contamination [RUN ...]`: run the contamination scan again on stored trajectories
(all runs by default), after the patterns in settings changed or for runs stored before the scan."""

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Run
from trajectories.models import Trajectory
from trajectories.recording import contamination


class Command(BaseCommand):
    help = "Scan stored trajectories again for contamination (the benchmark's repository, paper, files, rubric)."

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="*", metavar="RUN", help="Run slugs (default: every run).")

    def handle(self, *args, runs=(), **options):
        trajectories = Trajectory.objects.select_related("task__suite").order_by("run_id", "pk")
        if runs:
            known = set(Run.objects.filter(slug__in=runs).values_list("slug", flat=True))
            for slug in runs:
                if slug not in known:
                    raise CommandError(f"{slug!r}: no run with slug {slug!r} (the runs page lists them)")
            trajectories = trajectories.filter(run__slug__in=runs)
        try:
            patterns_by_suite: dict[str, list] = {}
            flagged = hits = scanned = 0
            for trajectory in trajectories.iterator():
                slug = trajectory.task.suite.slug
                if slug not in patterns_by_suite:
                    patterns_by_suite[slug] = contamination.configured_patterns(slug)
                found = contamination.record_scan(trajectory, patterns_by_suite[slug])
                scanned += 1
                hits += found
                flagged += bool(found)
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Contamination scan: {scanned} trajectories scanned, {flagged} flagged, {hits} hits.")
