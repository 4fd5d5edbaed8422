"""The one ingest path for trajectories: imported result folders, the harness (step by step while a
run is live) and author uploads. Validates screenshots (each distinct image decoded once per import),
stores them untouched under their content hash (identical bytes share one file), and writes
trajectories, steps and judgments all-or-nothing (no partial rows, no orphan files)."""

import hashlib
import io
import logging
import warnings
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from pathlib import Path
from typing import cast

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, transaction
from django.db.models import Q
from django.utils import timezone
from PIL import Image, UnidentifiedImageError

from harness.results import (
    StepRecord,
    TrajectoryBundle,
    pace,
    usage_by_kind,
)
from leaderboard.models import JudgeConfig, RubricItem, Run, Task
from mypcbench_site.outages import STORAGE_UNAVAILABLE
from trajectories.models import Judgment, Step, Trajectory
from trajectories.recording import action_counts, contamination
from trajectories.recording.after_finish import judge_on_finish, request_derivatives, request_judging
from trajectories.recording.rubric_versions import imported_judge, record_rubric_drift, rubric_version_for, same_entries
from trajectories.recording.sessions import store_session
from trajectories.recording.state_checks import store_state_checks

logger = logging.getLogger(__name__)

SCREENSHOT_FORMATS = {"PNG": ".png", "JPEG": ".jpg", "WEBP": ".webp"}
MAX_SCREENSHOT_BYTES = 25 * 1024 * 1024
MIN_SCREENSHOT_SIDE = 16
MAX_SCREENSHOT_SIDE = 8192
# traj.jsonl rows sharing one step_num are the actions of one model turn (upstream agents send a
# handful, rarely a dozen); the turn budget bounds turns, this bounds the rows within each.
MAX_ROWS_PER_STEP = 50
# Recorders write one file per row; a few rows naming one file is tolerated (an exporter repeating
# the screen for a wait), more is a way to multiply the cost of one image.
MAX_ROWS_PER_SCREENSHOT = 5
SCREENSHOT_FOLDER = "screenshots"


class IngestError(ValueError):
    """Input the ingest path refuses; the message names the file or field and what was expected."""


@dataclass
class IngestReport:
    """What an ingest wrote and what it noticed, for the summary shown to whoever imported."""

    trajectories: int = 0
    steps: int = 0
    screenshots: int = 0
    judgments: int = 0
    judges: set = field(default_factory=set)
    warnings: list = field(default_factory=list)
    judge_errors: list = field(default_factory=list)
    new_rubric_versions: list = field(default_factory=list)
    tasks: set = field(default_factory=set)
    attempts: int = 0  # attempts per task (the most any task has)
    missing_screenshots: int = 0
    rubric_drift: list = field(default_factory=list)  # tasks graded on a rubric that differs from the suite's
    # screenshots checked so far in this import (each distinct image decoded once), and its pixel budget
    screenshot_cache: "ScreenshotCache" = field(default_factory=lambda: ScreenshotCache())


class WrittenFiles:
    """Names of media files written during one ingest, so a failure can remove them all."""

    def __init__(self):
        self.names: list[str] = []

    def add(self, name: str) -> None:
        self.names.append(name)

    def delete_since(self, start: int = 0) -> None:
        delete_unused(reversed(self.names[start:]))
        del self.names[start:]


def delete_unused(names) -> list[str]:
    """Delete each media file no Step names any more (screenshots and derivatives are stored by
    content hash, so one file may serve steps of other trajectories); return the names deleted.
    A file the database or the store cannot answer about now is kept and logged: a stray file beats
    a lost one, and ``manage.py sweep_media`` removes strays once both answer."""
    deleted = []
    for name in dict.fromkeys(names):
        try:
            used = Step.objects.filter(reduce(or_, (Q(**{column: name}) for column in Step.MEDIA_FIELDS))).exists()
        except DatabaseError:  # cannot tell (the connection is gone)
            logger.warning("media file %s kept: could not check whether a step still shows it", name)
            continue
        if name and not used:
            try:
                default_storage.delete(name)
            except STORAGE_UNAVAILABLE as exc:
                logger.warning("media file %s kept: the media store did not answer (%s)", name, exc)
                continue
            deleted.append(name)
    return deleted


