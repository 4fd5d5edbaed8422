"""Author submissions: an uploaded archive is checked hard (archive limits, formats, task ids,
step numbers, screenshots) before anything is stored, then ingested through the one ingest path
as a draft run; maintainers approve, reject or ask for changes, and every decision is logged."""

import difflib
import hashlib
import json
import logging
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.text import slugify

from harness.archive import ArchiveError, ArchiveLimits, extract_archive
from harness.bundle import BundleError, JudgeRecord, TrajectoryBundle, find_task_dirs, read_task_dir
from harness.layouts import classify
from leaderboard.badges import OUR_JUDGING_KEY, VERIFIED_KEY, badge_of, our_judging
from leaderboard.models import JudgeConfig, Model, Run, Suite, Task
from trajectories import judging, ratelimits
from trajectories.ingest import (
    IngestError,
    IngestReport,
    all_or_nothing,
    ingest_bundle,
    inspect_screenshot,
    record_judgments,
    rubric_version_for,
)
from trajectories.judging import request_run_judging
from trajectories.models import Judgment, Step, Submission, Trajectory

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
    """One line of a validation report: which file, what is wrong, in plain words."""

    file: str
    problem: str
    level: str = ERROR

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


class ReviewError(ValueError):
    """A status change that does not apply to the submission as it stands."""


@dataclass
class SubmitResult:
    submission: Submission
    created: bool


# ---------------------------------------------------------------- settings


def upload_limits() -> ArchiveLimits:
    return ArchiveLimits(**getattr(settings, "MYPCBENCH_UPLOAD_LIMITS", {}))


