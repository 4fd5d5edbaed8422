"""Submissions in a real browser: log in, create a token, upload through the form (XHR with
progress, upload.js), see refusals listed without a page load, and land on the submission page;
the submission page follows our judge live (submission_live.js) until the status is final."""

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
    assert (
        page.locator(".status").inner_text() == "Awaiting our judge"
    )  # no judge configured in this test: one state, in plain words
    assert page.locator(".badge-self-reported").count() == 2
    shot(page, "submissions-detail")
    # the refused upload's 422 is logged by the browser; nothing else (no script or CSP errors)
    assert [e for e in page.console_errors if "status of 422" not in e] == []


def test_the_submission_page_follows_judging_live_then_badges_on_the_board_and_run_page(
    page, live_server, author, tmp_path, shot, settings, monkeypatch
):
    from playwright.sync_api import expect

    from leaderboard.models import Run
    from tests.submission_data import METADATA, our_judge, upload
    from trajectories.judge_spec import JudgeSpec
    from trajectories.judging.our_judge import run_trajectories
    from trajectories.submissions import review, uploads
    from trajectories.tasks import judge_trajectory_task

    settings.MYPCBENCH_DERIVATIVES = "off"
    staff = get_user_model().objects.create_user("michael", password="pw", is_staff=True)
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    with our_judge(settings, monkeypatch):
        # Judging is queued (recorded, not sent to a worker); the test then runs the worker's task
        # itself, one trajectory at a time, against the provider simulator.
        monkeypatch.setattr(review, "request_run_judging", lambda run_id: None)
        sub = uploads.submit_archive(author, upload(archive, "opus.zip"), METADATA).submission
        spec = JudgeSpec.from_settings().as_dict()
        first, second = run_trajectories(sub.run)

        log_in(page, live_server)
        page.goto(f"{live_server.url}/submissions/{sub.pk}/")
        page.evaluate("window.sameDocument = true")  # gone if the page were reloaded
        status, badge = page.locator("[data-live=status] .status"), page.locator("[data-live=badge] .badge").first
        counts = page.locator(".judge-progress-counts")
        assert status.inner_text() == "Judging" and badge.inner_text() == "being judged"
        assert "0 of 6 rubric items judged" in counts.inner_text()
        assert page.locator("[data-live=note]").inner_text() == "Queued for our judge."
        expect(page.locator("[data-live=indicator]")).to_have_text("· updating live")

        judge_trajectory_task(first.pk, spec)
        expect(counts).to_contain_text("1 of 2 trajectories fully judged · 3 of 6 rubric items judged", timeout=20_000)
        assert page.locator(".judge-progress progress").get_attribute("value") == "50"
        scores = page.locator("[data-live=score]")
        assert [scores.nth(0).inner_text(), scores.nth(1).inner_text()] == ["100%", "not judged"]
        assert status.inner_text() == "Judging" and badge.inner_text() == "being judged"
        assert page.locator("[data-live=note]").inner_text().startswith("Being judged by ours: anthropic")
        shot(page, "submissions-live-judging")

        judge_trajectory_task(second.pk, spec)
        expect(status).to_have_text("Awaiting review", timeout=20_000)
    expect(badge).to_have_text("re-judged")
    assert "6 of 6 rubric items" in badge.get_attribute("title")
    assert "2 of 2 trajectories fully judged · 6 of 6 rubric items judged · 0 in error" in counts.inner_text()
    assert page.locator(".judge-progress progress").get_attribute("value") == "100"
    assert [scores.nth(0).inner_text(), scores.nth(1).inner_text()] == ["100%", "100%"]
    assert page.locator("[data-live=note]").inner_text().startswith("Judged by ours: anthropic")
    expect(page.locator("[data-live=indicator]")).to_have_text("· up to date")
    assert page.evaluate("window.sameDocument") is True, "updated in place, not reloaded"
    shot(page, "submissions-live-judged")

    review.decide(sub, staff, "approve")
    rerun = Run.objects.create(
        name="Opus rerun by us",
        slug="opus-rerun",
        suite=sub.run.suite,
        model=sub.run.model,
        provenance="harness",
        publication="published",
    )
    page.goto(live_server.url + "/leaderboard/")
    row = page.locator(f'tr[data-run="{sub.run.slug}"]')  # approved once our judge was done
    assert row.locator(".badge-rejudged").inner_text() == "re-judged"
    assert page.locator('tr[data-run="opus-rerun"] .badge-verified').inner_text() == "verified"
    shot(page, "submissions-board-badges")

    review.mark_verified_by_rerun(sub, staff, rerun.slug)
    page.goto(f"{live_server.url}/runs/{sub.run.slug}/")
    assert page.locator("h1 + p .badge-verified").inner_text() == "verified"
    assert "verified by rerun opus-rerun" in page.locator("h1 + p").inner_text()
    shot(page, "submissions-run-verified")
    assert page.console_errors == []


def test_a_submission_checked_by_a_worker_loads_its_outcome_when_checked(page, live_server, author, tmp_path,
                                                                         settings, shot):  # fmt: skip
    """MYPCBENCH_UPLOAD_VALIDATION=worker: the page says a worker is checking it; when the worker's part
    runs (here in the test, as the worker would), the page loads again by itself and lists the problems."""
    from playwright.sync_api import expect

    from tests.submission_data import METADATA, upload
    from trajectories.submissions import uploads

    settings.MYPCBENCH_UPLOAD_VALIDATION = "worker"
    archive = zip_bytes(good_entries(tmp_path, task_ids=["no-such-task-1"]))
    sub = uploads.receive_archive(author, upload(archive, "opus.zip"), METADATA).submission

    log_in(page, live_server)
    page.goto(f"{live_server.url}/submissions/{sub.pk}/")
    status = page.locator("[data-live=status] .status")
    assert status.inner_text() == "Validating"
    expect(page.locator("main")).to_contain_text("a worker is checking it")
    expect(page.locator("#judging")).to_contain_text("Judging starts once the archive has been checked and accepted.")
    shot(page, "submissions-validating")

    assert uploads.validate_received(sub.pk) == "refused"
    expect(status).to_have_text("Rejected", timeout=20_000)
    expect(page.locator("main")).to_contain_text("no-such-task-1")
    assert "a worker is checking it" not in page.locator("main").inner_text()
    expect(page.locator("#judging")).to_contain_text("Not judged: no run was stored from this archive.")
    assert "trajectories judged" not in page.locator("#judging").inner_text()
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "submissions-rejected-phone")