@contextmanager
def all_or_nothing(written: WrittenFiles | None = None):
    """One database transaction whose failure also deletes the media files written inside it.
    Nest freely: pass the outer WrittenFiles down so the outermost failure cleans up everything."""
    written = written if written is not None else WrittenFiles()
    start = len(written.names)
    try:
        with transaction.atomic():
            yield written
    except BaseException:
        try:
            written.delete_since(start)
        except Exception:  # the cleanup's own failure never hides why the ingest failed
            logger.exception("cleaning up the media files of a failed ingest failed")
        raise


# ---------------------------------------------------------------- screenshots


@dataclass(frozen=True)
class ImageInfo:
    sha256: str
    width: int
    height: int
    format: str

    @property
    def extension(self) -> str:
        return SCREENSHOT_FORMATS[self.format]


class PixelBudgetExceeded(IngestError):
    """The screenshots of one upload would decode to more pixels than its budget allows."""


def inspect_screenshot(data: bytes, name: str, *, charge=None) -> ImageInfo:
    """Check that ``data`` is a PNG, JPEG or WebP image of sane size that decodes completely.
    ``name`` is used in the error message. ``charge(width, height, name)``, when given, is called
    once the header is read and before the pixels are decoded (a pixel budget refuses there)."""
    if not data:
        raise IngestError(f"{name}: empty file (expected a PNG, JPEG or WebP screenshot)")
    if len(data) > MAX_SCREENSHOT_BYTES:
        raise IngestError(f"{name}: {len(data)} bytes, larger than the {MAX_SCREENSHOT_BYTES}-byte screenshot limit")
    try:
        with warnings.catch_warnings():
            # Pillow only warns between MAX_IMAGE_PIXELS and twice that; treat the warning as refusal.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=list(SCREENSHOT_FORMATS)) as image:
                fmt, (width, height) = image.format, image.size
                _check_size(width, height, name)
                if charge is not None:
                    charge(width, height, name)
                image.verify()  # chunk checksums and structure; the pixels are decoded below, once
            with Image.open(io.BytesIO(data), formats=list(SCREENSHOT_FORMATS)) as image:
                image.load()
    except IngestError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise IngestError(f"{name}: refused as a decompression bomb ({exc})")
    except UnidentifiedImageError:
        raise IngestError(f"{name}: not an image (expected a PNG, JPEG or WebP screenshot)")
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise IngestError(f"{name}: damaged or truncated image ({exc}) (expected a complete PNG, JPEG or WebP)")
    # opened with formats=SCREENSHOT_FORMATS, so Pillow named the format
    return ImageInfo(sha256=hashlib.sha256(data).hexdigest(), width=width, height=height, format=cast(str, fmt))


class ScreenshotCache:
    """The screenshots one import or upload has checked, by content hash: each distinct image is
    decoded once however many rows, files or trajectories carry it, and (with ``max_pixels``) the
    pixels decoded over the whole import are held to a budget."""

    def __init__(self, max_pixels: int | None = None):
        self.max_pixels = max_pixels
        self.pixels = 0  # decoded so far
        self.decoded = 0  # distinct images decoded
        self.over_budget = False  # an image was refused for the budget: the rest need not be read
        self._seen: dict[str, ImageInfo | str] = {}  # sha256 -> info, or the problem it had

    def _charge(self, width: int, height: int, name: str) -> None:
        if self.max_pixels is not None and self.pixels + width * height > self.max_pixels:
            self.over_budget = True
            raise PixelBudgetExceeded(
                f"{name}: its {width}x{height} pixels would bring the screenshots of this upload to "
                f"{self.pixels + width * height:,} decoded pixels, over the budget of {self.max_pixels:,} pixels "
                "per upload (expected fewer or smaller screenshots; split a large run into several uploads)"
            )
        self.pixels += width * height
        self.decoded += 1

    def inspect(self, data: bytes, name: str) -> ImageInfo:
        """inspect_screenshot, decoding only bytes not seen before; a problem found earlier is
        raised again under this ``name``."""
        digest = hashlib.sha256(data).hexdigest()
        known = self._seen.get(digest)
        if isinstance(known, ImageInfo):
            return known
        if isinstance(known, str):
            raise IngestError(f"{name}: {known}")
        try:
            info = inspect_screenshot(data, name, charge=self._charge)
        except PixelBudgetExceeded:
            raise  # the image may be fine, only the total is over: not remembered against it
        except IngestError as exc:
            self._seen[digest] = str(exc).removeprefix(f"{name}: ")
            raise
        self._seen[digest] = info
        return info


