"""Checking an author's upload before anything is stored: the metadata form, the unpacked tree
(formats, task ids, step numbers, screenshots, JSON files) and replay suspicions, each problem
named with its file, in plain words."""

import difflib
import hashlib
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import cast
from urllib.parse import urlparse

from django.conf import settings

from harness.results import BundleError, TrajectoryBundle, classify, find_task_dirs, pace, printable, read_task_dir
from harness.safejson import JSONRefused, loads
from leaderboard.models import Run, Suite, Task
from trajectories.models import Step, Trajectory
from trajectories.recording.ingest import (
    IngestError,
    ScreenshotCache,
    row_bound_problems,
)

logger = logging.getLogger(__name__)

ERROR, WARNING, NOTE = "error", "warning", "note"
METADATA_FIELDS = (
    "suite",
    "model",
    "agent",
    "tool_surface",
    "turn_budget",
    "harness_version",
    "image_version",
    "notes",
    "links",
)
MAX_TURN_BUDGET = 1000


# ---------------------------------------------------------------- report and errors


@dataclass
class Problem:
    """One line of a validation report: which file, what is wrong, in plain words. File names come
    from the upload, so control and bidirectional characters in both fields are shown as escapes
    (an RTL override cannot make a refusal read differently from what was uploaded)."""

    file: str
    problem: str
    level: str = ERROR

    def __post_init__(self):
        self.file = printable(self.file)
        self.problem = printable(self.problem)

    def as_dict(self) -> dict:
        return asdict(self)


class SubmissionRejected(ValueError):
    """An upload refused before anything was stored; ``report`` lists every problem found."""

    status_code = 422

    def __init__(self, report: list[Problem], retry_after: int | None = None):
        self.report = report
        self.retry_after = retry_after  # seconds, for a Retry-After header (rate limits)
        errors = [p for p in report if p.level == ERROR]
        lines = [f"{p.file}: {p.problem}" if p.file else p.problem for p in errors]
        super().__init__(f"upload refused, {len(errors)} problem(s): " + "; ".join(lines[:20]))

    @property
    def report_dicts(self) -> list[dict]:
        return [p.as_dict() for p in self.report]


class SubmissionLimited(SubmissionRejected):
    status_code = 429


class SubmissionConflict(SubmissionRejected):
    status_code = 409


# ---------------------------------------------------------------- metadata


@dataclass
class SubmissionMetadata:
    suite: Suite
    model: str
    agent: str = ""
    tool_surface: str = Run.ToolSurface.COMPUTER_BASH
    turn_budget: int = 100
    harness_version: str = ""
    image_version: str = ""
    notes: str = ""
    links: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["suite"] = self.suite.slug
        return data


