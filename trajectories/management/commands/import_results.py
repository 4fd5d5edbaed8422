"""manage.py import_results: import agent result folders (upstream MyPCBench, OSWorld, legacy) as a new run."""

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from trajectories.recording.import_notes import ImportResultsError
from trajectories.recording.import_results import import_results


class Command(BaseCommand):
    help = (
        "Import a result folder or a .zip / .tar.gz of one (upstream MyPCBench task dirs, the parallel runner's "
        "vm<i>/ nesting, OSWorld run.py trees and rollout archives, the legacy context/ layout, attempts side by "
        "side) as a new run with trajectories, steps, screenshots and every judgment the source holds. "
        "All-or-nothing: every problem is reported at once and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="Result folder, a single task folder, or a .zip / .tar.gz of one.")
        parser.add_argument("--run", required=True, dest="run_name", help="Name of the new run (must be unused).")
        parser.add_argument(
            "--model",
            dest="model_name",
            help="Model name (default: from an OSWorld path or our harness's bundle.json, else 'unknown model').",
        )
        parser.add_argument(
            "--suite", dest="suite_slug", help="Suite slug (default: the suite holding every task id found)."
        )
        parser.add_argument("--publish", action="store_true", help="Publish the run at once (default: draft).")
        parser.add_argument(
            "--layout",
            choices=["osworld", "mypcbench"],
            help="Read every folder as OSWorld (result.txt is the evaluator's score) or MyPCBench (result.txt only "
            "marks a finished run), when the paths cannot tell.",
        )
        parser.add_argument(
            "--attempts-from-folders",
            action="store_true",
            help="The same task id under several parent folders: import them as attempts of one run, numbered by "
            "the parents' sorted names (G<n> and attempt_<n> folders are numbered without it).",
        )
        parser.add_argument(
            "--allow-missing-screenshots",
            action="store_true",
            help="Import steps whose screenshot is missing or a Git LFS pointer, without it (counted and shown).",
        )

    def handle(self, *args, path, run_name, model_name, suite_slug, publish, layout, **options):
        bar = None

        def progress(done, total, task_id):
            nonlocal bar
            if bar is None:
                bar = tqdm(
                    total=total, unit="trajectory", file=sys.stderr, disable=options["verbosity"] == 0, leave=False
                )
            if done:
                bar.set_postfix_str(task_id)
                bar.update(done - bar.n)

        try:
            summary = import_results(
                path,
                run_name,
                model_name=model_name,
                suite_slug=suite_slug,
                publish=publish,
                progress=progress,
                layout=layout,
                attempts_from_folders=options["attempts_from_folders"],
                allow_missing_screenshots=options["allow_missing_screenshots"],
            )
        except ImportResultsError as exc:
            raise CommandError(str(exc))
        finally:
            if bar is not None:
                bar.close()
        for line in summary.lines():
            self.stdout.write(line)
