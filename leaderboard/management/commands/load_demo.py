"""``manage.py load_demo``: load what the demo site shows (reported figures, the demo suite, the two scripted
demo runs, a four-try run assembled from them, demo human labels on the recorded runs' verdicts, the demo's
rubric errata with one run left on the superseded rubric, and Michael's session suite with a proactive and a
reactive scripted run on it) and optionally a staff account; safe to run again, a second run changes nothing."""

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from harness.results import BundleError, read_results
from harness.tasks.sessions import load_sessions
from leaderboard.models import Model, Run, Suite
from trajectories.judging import rescoring
from trajectories.models import HumanLabel, Judgment
from trajectories.recording.ingest import IngestError, IngestReport, all_or_nothing, ingest_bundle

SEEDING = Path(settings.BASE_DIR) / "seeding"
DEMO_SUITE_FILE = SEEDING / "demo_suite.json"
# Rubric fixes to the demo suite (reason, source, the items' changed fields), applied after the demo runs are
# judged on the rubrics as first written; the run named here is left on the superseded rubric, so the
# leaderboard flags it and the maintainers' re-judge has work; the other demo runs get their verdicts
# carried over, as that re-judge would.
DEMO_ERRATA_FILE = SEEDING / "demo_errata.json"
# Michael's personal sessions (requests with hidden intents; docs/sessions.md): a suite of their own, played
# by two scripted demo agents (seeding/session_demo.py, recorded into seeding/demo_sessions/).
SESSIONS_FILE = SEEDING / "sessions" / "michael.json"
DEMO_SESSIONS_DIR = SEEDING / "demo_sessions"
DEMO_RESULTS_DIR = SEEDING / "demo_results"
DEMO_HASTY_RESULTS_DIR = SEEDING / "demo_results_hasty"
DEMO_SUITE_NAME = "MyPCBench demo"
DEMO_SUITE_VERSION = "demo-1"
DEMO_RUN_NAME = "Scripted demo agent"
DEMO_MODEL_NAME = "Scripted demo agent"
DEMO_HASTY_RUN_NAME = "Scripted demo agent (hasty plan)"
DEMO_RUN_NOTES = (
    "Recorded by seeding/record_demo.py: a fixed script (no model) clicking through static demo pages served "
    "locally. Its rubric verdicts were written with the script, not by an LLM judge. It calls no model, so its "
    "cost is recorded as $0.00. For showing the site only."
)
DEMO_HASTY_RUN_NOTES = (
    "Recorded by seeding/record_demo.py with its hasty plans: a fixed script (no model) that stops after a partial "
    "look at static demo pages served locally. Its rubric verdicts were written with the script, not by an LLM "
    "judge. It calls no model, so its cost is recorded as $0.00. For showing the site only (a second run to "
    "compare with; one of its turns names the benchmark's repository, to show a contamination flag)."
)


DEMO_REPEATED_RUN_NAME = "Scripted demo agent (four tries, mixed plans)"
DEMO_REPEATED_ATTEMPTS = 4
DEMO_REPEATED_RUN_NOTES = (
    "Four tries at every demo task, assembled from the two recordings of seeding/record_demo.py: try a of the "
    "task in suite position i replays the hasty plan's recording when i + a is divisible by 3, else the full "
    "plan's. A fixed schedule, not a model, and not independent tries: it is here so the site's consistency "
    "figures (all k perfect, best of k, flaky tasks) have several attempts to show. Verdicts as recorded; "
    "no model is called, so its cost is recorded as $0.00."
)


def repeated_plan(position: int, attempt: int) -> str:
    """Which recording try ``attempt`` (1-based) of the task at suite ``position`` (1-based) replays:
    "hasty" when position + attempt is divisible by 3, else "full"."""
    return "hasty" if (position + attempt) % 3 == 0 else "full"