def _check_size(width: int, height: int, name: str) -> None:
    if width * height > cast(int, Image.MAX_IMAGE_PIXELS):  # Pillow's limit, never switched off here
        raise IngestError(f"{name}: {width}x{height} pixels exceeds the {Image.MAX_IMAGE_PIXELS}-pixel limit")
    for side, value in (("width", width), ("height", height)):
        if not MIN_SCREENSHOT_SIDE <= value <= MAX_SCREENSHOT_SIDE:
            raise IngestError(f"{name}: {side} {value} px (expected {MIN_SCREENSHOT_SIDE} to {MAX_SCREENSHOT_SIDE} px)")


def row_bound_problems(bundle: TrajectoryBundle) -> list[tuple[Path, str]]:
    """(file, problem) for each bound the rows of ``bundle`` break: more than MAX_ROWS_PER_STEP rows
    sharing one step_num, or more than MAX_ROWS_PER_SCREENSHOT rows naming one screenshot file."""
    traj = bundle.path / "traj.jsonl"
    problems: list[tuple[Path, str]] = []
    by_turn: dict[int, list[int]] = defaultdict(list)
    by_file: dict[Path, list[int]] = defaultdict(list)
    for step in bundle.steps:
        by_turn[step.turn].append(step.index)
        if step.screenshot is not None:
            by_file[step.screenshot].append(step.index)
    for turn, rows in by_turn.items():
        if len(rows) > MAX_ROWS_PER_STEP:
            problems.append(
                (
                    traj,
                    f"{len(rows)} rows have step_num {turn} (rows {_some(rows)}; expected at most "
                    f"{MAX_ROWS_PER_STEP} rows, the actions of one model turn, per step number)",
                )
            )
    for path, rows in by_file.items():
        if len(rows) > MAX_ROWS_PER_SCREENSHOT:
            problems.append(
                (
                    path,
                    f"named as the screenshot of {len(rows)} rows of traj.jsonl (rows {_some(rows)}; "
                    f"expected each screenshot file named by at most {MAX_ROWS_PER_SCREENSHOT} rows)",
                )
            )
    return problems


def _some(numbers: list[int], shown: int = 5) -> str:
    text = ", ".join(map(str, numbers[:shown]))
    return text + (f" and {len(numbers) - shown} more" if len(numbers) > shown else "")


def screenshot_storage_name(info: ImageInfo) -> str:
    """Where a screenshot is stored: named by its content hash, so identical bytes share one file
    and the name says nothing guessable (no run, task or user)."""
    return f"{SCREENSHOT_FOLDER}/{info.sha256[:2]}/{info.sha256}{info.extension}"


def store_screenshot(data: bytes, info: ImageInfo, written: "WrittenFiles") -> str:
    """Save ``data`` under its content-addressed name unless a file is already there; only a file
    written now is recorded in ``written`` (a failure then never removes a file others use)."""
    name = screenshot_storage_name(info)
    # a file cut short by a crash mid-write is not reused; the new copy then gets a name of its own
    if default_storage.exists(name) and default_storage.size(name) == len(data):
        return name
    saved = default_storage.save(name, ContentFile(data))
    written.add(saved)
    return saved


# ---------------------------------------------------------------- step by step


