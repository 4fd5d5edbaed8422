"""manage.py backup DIR: the database (as fixtures) and every media file into a new folder
(leaderboard/operations/backup.py); restore it with manage.py restore DIR."""

from django.core.management.base import BaseCommand, CommandError

from leaderboard.operations.backup import BackupError, backup


class Command(BaseCommand):
    help = "Back up the database and the media (local folder or object storage) into a new folder."

    def add_arguments(self, parser):
        parser.add_argument("dir", help="a new (or empty) folder for the backup")

    def handle(self, *args, **options):
        try:
            manifest = backup(options["dir"])
        except (BackupError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"backed up {manifest['rows']} rows and {manifest['media_files']} media files to {options['dir']}"
        )