def _short_text(data: dict, name: str, problems: list, limit: int, required: bool = False) -> str:
    value = data.get(name, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        problems.append(Problem("metadata", f"{name}: is {value!r} (expected text)"))
        return ""
    value = value.strip()
    if required and not value:
        problems.append(Problem("metadata", f"{name}: missing (expected {_EXPECTED[name]})"))
    if len(value) > limit:
        problems.append(Problem("metadata", f"{name}: {len(value)} characters (expected at most {limit})"))
    return value


_EXPECTED = {
    "model": "the model's name, e.g. 'Claude Opus 4.6'",
    "suite": "the slug of the suite the tasks belong to",
}


def _links(raw: dict, problems: list[Problem]) -> list:
    """The metadata's links (a list, or one address a line), each checked as an http(s) address."""
    links = raw.get("links") or []
    if isinstance(links, str):
        links = [line.strip() for line in links.splitlines() if line.strip()]
    if not isinstance(links, list) or len(links) > 10:
        problems.append(Problem("metadata", "links: expected a list of at most 10 http(s) addresses"))
        links = []
    for link in links:
        parsed = urlparse(link) if isinstance(link, str) else None
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.netloc or len(link) > 500:
            problems.append(Problem("metadata", f"links: {link!r} (expected an http:// or https:// address)"))
    return links


def parse_metadata(raw) -> tuple[SubmissionMetadata | None, list[Problem]]:
    """Run metadata from the form or the API's JSON; every bad field is reported, not just the first."""
    problems: list[Problem] = []
    if isinstance(raw, str | bytes):
        try:
            raw = loads(raw or "{}")
        except JSONRefused as exc:
            where = f" at line {exc.line} column {exc.column}" if exc.line is not None else ""
            return None, [Problem("metadata", exc.problem + where)]
    if not isinstance(raw, dict):
        return None, [Problem("metadata", f"is a JSON {type(raw).__name__} (expected an object)")]
    unknown = sorted(set(raw) - set(METADATA_FIELDS))
    if unknown:
        problems.append(
            Problem("metadata", f"unknown field(s) {', '.join(unknown)} (expected: {', '.join(METADATA_FIELDS)})")
        )
    model = _short_text(raw, "model", problems, 100, required=True)
    agent = _short_text(raw, "agent", problems, 50)
    harness_version = _short_text(raw, "harness_version", problems, 50)
    image_version = _short_text(raw, "image_version", problems, 100)
    notes = _short_text(raw, "notes", problems, 5000)

    surface = raw.get("tool_surface") or Run.ToolSurface.COMPUTER_BASH
    if surface not in Run.ToolSurface.values:
        problems.append(
            Problem("metadata", f"tool_surface: {surface!r} (expected one of {', '.join(Run.ToolSurface.values)})")
        )
    budget = raw.get("turn_budget", 100)
    if isinstance(budget, str) and budget.strip().isdigit():
        budget = int(budget)
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_TURN_BUDGET:
        problems.append(
            Problem("metadata", f"turn_budget: {budget!r} (expected a whole number 1 to {MAX_TURN_BUDGET})")
        )
        budget = 100

    links = _links(raw, problems)

    suite = None
    slug = raw.get("suite")
    suites = Suite.objects.order_by("slug")
    if slug:
        suite = suites.filter(slug=slug).first() if isinstance(slug, str) else None
        if suite is None:
            known = ", ".join(s.slug for s in suites) or "none yet"
            problems.append(Problem("metadata", f"suite: no suite {slug!r} (known suites: {known})"))
    else:
        benchmark = [s for s in suites if not s.is_demo]
        if len(benchmark) == 1:
            suite = benchmark[0]
        else:
            known = ", ".join(s.slug for s in suites) or "none yet"
            problems.append(Problem("metadata", f"suite: missing (expected one of: {known})"))
    if problems:
        return None, problems
    return (
        SubmissionMetadata(
            suite=cast(Suite, suite),  # found: no problems above
            model=model,
            agent=agent,
            tool_surface=surface,
            turn_budget=budget,
            harness_version=harness_version,
            image_version=image_version,
            notes=notes,
            links=list(links),
        ),
        [],
    )


# ---------------------------------------------------------------- validation


def upload_pixel_budget() -> int:
    """Decoded pixels one upload's distinct screenshots may add up to (MYPCBENCH_UPLOAD_MAX_PIXELS).
    Each image is already capped by size; this caps their sum, which the byte limits do not: a PNG
    of flat colour is tiny on disk however many pixels it decodes to. The default, 8 pixels per
    byte of the archive size limit (about 8.6 billion for 1 GiB), is what that limit holds of real
    screenshots with room to spare (the benchmark's 1280x800 screens average 4 to 5 pixels per PNG
    byte, bench/bench_player.py): a full pass of 184 tasks at 30 such screens each is 5.7 billion.
    PNG decoding runs at about 30 million pixels a second on a busy CPU, so the budget is at worst
    some five minutes, what an honest upload of that size costs; it refuses what the bytes could
    not honestly hold, such as 184 tasks x 3 attempts x 100 steps at 1920x1080 (114 billion)."""
    return int(getattr(settings, "MYPCBENCH_UPLOAD_MAX_PIXELS", 8 * 1024**3))


@dataclass
class Validation:
    bundles: list[TrajectoryBundle] = field(default_factory=list)
    tasks: dict[str, Task] = field(default_factory=dict)
    report: list[Problem] = field(default_factory=list)
    # every distinct screenshot decoded once, here; the ingest reuses what was learnt
    screenshots: ScreenshotCache = field(default_factory=lambda: ScreenshotCache(upload_pixel_budget()))

    @property
    def ok(self) -> bool:
        return not any(p.level == ERROR for p in self.report)


def relative_text(text: str, root: Path) -> str:
    """Messages name files as they are in the archive, not where we unpacked it."""
    for prefix in (str(root.resolve()), str(root)):
        text = text.replace(prefix + "/", "").replace(prefix, ".")
    return text


def relative_path(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _bundle_problem(exc: BundleError, root: Path) -> str:
    text = (f"line {exc.line}: " if exc.line is not None else "") + (f"{exc.field}: " if exc.field else "")
    text += exc.problem + (f" (expected {exc.expected})" if exc.expected else "")
    return relative_text(text, root)


def validate_tree(root: Path, meta: SubmissionMetadata) -> Validation:
    """Check every task folder under ``root``: readable in a known layout, a task of the chosen
    suite, consistent step numbers within the declared budget, real screenshots, valid JSON."""
    result = Validation()
    report = result.report
    task_dirs = find_task_dirs(root)
    if not task_dirs:
        report.append(
            Problem(
                "",
                "no task folders found (expected folders holding traj.jsonl and step screenshots, "
                "e.g. retrieval-f016/traj.jsonl, or an OSWorld results tree)",
            )
        )
        return result

    files_with_errors: set[str] = set()
    seen: dict[tuple[str, int], str] = {}  # (task id, attempt) -> its folder
    for task_dir in task_dirs:
        rel_dir = relative_path(task_dir, root)
        try:
            # The suite's kind says how result.txt reads (an OSWorld score or a "finished" marker).
            folder = classify(relative_path(task_dir, root), layout=meta.suite.kind, root_name=root.name)
            bundle = read_task_dir(task_dir, turn_budget=meta.turn_budget, folder=folder)
        except BundleError as exc:
            rel_file = relative_path(Path(exc.path), root)
            files_with_errors.add(rel_file)
            report.append(Problem(rel_file, _bundle_problem(exc, root)))
            continue
        key = (bundle.task_id, bundle.attempt)
        if key in seen:
            report.append(
                Problem(
                    rel_dir,
                    f"task {bundle.task_id!r} attempt {bundle.attempt} appears twice: in {seen[key]} and in {rel_dir} "
                    f"(expected each attempt once; put repeated attempts in {bundle.task_id}/attempt_<n>/ folders)",
                )
            )
            continue
        seen[key] = rel_dir
        result.bundles.append(bundle)
        for gap in bundle.gaps:  # an upload must carry every screenshot it names
            report.append(Problem(f"{rel_dir}/traj.jsonl", relative_text(f"{gap.where}: {gap.problem}", root)))
        for warning in bundle.warnings:
            report.append(Problem(rel_dir, relative_text(warning, root), WARNING))

    task_ids = sorted({task_id for task_id, _attempt in seen})
    known = {t.task_id: t for t in Task.objects.filter(suite=meta.suite, task_id__in=task_ids)}
    for bundle in result.bundles:
        rel_dir = relative_path(bundle.path, root)
        if bundle.task_id not in known:
            report.append(
                Problem(
                    rel_dir,
                    f"task id {bundle.task_id!r} (the folder name) is not a task of suite {meta.suite.slug!r} "
                    f"(expected one of its {meta.suite.tasks.count()} task ids, e.g. "
                    f"{', '.join(meta.suite.tasks.values_list('task_id', flat=True)[:3]) or 'none'})",
                )
            )
        else:
            result.tasks[bundle.task_id] = known[bundle.task_id]
        _check_steps(bundle, rel_dir, meta.turn_budget, report)
        bounds = row_bound_problems(bundle)
        for path, problem in bounds:
            files_with_errors.add(relative_path(path, root))
            report.append(Problem(relative_path(path, root), problem))
        if not bounds:  # rows over the bounds are not worth decoding
            _check_screenshots(bundle, root, report, files_with_errors, result.screenshots)
    _check_json_files(root, report, files_with_errors)
    return result


def _check_steps(bundle: TrajectoryBundle, rel_dir: str, budget: int, report: list[Problem]) -> None:
    traj = f"{rel_dir}/traj.jsonl"
    if not bundle.steps:
        report.append(Problem(traj, "holds no steps (expected one JSON line per action)"))
        return
    previous = None
    for step in bundle.steps:
        if previous is not None and step.turn < previous:
            report.append(
                Problem(
                    traj,
                    f"step {step.index}: step_num {step.turn} comes after step_num {previous} "
                    "(expected step numbers that never go back)",
                )
            )
            break
        previous = step.turn
    over = [s for s in bundle.steps if s.turn > budget]
    if over:
        report.append(
            Problem(
                traj,
                f"step {over[0].index}: step_num {over[0].turn} is beyond the declared turn budget of {budget} "
                f"({len(over)} step(s) over; expected step numbers up to {budget})",
            )
        )
    if bundle.n_turns > budget:
        report.append(Problem(traj, f"{bundle.n_turns} model turns, more than the declared turn budget of {budget}"))


def _check_screenshots(
    bundle: TrajectoryBundle, root: Path, report: list[Problem], bad: set[str], screenshots: ScreenshotCache
) -> None:
    """Each screenshot file once, and each distinct image decoded once in the whole upload; the
    first screenshot over the pixel budget is reported and the rest are not decoded."""
    checked: set[Path] = set()
    for step in bundle.steps:
        if screenshots.over_budget:
            return
        if step.screenshot is None or step.screenshot in checked:
            continue
        checked.add(step.screenshot)
        rel = relative_path(step.screenshot, root)
        try:
            screenshots.inspect(step.screenshot.read_bytes(), rel)
        except IngestError as exc:
            bad.add(rel)
            report.append(Problem(rel, str(exc).removeprefix(rel + ": ")))
        pace()  # a worker held to a share of a CPU rests here (harness/results/pacing.py)


def _check_json_files(root: Path, report: list[Problem], already: set[str]) -> None:
    """Every JSON file, including ones no reader looks at, must at least parse."""
    for path in sorted(root.rglob("*.json*")):
        rel = relative_path(path, root)
        if path.suffix not in (".json", ".jsonl") or not path.is_file() or rel in already:
            continue
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            report.append(Problem(rel, f"not UTF-8 text ({exc.reason} at byte {exc.start})"))
            continue
        lines = enumerate(text.splitlines(), start=1) if path.suffix == ".jsonl" else [(None, text)]
        for line_no, chunk in lines:
            if not chunk.strip() and line_no is not None:
                continue
            try:
                loads(chunk)
            except JSONRefused as exc:
                # a .jsonl row's own line number, else the position inside the whole file
                where = f"line {line_no if line_no is not None else exc.line}"
                if line_no is None and exc.line is None:
                    report.append(Problem(rel, exc.problem))
                else:
                    column = f" at column {exc.column}" if exc.column is not None else ""
                    report.append(Problem(rel, f"{where}: {exc.problem}{column}"))
                break


# ---------------------------------------------------------------- replay suspicion


REPLAY_SIMILARITY = 0.9
REPLAY_MIN_STEPS = 5
REPLAY_GRID_PX = 20  # coordinates rounded to this grid: a replay moves clicks by a pixel or two


def action_signature(action: dict) -> str:
    """One step as a short token: the action type, its rounded coordinates, its typed text."""
    kind = action.get("type", "other") if isinstance(action, dict) else "other"
    parts = [str(kind)]
    for key in ("x", "y"):
        value = action.get(key) if isinstance(action, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            parts.append(str(round(value / REPLAY_GRID_PX)))
    for key in ("text", "keys", "key"):
        value = action.get(key) if isinstance(action, dict) else None
        if value:
            parts.append(" ".join(str(value).split()).lower()[:80])
    return ":".join(parts)


def replay_suspicions(bundles: list[TrajectoryBundle], tasks: dict[str, Task]) -> list[Problem]:
    """Action sequences near-identical to a stored trajectory of the same task in another run;
    the evidence (run, attempt, similarity, length) goes to the maintainers."""
    found: list[Problem] = []
    candidates = [b for b in bundles if b.task_id in tasks and len(b.steps) >= REPLAY_MIN_STEPS]
    if not candidates:
        return found
    others: dict[int, list[str]] = {}
    meta: dict[int, Trajectory] = {}
    trajectories = Trajectory.objects.filter(task__in=[tasks[b.task_id] for b in candidates]).select_related(
        "run", "task"
    )
    for t in trajectories:
        meta[t.pk] = t
        others[t.pk] = []
    for trajectory_id, action in (
        Step.objects.filter(trajectory_id__in=list(meta))
        .order_by("trajectory_id", "index")
        .values_list("trajectory_id", "action")
    ):
        others[trajectory_id].append(action_signature(action or {}))
    for bundle in candidates:
        mine = [action_signature(s.action) for s in bundle.steps]
        for pk, theirs in others.items():
            other = meta[pk]
            if other.task.task_id != bundle.task_id or not theirs:
                continue
            matcher = difflib.SequenceMatcher(a=mine, b=theirs, autojunk=False)
            if matcher.real_quick_ratio() < REPLAY_SIMILARITY or matcher.quick_ratio() < REPLAY_SIMILARITY:
                continue
            similarity = matcher.ratio()
            if similarity >= REPLAY_SIMILARITY:
                found.append(
                    Problem(
                        bundle.task_id,
                        f"replay suspicion: its {len(mine)} actions are {similarity:.0%} identical (rounded to "
                        f"{REPLAY_GRID_PX} px) to run {other.run.slug!r} attempt {other.attempt} "
                        f"({len(theirs)} actions, {other.run.get_provenance_display().lower()})",
                        WARNING,
                    )
                )
    return found


def identical_attempts(bundles: list[TrajectoryBundle]) -> list[Problem]:
    """Repeated attempts of one task whose action sequences are byte-identical: independent
    rollouts of a sampling model almost never repeat every action exactly, a replay does."""
    found: list[Problem] = []
    by_task: dict[str, dict[str, list[int]]] = {}
    lengths: dict[str, int] = {}
    for bundle in sorted(bundles, key=lambda b: (b.task_id, b.attempt)):
        if len(bundle.steps) < REPLAY_MIN_STEPS:
            continue
        lines = "\n".join(step.action_text for step in bundle.steps).encode()
        digest = hashlib.sha256(lines).hexdigest()
        by_task.setdefault(bundle.task_id, {}).setdefault(digest, []).append(bundle.attempt)
        lengths[digest] = len(bundle.steps)
    for task_id, groups in by_task.items():
        for digest, attempts in groups.items():
            if len(attempts) < 2:
                continue
            found.append(
                Problem(
                    task_id,
                    f"replay suspicion: attempts {', '.join(map(str, attempts))} of {task_id} have byte-identical "
                    f"action sequences ({lengths[digest]} actions each, sha256 {digest[:12]}); independent "
                    "attempts are expected to differ",
                    WARNING,
                )
            )
    return found