@dataclass(frozen=True)
class DemoRun:
    """One published scripted demo run: its result folder, run and model names (the model is a plan, not a model)."""

    folder: Path
    run_name: str
    model_name: str
    model_slug: str
    notes: str


DEMO_RUNS = [
    DemoRun(DEMO_RESULTS_DIR, DEMO_RUN_NAME, DEMO_MODEL_NAME, "scripted-demo-agent", DEMO_RUN_NOTES),
    DemoRun(
        DEMO_HASTY_RESULTS_DIR,
        DEMO_HASTY_RUN_NAME,
        DEMO_HASTY_RUN_NAME,
        "scripted-demo-agent-hasty-plan",
        DEMO_HASTY_RUN_NOTES,
    ),
]


SESSION_RUN_NOTES = (
    "Recorded by seeding/session_demo.py: a fixed script (no model) playing Michael's sessions with the rule-based "
    "simulated user on the fake guest. {what} Its checklist verdicts were written with the script (every item "
    "satisfied once every intent was settled), not by a judge. It calls no model, so its cost is recorded as $0.00. "
    "For showing the site only."
)
DEMO_SESSION_RUNS = [
    DemoRun(
        DEMO_SESSIONS_DIR / "proactive",
        "Scripted proactive demo agent (sessions)",
        "Scripted proactive demo agent",
        "scripted-proactive-demo-agent",
        SESSION_RUN_NOTES.format(
            what="It acts at once on what Michael's profile and earlier sessions say he wants and asks one focused "
            "question about the rest."
        ),
    ),
    DemoRun(
        DEMO_SESSIONS_DIR / "reactive",
        "Scripted reactive demo agent (sessions)",
        "Scripted reactive demo agent",
        "scripted-reactive-demo-agent",
        SESSION_RUN_NOTES.format(
            what="It does only what the request literally says and waits for Michael to spell out everything else."
        ),
    ),
]


def load_demo(stdout=None, verbosity=1):
    """Load the demo data; returns the demo runs. Each step is itself idempotent, so this is too."""
    quiet = {"verbosity": verbosity, "stdout": stdout} if stdout is not None else {"verbosity": verbosity}
    for path in (DEMO_SUITE_FILE, SESSIONS_FILE, *(demo.folder for demo in (*DEMO_RUNS, *DEMO_SESSION_RUNS))):
        if not path.exists():
            raise CommandError(f"{path}: not found (expected the demo content shipped in seeding/)")

    call_command("load_reported", **quiet)
    errata = read_demo_errata()
    # The first load imports the rubrics as first written and fixes them once the runs are judged on them;
    # later loads import the fixed suite, so an erratum never swings back.
    first_load = not Suite.objects.filter(name=DEMO_SUITE_NAME, version=DEMO_SUITE_VERSION).exists()
    _import_demo_suite(None if first_load else errata, quiet)
    call_command("import_tasks", str(SESSIONS_FILE), **quiet)
    suite = Suite.objects.get(name=DEMO_SUITE_NAME, version=DEMO_SUITE_VERSION)
    if not suite.is_demo:
        suite.is_demo = True
        suite.save(update_fields=["is_demo", "updated_at"])

    runs = [_load_demo_run(demo, suite, quiet, stdout) for demo in DEMO_RUNS]
    runs.append(_load_repeated_run(suite, quiet))
    if first_load:
        _import_demo_suite(errata, quiet)
    carry_demo_verdicts(runs)
    # after the carry, so the verdicts on the fixed rubric are labelled as well as those they replaced
    label_demo_verdicts(runs[: len(DEMO_RUNS)])
    sessions = load_sessions(SESSIONS_FILE)
    session_suite = Suite.objects.get(name=sessions.suite, version=sessions.suite_version)
    runs += [_load_demo_run(demo, session_suite, quiet, stdout) for demo in DEMO_SESSION_RUNS]
    _ensure_staff_user(stdout)
    return runs


