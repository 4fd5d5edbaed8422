"""Upload temporary folders left by a killed process are removed by the sweeper on their host."""

import subprocess
import sys

from trajectories.queue import leases
from trajectories.submissions import uploads


def test_a_dead_processes_temp_folder_is_swept_and_live_ones_are_kept(settings, tmp_path):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = leases.host_name()
    left = tmp_path / f"submission-{dead.pid}.1@{host}~abc123"
    elsewhere = tmp_path / f"submission-{dead.pid}.1@another-host~abc123"
    for folder in (left, elsewhere):
        (folder / "files").mkdir(parents=True)
        (folder / "archive").write_bytes(b"x" * 1000)
    assert uploads.sweep_temp_folders() == [left]
    assert not left.exists(), "the killed process's folder is gone"
    mine = uploads.temp_folder()
    assert mine.parent == tmp_path and f"@{host}~" in mine.name
    assert mine.exists(), "this process's folder is in use"
    assert elsewhere.exists(), "another host's folder is left to that host's sweeper"


def test_a_web_host_sweeps_its_dead_processes_folders_when_it_takes_an_upload(settings, tmp_path):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = tmp_path / f"submission-{dead.pid}.1@{leases.host_name()}~spooled"
    left.mkdir()
    uploads.temp_folder()  # the next upload on this host
    assert not left.exists()
