"""Author submissions: an uploaded archive is checked hard (archive limits, formats, task ids,
step numbers, screenshots: submissions/validation.py) before anything is stored, then ingested
through the one ingest path as a draft run of provenance "upload" with its Submission, and our
judge is asked for (submissions/review.py).

Where the checking happens is MYPCBENCH_UPLOAD_VALIDATION: "web" (the web process checks and stores
the archive before it answers: submit_archive) or "worker" (the web process only receives it into
media storage with a Submission that is "validating", and a worker on the media queue checks and
stores it: receive_archive, then validate_received; the same checks, the same answers)."""

import hashlib
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone

from harness import safejson
from harness.results import ArchiveError, ArchiveLimits, BundleError, JudgeRecord, extract_archive
from leaderboard.catalog.slugs import create_with_free_slug
from leaderboard.models import JudgeConfig, Model, Run
from trajectories import queue
from trajectories.accounts import ratelimits
from trajectories.models import Submission
from trajectories.queue import leases
from trajectories.recording import contamination
from trajectories.recording.failure_signals import classify_unclassified
from trajectories.recording.ingest import (
    IngestError,
    IngestReport,
    all_or_nothing,
    ingest_bundle,
    record_judgments,
)
from trajectories.recording.rubric_versions import rubric_version_for
from trajectories.submissions.low_priority import at_low_priority
from trajectories.submissions.review import queue_judging, self_reported_key, shown_status
from trajectories.submissions.validation import (
    METADATA_FIELDS,
    NOTE,
    WARNING,
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


def temp_folder() -> Path:
    """A new temporary folder for one upload, named after this process and host
    (submission-<pid>.<process start>@<host>~<random>), so that the sweeper on this host can remove it
    once its process is gone (a killed worker or web process). Those of dead processes on this host
    are swept first, so a web host (no worker, no sweeper thread) clears its own too."""
    sweep_temp_folders()
    owner = f"{os.getpid()}.{leases.process_start(os.getpid()) or ''}@{leases.host_name()}"
    return Path(tempfile.mkdtemp(prefix=f"submission-{owner}~", dir=upload_tmp_dir()))


def sweep_temp_folders() -> list[Path]:
    """Remove this host's upload temporary folders whose process is gone; returns them."""
    removed = []
    host = leases.host_name()
    for folder in upload_tmp_dir().glob(f"submission-*@{host}~*"):
        owner = folder.name.removeprefix("submission-").rsplit("~", 1)[0].rsplit("@", 1)[0]
        pid, _, started = owner.partition(".")
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        now_started = leases.process_start(int(pid))
        if now_started is None or bool(started and now_started and now_started != started):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
            logger.warning("removed %s: the process that made it is gone", folder)
    return removed


def check_upload_rate(user) -> None:
    """Count this upload attempt and refuse (429) when ``user`` is over the attempts limit
    (MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW, accepted or refused, per clock window) or already has
    the maximum of accepted uploads in the sliding window (MYPCBENCH_UPLOADS_PER_WINDOW), both per
    MYPCBENCH_RATE_WINDOW_SECONDS; the message names the limit and when it resets."""

    def uploaded_since(since):
        return (
            Submission.objects.filter(author=user, created_at__gte=since)
            .exclude(status=Submission.Status.REJECTED, run__isnull=True)  # refused by a worker's validation
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
                raise _too_large(upload, limits)
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest(), size


def _measure_upload(upload, limits: ArchiveLimits) -> tuple[str, int]:
    """The sha256 and size of ``upload`` read where it is (Django spooled it already), refused when
    too large as _save_upload refuses it."""
    digest, size = hashlib.sha256(), 0
    upload.seek(0)
    for chunk in iter(lambda: upload.read(1 << 20), b""):
        size += len(chunk)
        if size > limits.max_archive_bytes:
            raise _too_large(upload, limits)
        digest.update(chunk)
    return digest.hexdigest(), size


def _too_large(upload, limits: ArchiveLimits) -> SubmissionRejected:
    return SubmissionRejected(
        [
            Problem(
                _archive_name(upload),
                f"more than {limits.max_archive_bytes} bytes (expected an archive of at most "
                f"{limits.max_archive_bytes} bytes; split large runs into several submissions)",
            )
        ]
    )


def _archive_name(upload) -> str:
    return Path(getattr(upload, "name", "") or "upload").name[:300]


def upload_validation() -> str:
    """Where uploads are checked: "web" or "worker" (MYPCBENCH_UPLOAD_VALIDATION)."""
    where = getattr(settings, "MYPCBENCH_UPLOAD_VALIDATION", "web")
    if where not in ("web", "worker"):
        raise ValueError(f"MYPCBENCH_UPLOAD_VALIDATION is {where!r} (expected web or worker)")
    return where


def take_upload(author, upload, metadata) -> SubmitResult:
    """What the API and the upload form call: submit_archive, or receive_archive where workers check
    uploads (MYPCBENCH_UPLOAD_VALIDATION), at the upload priority (submissions/low_priority.py). A
    received archive's submission is still "validating"."""
    work = receive_archive if upload_validation() == "worker" else submit_archive
    return at_low_priority(work, author, upload, metadata)


def submit_archive(author, upload, metadata) -> SubmitResult:
    """Validate ``upload`` (a zip or tar.gz file object) with ``metadata`` and, only if everything
    passes, store it as a draft run of provenance "upload" with a Submission. The same archive
    uploaded again returns the existing submission. Raises SubmissionRejected with the full
    report otherwise; then no rows, media files or temporary files remain. Every call counts as
    an attempt against the author's rate limit, before anything of the archive is read."""
    check_upload_rate(author)
    limits = upload_limits()
    name = _archive_name(upload)
    workdir = temp_folder()
    try:
        archive_path = workdir / "archive"
        sha256, size = _save_upload(upload, archive_path, limits)
        existing = _already_submitted(author, name, sha256)
        if existing is not None:
            refuse_other_metadata(existing, name, metadata)
            return SubmitResult(existing, created=False)
        result = _validate_and_store(author, name, sha256, size, metadata, workdir, limits)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if not result.created:  # a concurrent identical upload by this author was stored first
        return result
    submission = result.submission
    transaction.on_commit(lambda: queue_judging(submission.pk))
    return result


def _validate_and_store(
    author, name, sha256, size, metadata, workdir: Path, limits: ArchiveLimits, received: Submission | None = None
) -> SubmitResult:
    """Check the archive at ``workdir/archive`` with ``metadata`` and store it (into ``received``, a
    Submission that is validating, when a worker does this); SubmissionRejected with every problem."""
    archive_path = workdir / "archive"
    meta, problems = parse_metadata(metadata)
    root = workdir / "files"
    try:
        extract_archive(archive_path, root, limits)
    except ArchiveError as exc:
        problems.append(Problem(exc.entry or name, str(exc).removeprefix(f"{exc.entry}: ") if exc.entry else str(exc)))
    if problems or meta is None:
        raise SubmissionRejected(problems)
    validation = validate_tree(root, meta)
    if not validation.ok:
        raise SubmissionRejected(validation.report)
    validation.report.extend(identical_attempts(validation.bundles))
    validation.report.extend(replay_suspicions(validation.bundles, validation.tasks))
    return _store(author, name, sha256, size, meta, validation, root, archive_path, received)


# ---------------------------------------------------------------- checked by a worker

VALIDATING_NOTE = "received; a worker is checking it (this page updates by itself)"


def receive_archive(author, upload, metadata) -> SubmitResult:
    """The web process's part when a worker validates uploads: count the attempt, check the metadata
    (refused at once, as submit_archive refuses it), keep the archive in media storage and record a
    Submission that is "validating"; a worker is asked for on commit (validate_received). The same
    archive again returns its submission; one a worker refused may be sent again (with other metadata)."""
    check_upload_rate(author)
    limits = upload_limits()
    name = _archive_name(upload)
    meta, problems = parse_metadata(metadata)
    if problems or meta is None:
        raise SubmissionRejected(problems)
    sha256, size = _measure_upload(upload, limits)
    existing = _already_submitted(author, name, sha256)
    if existing is not None:
        if not (existing.status == Submission.Status.REJECTED and existing.run_id is None):
            refuse_other_metadata(existing, name, metadata)
            return SubmitResult(existing, created=False)
        existing.delete()  # a worker refused this archive before: this is a new try
    try:
        with all_or_nothing() as written:
            upload.seek(0)
            saved = _keep_archive(sha256, upload, written)
            submission = Submission.objects.create(
                author=author,
                status=Submission.Status.VALIDATING,
                archive_name=name,
                archive_sha256=sha256,
                archive_size=size,
                metadata={**meta.as_dict(), "archive_file": saved},
                validation_report=[Problem("", VALIDATING_NOTE, NOTE).as_dict()],
            )
    except IntegrityError:  # the same archive received a moment ago by a concurrent request
        existing = _already_submitted(author, name, sha256)
        if existing is None:
            raise
        return SubmitResult(existing, created=False)
    transaction.on_commit(lambda: queue.enqueue(queue.VALIDATE_SUBMISSION, submission.pk))
    return SubmitResult(submission, created=True)


class _NotValidating(Exception):
    """The submission was validated (or withdrawn) by someone else meanwhile."""


def validate_received(submission_id: int) -> str | None:
    """A worker's part: check and store the archive of a Submission that is "validating", as
    submit_archive does. Accepted: the run is stored and our judge asked for ("accepted"). Refused:
    the submission becomes "rejected" with every problem in its report, and the kept archive is
    deleted ("refused"). None when there is nothing to do (gone, or already validated: a redelivered
    message). The database or the object store not answering propagates, for the task to retry."""
    submission = (
        Submission.objects.filter(pk=submission_id, status=Submission.Status.VALIDATING)
        .select_related("author")
        .first()
    )
    if submission is None:
        return None
    stored = (submission.metadata or {}).get("archive_file") or ""
    metadata = {k: v for k, v in (submission.metadata or {}).items() if k in METADATA_FIELDS}
    workdir = temp_folder()
    try:
        try:
            with default_storage.open(stored, "rb") as source, open(workdir / "archive", "wb") as target:
                shutil.copyfileobj(source, target, 1 << 20)
        except FileNotFoundError:
            return _refuse(
                submission,
                [Problem(submission.archive_name, "the received archive is gone from storage; upload it again")],
            )
        try:
            result = _validate_and_store(
                submission.author,
                submission.archive_name,
                submission.archive_sha256,
                submission.archive_size,
                metadata,
                workdir,
                upload_limits(),
                received=submission,
            )
        except SubmissionRejected as exc:
            return _refuse(submission, exc.report)
        except _NotValidating:
            return None
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    transaction.on_commit(lambda: queue_judging(result.submission.pk))
    return "accepted"


def _refuse(submission: Submission, report: list[Problem]) -> str | None:
    """Mark a validating submission refused with ``report`` and delete its kept archive."""
    with transaction.atomic():
        locked = (
            Submission.objects.select_for_update().filter(pk=submission.pk, status=Submission.Status.VALIDATING).first()
        )
        if locked is None:
            return None
        stored = locked.metadata.pop("archive_file", "")
        locked.status = Submission.Status.REJECTED
        locked.validation_report = [p.as_dict() for p in report]
        locked.save(update_fields=["status", "validation_report", "metadata", "updated_at"])
    if stored:
        transaction.on_commit(lambda: default_storage.delete(stored))
    return "refused"


def give_up_check(submission_id: int, attempts: int) -> str | None:
    """Refuse a validating submission whose check was cut off ``attempts`` times (its worker died each
    time), saying so; the author can upload it again."""
    submission = Submission.objects.filter(pk=submission_id, status=Submission.Status.VALIDATING).first()
    if submission is None:
        return None
    why = (
        f"its check was cut off {attempts} times (the worker checking it stopped each time); nothing was "
        "stored: upload it again, and if this happens again, tell the maintainers"
    )
    logger.warning("submission %s refused: %s", submission_id, why)
    return _refuse(submission, [Problem(submission.archive_name, why)])


def _already_submitted(author, name: str, sha256: str) -> Submission | None:
    """The author's own submission of this exact archive, or None when there is none; the same
    archive from another account is refused without saying which submission holds it."""
    existing = Submission.objects.filter(archive_sha256=sha256).first()
    if existing is None or existing.author_id == author.pk:
        return existing
    raise SubmissionConflict(
        [Problem(name, "this exact archive was already submitted from another account (expected your own data)")]
    )


def refuse_other_metadata(existing: Submission, name: str, metadata) -> None:
    """The same archive sent again answers with its submission when it comes with no metadata or the
    metadata it was sent with; other metadata is never dropped silently: the upload is refused (409)
    naming each field that differs, and nothing is stored or changed. Bad metadata is refused as it
    would be for a new archive (422)."""
    raw = metadata
    if isinstance(raw, str | bytes):
        try:
            raw = safejson.loads(raw or "{}")
        except safejson.JSONRefused:
            raw = None  # parse_metadata below names the problem
    if isinstance(raw, dict) and not raw:
        return  # the archive alone, again: nothing new to keep
    meta, problems = parse_metadata(metadata)
    if problems or meta is None:
        raise SubmissionRejected(problems)
    sent, stored = meta.as_dict(), existing.metadata or {}
    differences = [
        f"{key} is {stored.get(key)!r} there and {sent[key]!r} now"
        for key in METADATA_FIELDS
        if key in raw and sent[key] != stored.get(key)
    ]
    if differences:
        when = timezone.localtime(existing.created_at).strftime("%Y-%m-%d %H:%M")
        status = shown_status(existing, False)["status_label"].lower()
        raise SubmissionConflict(
            [
                Problem(
                    name,
                    f"this archive was already submitted, as submission {existing.pk} ({when}, "
                    f"{status}), with other metadata: {'; '.join(differences)}. "
                    "Nothing was stored or changed: sending the same archive again does not change a submission's "
                    "metadata. Send it with the metadata it was sent with, or ask a maintainer to correct it.",
                )
            ]
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


def _keep_archive(sha256: str, source, written) -> str:
    """Copy the archive (``source``, a file object at its start) into media storage, named by its content
    hash, inside the ingest's transaction so a failure removes it. Always a file of this request's own:
    when a concurrent request of the same archive saves it too, the storage gives the second a new name,
    so the one whose transaction fails removes only its copy."""
    magic = source.read(4)
    source.seek(0)
    ext = ".zip" if magic.startswith(b"PK") else ".tar.gz" if magic.startswith(b"\x1f\x8b") else ".bin"
    saved = default_storage.save(f"{ARCHIVE_FOLDER}/{sha256[:2]}/{sha256}{ext}", File(source))
    written.add(saved)
    return saved


def _store(
    author,
    name,
    sha256,
    size,
    meta: SubmissionMetadata,
    validation: Validation,
    root: Path,
    archive_path: Path,
    received: Submission | None = None,
) -> SubmitResult:
    report = IngestReport(screenshot_cache=validation.screenshots)  # nothing validated is decoded again
    self_reported: dict[str, float] = {}
    try:
        with all_or_nothing() as written:
            if received is not None:  # a worker's: the archive was kept when it was received
                received = Submission.objects.select_for_update().filter(pk=received.pk).first()
                if received is None or received.status != Submission.Status.VALIDATING:
                    raise _NotValidating()
                kept = received.metadata["archive_file"]
            else:
                with open(archive_path, "rb") as source:
                    kept = _keep_archive(sha256, source, written)
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
            # hits of the contamination scan: shown to the maintainers, who must give a reason to publish
            flags = contamination.run_flags(run.trajectories.select_related("task"))
            problems += [Problem(f["task_id"], contamination.describe(f), WARNING).as_dict() for f in flags]
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
            fields = dict(
                run=run,
                status=Submission.Status.AWAITING_REVIEW,
                metadata={**meta.as_dict(), "archive_file": kept},
                validation_report=problems,
            )
            if received is not None:
                for field, value in fields.items():
                    setattr(received, field, value)
                received.save(update_fields=[*fields, "updated_at"])
                return SubmitResult(received, created=True)
            submission = Submission.objects.create(
                author=author, archive_name=name, archive_sha256=sha256, archive_size=size, **fields
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