def read_demo_errata() -> list[dict]:
    """The fixes of seeding/demo_errata.json: task, reason, source and items ({rubric id: changed fields})."""
    try:
        errata = json.loads(DEMO_ERRATA_FILE.read_text(encoding="utf-8"))["errata"]
    except (OSError, ValueError, KeyError) as exc:
        raise CommandError(f"{DEMO_ERRATA_FILE}: cannot be read ({exc})") from exc
    return errata


def fixed_demo_tasks(errata: list[dict]) -> list[dict]:
    """The demo suite's tasks with ``errata`` applied: each fixed task's rubric items changed as its
    erratum says (items named by id, R1 the first) and its "erratum" note (reason, source) added, which
    import_tasks records with the new rubric version."""
    tasks = json.loads(DEMO_SUITE_FILE.read_text(encoding="utf-8"))
    by_id = {task["id"]: task for task in tasks}
    for erratum in errata:
        task = by_id.get(erratum["task"])
        if task is None:
            raise CommandError(f"{DEMO_ERRATA_FILE}: no demo task {erratum['task']!r}")
        items = task["grading"]["rubrics"]
        ids = [str(item.get("id") or f"R{i + 1}") for i, item in enumerate(items)]
        for rubric_id, fields in erratum["items"].items():
            if rubric_id not in ids:
                raise CommandError(f"{DEMO_ERRATA_FILE}: task {task['id']} has no rubric item {rubric_id}")
            items[ids.index(rubric_id)].update(fields)
        task["erratum"] = {"reason": erratum["reason"], "source": erratum.get("source", "")}
    return tasks


def _import_demo_suite(errata: list[dict] | None, quiet: dict) -> None:
    """Import the demo suite as first written (``errata`` None) or with ``errata`` applied."""
    with tempfile.TemporaryDirectory(prefix="demo-suite-") as tmp:
        path = DEMO_SUITE_FILE
        if errata is not None:
            path = Path(tmp) / DEMO_SUITE_FILE.name
            path.write_text(json.dumps(fixed_demo_tasks(errata), indent=1, ensure_ascii=False), encoding="utf-8")
        call_command(
            "import_tasks",
            str(path),
            "--suite",
            DEMO_SUITE_NAME,
            "--suite-version",
            DEMO_SUITE_VERSION,
            "--demo",
            **quiet,
        )


def carry_demo_verdicts(runs: list[Run]) -> int:
    """Carry the verdicts the demo's errata leave standing (items only reweighted or moved) onto the fixed
    rubrics for every demo run but the hasty one, which stays on the superseded rubric for the leaderboard
    to flag and maintainers to re-judge. Idempotent; the verdicts carried."""
    carried = 0
    for run in runs:
        if run.name == DEMO_HASTY_RUN_NAME:
            continue
        for plan in rescoring.superseded_plans(run):
            if not plan.judge_again:  # a reworded item needs a judge: the run stays flagged
                carried += rescoring.carry_over(plan)
    return carried


def _load_demo_run(demo: DemoRun, suite: Suite, quiet: dict, stdout) -> Run:
    """Import one scripted run unless it exists; an existing one gets the tasks it lacks (a database loaded
    before those plans were recorded) and its labels put back."""
    # Created before the import so that import_results reuses it instead of guessing a provider from the name.
    model, _ = Model.objects.get_or_create(
        name=demo.model_name,
        defaults={"slug": demo.model_slug, "provider": Model.Provider.SCRIPTED, "family": "scripted demo"},
    )
    if model.provider != Model.Provider.SCRIPTED:
        model.provider = Model.Provider.SCRIPTED
        model.save(update_fields=["provider"])

    if not Run.objects.filter(name=demo.run_name).exists():
        call_command(
            "import_results",
            str(demo.folder),
            "--run",
            demo.run_name,
            "--model",
            demo.model_name,
            "--suite",
            suite.slug,
            "--publish",
            **quiet,
        )
    run = Run.objects.get(name=demo.run_name)
    added = _add_missing_tasks(run, demo.folder)
    _record_no_cost(run)
    if added and stdout is not None:
        stdout.write(f"Added {added} demo trajectories to run {run.slug!r} (tasks it did not have yet).")
    wanted = {
        "agent_type": "scripted-demo",
        "tool_surface": Run.ToolSurface.SCRIPTED,
        "notes": demo.notes,
    }
    changed = [k for k, v in wanted.items() if getattr(run, k) != v]
    if changed:
        for k in changed:
            setattr(run, k, wanted[k])
        run.save(update_fields=changed)
    return run


