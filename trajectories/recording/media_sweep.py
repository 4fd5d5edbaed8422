"""Strays left behind by work that could not clean up after itself: media files no row names (an
ingest or upload cut off by a store outage or a killed process after storing some screenshots; its
database transaction was rolled back) and the upload folder's temporary files of requests and
uploads whose process died. Removed only when older than a grace period, so work in progress keeps
its files. Called by ``manage.py sweep_media``."""

import datetime as dt
import logging
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.core.files.storage import default_storage
from django.db.models import Q
from django.utils import timezone

from trajectories.models import Step, Submission
from trajectories.recording.ingest import SCREENSHOT_FOLDER
from trajectories.recording.media_access import ARCHIVE_FOLDER

# The folders ingest, derivatives and uploads write (content-addressed or per run); nothing else is touched.
SWEPT_FOLDERS = (SCREENSHOT_FOLDER, "derivatives", ARCHIVE_FOLDER)
DEFAULT_GRACE = dt.timedelta(hours=6)
BATCH = 500
logger = logging.getLogger(__name__)


@dataclass
class SweepReport:
    stray_media: list[str] = field(default_factory=list)
    young_media: int = 0
    stray_temp: list[str] = field(default_factory=list)


def _walk(storage, folder: str):
    try:
        dirs, files = storage.listdir(folder)
    except FileNotFoundError:
        return
    for name in files:
        yield f"{folder}/{name}"
    for sub in dirs:
        yield from _walk(storage, f"{folder}/{sub}")


def _unreferenced(names: list[str], archives: set[str]) -> list[str]:
    named = Q()
    for column in Step.MEDIA_FIELDS:
        named |= Q(**{f"{column}__in": names})
    used = set(Step.objects.filter(named).values_list(*Step.MEDIA_FIELDS).iterator())
    used_names = {name for row in used for name in row}
    return [n for n in names if n not in used_names and n not in archives]


def stray_media(grace: dt.timedelta = DEFAULT_GRACE, storage=None, now=None):
    """Yield (name, young) for each file in the swept folders that no step or submission names;
    ``young`` when it was written less than ``grace`` ago (work in progress may still claim it)."""
    storage = storage or default_storage
    now = now or timezone.now()
    archives = {(meta or {}).get("archive_file", "") for meta in Submission.objects.values_list("metadata", flat=True)}
    batch: list[str] = []

    def flush():
        for name in _unreferenced(batch, archives):
            yield name, now - storage.get_modified_time(name) < grace
        batch.clear()

    for folder in SWEPT_FOLDERS:
        for name in _walk(storage, folder):
            batch.append(name)
            if len(batch) >= BATCH:
                yield from flush()
    yield from flush()


def stray_temp(folder: Path, grace: dt.timedelta = DEFAULT_GRACE, now: float | None = None) -> list[Path]:
    """Entries of the upload temporary folder untouched for longer than ``grace``: an upload or a
    spooled request body lives there only while its request runs."""
    now = time.time() if now is None else now
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if now - p.lstat().st_mtime >= grace.total_seconds())


def sweep(temp_folder: Path, grace: dt.timedelta = DEFAULT_GRACE, dry_run: bool = False, progress=None) -> SweepReport:
    """Find (and unless ``dry_run`` remove) stray media and stale temporary files older than ``grace``."""
    report = SweepReport()
    for name, young in stray_media(grace):
        if young:
            report.young_media += 1
            continue
        report.stray_media.append(name)
        if not dry_run:
            default_storage.delete(name)
            logger.info("stray media file %s removed", name)
        if progress:
            progress(name)
    for path in stray_temp(temp_folder, grace):
        report.stray_temp.append(path.name)
        if not dry_run:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    return report