def start_trajectory(
    run: Run,
    task: Task,
    attempt: int = 0,
    *,
    world_variant: int = 0,
    layout: str = "",
    source_path: str = "",
    content_hash: str = "",
    status: str = Trajectory.Status.RUNNING,
) -> Trajectory:
    if Trajectory.objects.filter(run=run, task=task, attempt=attempt).exists():
        raise IngestError(
            f"run {run.slug!r} already has attempt {attempt} of task {task.task_id!r} "
            "(expected a new attempt number or a new run)"
        )
    return Trajectory.objects.create(
        run=run,
        task=task,
        attempt=attempt,
        world_variant=world_variant,
        status=status,
        source_layout=layout,
        source_path=source_path,
        content_hash=content_hash,
    )


def add_step(
    trajectory: Trajectory,
    record: StepRecord,
    screenshot: bytes | None = None,
    *,
    screenshot_name: str = "",
    written: WrittenFiles | None = None,
    screenshots: ScreenshotCache | None = None,
) -> Step:
    """Record one step; its screenshot (if any) is validated (once per distinct image within
    ``screenshots``), then stored byte for byte under its content hash. Give ``written`` to have a
    newly stored file removed if the surrounding ingest fails."""
    step = Step(
        trajectory=trajectory,
        index=record.index,
        turn=record.turn,
        tool=record.tool,
        action=record.action,
        action_text=record.action_text,
        model_text=record.model_text,
        tool_output=record.tool_output,
        done=record.done,
        info=record.info,
        timestamp=_aware(record.timestamp),
    )
    if record.screenshot_gap:
        step.info = {**step.info, "screenshot_missing": record.screenshot_gap}
    if screenshot is not None:
        label = screenshot_name or (str(record.screenshot) if record.screenshot else f"step {record.index}")
        info = (screenshots or ScreenshotCache()).inspect(screenshot, label)
        with all_or_nothing(written) as files:
            step.screenshot.name = store_screenshot(screenshot, info, files)
            step.screenshot_sha256 = info.sha256
            step.screenshot_width = info.width
            step.screenshot_height = info.height
            step.save()
    else:
        step.save()
    return step


def finish_trajectory(
    trajectory: Trajectory,
    *,
    ended_by: str,
    final_answer: str = "",
    error: str = "",
    usage: dict | None = None,
    status: str = Trajectory.Status.FINISHED,
) -> Trajectory:
    """Close a trajectory: counts (steps, turns, steps per action kind), timings and tokens from
    what was recorded, the contamination scan; media derivatives are requested once the surrounding
    transaction commits."""
    steps = trajectory.steps.all()
    trajectory.n_steps = steps.count()
    trajectory.action_counts = action_counts.counts_by_trajectory(steps).get(trajectory.pk, {})
    trajectory.n_turns = steps.values("turn").distinct().count()
    times = [t for t in steps.values_list("timestamp", flat=True) if t is not None]
    if times:
        trajectory.started_at, trajectory.finished_at = min(times), max(times)
    trajectory.status = status
    trajectory.ended_by = ended_by
    trajectory.final_answer = final_answer
    trajectory.error = error
    trajectory.usage = usage or {}
    if usage:
        # Every counter summed by kind; input counts everything the model read, cached or not.
        kinds = usage_by_kind(usage)
        trajectory.usage = {**usage, "by_kind": kinds}
        trajectory.input_tokens = kinds["input"]
        trajectory.output_tokens = kinds["output"]
        trajectory.cached_tokens = kinds["cache_read"]
    else:
        trajectory.input_tokens = trajectory.output_tokens = trajectory.cached_tokens = None
    trajectory.save()
    contamination.record_scan(trajectory)  # hits shown as flags on the run and submission pages
    pk = trajectory.pk
    transaction.on_commit(lambda: request_derivatives(pk))
    if judge_on_finish():
        transaction.on_commit(lambda: request_judging(pk))
    return trajectory


def record_judgments(
    trajectory: Trajectory, judge: JudgeConfig, items: dict[int, RubricItem], verdicts: list
) -> list[Judgment]:
    """One Judgment per verdict, pointing at the rubric item version (by position) it judged."""
    rows = []
    for verdict in verdicts:
        item = items.get(verdict.position)
        if item is None:
            raise IngestError(f"{trajectory}: a verdict for rubric position {verdict.position}, which has no item")
        rows.append(
            Judgment(
                trajectory=trajectory,
                rubric_item=item,
                judge=judge,
                verdict=verdict.verdict,
                explanation=verdict.reasoning,
                # only steps that exist: a judge may mention a number that is not a step
                cited_steps=[n for n in verdict.cited_steps if 1 <= n <= trajectory.n_steps],
            )
        )
    return Judgment.objects.bulk_create(rows)


