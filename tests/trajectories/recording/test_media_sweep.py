"""manage.py sweep_media: media files no row names (left by an import or upload that a store outage or a
killed process cut off) and stale upload temporary files are removed once older than the grace period;
what a step or a submission names, and anything young (work in progress), is kept."""

import io
import os
import time

import pytest
from django.core.management import CommandError, call_command

from tests.factories import make_suite, write_task_dir
from tests.submission_data import TASK_IDS
from trajectories.models import Step

pytestmark = pytest.mark.django_db


def _aged(path, hours: float):
    then = time.time() - hours * 3600
    os.utime(path, (then, then))
    return path


def _file(root, name: str, hours: float, data: bytes = b"stray"):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return _aged(path, hours)


def test_sweep_removes_old_strays_and_keeps_what_rows_name_and_young_files(isolated_media, settings, tmp_path):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    make_suite(TASK_IDS)
    write_task_dir(tmp_path / "results", TASK_IDS[0])
    call_command("import_results", str(tmp_path / "results"), "--run", "Kept", stdout=io.StringIO(), verbosity=0)
    named = [s.screenshot.name for s in Step.objects.exclude(screenshot="")]
    assert named
    for name in named:
        _aged(isolated_media / name, 48)
    old = _file(isolated_media, "screenshots/ab/abcdef.png", 7)
    young = _file(isolated_media, "derivatives/cd/cdef01.webp", 1)
    elsewhere = _file(isolated_media, "world/readme.txt", 48)  # not a folder ingest writes: never touched
    dead_upload = _aged(_file(tmp_path / "upload-tmp", "submission-x1/archive", 8).parent, 8)
    spooled_body = _file(tmp_path / "upload-tmp", "tmp1234.upload.zip", 8)
    live_upload = _file(tmp_path / "upload-tmp", "submission-x2/archive", 0)

    out = io.StringIO()
    call_command("sweep_media", "--dry-run", stdout=out)
    assert "would remove media screenshots/ab/abcdef.png" in out.getvalue() and old.exists()

    out = io.StringIO()
    call_command("sweep_media", stdout=out)  # default grace: 6 hours
    text = out.getvalue()
    assert "1 stray media files and 2 temporary files removed; 1 unnamed media files younger than 6 h kept" in text
    assert not old.exists() and young.exists() and elsewhere.exists()
    assert all((isolated_media / name).exists() for name in named)
    assert not dead_upload.exists() and not spooled_body.exists() and live_upload.exists()

    call_command("sweep_media", "--older-than", "0", stdout=io.StringIO())
    assert not young.exists() and all((isolated_media / name).exists() for name in named)


def test_sweep_refuses_a_negative_grace():
    with pytest.raises(CommandError, match="--older-than must be 0 or more hours, got -1"):
        call_command("sweep_media", "--older-than", "-1", stdout=io.StringIO())
