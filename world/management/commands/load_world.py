"""``manage.py load_world DIR``: store a seeding build as the site's world (replacing the previous one)."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from seeding.world.apps import APPS
from world.records.loading import WorldFolderError, load_world


class Command(BaseCommand):
    help = "Load a seeding build (python -m seeding build) as the site's world; the previous world is replaced."

    def add_arguments(self, parser):
        parser.add_argument("folder", help="The build's output folder (holds manifest.json).")
        parser.add_argument(
            "--overlay",
            help="Overlay JSON whose entries say which tasks each event serves "
            "(default: the build's overlay from seeding/personas, if there).",
        )
        parser.add_argument("--no-progress", action="store_true", help="No progress bar, counts only.")

    def handle(self, *args, folder, overlay=None, no_progress=False, **options):
        bar = tqdm(total=len(APPS), unit="app", disable=no_progress, file=self.stderr._out)

        def progress(app, n):
            bar.set_postfix_str(f"{app}: {n} rows")
            bar.update(1)

        try:
            result = load_world(folder, overlay=overlay, progress=progress)
        except WorldFolderError as exc:
            raise CommandError(str(exc))
        finally:
            bar.close()
        world = result["world"]
        self.stdout.write(f"Loaded the world of {world.persona} (anchor {world.anchor}) from {world.source}")
        for app, n in result["records"].items():
            self.stdout.write(f"  {APPS[app]:<18} {n:>7} records")
        total = sum(result["records"].values())
        linked = sum(1 for e in world.events.all() if e.tasks)
        self.stdout.write(f"{total} records, {result['events']} events ({linked} cited by tasks)")
        solvable = (world.check_report or {}).get("solvable")
        if solvable:
            counts = solvable.get("counts", {})
            solved, total = counts.get("solvable", 0), solvable.get("tasks", 0)
            self.stdout.write(f"Check report: {solved}/{total} tasks solvable from their answer keys")
        else:
            self.stdout.write("No check.json: run `python -m seeding check DIR` before loading to add the answer keys.")
