"""Media in S3-compatible object storage, against a local S3 server (moto's server mode on a
loopback port, a real HTTP server speaking the S3 protocol, so django-storages and boto3 take the same
code path as with real S3): an upload stores its archive and screenshots in the bucket, a derivatives
process that shares no folder with this one (its own working, media and temp folders: "another host")
makes the WebP derivatives from the bucket, and /media/ answers by redirecting: published media to
their plain URL, readable by anybody; unpublished media and archives to a short-lived signed URL, for
their author and maintainers only, while their plain URL is refused by the store."""

import io
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest
import requests
from botocore.config import Config
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import CommandError, call_command

from leaderboard.models import Run
from mypcbench_site.settings import s3_media_storage
from tests.factories import make_suite
from tests.services.conftest import database_url_for_worker
from tests.services.factories import make_trajectory
from tests.services.private_services import Gate
from tests.submission_data import (
    METADATA,
    TASK_IDS,
    good_entries,
    result_folder,
    stored_counts,
    upload,
    zip_bytes,
)
from trajectories.accounts.tokens import create_token
from trajectories.judging.our_judge import trajectory_for_judge
from trajectories.models import Step
from trajectories.submissions.uploads import submit_archive

pytestmark = pytest.mark.django_db(transaction=True)

BUCKET = "mypcbench-media-test"
KEYS = {"AWS_ACCESS_KEY_ID": "test-access-key", "AWS_SECRET_ACCESS_KEY": "test-secret-key"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3_server(tmp_path_factory):
    """moto's S3 server on a loopback port, stopped (by its process id) at the end of the module."""
    port = free_port()
    log = (tmp_path_factory.mktemp("moto") / "moto.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=log
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            requests.get(endpoint + "/moto-api/", timeout=1)
            break
        except requests.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"moto server did not start: {Path(log.name).read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)
    yield endpoint
    process.terminate()
    process.wait(timeout=10)
    log.close()


@pytest.fixture
def bucket(s3_server, settings, monkeypatch, tmp_path):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    client = boto3.client(
        "s3",
        endpoint_url=s3_server,
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"),
        **{k.lower(): v for k, v in KEYS.items()},
    )
    client.create_bucket(Bucket=BUCKET)
    settings.STORAGES = {**settings.STORAGES, "default": s3_media_storage(BUCKET, s3_server)}
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.MYPCBENCH_DERIVATIVES = "off"  # a worker elsewhere makes them, below
    settings.MYPCBENCH_MEDIA_ACCEL_PREFIX = ""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()
    yield client
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for item in page.get("Contents", []):
            client.delete_object(Bucket=BUCKET, Key=item["Key"])
    client.delete_bucket(Bucket=BUCKET)


def keys(client) -> list[str]:
    return sorted(item["Key"] for item in client.list_objects_v2(Bucket=BUCKET).get("Contents", []))


def on_another_host(tmp_path: Path, endpoint: str, *argv: str) -> subprocess.CompletedProcess:
    """`manage.py ARGV` in a process whose working, var, media and temp folders are its own: it
    reaches the rows through the database and the files through the bucket only."""
    host = tmp_path / "worker-host"
    for folder in ("var", "media", "tmp"):
        (host / folder).mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        **KEYS,
        "DJANGO_SETTINGS_MODULE": "mypcbench_site.settings",
        "DATABASE_URL": database_url_for_worker(),
        "MYPCBENCH_VAR_DIR": str(host / "var"),
        "DJANGO_MEDIA_ROOT": str(host / "media"),
        "TMPDIR": str(host / "tmp"),
        "MYPCBENCH_S3_BUCKET": BUCKET,
        "AWS_S3_ENDPOINT_URL": endpoint,
        "MYPCBENCH_DERIVATIVES": "off",
    }
    manage = Path(settings.BASE_DIR) / "manage.py"
    return subprocess.run(
        [sys.executable, str(manage), *argv], cwd=host, env=env, capture_output=True, text=True, timeout=120
    )


def derivatives_on_another_host(tmp_path: Path, endpoint: str, run_slug: str) -> subprocess.CompletedProcess:
    return on_another_host(tmp_path, endpoint, "make_derivatives", "--run", run_slug)


@pytest.mark.slow
def test_uploads_derivatives_and_media_through_object_storage(client, bucket, s3_server, tmp_path, isolated_media):
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    stranger = get_user_model().objects.create_user("dwight", password="pw-schrute-2026")
    archive = zip_bytes(good_entries(tmp_path))
    sub = submit_archive(author, upload(archive, "pam-run.zip"), METADATA).submission

    # Everything the upload stored is in the bucket; nothing in this process's media folder.
    stored = keys(bucket)
    archive_key = sub.metadata["archive_file"]
    steps = list(Step.objects.filter(trajectory__run=sub.run).exclude(screenshot="").order_by("id"))
    assert archive_key in stored and archive_key.startswith("submissions/")
    assert steps and {s.screenshot.name for s in steps} <= set(stored)
    assert list(isolated_media.rglob("*")) == []
    original = bucket.get_object(Bucket=BUCKET, Key=steps[0].screenshot.name)["Body"].read()
    assert original.startswith(b"\x89PNG")

    # A derivatives worker on "another host" reads the originals from the bucket and writes WebPs there.
    done = derivatives_on_another_host(tmp_path, s3_server, sub.run.slug)
    assert done.returncode == 0, done.stderr[-3000:]
    assert list((tmp_path / "worker-host" / "media").rglob("*")) == []
    step = Step.objects.get(pk=steps[0].pk)
    assert step.display_image.name.startswith("derivatives/") and step.display_image.name in keys(bucket)
    webp = bucket.get_object(Bucket=BUCKET, Key=step.display_image.name)["Body"].read()
    assert webp[:4] == b"RIFF" and webp[8:12] == b"WEBP"

    # The judge sends screenshots from files: it gets local copies of the bucket's objects.
    sent = trajectory_for_judge(steps[0].trajectory)
    shots = [record.screenshot for record in sent.steps if record.screenshot is not None]
    assert len(shots) == len(Step.objects.filter(trajectory=steps[0].trajectory).exclude(screenshot=""))
    assert shots[0].read_bytes() == original and str(shots[0]).startswith(str(settings.VAR_DIR))

    # Pages link to the media view, never straight to the bucket.
    assert step.screenshot.url == "/media/" + step.screenshot.name
    plain = f"{s3_server}/{BUCKET}/{step.display_image.name}"

    # Unpublished: a stranger and an anonymous visitor get the page's 404; the author gets a signed,
    # short-lived URL that the store honours, while the plain URL is refused.
    for name in (step.display_image.name, archive_key):
        client.logout()
        assert client.get("/media/" + name).status_code == 404
        client.force_login(stranger)
        assert client.get("/media/" + name).status_code == 404
        client.force_login(author)
        response = client.get("/media/" + name)
        assert response.status_code == 302 and response["Cache-Control"] == "private, no-store"
        signed = response["Location"]
        assert signed.startswith(f"{s3_server}/{BUCKET}/{name}?") and "X-Amz-Signature=" in signed
        assert "X-Amz-Expires=300" in signed
        fetched = requests.get(signed, timeout=10)
        assert fetched.status_code == 200
        assert fetched.content == (archive if name == archive_key else webp)
    assert requests.get(plain, timeout=10).status_code == 403
    assert requests.get(f"{s3_server}/{BUCKET}/{archive_key}", timeout=10).status_code == 403

    # Published: anybody is sent to the plain URL, which the store now serves; caches may keep it.
    set_publication(sub.run_id, Run.Publication.PUBLISHED)
    client.logout()
    response = client.get("/media/" + step.display_image.name)
    assert response.status_code == 302 and response["Location"] == plain
    assert response["Cache-Control"] == f"public, max-age={settings.MYPCBENCH_MEDIA_PUBLIC_MAX_AGE}"
    assert requests.get(plain, timeout=10).content == webp
    # The archive stays private after publication.
    assert client.get("/media/" + archive_key).status_code == 404

    # Withdrawn again: the plain URL stops working at once, before anybody views the file.
    set_publication(sub.run_id, Run.Publication.WITHDRAWN)
    assert requests.get(plain, timeout=10).status_code == 403
    client.force_login(author)
    assert client.get("/media/" + step.display_image.name).status_code == 302


def set_publication(run_id: int, publication: str) -> None:
    """As the admin and the review actions do: the run saved with its new publication."""
    run = Run.objects.get(pk=run_id)
    run.publication = publication
    run.save()


@pytest.fixture
def policy_bucket(bucket, settings):
    """A bucket with ACLs left alone and the documented policy (deploy/s3-public-policy.json) instead."""
    settings.MYPCBENCH_S3_PUBLIC_ACCESS = "policy"
    policy = (Path(settings.BASE_DIR) / "deploy" / "s3-public-policy.json").read_text()
    bucket.put_bucket_policy(Bucket=BUCKET, Policy=policy.replace("BUCKET", BUCKET))
    yield bucket
    bucket.delete_bucket_policy(Bucket=BUCKET)


@pytest.mark.slow  # about 5 s with the S3 client's first connection (the shared-file test below is quick)
@pytest.mark.parametrize("access", ["acl", "policy"])
def test_unpublishing_revokes_the_plain_url_at_once(client, bucket, s3_server, settings, access, request):
    if access == "policy":
        request.getfixturevalue("policy_bucket")
    trajectory = make_trajectory(2, slug=f"revoked-{access}", size=(64, 40))
    names = [step.screenshot.name for step in trajectory.steps.order_by("index")]
    set_publication(trajectory.run_id, Run.Publication.PUBLISHED)

    # Published: the media view sends anybody to a plain URL the store serves, kept briefly by caches.
    response = client.get("/media/" + names[0])
    assert response.status_code == 302 and "X-Amz-Signature" not in response["Location"]
    assert response["Cache-Control"] == "public, max-age=300"
    plain = response["Location"]
    prefix = f"{s3_server}/{BUCKET}/" + ("public/" if access == "policy" else "")
    assert plain == prefix + names[0]
    fetched = requests.get(plain, timeout=10)
    assert fetched.status_code == 200 and fetched.content.startswith(b"\x89PNG")
    assert fetched.headers["Cache-Control"] == "max-age=300"  # the public copy keeps it too
    # The second screenshot, never viewed through /media/, is public too.
    assert requests.get(prefix + names[1], timeout=10).status_code == 200

    # Unpublished: both plain URLs are refused at once, nobody having viewed anything since.
    set_publication(trajectory.run_id, Run.Publication.DRAFT)
    # (a deleted public copy: 404 from the local server; AWS answers 403 to a reader who may not list)
    assert [requests.get(prefix + name, timeout=10).status_code in (403, 404) for name in names] == [True, True]
    assert client.get("/media/" + names[0]).status_code == 404
    # The objects themselves stay private under their own names, whatever the mode.
    assert [requests.get(f"{s3_server}/{BUCKET}/{name}", timeout=10).status_code for name in names] == [403, 403]

    # Published again: public again, without a stale "already public" memory getting in the way.
    set_publication(trajectory.run_id, Run.Publication.PUBLISHED)
    assert requests.get(prefix + names[1], timeout=10).status_code == 200


def test_a_shared_file_stays_public_while_another_published_run_names_it(bucket, s3_server):
    kept = make_trajectory(1, slug="kept-published", size=(64, 40))
    dropped = make_trajectory(1, slug="dropped-run", size=(64, 40))
    shared = kept.steps.get().screenshot.name
    Step.objects.filter(trajectory=dropped).update(screenshot=shared)
    set_publication(kept.run_id, Run.Publication.PUBLISHED)
    set_publication(dropped.run_id, Run.Publication.PUBLISHED)
    set_publication(dropped.run_id, Run.Publication.WITHDRAWN)
    fetched = requests.get(f"{s3_server}/{BUCKET}/{shared}", timeout=10)
    assert fetched.status_code == 200
    # the store's own answer may be kept only briefly, as the media view's: a run can be unpublished
    assert fetched.headers["Cache-Control"] == "max-age=300"
    set_publication(kept.run_id, Run.Publication.DRAFT)
    assert requests.get(f"{s3_server}/{BUCKET}/{shared}", timeout=10).status_code == 403


def test_an_unknown_public_access_mode_is_refused_by_name(tmp_path):
    env = {**os.environ, "MYPCBENCH_S3_PUBLIC_ACCESS": "everyone", "MYPCBENCH_VAR_DIR": str(tmp_path)}
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='mypcbench_site.settings'; django.setup()",
        ],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "MYPCBENCH_S3_PUBLIC_ACCESS is 'everyone' (expected acl or policy" in result.stderr


