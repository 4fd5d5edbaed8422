"""Uploads are validated and stored in a thread of their own at a lower CPU priority than page views
(MYPCBENCH_UPLOAD_NICE): the answer is the same as in the request's thread, refusals included, and
nothing of the thread's database connection is left open."""

import json
import os
import threading

import pytest
from django.contrib.auth import get_user_model

from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.accounts.tokens import create_token
from trajectories.models import Submission
from trajectories.submissions import uploads

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_upload_is_validated_at_a_lower_priority_with_the_same_answers(client, tmp_path, settings, monkeypatch):
    settings.MYPCBENCH_UPLOAD_NICE = 7
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    auth = f"Bearer {create_token(author, 'runner')[1]}"
    seen = []
    real = uploads.validate_tree

    def validate_and_note_priority(*args, **kwargs):
        seen.append((threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
        return real(*args, **kwargs)

    monkeypatch.setattr(uploads, "validate_tree", validate_and_note_priority)
    request_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    archive = zip_bytes(good_entries(tmp_path))
    post = lambda data, name="run.zip": client.post(  # noqa: E731
        "/api/submissions", {"archive": upload(data, name), "metadata": json.dumps(METADATA)}, HTTP_AUTHORIZATION=auth
    )

    accepted = post(archive)
    assert accepted.status_code == 201, accepted.content
    assert seen == [("upload-at-low-priority", min(request_nice + 7, 19))]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == request_nice, "the request's thread as it was"
    assert Submission.objects.filter(pk=accepted.json()["id"]).exists()

    again = post(archive)
    assert again.status_code == 200 and again.json()["id"] == accepted.json()["id"]
    refused = post(b"not a zip at all", "broken.zip")
    assert refused.status_code == 422 and "not a zip or gzip-compressed tar archive" in refused.json()["detail"]


def test_a_worker_checks_uploads_in_the_idle_scheduling_class(settings):
    """The worker's part (validate_submission) runs with idle=True: Linux's idle class, besides the nice
    value; the caller's thread keeps its own policy."""
    settings.MYPCBENCH_UPLOAD_NICE = 5
    from trajectories.submissions.low_priority import at_low_priority

    def policy():
        tid = threading.get_native_id()
        return os.sched_getscheduler(tid), os.getpriority(os.PRIO_PROCESS, tid)

    caller = policy()
    assert at_low_priority(policy, idle=True) == (os.SCHED_IDLE, min(caller[1] + 5, 19))
    assert at_low_priority(policy) == (caller[0], min(caller[1] + 5, 19)), "a web request's upload: niced only"
    assert policy() == caller


def test_the_validate_submission_task_checks_in_the_idle_class(settings, monkeypatch):
    """The task itself, called in-process (Celery runs a task object's body when it is called)."""
    settings.MYPCBENCH_UPLOAD_NICE = 5
    from trajectories import tasks

    def policy(submission_id):
        tid = threading.get_native_id()
        return submission_id, os.sched_getscheduler(tid), os.getpriority(os.PRIO_PROCESS, tid)

    monkeypatch.setattr(uploads, "validate_received", policy)
    assert tasks.validate_submission(7) == (7, os.SCHED_IDLE, 5)
