"""manage.py sweep_media: remove media files no row names and stale upload temporary files (what an
import or upload cut off by a store outage or a killed process could not clean up)."""

import datetime as dt

from django.core.management.base import BaseCommand, CommandError

from mypcbench_site.outages import SERVICE_UNAVAILABLE
from trajectories.recording.media_sweep import DEFAULT_GRACE, sweep
from trajectories.submissions.uploads import upload_tmp_dir


class Command(BaseCommand):
    help = (
        "Remove stray media: screenshots, derivatives and upload archives in the media store that no step or "
        "submission names, and files in the upload temporary folder, each only when older than --older-than "
        "(so work in progress keeps its files). Safe to run at any time, e.g. daily from cron."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            type=float,
            default=DEFAULT_GRACE.total_seconds() / 3600,
            metavar="HOURS",
            help="Only what was written at least this many hours ago (default: %(default)g).",
        )
        parser.add_argument("--dry-run", action="store_true", help="List what would be removed; remove nothing.")

    def handle(self, *args, older_than, dry_run, **options):
        if older_than < 0:
            raise CommandError(f"--older-than must be 0 or more hours, got {older_than:g}")
        grace = dt.timedelta(hours=older_than)
        try:
            report = sweep(upload_tmp_dir(), grace, dry_run=dry_run)
        except SERVICE_UNAVAILABLE as exc:
            raise CommandError(f"the database or the media store did not answer ({exc}); nothing more was removed")
        verb = "would remove" if dry_run else "removed"
        for name in report.stray_media:
            self.stdout.write(f"{verb} media {name}")
        for name in report.stray_temp:
            self.stdout.write(f"{verb} temporary {name} (in {upload_tmp_dir()})")
        self.stdout.write(
            f"{len(report.stray_media)} stray media files and {len(report.stray_temp)} temporary files {verb}; "
            f"{report.young_media} unnamed media files younger than {older_than:g} h kept"
        )
