"""A web process killed (kill -9) in the middle of an upload: gunicorn serves the site on
the test database, an upload's body is sent halfway, and the process is killed while Django spools it to
the upload temporary folder. Nothing of the upload remains as a row or a media file; the spooled body the
dead process could not remove is what ``manage.py sweep_media`` clears, and the same upload sent again
to a new process is accepted."""

import io
import json
import os
import signal
import socket
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.factories import make_suite
from tests.services.conftest import database_url_for_worker
from tests.services.private_services import free_port, port_answers, wait_until
from tests.submission_data import METADATA, TASK_IDS, files_under, good_entries, stored_counts, zip_bytes
from trajectories.accounts.tokens import create_token
from trajectories.models import Submission

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
BOUNDARY = "mypcbench-test-boundary"


def multipart(archive: bytes) -> bytes:
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{json.dumps(METADATA)}\r\n'.encode(),
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="archive"; filename="run.zip"\r\n'
        "Content-Type: application/zip\r\n\r\n".encode()
        + archive
        + b"\r\n",
        f"--{BOUNDARY}--\r\n".encode(),
    ]
    return b"".join(parts)


def start_web(tmp_path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "mypcbench_site.settings",
        "DATABASE_URL": database_url_for_worker(),
        "MYPCBENCH_VAR_DIR": str(tmp_path / "web-var"),
        "DJANGO_MEDIA_ROOT": str(tmp_path / "web-media"),
        "MYPCBENCH_DERIVATIVES": "off",
    }
    log = (tmp_path / f"gunicorn-{port}.log").open("wb")
    command = [sys.executable, "-m", "gunicorn", "mypcbench_site.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1"]
    process = subprocess.Popen(command, env=env, stdout=log, stderr=log, start_new_session=True)
    wait_until("gunicorn answers", lambda: port_answers(port), timeout=60)
    return process, port


def send_upload(port: int, token: str, body: bytes, send: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = (
        f"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body[:send])
    return sock


def test_web_process_killed_mid_upload_leaves_no_row_or_media_and_the_sweep_clears_its_spool(tmp_path, settings):
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    token = create_token(author, "runner")[1]
    # an archive well above Django's in-memory limit, so its body is spooled to disk as it arrives
    padding = [("padding.bin", os.urandom(6 * 1024 * 1024))]
    body = multipart(zip_bytes(good_entries(tmp_path) + padding))
    spool = tmp_path / "web-var" / "upload-tmp"
    before = stored_counts()

    web, port = start_web(tmp_path)
    sock = send_upload(port, token, body, len(body) // 2)
    wait_until("the body is being spooled", lambda: any(spool.glob("*.upload*")), timeout=30)
    os.killpg(web.pid, signal.SIGKILL)
    web.wait(timeout=30)
    sock.close()

    assert stored_counts() == before, "no row of the cut-off upload"
    assert files_under(tmp_path / "web-media") == [], "no media file"
    left = files_under(spool)
    assert left, "the dead process could not remove its spooled body"

    settings.MYPCBENCH_UPLOAD_TMP_DIR = spool
    out = io.StringIO()
    call_command("sweep_media", "--older-than", "0", stdout=out)
    assert f"{len(left)} temporary files removed" in out.getvalue()
    assert files_under(spool) == []

    # A new process takes the same upload whole.
    web, port = start_web(tmp_path)
    try:
        sock = send_upload(port, token, body, len(body))
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        sock.close()
        status = answer.split(b"\r\n", 1)[0]
        assert b" 201 " in status, answer[:2000]
    finally:
        os.killpg(web.pid, signal.SIGTERM)
        web.wait(timeout=30)
    assert Submission.objects.count() == 1