# ---------------------------------------------------------------- the store cut off


@pytest.fixture
def gated_store(bucket, s3_server, settings, monkeypatch):
    """The media storage reached through a TCP gate in front of the S3 server that the test shuts (the
    store unreachable); botocore tries each request once, so a cut shows at once."""
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("AWS_RETRY_MODE", "standard")
    gate = Gate(int(s3_server.rsplit(":", 1)[1]))
    settings.STORAGES = {**settings.STORAGES, "default": s3_media_storage(BUCKET, gate.url)}
    yield gate
    gate.close()


def sweep_now() -> str:
    out = io.StringIO()
    call_command("sweep_media", "--older-than", "0", stdout=out)
    return out.getvalue()


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_store_cut_off_during_an_upload_stores_nothing_and_the_sweep_removes_what_it_wrote(
    client, bucket, gated_store, tmp_path
):
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    archive = zip_bytes(good_entries(tmp_path))
    before = stored_counts()
    gated_store.shut_after(3)  # the archive and a screenshot or two reach the store, then it is gone
    response = client.post(
        "/api/submissions",
        {"archive": upload(archive, "pam-run.zip"), "metadata": json.dumps(METADATA)},
        HTTP_AUTHORIZATION=f"Bearer {create_token(author, 'runner')[1]}",
    )
    assert response.status_code == 503, response.content
    assert "media store is not answering" in response.json()["detail"] and response["Retry-After"]
    assert stored_counts() == before, "no row of the cut-off upload remains"
    assert list((tmp_path / "upload-tmp").iterdir()) == [], "no temporary file remains"

    gated_store.open()
    left = keys(bucket)
    assert left, "the store kept what it received before the cut (the upload could not delete it)"
    report = sweep_now()
    assert f"{len(left)} stray media files" in report
    assert keys(bucket) == []

    # Sent again once the store answers, the same archive is accepted whole.
    response = client.post(
        "/api/submissions",
        {"archive": upload(archive, "pam-run.zip"), "metadata": json.dumps(METADATA)},
        HTTP_AUTHORIZATION=f"Bearer {create_token(author, 'runner2')[1]}",
    )
    assert response.status_code == 201, response.content
    steps = Step.objects.filter(trajectory__run__submission__pk=response.json()["id"]).exclude(screenshot="")
    assert steps and {s.screenshot.name for s in steps} <= set(keys(bucket))
    assert "0 stray media files" in sweep_now(), "what a stored upload names is never swept"


