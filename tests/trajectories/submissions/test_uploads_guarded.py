"""Uploads under attack, the guarded edges: file names in refusals
are shown with control and bidirectional characters escaped; identical uploads by one author
answer with the same submission while another author's duplicate does not reveal it; sign-ups and
log-ins are throttled per client address and per account."""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from leaderboard.models import Run
from tests.submission_data import (
    METADATA,
    files_under,
    folder_entries,
    result_folder,
    stored_counts,
    upload,
    zip_bytes,
)
from trajectories.accounts.tokens import create_token
from trajectories.models import Submission
from trajectories.submissions import uploads
from trajectories.submissions.uploads import submit_archive
from trajectories.submissions.validation import SubmissionRejected

pytestmark = pytest.mark.django_db

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "x\u202egnp.exe" shows as "xexe.png"


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


# ---------------------------------------------------------------- 18: identical uploads at once


def _bearer(user) -> str:
    return f"Bearer {create_token(user, 'runner')[1]}"


def _interleave_second_request(monkeypatch, second):
    """Make the race happen on SQLite: while the first request is past its duplicate check and
    validating, ``second()`` runs a whole request for the same archive (as a concurrent request
    would, two threads cannot both write to one SQLite test database)."""
    real = uploads.validate_tree
    answers, started = [], []

    def validate_then_let_the_other_in(*args, **kwargs):
        if not started:  # only the first request waits; the second runs straight through
            started.append(True)
            answers.append(second())
        return real(*args, **kwargs)

    monkeypatch.setattr(uploads, "validate_tree", validate_then_let_the_other_in)
    return answers


def test_concurrent_identical_uploads_by_one_author_answer_the_same_submission(
    client, tmp_path, author, isolated_media, monkeypatch
):
    archive = zip_bytes(folder_entries(result_folder(tmp_path)))
    auth = _bearer(author)

    def post():
        return client.post(
            "/api/submissions",
            {"archive": upload(archive, "run.zip"), "metadata": json.dumps(METADATA)},
            HTTP_AUTHORIZATION=auth,
        )

    inner = _interleave_second_request(monkeypatch, post)
    outer = post()
    assert inner[0].status_code == 201, inner[0].content
    assert outer.status_code == 200, outer.content
    assert outer.json()["id"] == inner[0].json()["id"]
    assert Submission.objects.count() == 1 and Run.objects.count() == 1
    assert len(files_under(isolated_media / "submissions")) == 1  # the loser's copy of the archive is gone


def test_concurrent_duplicate_from_another_author_does_not_reveal_the_submission(
    client, tmp_path, author, isolated_media, monkeypatch
):
    archive = zip_bytes(folder_entries(result_folder(tmp_path)))
    other = get_user_model().objects.create_user("dwight", password="pw-schrute-2026")
    theirs, mine = _bearer(other), _bearer(author)

    def post(auth):
        return client.post(
            "/api/submissions",
            {"archive": upload(archive, "run.zip"), "metadata": json.dumps(METADATA)},
            HTTP_AUTHORIZATION=auth,
        )

    inner = _interleave_second_request(monkeypatch, lambda: post(theirs))
    outer = post(mine)
    assert inner[0].status_code == 201, inner[0].content
    their_id = inner[0].json()["id"]
    assert outer.status_code == 409, outer.content
    body = outer.json()
    assert "another account" in body["detail"]
    assert set(body) == {"detail", "problems"} and not re.search(rf"\b{their_id}\b", body["problems"][0]["problem"])
    assert "submission" not in json.dumps(body), body  # the old answer said "already submitted as submission 1"
    assert Submission.objects.count() == 1
    # and the same archive sent afterwards (no race) says the same
    later = post(mine)
    assert later.status_code == 409 and later.json() == body


# ---------------------------------------------------------------- 17: sign-up and log-in throttled


def test_thirty_wrong_passwords_then_the_right_one_is_refused(client, author, clock_mid_hour):
    answers = [
        client.post(reverse("login"), {"username": "pam", "password": f"guess-{n}"}, REMOTE_ADDR=f"10.0.0.{n}")
        for n in range(30)
    ]
    # the first five are plain wrong passwords; from the sixth the account is throttled
    assert [a.status_code for a in answers[:5]] == [200] * 5
    assert "Please enter a correct username and password" in answers[4].content.decode()
    assert {a.status_code for a in answers[5:]} == {429}
    right = client.post(reverse("login"), {"username": "pam", "password": "pw-beesly-2026"}, REMOTE_ADDR="10.9.9.9")
    page = right.content.decode()
    assert right.status_code == 429 and "_auth_user_id" not in client.session
    assert "Log-in refused: rate limit: at most 5 failed log-ins per 15 minutes per account" in page, page
    assert "this account has had 5" in page
    # the window is 15 minutes from half past: it ends at quarter to
    assert f"{clock_mid_hour:%Y-%m-%d %H}:45:00 UTC" in page and right["Retry-After"] == "900"
    # another account from those addresses is not locked out by pam's failures
    get_user_model().objects.create_user("jim", password="pw-halpert-2026")
    other = client.post(reverse("login"), {"username": "jim", "password": "pw-halpert-2026"}, REMOTE_ADDR="10.9.9.8")
    assert other.status_code == 302 and client.session["_auth_user_id"]


