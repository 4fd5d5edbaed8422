"""manage.py import_results: import agent result folders (upstream MyPCBench, OSWorld, legacy) as a new run."""

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from trajectories.recording.import_results import ImportResultsError, import_results


class Command(BaseCommand):
    help = (
        "Import a result folder (upstream MyPCBench task dirs, the parallel runner's vm<i>/ nesting, "
        "OSWorld-style trees, the legacy context/ layout) as a new run with trajectories, steps, "
        "screenshots and the source's own judgments. All-or-nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="Result folder (or a single task folder).")
        parser.add_argument("--run", required=True, dest="run_name", help="Name of the new run (must be unused).")
        parser.add_argument(
            "--model", dest="model_name", help="Model name (default: from an OSWorld path, else 'unknown model')."
        )
        parser.add_argument("--suite", dest="suite_slug", help="Suite slug (default: the only non-demo suite).")
        parser.add_argument("--publish", action="store_true", help="Publish the run at once (default: draft).")

    def handle(self, *args, path, run_name, model_name, suite_slug, publish, **options):
        bar = None

        def progress(done, total, task_id):
            nonlocal bar
            if bar is None:
                bar = tqdm(total=total, unit="trajectory", file=sys.stderr, disable=options["verbosity"] == 0)
            if done:
                bar.set_postfix_str(task_id)
                bar.update(done - bar.n)

        try:
            summary = import_results(
                path, run_name, model_name=model_name, suite_slug=suite_slug, publish=publish, progress=progress
            )
        except ImportResultsError as exc:
            raise CommandError(str(exc))
        finally:
            if bar is not None:
                bar.close()
        for line in summary.lines():
            self.stdout.write(line)
