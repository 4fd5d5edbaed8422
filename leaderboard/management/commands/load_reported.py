"""`manage.py load_reported [--file PATH]`: load the published MyPCBench figures as reported runs."""

from django.core.management.base import BaseCommand, CommandError

from leaderboard.catalog.reported import DATA_FILE, ReportedDataError, load_reported


class Command(BaseCommand):
    help = "Load the figures published for MyPCBench as reported runs (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--file", default=str(DATA_FILE), help="Reported-figures JSON (default: the shipped file).")

    def handle(self, *args, **options):
        try:
            s = load_reported(options["file"])
        except ReportedDataError as exc:
            raise CommandError(str(exc))
        self.stdout.write(
            f"Reported result sets: {', '.join(s.result_sets)}\n"
            f"  models created: {s.models_created}\n"
            f"  runs created: {s.runs_created}, updated: {s.runs_updated}\n"
            f"  figures created: {s.figures_created}, updated: {s.figures_updated}, "
            f"deleted: {s.figures_deleted}, unchanged: {s.figures_unchanged}"
        )
        if not s.changed:
            self.stdout.write(self.style.SUCCESS("Nothing changed: the reported figures were already loaded."))
        else:
            self.stdout.write(self.style.SUCCESS("Reported figures loaded."))
