"""`manage.py export_bundle RUN OUT [--as-maintainer] [--originals]`: write one run as a static folder that opens
from any static host or from file:// (leaderboard.boards.bundle), then print what it holds."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.boards import bundle


class Command(BaseCommand):
    help = (
        "Write a run (by id or slug) as a static folder: its page, its trajectories, a player per trajectory "
        "with the screenshots, and the rubric verdicts. Opens from file:// or any static host."
    )

    def add_arguments(self, parser):
        parser.add_argument("run", metavar="RUN", help="The run's id or slug.")
        parser.add_argument("out", metavar="OUT", help="A new or empty folder to write the bundle into.")
        parser.add_argument(
            "--as-maintainer",
            action="store_true",
            help="Allow an unpublished run (the bundle can be read by anyone it is handed to).",
        )
        parser.add_argument(
            "--originals",
            action="store_true",
            help="Add each step's original screenshot (full resolution, much larger) beside its derivatives.",
        )

    def handle(self, *args, run, out, as_maintainer=False, originals=False, **options):
        try:
            found = bundle.find_run(run)
            report = bundle.export_bundle(
                found,
                Path(out),
                as_maintainer=as_maintainer,
                originals=originals,
                progress=(lambda line: self.stdout.write(line)) if options["verbosity"] else None,
            )
        except bundle.BundleError as exc:
            raise CommandError(str(exc)) from exc
        for line in report.lines():
            self.stdout.write(line)
