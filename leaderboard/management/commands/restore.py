"""manage.py restore DIR: load a folder written by manage.py backup into this freshly migrated, empty
database and this media storage (leaderboard/operations/backup.py)."""

from django.core.cache import cache
from django.core.management.base import BaseCommand, CommandError

from leaderboard.operations.backup import BackupError, restore


class Command(BaseCommand):
    help = "Restore a backup folder into a freshly migrated, empty database and the media storage."

    def add_arguments(self, parser):
        parser.add_argument("dir", help="a folder written by manage.py backup")

    def handle(self, *args, **options):
        try:
            manifest = restore(options["dir"])
        except (BackupError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        cache.clear()  # figures and pages cached before the restore describe other data
        self.stdout.write(f"restored {manifest['rows']} rows and {manifest['media_files']} media files")