def test_store_cut_off_during_an_import_imports_nothing_and_says_so(bucket, gated_store, tmp_path):
    make_suite(TASK_IDS)
    folder = result_folder(tmp_path)
    before = stored_counts()
    gated_store.shut_after(5)  # a screenshot or two reach the store, then it is gone
    with pytest.raises(CommandError, match=r"media store did not answer .*nothing was imported.*again"):
        call_command("import_results", str(folder), "--run", "Cut off", stdout=io.StringIO(), verbosity=0)
    assert stored_counts() == before
    gated_store.open()
    assert keys(bucket), "the screenshots stored before the cut"
    sweep_now()
    assert keys(bucket) == []
    call_command("import_results", str(folder), "--run", "Cut off", stdout=io.StringIO(), verbosity=0)
    assert Run.objects.filter(name="Cut off").count() == 1
    names = {s.screenshot.name for s in Step.objects.filter(trajectory__run__name="Cut off").exclude(screenshot="")}
    assert names and names <= set(keys(bucket))


@pytest.mark.slow
def test_an_upload_received_by_the_web_is_checked_by_a_worker_on_another_host(bucket, s3_server, settings, tmp_path,
                                                                               isolated_media):  # fmt: skip
    """MYPCBENCH_UPLOAD_VALIDATION=worker, the topology's way: the web process keeps the archive in the
    bucket and nothing on its disk; a process with folders of its own reads it back from the bucket,
    checks and stores the run (screenshots into the bucket too)."""
    from trajectories.models import Submission
    from trajectories.submissions.uploads import receive_archive

    settings.MYPCBENCH_UPLOAD_VALIDATION = "worker"
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    sub = receive_archive(author, upload(zip_bytes(good_entries(tmp_path)), "pam-run.zip"), METADATA).submission
    assert sub.status == Submission.Status.VALIDATING
    assert keys(bucket) == [sub.metadata["archive_file"]] and list(isolated_media.rglob("*")) == []

    done = on_another_host(
        tmp_path, s3_server, "shell", "-c",
        f"from trajectories.submissions.uploads import validate_received; print(validate_received({sub.pk}))",
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip().splitlines()[-1] == "accepted", done.stderr[-3000:]
    sub.refresh_from_db()
    assert sub.status in (Submission.Status.JUDGING, Submission.Status.AWAITING_REVIEW) and sub.run is not None
    shots = set(
        Step.objects.filter(trajectory__run=sub.run).exclude(screenshot="").values_list("screenshot", flat=True)
    )
    assert shots and shots <= set(keys(bucket)) and sub.metadata["archive_file"] in keys(bucket)
    assert [p for p in (tmp_path / "worker-host").rglob("*") if p.is_file()] == [], "the worker kept nothing on disk"