def _load_repeated_run(suite: Suite, quiet: dict) -> Run:
    """Import the four-try demo run unless it exists: attempt_<a>/<task> folders copied from the full or the
    hasty recording by :func:`repeated_plan`, then imported like any result folder with several attempts."""
    model, _ = Model.objects.get_or_create(
        name=DEMO_MODEL_NAME,
        defaults={"slug": "scripted-demo-agent", "provider": Model.Provider.SCRIPTED, "family": "scripted demo"},
    )
    if not Run.objects.filter(name=DEMO_REPEATED_RUN_NAME).exists():
        recordings = {"full": DEMO_RESULTS_DIR, "hasty": DEMO_HASTY_RESULTS_DIR}
        positions = dict(suite.tasks.values_list("task_id", "position"))
        with tempfile.TemporaryDirectory(prefix="demo-repeated-") as tmp:
            for task_id in sorted(positions):
                for attempt in range(1, DEMO_REPEATED_ATTEMPTS + 1):
                    source = recordings[repeated_plan(positions[task_id], attempt)] / task_id
                    if not source.is_dir():
                        raise CommandError(f"{source}: not found (expected the demo recording of task {task_id})")
                    shutil.copytree(source, Path(tmp) / f"attempt_{attempt}" / task_id)
            call_command(
                "import_results",
                tmp,
                "--run",
                DEMO_REPEATED_RUN_NAME,
                "--model",
                model.name,
                "--suite",
                suite.slug,
                "--publish",
                **quiet,
            )
    run = Run.objects.get(name=DEMO_REPEATED_RUN_NAME)
    _record_no_cost(run)
    wanted = {"agent_type": "scripted-demo", "tool_surface": Run.ToolSurface.SCRIPTED, "notes": DEMO_REPEATED_RUN_NOTES}
    changed = [k for k, v in wanted.items() if getattr(run, k) != v]
    if changed:
        for k in changed:
            setattr(run, k, wanted[k])
        run.save(update_fields=changed)
    return run


DEMO_LABEL_NOTE = (
    "Demo label written by load_demo, not a person's check: it is here so the judge pages and the leaderboard's "
    "mark have labels to show. {why}"
)
DEMO_LABEL_EVERY = 2  # label every other verdict of the two recorded runs; the rest stay in the labelling queue
DEMO_LABEL_OPPOSITE_EVERY = 5  # every fifth demo label says the opposite of the judge, so kappa is not 1


def label_demo_verdicts(runs: list[Run]) -> int:
    """Give the demo's judge human labels, unless its runs have some already: of the success/failure
    verdicts of ``runs`` (the two recorded runs) in run, task and rubric order, every DEMO_LABEL_EVERY-th
    is labelled, agreeing with the judge except every DEMO_LABEL_OPPOSITE_EVERY-th label, which says the
    opposite. No labeller; the note says they are demo labels. Returns labels written."""
    judgments = Judgment.objects.filter(trajectory__run__in=runs, verdict__in=["success", "failure"])
    if HumanLabel.objects.filter(judgment__in=judgments).exists():
        return 0
    ordered = judgments.order_by("trajectory__run__name", "trajectory__task__position", "rubric_item__position", "pk")
    chosen = list(ordered.values_list("pk", "verdict"))[::DEMO_LABEL_EVERY]
    opposite = {"success": "failure", "failure": "success"}
    labels = []
    for n, (pk, verdict) in enumerate(chosen, start=1):
        flip = n % DEMO_LABEL_OPPOSITE_EVERY == 0
        why = "This one says the opposite of the judge on purpose." if flip else "It agrees with the judge."
        labels.append(
            HumanLabel(
                judgment_id=pk, verdict=opposite[verdict] if flip else verdict, note=DEMO_LABEL_NOTE.format(why=why)
            )
        )
    HumanLabel.objects.bulk_create(labels)
    return len(labels)