def test_failed_log_ins_are_throttled_per_address_across_accounts(client, upload_tmp, clock_mid_hour, settings):
    settings.MYPCBENCH_LOGIN_FAILURES_PER_ADDRESS = 3
    for name in ("a1", "a2", "a3"):
        client.post(reverse("login"), {"username": name, "password": "x"}, REMOTE_ADDR="192.0.2.7")
    get_user_model().objects.create_user("kevin", password="pw-malone-2026")
    refused = client.post(
        reverse("login"), {"username": "kevin", "password": "pw-malone-2026"}, REMOTE_ADDR="192.0.2.7"
    )
    assert refused.status_code == 429 and "per address" in refused.content.decode()
    elsewhere = client.post(
        reverse("login"), {"username": "kevin", "password": "pw-malone-2026"}, REMOTE_ADDR="192.0.2.8"
    )
    assert elsewhere.status_code == 302


def test_admin_log_in_is_throttled_too(client, upload_tmp, clock_mid_hour):
    get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True)
    for n in range(5):
        client.post("/admin/login/", {"username": "michael", "password": f"no-{n}"})
    page = client.post("/admin/login/", {"username": "michael", "password": "pw-scott-2026"}).content.decode()
    assert "Log-in refused: rate limit" in page and "_auth_user_id" not in client.session


def test_the_eleventh_sign_up_from_one_address_in_a_day_is_refused(client, upload_tmp, clock_mid_hour):
    def sign_up(n, address="198.51.100.4"):
        client.logout()
        password = f"a-long-pass-{n}-2026"
        return client.post(
            reverse("signup"),
            {"username": f"author{n}", "password1": password, "password2": password},
            REMOTE_ADDR=address,
        )

    assert [sign_up(n).status_code for n in range(10)] == [302] * 10
    eleventh = sign_up(10)
    page = eleventh.content.decode()
    assert eleventh.status_code == 429, page
    assert "Sign-up refused: rate limit: at most 10 new accounts per 24 hours per address" in page, page
    assert "this address has made 10" in page
    assert not get_user_model().objects.filter(username="author10").exists()
    assert get_user_model().objects.filter(username__startswith="author").count() == 10
    assert sign_up(11, address="198.51.100.5").status_code == 302  # another address is not held back


# ---------------------------------------------------------------- 5: refused before the body is read


class UnreadableBody:
    """A request body that fails the test if anything reads it: the refusal must come first."""

    def read(self, *args, **kwargs):
        raise AssertionError("the upload's body was read before it was refused")

    readline = read


def post_headers_only(client, path, length, **headers):
    return client.generic(
        "POST",
        path,
        b"",
        content_type="multipart/form-data; boundary=x",
        CONTENT_LENGTH=str(length),
        **{"wsgi.input": UnreadableBody()},
        **headers,
    )


def test_an_upload_over_the_size_limit_is_refused_on_its_length(client, author, settings):
    settings.MYPCBENCH_UPLOAD_LIMITS = {**settings.MYPCBENCH_UPLOAD_LIMITS, "max_archive_bytes": 10 * 1024**2}
    _token, raw = create_token(author, "runner")
    response = post_headers_only(client, "/api/submissions", 1200 * 1024**2, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 413
    assert "1,258,291,200 bytes" in response.json()["detail"] and "10,485,760" in response.json()["detail"]
    client.force_login(author)
    page = post_headers_only(client, reverse("trajectories:submission_new"), 1200 * 1024**2)
    assert page.status_code == 413 and "archives of at most 10,485,760 bytes" in page.content.decode()
    missing_length = client.generic(
        "POST", "/api/submissions", b"", content_type="multipart/form-data; boundary=x",
        HTTP_AUTHORIZATION=f"Bearer {raw}", CONTENT_LENGTH="", **{"wsgi.input": UnreadableBody()},
    )  # fmt: skip
    assert missing_length.status_code == 411 and "Content-Length" in missing_length.json()["detail"]
    assert not Submission.objects.exists()


def test_a_stranger_and_an_author_over_the_limit_are_refused_before_the_body(client, author, settings):
    settings.MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW = 0
    stranger = post_headers_only(client, "/api/submissions", 5000, HTTP_AUTHORIZATION="Bearer mpcb_not_a_token")
    assert stranger.status_code == 401 and "API token" in stranger.json()["detail"]
    _token, raw = create_token(author, "runner")
    limited = post_headers_only(client, "/api/submissions", 1200 * 1024**2, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert "upload attempts" in limited.json()["detail"]
