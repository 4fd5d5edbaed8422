"""Author submissions: an uploaded archive is checked hard (archive limits, formats, task ids,
step numbers, screenshots: submissions/validation.py) before anything is stored, then ingested
through the one ingest path as a draft run of provenance "upload" with its Submission, and our
judge is asked for (submissions/review.py)."""

import hashlib
import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone

from harness.archive import ArchiveError, ArchiveLimits, extract_archive
from harness.bundle import BundleError, JudgeRecord
from leaderboard.catalog.slugs import create_with_free_slug
from leaderboard.models import JudgeConfig, Model, Run
from trajectories.models import Submission
from trajectories.recording.failure_signals import classify_unclassified
from trajectories.recording.ingest import (
    IngestError,
    IngestReport,
    all_or_nothing,
    ingest_bundle,
    record_judgments,
    rubric_version_for,
)
from trajectories.submissions import ratelimits
from trajectories.submissions.review import queue_judging, self_reported_key
from trajectories.submissions.validation import (
    NOTE,
    Problem,
    SubmissionConflict,
    SubmissionLimited,
    SubmissionMetadata,
    SubmissionRejected,
    Validation,
    identical_attempts,
    parse_metadata,
    relative_path,
    relative_text,
    replay_suspicions,
    validate_tree,
)

logger = logging.getLogger(__name__)


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
        existing = _already_submitted(author, name, sha256)
        if existing is not None:
            return SubmitResult(existing, created=False)
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
        result = _store(author, name, sha256, size, meta, validation, root, archive_path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if not result.created:  # a concurrent identical upload by this author was stored first
        return result
    submission = result.submission
    transaction.on_commit(lambda: queue_judging(submission.pk))
    return result


def _already_submitted(author, name: str, sha256: str) -> Submission | None:
    """The author's own submission of this exact archive, or None when there is none; the same
    archive from another account is refused without saying which submission holds it."""
    existing = Submission.objects.filter(archive_sha256=sha256).first()
    if existing is None or existing.author_id == author.pk:
        return existing
    raise SubmissionConflict(
        [Problem(name, "this exact archive was already submitted from another account (expected your own data)")]
    )


def _model(name: str) -> Model:
    model = Model.objects.filter(name=name).first()
    if model is not None:
        return model
    lowered = name.lower()
    provider = next(
        (p for needle, p in (("claude", "anthropic"), ("gpt", "openai"), ("gemini", "google")) if needle in lowered),
        Model.Provider.OTHER,
    )
    fields = {"name": name, "provider": provider}
    return create_with_free_slug(Model, name, "upload", lambda slug: {**fields, "slug": slug}, reuse_by_name=True)


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
) -> SubmitResult:
    report = IngestReport(screenshot_cache=validation.screenshots)  # nothing validated is decoded again
    self_reported: dict[str, float] = {}
    try:
        with all_or_nothing() as written:
            kept = _keep_archive(sha256, archive_path, written)
            run_name = f"{meta.model} (upload by {author.get_username()}, {timezone.now():%Y-%m-%d %H:%M})"
            run_fields = dict(
                name=run_name[:200],
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
            run = create_with_free_slug(Run, run_name, "upload", lambda slug: {**run_fields, "slug": slug})
            bundles = sorted(validation.bundles, key=lambda b: (validation.tasks[b.task_id].position, b.attempt))
            for bundle in bundles:
                task = validation.tasks[bundle.task_id]
                own_judges, bundle.judges = bundle.judges, []
                trajectory = ingest_bundle(run, bundle, task=task, written=written, report=report)
                trajectory.source_path = f"{name}:{relative_path(bundle.path, root)}"
                trajectory.save(update_fields=["source_path"])
                for record in own_judges:
                    if record.error:
                        continue
                    judge = self_reported_judge(author, record)
                    if record.verdicts:
                        items = rubric_version_for(task, record.rubric, report, run=run)
                        report.judgments += len(record_judgments(trajectory, judge, items, record.verdicts))
                    if record.score is not None:
                        self_reported.setdefault(self_reported_key(bundle.task_id, bundle.attempt), record.score)
            run.metadata["self_reported_scores"] = self_reported
            run.save(update_fields=["metadata"])
            classify_unclassified(run.trajectories.all())  # failure modes from deterministic signals
            problems = [p.as_dict() for p in validation.report]
            problems += [Problem("", relative_text(w, root), NOTE).as_dict() for w in report.new_rubric_versions]
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
            submission = Submission.objects.create(
                author=author,
                run=run,
                status=Submission.Status.AWAITING_REVIEW,
                archive_name=name,
                archive_sha256=sha256,
                archive_size=size,
                metadata={**meta.as_dict(), "archive_file": kept},
                validation_report=problems,
            )
            return SubmitResult(submission, created=True)
    except IntegrityError:
        # The same archive committed by a concurrent request: that one wins, and this author's
        # request answers with it (another author's duplicate is refused without naming it).
        existing = _already_submitted(author, name, sha256)
        if existing is None:
            raise
        return SubmitResult(existing, created=False)
    except (IngestError, BundleError, OSError) as exc:
        raise SubmissionRejected([Problem("", relative_text(str(exc), root))])
