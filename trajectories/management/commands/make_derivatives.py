"""`manage.py make_derivatives [--run SLUG] [--force]`: make missing screenshot derivatives now,
in this process (backfill, or repair after MYPCBENCH_DERIVATIVES=off)."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from leaderboard.models import Run
from trajectories.models import Step, Trajectory
from trajectories.recording import media


class Command(BaseCommand):
    help = "Make display-size AVIF and WebP derivatives and thumbnails for steps that lack them (resumable)."

    def add_arguments(self, parser):
        parser.add_argument("--run", metavar="SLUG", help="Only this run's trajectories (default: all runs).")
        parser.add_argument("--force", action="store_true", help="Remake derivatives that already exist.")

    def handle(self, *args, run=None, force=False, **options):
        trajectories = Trajectory.objects.all()
        if run:
            if not Run.objects.filter(slug=run).exists():
                known = ", ".join(Run.objects.order_by("slug").values_list("slug", flat=True)[:20]) or "none"
                raise CommandError(f"--run {run!r}: no run with that slug (known runs: {known})")
            trajectories = trajectories.filter(run__slug=run)
        with_screenshot = Step.objects.filter(trajectory__in=trajectories).exclude(screenshot="").count()
        todo = media.steps_needing_work(trajectories, force=force)
        total = todo.count()
        bar = tqdm(total=total, unit="step", desc="derivatives", disable=total == 0 or options["verbosity"] == 0)
        summary = media.make_steps_derivatives(todo.iterator(), force=force, progress=lambda *_: bar.update())
        bar.close()
        summary.skipped += with_screenshot - total
        for error in summary.errors:
            self.stderr.write(f"  {error}")
        self.stdout.write(
            f"Derivatives: {summary.made} made, {summary.skipped} already present, {summary.failed} failed "
            f"(of {with_screenshot} steps with screenshots)."
        )
