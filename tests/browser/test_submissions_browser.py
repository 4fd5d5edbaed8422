"""Submissions in a real browser: log in, create a token, upload through the form (XHR with
progress, upload.js), see refusals listed without a page load, and land on the submission page."""

import re

import pytest
from django.contrib.auth import get_user_model

from tests.factories import make_suite
from tests.submission_data import TASK_IDS, good_entries, zip_bytes
from trajectories.models import Submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def author(settings, tmp_path):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    make_suite(TASK_IDS)
    return get_user_model().objects.create_user("pam", password="pw-beesly-2026")


def log_in(page, live_server):
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", "pam")
    page.fill("#id_password", "pw-beesly-2026")
    page.click("button[type=submit]")
    page.wait_for_url("**/submissions/")


def test_upload_form_refuses_then_accepts(page, live_server, author, tmp_path, shot):
    page.goto(live_server.url + "/accounts/login/?next=/submissions/")
    shot(page, "submissions-login")
    log_in(page, live_server)
    shot(page, "submissions-list-empty")

    page.goto(live_server.url + "/accounts/tokens/")
    page.fill("#id_name", "cluster runner")
    page.click("form.inline-form button[type=submit]")
    token = page.locator(".token-value").inner_text()
    assert token.startswith("mpcb_")
    shot(page, "submissions-token-created")

    page.goto(live_server.url + "/submissions/new/")
    bad = zip_bytes([*good_entries(tmp_path / "bad"), ("../escape.txt", b"x")])
    page.set_input_files("#id_archive", files=[{"name": "bad.zip", "mimeType": "application/zip", "buffer": bad}])
    page.fill("#id_model", "Claude Opus 4.6")
    page.fill("#id_turn_budget", "50")
    page.click("#upload-button")
    page.wait_for_selector("#upload-problems:not([hidden])")
    assert "escapes the archive root" in page.locator("#upload-problem-list").inner_text()
    assert page.url.endswith("/submissions/new/"), "refusals are shown without leaving the form"
    shot(page, "submissions-upload-refused")

    good = zip_bytes(good_entries(tmp_path / "good", full_judge=[True, False, True]))
    page.set_input_files("#id_archive", files=[{"name": "opus.zip", "mimeType": "application/zip", "buffer": good}])
    page.click("#upload-button")
    page.wait_for_url(re.compile(r".*/submissions/\d+/$"))
    sub = Submission.objects.get()
    assert page.url.endswith(f"/submissions/{sub.pk}/")
    assert page.locator(".status").inner_text() == "Awaiting review"
    assert page.locator(".badge-self-reported").count() == 2
    shot(page, "submissions-detail")
    # the refused upload's 422 is logged by the browser; nothing else (no script or CSP errors)
    assert [e for e in page.console_errors if "status of 422" not in e] == []


def test_judging_progress_then_badges_on_the_board_and_run_page(page, live_server, author, tmp_path, shot):
    from leaderboard.models import JudgeConfig, Run
    from tests.submission_data import METADATA, upload
    from trajectories import submissions
    from trajectories.models import Judgment

    staff = get_user_model().objects.create_user("michael", password="pw", is_staff=True)
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    sub = submissions.submit_archive(author, upload(archive, "opus.zip"), METADATA).submission
    Submission.objects.filter(pk=sub.pk).update(status=Submission.Status.JUDGING)
    # our judge has answered the first trajectory only (verdicts written as the judge stores them)
    ours = JudgeConfig.objects.create(name="ours: anthropic claude-sonnet-4-6", origin=JudgeConfig.Origin.OURS)
    first = sub.run.trajectories.order_by("task__position").first()
    for item in first.task.current_rubric():
        Judgment.objects.create(trajectory=first, rubric_item=item, judge=ours, verdict="success")

    log_in(page, live_server)
    page.goto(f"{live_server.url}/submissions/{sub.pk}/")
    assert (
        "1 of 2 trajectories fully judged · 3 of 6 rubric items judged" in page.locator(".judge-progress").inner_text()
    )
    assert page.locator(".judge-progress progress").get_attribute("value") == "50"
    assert page.locator(".status").inner_text() == "Judging"
    assert page.locator(".badge-rejudged").inner_text() == "re-judged"
    shot(page, "submissions-judging-progress")

    submissions.decide(sub, staff, "approve")
    rerun = Run.objects.create(
        name="Opus rerun by us",
        slug="opus-rerun",
        suite=sub.run.suite,
        model=sub.run.model,
        provenance="harness",
        publication="published",
    )
    page.goto(live_server.url + "/leaderboard/")
    row = page.locator(f'tr[data-run="{sub.run.slug}"]')
    assert row.locator(".badge-rejudged").inner_text() == "re-judged"
    assert page.locator('tr[data-run="opus-rerun"] .badge-verified').inner_text() == "verified"
    shot(page, "submissions-board-badges")

    submissions.mark_verified_by_rerun(sub, staff, rerun.slug)
    page.goto(f"{live_server.url}/runs/{sub.run.slug}/")
    assert page.locator("h1 + p .badge-verified").inner_text() == "verified"
    assert "verified by rerun opus-rerun" in page.locator("h1 + p").inner_text()
    shot(page, "submissions-run-verified")
    assert page.console_errors == []