def _record_no_cost(run: Run) -> None:
    """A scripted run calls no model: its trajectories cost nothing, recorded as $0 (not unknown), so the
    leaderboard's cost column and cost frontier have the demo's runs to show."""
    run.trajectories.filter(cost_usd__isnull=True).update(cost_usd=0)


def _add_missing_tasks(run: Run, folder: Path) -> int:
    """Ingest the task folders of ``folder`` that ``run`` has no trajectory for, all or nothing."""
    have = set(run.trajectories.values_list("task__task_id", flat=True))
    try:
        tree = read_results(folder)
    except BundleError as exc:
        raise CommandError(str(exc)) from exc
    missing = [b for b in tree.bundles if b.task_id not in have]
    if not missing:
        return 0
    tasks = {t.task_id: t for t in run.suite.tasks.filter(task_id__in=[b.task_id for b in missing])}
    report = IngestReport()
    try:
        with all_or_nothing() as written:
            for bundle in sorted(missing, key=lambda b: b.task_id):
                if bundle.task_id not in tasks:
                    raise IngestError(
                        f"{bundle.path}: task id {bundle.task_id!r} is not a task of suite {run.suite.slug!r}"
                    )
                ingest_bundle(run, bundle, task=tasks[bundle.task_id], written=written, report=report)
    except (IngestError, BundleError, OSError) as exc:
        raise CommandError(str(exc)) from exc
    return len(missing)


def _ensure_staff_user(stdout):
    """Create a superuser from DJANGO_SUPERUSER_USERNAME / _PASSWORD when both are set and it does not exist yet.

    An existing account is left alone, so re-running never resets a password someone changed.
    """
    username = os.environ.get("DJANGO_SUPERUSER_USERNAME", "").strip()
    password = os.environ.get("DJANGO_SUPERUSER_PASSWORD", "")
    if not username or not password:
        return None
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        with transaction.atomic():
            user = User.objects.create_superuser(
                username=username, email=os.environ.get("DJANGO_SUPERUSER_EMAIL", ""), password=password
            )
        if stdout is not None:
            stdout.write(f"Created staff account {username!r}.")
    return user


class Command(BaseCommand):
    help = (
        "Load the demo: the reported MyPCBench figures, the demo suite (seeding/demo_suite.json), the two "
        "scripted demo runs (seeding/demo_results, seeding/demo_results_hasty) and a four-try run assembled from "
        "them (so consistency over attempts shows), Michael's session suite with a proactive and a reactive "
        "scripted run on it (seeding/demo_sessions), published, with demo labels on half the recorded runs' "
        "verdicts (so the judge pages show agreement) and the rubric fixes of seeding/demo_errata.json (the hasty "
        "run left judged on the superseded rubric, so the leaderboard flags it); an existing demo run "
        "gets the demo tasks it lacks. Creates a superuser from "
        "DJANGO_SUPERUSER_USERNAME / DJANGO_SUPERUSER_PASSWORD when both are set. Running it again changes nothing."
    )

    def handle(self, *args, **options):
        runs = load_demo(stdout=self.stdout, verbosity=options["verbosity"])
        described = ", ".join(f"{run.slug} ({run.trajectories.count()} trajectories)" for run in runs)
        self.stdout.write(self.style.SUCCESS(f"Demo ready: suite {runs[0].suite.slug}, runs {described}."))
