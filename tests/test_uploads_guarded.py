"""Uploads under attack, the guarded edges (issue 15 items 5, 17, 18, 19): file names in refusals
are shown with control and bidirectional characters escaped, and identical uploads by one author
answer with the same submission while another author's duplicate does not reveal it."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache

from tests.factories import make_suite
from tests.submission_data import (
    METADATA,
    TASK_IDS,
    files_under,
    folder_entries,
    result_folder,
    stored_counts,
    upload,
    zip_bytes,
)
from trajectories.submissions.uploads import submit_archive
from trajectories.submissions.validation import SubmissionRejected

pytestmark = pytest.mark.django_db

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "x\u202egnp.exe" shows as "xexe.png"


@pytest.fixture
def upload_tmp(settings, tmp_path):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()  # counters live in the cache; user ids repeat between tests
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    return settings.MYPCBENCH_UPLOAD_TMP_DIR


@pytest.fixture
def author(upload_tmp):
    make_suite(TASK_IDS)
    return get_user_model().objects.create_user("pam", password="pw-beesly-2026")


# ---------------------------------------------------------------- 19: names escaped


def test_rtl_override_in_file_names_is_escaped_in_the_refusal(tmp_path, author, isolated_media, upload_tmp):
    entries = folder_entries(result_folder(tmp_path))
    # an extra folder named like a task, with an RTL override in its name and in a file's name
    entries.append((f"retrieval-f016{RLO}gnp/traj.jsonl", b'{"step_num": 1}\n'))
    entries.append((f"writing-a001/notes{RLO}txt.json", b"{not json"))
    before = stored_counts()
    with pytest.raises(SubmissionRejected) as caught:
        submit_archive(author, upload(zip_bytes(entries), f"run{RLO}piz.exe"), json.dumps(METADATA))
    report = caught.value.report
    shown = "\n".join(f"{p.file}: {p.problem}" for p in report) + str(caught.value)
    assert RLO not in shown, shown
    assert "\\u202e" in shown, shown
    assert "retrieval-f016\\u202egnp" in shown, shown
    assert stored_counts() == before
    assert files_under(isolated_media) == [] and files_under(upload_tmp) == []