def upload_tmp_dir() -> Path:
    folder = Path(getattr(settings, "MYPCBENCH_UPLOAD_TMP_DIR", Path(settings.VAR_DIR) / "upload-tmp"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def check_upload_rate(user) -> None:
    """Count this upload attempt and refuse (429) when ``user`` is over the attempts limit
    (MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW, accepted or refused, per clock window) or already has
    the maximum of accepted uploads in the sliding window (MYPCBENCH_UPLOADS_PER_WINDOW), both per
    MYPCBENCH_RATE_WINDOW_SECONDS; the message names the limit and when it resets."""

    def uploaded_since(since):
        return (
            Submission.objects.filter(author=user, created_at__gte=since)
            .order_by("created_at")
            .values_list("created_at", flat=True)
        )

    try:
        ratelimits.count_upload_attempt(user)
        ratelimits.check_uploads(user, uploaded_since)
    except ratelimits.RateLimited as exc:
        raise SubmissionLimited([Problem("", str(exc))], retry_after=exc.retry_after) from exc


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


def parse_metadata(raw) -> tuple[SubmissionMetadata | None, list[Problem]]:
    """Run metadata from the form or the API's JSON; every bad field is reported, not just the first."""
    problems: list[Problem] = []
    if isinstance(raw, str | bytes):
        try:
            raw = json.loads(raw or "{}")
        except json.JSONDecodeError as exc:
            return None, [Problem("metadata", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")]
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
            suite=suite,
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


@dataclass
class Validation:
    bundles: list[TrajectoryBundle] = field(default_factory=list)
    tasks: dict[str, Task] = field(default_factory=dict)
    report: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(p.level == ERROR for p in self.report)


def _relative(text: str, root: Path) -> str:
    """Messages name files as they are in the archive, not where we unpacked it."""
    for prefix in (str(root.resolve()), str(root)):
        text = text.replace(prefix + "/", "").replace(prefix, ".")
    return text


def _rel(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _bundle_problem(exc: BundleError, root: Path) -> str:
    text = (f"line {exc.line}: " if exc.line is not None else "") + (f"{exc.field}: " if exc.field else "")
    text += exc.problem + (f" (expected {exc.expected})" if exc.expected else "")
    return _relative(text, root)


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
    seen: dict[str, str] = {}
    for task_dir in task_dirs:
        rel_dir = _rel(task_dir, root)
        try:
            # The suite's kind says how result.txt reads (an OSWorld score or a "finished" marker).
            folder = classify(_rel(task_dir, root), layout=meta.suite.kind, root_name=root.name)
            bundle = read_task_dir(task_dir, turn_budget=meta.turn_budget, folder=folder)
        except BundleError as exc:
            rel_file = _rel(Path(exc.path), root)
            files_with_errors.add(rel_file)
            report.append(Problem(rel_file, _bundle_problem(exc, root)))
            continue
        _read_attempt(bundle, task_dir)
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
            report.append(Problem(f"{rel_dir}/traj.jsonl", _relative(f"{gap.where}: {gap.problem}", root)))
        for warning in bundle.warnings:
            report.append(Problem(rel_dir, _relative(warning, root), WARNING))

    task_ids = sorted({task_id for task_id, _attempt in seen})
    known = {t.task_id: t for t in Task.objects.filter(suite=meta.suite, task_id__in=task_ids)}
    for bundle in result.bundles:
        rel_dir = _rel(bundle.path, root)
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
        _check_screenshots(bundle, root, report, files_with_errors)
    _check_json_files(root, report, files_with_errors)
    return result


ATTEMPT_FOLDER = re.compile(r"attempt[_-]?(\d{1,4})")


def _read_attempt(bundle: TrajectoryBundle, task_dir: Path) -> None:
    """Repeated attempts of one task sit in <task_id>/attempt_<n>/ folders: the task id is then the
    parent folder's name and the attempt index n (a plain <task_id>/ folder is attempt 0)."""
    match = ATTEMPT_FOLDER.fullmatch(task_dir.name)
    if match is None:
        return
    bundle.task_id = task_dir.parent.name
    bundle.attempt = int(match.group(1))
    # the reader compared task.id with the attempt folder's name; the task folder is one level up
    bundle.warnings = [
        w for w in bundle.warnings if not (f"but the folder is named {task_dir.name!r}" in w and bundle.task_id in w)
    ]


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


def _check_screenshots(bundle: TrajectoryBundle, root: Path, report: list[Problem], bad: set[str]) -> None:
    for step in bundle.steps:
        if step.screenshot is None:
            continue
        rel = _rel(step.screenshot, root)
        try:
            inspect_screenshot(step.screenshot.read_bytes(), rel)
        except IngestError as exc:
            bad.add(rel)
            report.append(Problem(rel, str(exc).removeprefix(rel + ": ")))


def _check_json_files(root: Path, report: list[Problem], already: set[str]) -> None:
    """Every JSON file, including ones no reader looks at, must at least parse."""
    for path in sorted(root.rglob("*.json*")):
        rel = _rel(path, root)
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
                json.loads(chunk)
            except json.JSONDecodeError as exc:
                where = f"line {line_no if line_no is not None else exc.lineno}"
                report.append(Problem(rel, f"{where}: not valid JSON: {exc.msg} at column {exc.colno}"))
                break


# ---------------------------------------------------------------- replay suspicion


REPLAY_SIMILARITY = 0.9
REPLAY_MIN_STEPS = 5
REPLAY_GRID_PX = 20  # coordinates rounded to this grid: a replay moves clicks by a pixel or two


def action_signature(action: dict, action_text: str = "") -> str:
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
    for trajectory_id, action, text in (
        Step.objects.filter(trajectory_id__in=list(meta))
        .order_by("trajectory_id", "index")
        .values_list("trajectory_id", "action", "action_text")
    ):
        others[trajectory_id].append(action_signature(action or {}, text))
    for bundle in candidates:
        mine = [action_signature(s.action, s.action_text) for s in bundle.steps]
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


# ---------------------------------------------------------------- submit


def _save_upload(upload, target: Path, limits: ArchiveLimits) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with open(target, "wb") as out:
        for chunk in upload.chunks() if hasattr(upload, "chunks") else iter(lambda: upload.read(1 << 20), b""):
            size += len(chunk)
            if size > limits.max_archive_bytes:
                raise SubmissionRejected(
                    [
                        Problem(
                            _archive_name(upload),
                            f"more than {limits.max_archive_bytes} bytes (expected an archive of at most "
                            f"{limits.max_archive_bytes} bytes; split large runs into several submissions)",
                        )
                    ]
                )
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest(), size


def _archive_name(upload) -> str:
    return Path(getattr(upload, "name", "") or "upload").name[:300]


def submit_archive(author, upload, metadata) -> SubmitResult:
    """Validate ``upload`` (a zip or tar.gz file object) with ``metadata`` and, only if everything
    passes, store it as a draft run of provenance "upload" with a Submission. The same archive
    uploaded again returns the existing submission. Raises SubmissionRejected with the full
    report otherwise; then no rows, media files or temporary files remain. Every call counts as
    an attempt against the author's rate limit, before anything of the archive is read."""
    check_upload_rate(author)
    limits = upload_limits()
    name = _archive_name(upload)
    workdir = Path(tempfile.mkdtemp(prefix="submission-", dir=upload_tmp_dir()))
    try:
        archive_path = workdir / "archive"
        sha256, size = _save_upload(upload, archive_path, limits)
        existing = Submission.objects.filter(archive_sha256=sha256).first()
        if existing is not None:
            if existing.author_id == author.pk:
                return SubmitResult(existing, created=False)
            raise SubmissionConflict(
                [
                    Problem(
                        name, "this exact archive was already submitted from another account (expected your own data)"
                    )
                ]
            )
        meta, problems = parse_metadata(metadata)
        root = workdir / "files"
        try:
            extract_archive(archive_path, root, limits)
        except ArchiveError as exc:
            problems.append(
                Problem(exc.entry or name, str(exc).removeprefix(f"{exc.entry}: ") if exc.entry else str(exc))
            )
        if problems or meta is None:
            raise SubmissionRejected(problems)
        validation = validate_tree(root, meta)
        if not validation.ok:
            raise SubmissionRejected(validation.report)
        validation.report.extend(identical_attempts(validation.bundles))
        validation.report.extend(replay_suspicions(validation.bundles, validation.tasks))
        submission = _store(author, name, sha256, size, meta, validation, root, archive_path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    transaction.on_commit(lambda: queue_judging(submission.pk))
    return SubmitResult(submission, created=True)


def _model(name: str) -> Model:
    model = Model.objects.filter(name=name).first()
    if model is not None:
        return model
    lowered = name.lower()
    provider = next(
        (p for needle, p in (("claude", "anthropic"), ("gpt", "openai"), ("gemini", "google")) if needle in lowered),
        Model.Provider.OTHER,
    )
    return Model.objects.create(name=name, slug=_unique_slug(Model, name), provider=provider)


def _unique_slug(model_class, name: str) -> str:
    base = slugify(name)[:180] or "upload"
    slug, n = base, 2
    while model_class.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def self_reported_key(task_id: str, attempt: int) -> str:
    """Where a trajectory's self-reported score sits in the run's metadata."""
    return task_id if not attempt else f"{task_id}/attempt_{attempt}"


def self_reported_judge(author, record: JudgeRecord) -> JudgeConfig:
    """The author's own judge, labelled self-reported: shown, never used in scores."""
    model = record.model if record.model and record.model != "OSWorld evaluator" else ""
    name = f"self-reported by {author.get_username()}" + (f" ({model})" if model else "")
    judge, _ = JudgeConfig.objects.get_or_create(
        name=name[:200],
        defaults={
            "origin": JudgeConfig.Origin.SELF_REPORTED,
            "model": model[:100],
            "settings": {"source_file": record.source_file, **record.settings},
        },
    )
    return judge


ARCHIVE_FOLDER = "submissions"


def archive_storage_name(sha256: str, archive_path: Path) -> str:
    """Where the original archive is kept: named by its content hash, so one archive is one file."""
    with open(archive_path, "rb") as f:
        magic = f.read(4)
    ext = ".zip" if magic.startswith(b"PK") else ".tar.gz" if magic.startswith(b"\x1f\x8b") else ".bin"
    return f"{ARCHIVE_FOLDER}/{sha256[:2]}/{sha256}{ext}"


def _keep_archive(sha256: str, archive_path: Path, written) -> str:
    """Copy the uploaded archive into media storage (inside the ingest, so a failure removes it)."""
    name = archive_storage_name(sha256, archive_path)
    if not default_storage.exists(name):
        with open(archive_path, "rb") as f:
            saved = default_storage.save(name, File(f))
        written.add(saved)
        name = saved
    return name


def _store(
    author, name, sha256, size, meta: SubmissionMetadata, validation: Validation, root: Path, archive_path: Path
) -> Submission:
    report = IngestReport()
    self_reported: dict[str, float] = {}
    try:
        with all_or_nothing() as written:
            kept = _keep_archive(sha256, archive_path, written)
            run_name = f"{meta.model} (upload by {author.get_username()}, {timezone.now():%Y-%m-%d %H:%M})"
            run = Run.objects.create(
                name=run_name[:200],
                slug=_unique_slug(Run, run_name),
                suite=meta.suite,
                model=_model(meta.model),
                agent_type=meta.agent,
                tool_surface=meta.tool_surface,
                turn_budget=meta.turn_budget,
                image_tag=meta.image_version,
                harness_version=meta.harness_version,
                provenance=Run.Provenance.UPLOAD,
                publication=Run.Publication.DRAFT,
                status=Run.Status.FINISHED,
                launched_by=author,
                source=f"upload {name}",
                source_hash=sha256,
                notes=meta.notes,
                metadata={"links": meta.links, "submitted_by": author.get_username()},
                finished_at=timezone.now(),
            )
            bundles = sorted(validation.bundles, key=lambda b: (validation.tasks[b.task_id].position, b.attempt))
            for bundle in bundles:
                task = validation.tasks[bundle.task_id]
                own_judges, bundle.judges = bundle.judges, []
                trajectory = ingest_bundle(run, bundle, task=task, written=written, report=report)
                trajectory.source_path = f"{name}:{_rel(bundle.path, root)}"
                trajectory.save(update_fields=["source_path"])
                for record in own_judges:
                    if record.error:
                        continue
                    judge = self_reported_judge(author, record)
                    if record.verdicts:
                        items = rubric_version_for(task, record.rubric, report)
                        report.judgments += len(record_judgments(trajectory, judge, items, record.verdicts))
                    if record.score is not None:
                        self_reported.setdefault(self_reported_key(bundle.task_id, bundle.attempt), record.score)
            run.metadata["self_reported_scores"] = self_reported
            run.save(update_fields=["metadata"])
            problems = [p.as_dict() for p in validation.report]
            problems += [Problem("", _relative(w, root), NOTE).as_dict() for w in report.new_rubric_versions]
            problems.append(
                Problem(
                    "",
                    f"accepted: {report.trajectories} trajectories, {report.steps} steps, "
                    f"{report.screenshots} screenshots"
                    + (
                        f", {report.judgments} self-reported judgments (shown, never scored)"
                        if report.judgments
                        else ""
                    ),
                    NOTE,
                ).as_dict()
            )
            return Submission.objects.create(
                author=author,
                run=run,
                status=Submission.Status.AWAITING_REVIEW,
                archive_name=name,
                archive_sha256=sha256,
                archive_size=size,
                metadata={**meta.as_dict(), "archive_file": kept},
                validation_report=problems,
            )
    except IntegrityError:
        # The same archive committed by a concurrent request: that one wins.
        existing = Submission.objects.filter(archive_sha256=sha256).first()
        if existing is None:
            raise
        raise SubmissionConflict([Problem(name, f"already submitted as submission {existing.pk}")])
    except (IngestError, BundleError, OSError) as exc:
        raise SubmissionRejected([Problem("", _relative(str(exc), root))])


# ---------------------------------------------------------------- judging


def _now() -> str:
    return timezone.now().isoformat(timespec="seconds")


def _set_judging(submission: Submission, state: str, note: str) -> None:
    submission.metadata = {**submission.metadata, "judging": {"state": state, "note": note, "at": _now()}}


def queue_judging(submission_id: int) -> Submission | None:
    """Ask our judge to judge the submission's run, or leave a note saying why it is waiting. The
    upload is already stored: a judge that cannot start is a note for maintainers, never a failure."""
    submission = Submission.objects.select_related("run").filter(pk=submission_id).first()
    if submission is None or submission.run is None:
        return submission
    try:
        request_run_judging(submission.run.pk)
    except Exception as exc:  # e.g. no API key configured: keep the upload, say why it waits
        logger.warning("submission %s: judging not started: %s", submission.pk, exc)
        _set_judging(
            submission,
            "awaiting_judge",
            f"Not queued for judging: our judge could not start ({exc}). A maintainer can queue it again "
            "from the admin (Queue for our judge).",
        )
        submission.save(update_fields=["metadata", "updated_at"])
        return submission
    _set_judging(submission, "queued", "Queued for our judge.")
    try:
        submission.metadata["judging"]["judge"] = judging.judge_config_for(
            judging.build_judge(judging.JudgeSpec.from_settings())
        ).name
    except judging.JudgingError:  # the judge started a moment ago; progress then falls back to ours
        pass
    if submission.status in (Submission.Status.AWAITING_REVIEW, Submission.Status.VALIDATING):
        submission.status = Submission.Status.JUDGING
    submission.save(update_fields=["metadata", "status", "updated_at"])
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=submission.run_id)
        # the run's badge: "judging" until our judge is done; a run judged before keeps "re-judged"
        if our_judging(run.metadata).get("state") != "judged":
            run.metadata = {**(run.metadata or {}), OUR_JUDGING_KEY: {"state": "judging", "at": _now()}}
            run.save(update_fields=["metadata"])
            submission.run = run
    # an eager or very fast judge may already be done
    return sync_judging_status(submission)


def judging_state(submission: Submission) -> dict:
    return (submission.metadata or {}).get("judging") or {}


def our_judge_for(submission: Submission) -> JudgeConfig | None:
    """The judge configuration of ours judging this submission: the one recorded when judging was
    queued, else ours with the most judgments on the run."""
    run = submission.run
    if run is None:
        return None
    recorded = judging_state(submission).get("judge")
    if recorded:
        found = JudgeConfig.objects.filter(name=recorded, origin=JudgeConfig.Origin.OURS).first()
        if found is not None:
            return found
    return (
        JudgeConfig.objects.filter(origin=JudgeConfig.Origin.OURS, judgments__trajectory__run=run)
        .annotate(n=Count("judgments"))
        .order_by("-n", "name")
        .first()
    )


def judging_progress(submission: Submission) -> dict:
    """How far our judge has got: trajectories fully judged, items judged and in error (from
    judging.judging_progress), and whether every item now has a verdict or an error."""
    config = our_judge_for(submission)
    trajectories = submission.run.trajectories.count() if submission.run else 0
    if config is None:
        return {
            "judge": "",
            "trajectories": trajectories,
            "done": 0,
            "items": 0,
            "judged_items": 0,
            "error_items": 0,
            "complete": False,
            "percent": 0,
        }
    progress = judging.judging_progress(submission.run, config)
    answered = progress["judged_items"] + progress["error_items"]
    progress["judge"] = config.name
    progress["complete"] = bool(progress["items"]) and answered >= progress["items"]
    progress["percent"] = round(100 * min(answered, progress["items"]) / progress["items"]) if progress["items"] else 0
    return progress


def _judging_underway(submission: Submission) -> bool:
    """Whether our judge may still be working for this submission, so progress is worth reading."""
    return (
        submission.status == Submission.Status.JUDGING
        or judging_state(submission).get("state") == "queued"
        or our_judging(submission.run.metadata).get("state") != "judged"
    )


def sync_judging_status(submission: Submission) -> Submission:
    """Once our judge has answered every rubric item (items that ended in error are named in the
    note; a maintainer may queue again): the run records it, so its badge may say "re-judged", and a
    submission being judged moves to "awaiting review". Called after each judged trajectory of a
    submitted run and when the submission is looked at (page, progress poll, API)."""
    if submission.run_id is None or not _judging_underway(submission):
        return submission
    progress = judging_progress(submission)
    if not progress["complete"]:
        return submission
    with transaction.atomic():
        submission = Submission.objects.select_for_update(of=("self",)).select_related("run").get(pk=submission.pk)
        submission.run = run = Run.objects.select_for_update().get(pk=submission.run_id)
        if not _judging_underway(submission):
            return submission
        run.metadata = {
            **(run.metadata or {}),
            OUR_JUDGING_KEY: {
                "state": "judged",
                "judge": progress["judge"],
                "items": progress["items"],
                "judged_items": progress["judged_items"],
                "error_items": progress["error_items"],
                "at": _now(),
            },
        }
        run.save(update_fields=["metadata"])
        errors = progress["error_items"]
        note = f"Judged by {progress['judge']}: {progress['judged_items']} of {progress['items']} rubric items" + (
            f"; {errors} ended in error (an API error, never a failure; queue our judge again from the admin)"
            if errors
            else "."
        )
        _set_judging(submission, "judged", note)
        submission.metadata["judging"]["judge"] = progress["judge"]
        if submission.status == Submission.Status.JUDGING:
            submission.status = Submission.Status.AWAITING_REVIEW
        submission.save(update_fields=["metadata", "status", "updated_at"])
    return submission


def after_trajectory_judged(trajectory_id: int) -> None:
    """Hook for the judging task: the submission whose run holds this trajectory may be done."""
    submission = Submission.objects.select_related("run").filter(run__trajectories__pk=trajectory_id).first()
    if submission is not None:
        sync_judging_status(submission)


# ---------------------------------------------------------------- review


# What each decision may follow; anything else is refused with a message.
_ALLOWED = {
    "approve": {
        Submission.Status.JUDGING,
        Submission.Status.AWAITING_REVIEW,
        Submission.Status.CHANGES_REQUESTED,
        Submission.Status.REJECTED,
    },
    "reject": {
        Submission.Status.JUDGING,
        Submission.Status.AWAITING_REVIEW,
        Submission.Status.CHANGES_REQUESTED,
        Submission.Status.PUBLISHED,
    },
    "request_changes": {Submission.Status.JUDGING, Submission.Status.AWAITING_REVIEW, Submission.Status.PUBLISHED},
    "withdraw": {
        Submission.Status.JUDGING,
        Submission.Status.AWAITING_REVIEW,
        Submission.Status.CHANGES_REQUESTED,
        Submission.Status.PUBLISHED,
        Submission.Status.REJECTED,
    },
}
_RESULT = {
    "approve": (Submission.Status.PUBLISHED, Run.Publication.PUBLISHED),
    "reject": (Submission.Status.REJECTED, Run.Publication.DRAFT),
    "request_changes": (Submission.Status.CHANGES_REQUESTED, Run.Publication.DRAFT),
    "withdraw": (Submission.Status.WITHDRAWN, Run.Publication.WITHDRAWN),
}


_LABELS = {"approve": "approved", "reject": "rejected", "request_changes": "requested changes", "withdraw": "withdrew"}


def decide(submission: Submission, by, action: str, reason: str = "") -> Submission:
    """Apply a review decision (approve, reject, request_changes; withdraw by the author) and
    append who, when, what and why to the review log."""
    reason = (reason or "").strip()
    if action not in _ALLOWED:
        raise ReviewError(f"unknown decision {action!r} (expected one of {', '.join(_ALLOWED)})")
    if action in ("reject", "request_changes") and not reason:
        raise ReviewError(f"{action.replace('_', ' ')}: a reason is required (the author reads it)")
    with transaction.atomic():
        submission = Submission.objects.select_for_update(of=("self",)).select_related("run").get(pk=submission.pk)
        if submission.status not in _ALLOWED[action]:
            raise ReviewError(
                f"submission {submission.pk} is {submission.get_status_display().lower()}; "
                f"cannot {action.replace('_', ' ')} it"
            )
        if action == "approve" and submission.run is None:
            raise ReviewError(f"submission {submission.pk} has no run to publish")
        status, publication = _RESULT[action]
        entry = {
            "at": timezone.now().isoformat(timespec="seconds"),
            "by": by.get_username(),
            "action": action,
            "label": _LABELS[action],
            "from": submission.status,
            "to": status,
            "reason": reason,
        }
        submission.status = status
        submission.review_log = [*submission.review_log, entry]
        submission.save(update_fields=["status", "review_log", "updated_at"])
        if submission.run is not None and submission.run.publication != publication:
            submission.run.publication = publication
            submission.run.save(update_fields=["publication"])
    return submission


def mark_verified_by_rerun(submission: Submission, by, rerun_slug: str) -> Submission:
    """A maintainer reran the uploaded configuration with our harness and the numbers held: link
    the rerun (a harness run of the same suite) so the uploaded run carries the "verified" badge."""
    rerun_slug = (rerun_slug or "").strip()
    if not rerun_slug:
        raise ReviewError("mark verified: name the rerun (the slug of the harness run that reproduced it)")
    rerun = Run.objects.filter(slug=rerun_slug).first()
    if rerun is None:
        raise ReviewError(f"mark verified: no run with slug {rerun_slug!r} (expected the slug of our harness's rerun)")
    with transaction.atomic():
        submission = Submission.objects.select_for_update(of=("self",)).select_related("run").get(pk=submission.pk)
        run = submission.run
        if run is None:
            raise ReviewError(f"submission {submission.pk} has no run to verify")
        if rerun.provenance != Run.Provenance.HARNESS:
            raise ReviewError(
                f"mark verified: run {rerun.slug!r} is {rerun.get_provenance_display().lower()} "
                "(expected a run by our harness)"
            )
        if rerun.suite_id != run.suite_id:
            raise ReviewError(
                f"mark verified: run {rerun.slug!r} ran suite {rerun.suite} "
                f"(expected the submission's suite {run.suite})"
            )
        at = timezone.now().isoformat(timespec="seconds")
        run.metadata = {
            **(run.metadata or {}),
            VERIFIED_KEY: {"run": rerun.slug, "run_name": rerun.name, "by": by.get_username(), "at": at},
        }
        run.save(update_fields=["metadata"])
        entry = {
            "at": at,
            "by": by.get_username(),
            "action": "mark_verified",
            "label": f"marked verified by rerun {rerun.slug}",
            "from": submission.status,
            "to": submission.status,
            "reason": "",
        }
        submission.review_log = [*submission.review_log, entry]
        submission.save(update_fields=["review_log", "updated_at"])
    return submission


# ---------------------------------------------------------------- reading


def visible_submissions(user):
    """Staff see every submission; an author sees their own; anybody else none."""
    qs = Submission.objects.select_related("author", "run", "run__model", "run__suite")
    if not user.is_authenticated:
        return qs.none()
    if user.is_staff:
        return qs
    return qs.filter(author=user)


def submission_progress(submission: Submission) -> dict:
    """Trajectories, and how many our judge has judged, with their mean rubric score."""
    run = submission.run
    if run is None:
        return {"trajectories": 0, "judged": 0, "rows": []}
    trajectories = list(run.trajectories.select_related("task").order_by("task__position", "attempt"))
    ours = (
        Judgment.objects.filter(trajectory__run=run, judge__origin=JudgeConfig.Origin.OURS)
        .select_related("rubric_item")
        .order_by("trajectory_id")
    )
    by_trajectory: dict[int, list] = {}
    for judgment in ours:
        by_trajectory.setdefault(judgment.trajectory_id, []).append(judgment)
    own = {
        row["trajectory_id"]: row
        for row in Judgment.objects.filter(trajectory__run=run, judge__origin=JudgeConfig.Origin.SELF_REPORTED)
        .values("trajectory_id")
        .annotate(n=Count("id"), passed=Count("id", filter=Q(verdict="success")))
    }
    rows = []
    for t in trajectories:
        judged = by_trajectory.get(t.pk, [])
        scored = [j for j in judged if j.verdict != "error"]
        score = None
        if scored:
            total = sum(j.rubric_item.normalised_weight for j in scored) or 1.0
            score = sum(j.rubric_item.normalised_weight for j in scored if j.verdict == "success") / total
        self_row = own.get(t.pk)
        rows.append(
            {
                "trajectory": t,
                "judged": len(judged),
                "score": score,
                "self_reported": f"{self_row['passed']}/{self_row['n']}" if self_row else "",
                "self_reported_score": (run.metadata or {})
                .get("self_reported_scores", {})
                .get(self_reported_key(t.task.task_id, t.attempt)),
            }
        )
    return {
        "trajectories": len(trajectories),
        "judged": sum(1 for r in rows if r["judged"]),
        "rows": rows,
    }


def is_live(submission: Submission) -> bool:
    """Whether the submission page should keep asking for progress: validating or judging, or our
    judge queued and not done yet (a maintainer may approve before it finishes)."""
    return (
        submission.status in (Submission.Status.VALIDATING, Submission.Status.JUDGING)
        or judging_state(submission).get("state") == "queued"
    )


def score_text(score: float | None) -> str:
    """A rubric score as the submission page shows it (as Django's widthratio rounds it)."""
    return "" if score is None else f"{round(score * 100)}%"


def judging_note(submission: Submission, judge_progress: dict) -> str:
    """The judging note the submission page shows: "queued" turns into "being judged" once our
    judge's first answers are in."""
    state = judging_state(submission)
    if state.get("state") == "queued" and judge_progress["judged_items"] + judge_progress["error_items"]:
        return f"Being judged by {judge_progress['judge']}."
    return state.get("note", "")


def live_state(submission: Submission) -> dict:
    """What the submission page updates while it polls: status, the run's badge and publication,
    our judge's progress and each trajectory's score by our judge (plain JSON)."""
    progress = submission_progress(submission)
    judge_progress = judging_progress(submission)
    run = submission.run
    return {
        "id": submission.pk,
        "status": submission.status,
        "status_label": submission.get_status_display(),
        "live": is_live(submission),
        "judging": {
            "state": judging_state(submission).get("state", ""),
            "note": judging_note(submission, judge_progress),
        },
        "judge_progress": judge_progress,
        "trajectories": progress["trajectories"],
        "judged_trajectories": progress["judged"],
        "rows": [
            {
                "trajectory": r["trajectory"].pk,
                "task": r["trajectory"].task.task_id,
                "attempt": r["trajectory"].attempt,
                "judged_items": r["judged"],
                "score": None if r["score"] is None else round(r["score"], 4),
                "score_text": score_text(r["score"]),
            }
            for r in progress["rows"]
        ],
        "badge": badge_of(run).as_dict() if run else None,
        "published": bool(run and run.publication == Run.Publication.PUBLISHED),
    }