def _aware(moment):
    if moment is None or timezone.is_aware(moment):
        return moment
    return timezone.make_aware(moment, timezone.get_default_timezone())


# ---------------------------------------------------------------- a whole bundle


def ingest_bundle(
    run: Run,
    bundle: TrajectoryBundle,
    *,
    task: Task | None = None,
    written: WrittenFiles | None = None,
    report: IngestReport | None = None,
    source_path: str = "",
) -> Trajectory:
    """Store one bundle (steps, screenshots, the source's own judgments) as a trajectory of ``run``.
    ``task`` defaults to the task of the run's suite named by the bundle. ``source_path`` is where it
    came from as the public may see it (a folder name, never a server path; default the folder's name).
    Screenshots already seen by ``report.screenshot_cache`` (earlier bundles of the same import, or
    an upload's validation) are not decoded again."""
    report = report if report is not None else IngestReport()
    bounds = row_bound_problems(bundle)
    if bounds:
        raise IngestError("; ".join(f"{path}: {problem}" for path, problem in bounds))
    if task is None:
        task = Task.objects.filter(suite=run.suite, task_id=bundle.task_id).first()
        if task is None:
            raise IngestError(
                f"{bundle.path}: task id {bundle.task_id!r} is not a task of suite {run.suite.slug!r} "
                "(expected one of its task ids)"
            )
    with all_or_nothing(written) as files:
        trajectory = start_trajectory(
            run,
            task,
            bundle.attempt,
            world_variant=bundle.world_variant,
            layout=bundle.layout,
            source_path=source_path or bundle.path.name,
            content_hash=bundle.traj_sha256,
        )
        for record in bundle.steps:
            data = record.screenshot.read_bytes() if record.screenshot is not None else None
            add_step(
                trajectory,
                record,
                data,
                screenshot_name=str(record.screenshot) if record.screenshot is not None else "",
                written=files,
                screenshots=report.screenshot_cache,
            )
            report.steps += 1
            report.screenshots += data is not None
            report.missing_screenshots += bool(record.screenshot_gap)
            pace()  # a worker held to a share of a CPU rests here (harness/results/pacing.py)
        finish_trajectory(
            trajectory,
            ended_by=bundle.ended_by,
            final_answer=bundle.final_answer,
            error=bundle.error,
            usage=bundle.usage,
        )
        if bundle.session is not None:
            store_session(trajectory, bundle.session)
        record_rubric_drift(run, task, bundle, report)
        _record_imported_judges(trajectory, task, bundle, report)
        report.warnings.extend(store_state_checks(trajectory, bundle.state_checks)[1])
    report.trajectories += 1
    report.tasks.add(task.task_id)
    report.attempts = max(report.attempts, bundle.attempt + 1)
    report.warnings.extend(bundle.warnings)
    return trajectory


def _record_imported_judges(trajectory: Trajectory, task: Task, bundle: TrajectoryBundle, report: IngestReport):
    for record in bundle.judges:
        if record.error:
            report.judge_errors.append(f"{bundle.path / record.source_file}: {record.error}")
            continue
        judge = imported_judge(record)
        report.judges.add(judge.name)
        if record.verdicts:
            if bundle.rubric is not None and not same_entries(bundle.rubric, record.rubric):
                report.warnings.append(
                    f"{bundle.path / record.source_file}: its rubric differs from rubric_bundle.json; "
                    "judgments point at the rubric the judge states"
                )
            items = rubric_version_for(task, record.rubric, report, trajectory.run)
            report.judgments += len(record_judgments(trajectory, judge, items, record.verdicts))
        if record.score is not None and trajectory.imported_score is None:
            trajectory.imported_score = record.score
            trajectory.imported_score_judge = judge
            trajectory.save(update_fields=["imported_score", "imported_score_judge", "updated_at"])
