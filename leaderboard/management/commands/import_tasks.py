"""``manage.py import_tasks``: import a MyPCBench task suite from upstream task files."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from harness.tasks import SessionFileError, TaskFileError, upstream_tasks
from leaderboard.catalog.errata import ErratumError, ErratumNote
from leaderboard.catalog.task_import import DEFAULT_SUITE_NAME, DEFAULT_SUITE_VERSION, import_tasks


class Command(BaseCommand):
    help = (
        "Import a MyPCBench task suite: the flat graded file (all_tasks_with_grading.json), a folder of "
        "per-bucket rubric shards (<bucket>/<bucket>.rubrics.json), or a single task, including the older "
        "rubric variants. All or nothing; re-importing the same file changes nothing, and a changed rubric "
        "becomes a new rubric version. Behavioural types come from --task-types when given, else from the "
        "mapping shipped for the 184 published ids, else from the task's category (marked as derived). "
        "A folder holding OSWorld's test_all.json and examples/<domain>/<uuid>.json becomes an OSWorld suite "
        "(default name OSWorld test_all): domains as categories, no rubrics, runs scored by result.txt. "
        "A session file (format mypcbench-sessions) becomes a suite of session tasks with hidden intents."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "path", nargs="?", help="Task file, folder of task files, or OSWorld's evaluation_examples/ folder."
        )
        parser.add_argument(
            "--upstream",
            choices=sorted(upstream_tasks.sources()),
            help="Download the published task files at their pinned commits instead of PATH (checksums verified, "
            "cached in ~/.cache/mypcbench/upstream), then import them.",
        )
        parser.add_argument(
            "--task-types",
            metavar="PATH",
            help='JSON object {"<task id>": "<behavioural type>"} (upstream tasks/final/task_types.json).',
        )
        parser.add_argument("--suite", default=DEFAULT_SUITE_NAME, help=f"Suite name (default: {DEFAULT_SUITE_NAME}).")
        parser.add_argument(
            "--suite-version",
            default=DEFAULT_SUITE_VERSION,
            help=f"Suite version; tasks are matched by id within it (default: {DEFAULT_SUITE_VERSION}, "
            "the image tag of the paper's evaluation round).",
        )
        parser.add_argument("--demo", action="store_true", help="Mark the suite as a demo suite (not the benchmark).")
        parser.add_argument(
            "--erratum-reason",
            default="",
            metavar="TEXT",
            help="Why the changed rubrics changed, recorded with each erratum (a task's own "
            '"erratum": {"reason", "source"} in the task file wins for that task).',
        )
        parser.add_argument(
            "--erratum-source", default="", metavar="URL", help="Where the fix is written up (an http(s) link)."
        )

    def handle(self, *args, **options):
        if bool(options["path"]) == bool(options["upstream"]):
            raise CommandError("give either PATH or --upstream mypcbench|osworld (exactly one)")
        if options["upstream"]:
            fetched = self._fetch(options["upstream"], options["verbosity"])
            options["path"] = str(fetched.folder)
            options["task_types"] = options["task_types"] or (str(fetched.task_types) if fetched.task_types else None)
        bars: list = []

        def progress(done, total):
            if not bars:  # created on the first task, so a file refused up front prints no empty bar
                bars.append(
                    tqdm(
                        total=total,
                        desc="Importing tasks",
                        unit="task",
                        file=self.stderr._out,
                        disable=options["verbosity"] == 0,
                    )
                )
            bars[0].update(done - bars[0].n)

        try:
            summary = import_tasks(
                options["path"],
                task_types_path=options["task_types"],
                suite_name=options["suite"],
                suite_version=options["suite_version"],
                progress=progress,
                is_demo=True if options["demo"] else None,
                erratum=ErratumNote(options["erratum_reason"], options["erratum_source"]),
            )
        except SessionFileError as exc:  # a session file: every bad field, one a line
            lines = "\n".join(f"  {line}" for line in exc.all_lines())
            raise CommandError(f"{exc.file}: {len(exc.problems)} problem(s):\n{lines}\nNothing was imported.")
        except (TaskFileError, ErratumError) as exc:
            raise CommandError(f"{exc}\nNothing was imported.")
        finally:
            for bar in bars:
                bar.close()
        for line in summary.lines():
            self.stdout.write(line)

    def _fetch(self, name: str, verbosity: int):
        bar = tqdm(desc=f"Fetching {name} task files", unit="file", file=self.stderr._out, disable=verbosity == 0)

        def progress(done, total):
            bar.total = total
            bar.update(done - bar.n)

        try:
            fetched = upstream_tasks.fetch(name, progress=progress)
        except upstream_tasks.UpstreamError as exc:
            raise CommandError(f"{exc}\nNothing was imported.")
        finally:
            bar.close()
        self.stdout.write(
            f"{name}: {fetched.downloaded} file(s) downloaded, {fetched.cached} already cached, checksums verified"
        )
        return fetched
