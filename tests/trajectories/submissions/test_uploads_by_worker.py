"""Uploads checked by a worker (MYPCBENCH_UPLOAD_VALIDATION=worker): the web process only receives the
archive into media storage and answers 202 "validating"; the worker's part (validate_received, what
the validate_submission task runs) stores the run or refuses it with every problem, and the author
reads the outcome from the same API and page. The worker's part is called here in-process, with the
messages the web process sends captured on commit; tests/services/test_submissions_worker.py runs it
in a real worker through the broker."""

import json
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from leaderboard.models import Run
from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, files_under, good_entries, stored_counts, upload, zip_bytes
from trajectories import queue
from trajectories.accounts.tokens import create_token
from trajectories.models import Submission, WorkLease
from trajectories.queue import leases
from trajectories.submissions import uploads
from trajectories.tasks import validate_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def author(settings, tmp_path, isolated_media):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.MYPCBENCH_UPLOAD_VALIDATION = "worker"
    settings.MYPCBENCH_DERIVATIVES = "off"
    cache.clear()  # API call counters live in the cache; user ids repeat between tests
    make_suite(TASK_IDS)
    return get_user_model().objects.create_user("pam", password="pw-beesly-2026")


@pytest.fixture
def sent(monkeypatch):
    """The messages the web process asks the queue for: (task name, arguments)."""
    messages = []
    monkeypatch.setattr(queue, "enqueue", lambda name, *args, **kwargs: messages.append((name, args)))
    return messages


def post(client, author, archive: bytes, metadata=METADATA, name="opus.zip"):
    raw = create_token(author, "cluster runner")[1]
    return client.post(
        "/api/submissions",
        {"archive": upload(archive, name), "metadata": json.dumps(metadata)},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )


def stored_archives(media) -> list[str]:
    return sorted(p.name for p in files_under(media / "submissions"))


def test_received_at_once_then_stored_by_the_worker(client, author, sent, isolated_media, tmp_path,
                                                    django_capture_on_commit_callbacks):  # fmt: skip
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, True, False]))
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, author, archive)
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "validating" and body["run"] is None
    assert "a worker is checking it" in body["validation_report"][0]["problem"]
    assert body["metadata"]["model"] == METADATA["model"] and "archive_file" not in body["metadata"]
    assert sent == [(queue.VALIDATE_SUBMISSION, (body["id"],))], "one message asks a worker to check it"
    assert len(stored_archives(isolated_media)) == 1, "the archive waits in media storage, not on the web host"
    assert Run.objects.count() == 0

    # the author's page says so while it waits
    client.force_login(author)
    page = client.get(reverse("trajectories:submission_detail", args=[body["id"]])).content.decode()
    assert "Validating" in page and "a worker is checking it" in page

    with django_capture_on_commit_callbacks(execute=False) as judging:
        assert uploads.validate_received(body["id"]) == "accepted"
    asked = [f for f in judging if f.__qualname__.startswith("validate_received")]
    assert len(asked) == 1, "our judge is asked for once the run is stored"
    sub = Submission.objects.get(pk=body["id"])
    assert sub.status == Submission.Status.AWAITING_REVIEW and sub.run.provenance == "upload"
    assert sub.run.publication == Run.Publication.DRAFT and sub.run.trajectories.count() == 2
    assert any("accepted: 2 trajectories, 6 steps" in p["problem"] for p in sub.validation_report)
    assert not any("a worker is checking it" in p["problem"] for p in sub.validation_report)

    # a redelivered message finds nothing to do: one run, one submission
    assert uploads.validate_received(body["id"]) is None
    assert Run.objects.count() == 1 and Submission.objects.count() == 1

    read = client.get(f"/api/submissions/{body['id']}").json()
    assert read["status"] == "awaiting_review" and read["run"] == sub.run.slug


def test_refused_by_the_worker_with_every_problem_and_sent_again(client, author, sent, isolated_media, tmp_path,
                                                                 django_capture_on_commit_callbacks):  # fmt: skip
    # two task folders of tasks this site does not have: refused by the checks, as the web process refuses
    archive = zip_bytes(good_entries(tmp_path, task_ids=["no-such-task-1", "no-such-task-2"]))
    response = post(client, author, archive)
    assert response.status_code == 202, response.content
    pk = response.json()["id"]
    before = stored_counts()

    with django_capture_on_commit_callbacks(execute=True):  # the worker commits at once; a test's transaction does not
        assert uploads.validate_received(pk) == "refused"
    sub = Submission.objects.get(pk=pk)
    assert sub.status == Submission.Status.REJECTED and sub.run is None
    errors = [p for p in sub.validation_report if p["level"] == "error"]
    assert {e["file"].split("/")[0] for e in errors} >= {"no-such-task-1", "no-such-task-2"}, errors
    assert stored_counts() == before, "nothing of the refused archive is stored"
    assert stored_archives(isolated_media) == [], "the kept archive is deleted"

    client.force_login(author)
    page = client.get(reverse("trajectories:submission_detail", args=[pk])).content.decode()
    assert "no-such-task-1" in page
    assert "Not judged: no run was stored from this archive" in page and "trajectories judged" not in page
    client.logout()

    # the same archive again is a new try (with other metadata, say), not "already submitted"
    again = post(client, author, archive, metadata={**METADATA, "notes": "second try"})
    assert again.status_code == 202 and again.json()["status"] == "validating"
    assert Submission.objects.filter(archive_sha256=sub.archive_sha256).count() == 1
    # a refused try is not an accepted upload for the author's hourly limit
    assert Submission.objects.filter(author=author).exclude(status="rejected").count() == 1


def test_bad_metadata_is_refused_at_once_and_nothing_is_kept(client, author, sent, isolated_media, tmp_path):
    archive = zip_bytes(good_entries(tmp_path))
    response = post(client, author, archive, metadata={**METADATA, "turn_budget": 0, "colour": "red"})
    assert response.status_code == 422
    problems = " | ".join(p["problem"] for p in response.json()["problems"])
    assert "turn_budget" in problems and "unknown field(s) colour" in problems
    assert sent == [] and Submission.objects.count() == 0 and stored_archives(isolated_media) == []


def test_the_same_archive_twice_is_one_submission(client, author, sent, tmp_path):
    archive = zip_bytes(good_entries(tmp_path))
    first = post(client, author, archive)
    again = post(client, author, archive, name="renamed.zip")
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["id"] == first.json()["id"] and Submission.objects.count() == 1


def test_archive_gone_from_storage_is_refused_with_a_reason(client, author, sent, isolated_media, tmp_path):
    response = post(client, author, zip_bytes(good_entries(tmp_path)))
    for path in files_under(isolated_media / "submissions"):
        path.unlink()
    assert uploads.validate_received(response.json()["id"]) == "refused"
    report = Submission.objects.get(pk=response.json()["id"]).validation_report
    assert report == [{"file": "opus.zip", "problem": "the received archive is gone from storage; upload it again",
                       "level": "error"}]  # fmt: skip


def test_web_form_redirects_to_the_validating_submission(client, author, sent, tmp_path):
    client.force_login(author)
    form = {
        "suite": METADATA["suite"],
        "model": METADATA["model"],
        "tool_surface": METADATA["tool_surface"],
        "turn_budget": 10,
    }
    response = client.post(
        reverse("trajectories:submission_new"), {**form, "archive": upload(zip_bytes(good_entries(tmp_path)))}
    )
    sub = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "trajectories:submission_detail", args=[sub.pk]
    )
    assert sub.status == Submission.Status.VALIDATING
    page = client.get(response["Location"]).content.decode()
    assert "Judging starts once the archive has been checked and accepted." in page
    assert "trajectories judged" not in page, "no '0 of 0 trajectories judged' before there is a run"


def test_an_unknown_setting_is_named(settings):
    settings.MYPCBENCH_UPLOAD_VALIDATION = "lambda"
    with pytest.raises(ValueError, match="MYPCBENCH_UPLOAD_VALIDATION is 'lambda' \\(expected web or worker\\)"):
        uploads.upload_validation()


def lose_the_checking_worker(pk: int, death: int) -> None:
    """A worker took the check and its host was lost: the work lease lapsed under a dead holder."""
    WorkLease.objects.filter(task=queue.VALIDATE_SUBMISSION, subject=pk).update(
        holder=f"lost-host|{death + 100}|1|x", expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_a_check_whose_worker_died_is_sent_again_and_runs(client, author, tmp_path, monkeypatch,
                                                          django_capture_on_commit_callbacks):  # fmt: skip
    messages = []
    monkeypatch.setattr(validate_submission, "apply_async", lambda args, *a, **k: messages.append(tuple(args)))
    with django_capture_on_commit_callbacks(execute=True):
        pk = post(client, author, zip_bytes(good_entries(tmp_path))).json()["id"]
    assert messages == [(pk,)]
    lose_the_checking_worker(pk, 0)
    resent = []
    leases.sweep(lambda name, *args: resent.append((name, args)))
    assert resent == [(queue.VALIDATE_SUBMISSION, (pk,))], "checked again, not left validating"
    with django_capture_on_commit_callbacks(execute=False):
        assert validate_submission.run(pk) == "accepted"
    assert Submission.objects.get(pk=pk).status == Submission.Status.AWAITING_REVIEW
    assert not WorkLease.objects.filter(task=queue.VALIDATE_SUBMISSION).exists()


def test_a_check_cut_off_three_times_is_refused_with_why_and_can_be_uploaded_again(
    client, author, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(validate_submission, "apply_async", lambda args, *a, **k: None)
    archive = zip_bytes(good_entries(tmp_path))
    with django_capture_on_commit_callbacks(execute=True):
        pk = post(client, author, archive).json()["id"]
    resent = []
    for death in range(3):
        lose_the_checking_worker(pk, death)
        leases.sweep(lambda name, *args: resent.append((name, args)))
    assert len(resent) == 3 and Submission.objects.get(pk=pk).status == Submission.Status.VALIDATING
    with django_capture_on_commit_callbacks(execute=True):
        assert validate_submission.run(pk) == "refused"
    sub = Submission.objects.get(pk=pk)
    assert sub.status == Submission.Status.REJECTED and sub.run is None
    assert "cut off 3 times" in sub.validation_report[0]["problem"]
    assert "upload it again" in sub.validation_report[0]["problem"]
    assert not WorkLease.objects.filter(task=queue.VALIDATE_SUBMISSION).exists()
    with django_capture_on_commit_callbacks(execute=True):
        again = post(client, author, archive)
    assert again.status_code == 202 and again.json()["status"] == "validating", "a new try of the same archive"
