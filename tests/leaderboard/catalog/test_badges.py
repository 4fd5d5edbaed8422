"""Run badges: one include names how far we vouch for a run wherever it is shown (board rows, run
page, run list, model page, submission page, GET /api/leaderboard, the board's CSV/JSON exports):
verified (our harness, or an upload a maintainer linked to our rerun), re-judged (uploaded, every
trajectory judged by our judge), judging / awaiting our judge (an upload our judge has not
finished: never scored from the author's own verdicts), reported (published figures)."""

import csv
import html
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from leaderboard.catalog.badges import run_badge
from leaderboard.models import Model, Run
from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, good_entries, our_judge, upload, zip_bytes
from trajectories.judging.our_judge import judge_run_inline, judge_trajectory, run_trajectories
from trajectories.submissions import review, uploads

pytestmark = pytest.mark.django_db


def test_verified_only_for_a_real_agent_on_the_benchmark_image():
    real = run_badge("harness", {"launch": {"backend": "qemu"}}, agent_type="anthropic")
    assert real.label == "verified" and "anthropic agent on the qemu guest" in real.title
    # the dummy agent on the fake guest, a scripted agent on the benchmark image, a real agent on
    # the local test desktop: all test runs, never verified
    for agent, backend in (("dummy", "fake"), ("scripted", "docker"), ("openai", "local")):
        badge = run_badge("harness", {"launch": {"backend": backend}}, agent_type=agent)
        assert badge.label == "test run", (agent, backend)
        assert f"the {agent} agent on the {backend} guest" in badge.title
    # runs on a demo suite say so, whatever made them; published figures stay reported
    assert run_badge("imported", {}, agent_type="scripted", demo=True).label == "demo run"
    assert run_badge("harness", {"launch": {"backend": "qemu"}}, agent_type="anthropic", demo=True).label == "demo run"
    assert run_badge("reported", demo=True).label == "reported"


def test_badge_for_each_provenance_and_judging_state():
    assert run_badge("harness").label == "verified"
    assert run_badge("reported").label == "reported"
    assert run_badge("imported").label == "imported"
    assert run_badge("upload").label == "awaiting our judge"
    assert "our judge has not judged it yet, so it has no score" in run_badge("upload").title
    assert run_badge("upload", {"our_judging": {"state": "judging"}}).label == "being judged"
    judged = {"state": "judged", "judge": "ours: anthropic x", "items": 6, "judged_items": 5, "error_items": 1}
    rejudged = run_badge("upload", {"our_judging": {**judged, "at": "2026-05-01T10:00:00"}})
    assert rejudged.key == "rejudged" and rejudged.label == "re-judged"
    assert rejudged.title == (
        "Uploaded by an author; our judge (ours: anthropic x) judged every trajectory: 5 of 6 rubric items, "
        "1 ended in an API error and are left out of the figures (finished 2026-05-01). "
        "The author's own verdicts are never scored."
    )
    all_errors = run_badge("upload", {"our_judging": {**judged, "judged_items": 0, "error_items": 6}})
    assert all_errors.label == "awaiting our judge"
    assert "every call to our judge ended in an API error" in all_errors.title
    verified = run_badge(
        "upload",
        {"verified_by_rerun": {"run": "opus-rerun", "run_name": "Opus rerun", "by": "michael", "at": "2026-05-02"}},
    )
    assert verified.key == "verified" and verified.rerun_slug == "opus-rerun"
    assert "rerun with our harness as Opus rerun and marked verified by michael on 2026-05-02" in verified.title
    assert "Our judge has not finished judging the uploaded trajectories" in verified.title


@pytest.fixture
def people(settings, tmp_path):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()
    suite = make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    staff = get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True, is_superuser=True)
    return suite, author, staff


@pytest.fixture
def runs(people, settings, monkeypatch, tmp_path):
    """An upload judged by our judge (provider simulator) and approved; our harness's rerun of it;
    a reported run."""
    suite, author, staff = people
    sub = uploads.submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    with our_judge(settings, monkeypatch) as judge:
        judge_run_inline(sub.run, judge)
    sub = review.sync_judging_status(sub)
    review.decide(sub, staff, "approve")
    model = sub.run.model
    rerun = Run.objects.create(
        name="Opus rerun by us",
        slug="opus-rerun",
        suite=suite,
        model=model,
        provenance="harness",
        publication="published",
    )
    other = Model.objects.create(name="GPT-5.4", slug="gpt-54", provider="openai")
    reported = Run.objects.create(
        name="GPT-5.4 (paper)",
        slug="gpt-paper",
        suite=suite,
        model=other,
        provenance="reported",
        publication="published",
    )
    return sub, rerun, reported, staff


def badge_after(html: str, text: str) -> str:
    """The first badge following ``text`` in the page."""
    match = re.search(re.escape(text) + r'.*?<span class="badge (badge-[a-z-]+)"[^>]*>([^<]+)</span>', html, re.S)
    assert match, f"no badge after {text!r}"
    return f"{match.group(1)}:{match.group(2)}"


def test_badges_on_board_run_list_run_page_and_model_page(client, runs):
    sub, rerun, reported, _staff = runs
    board = client.get("/leaderboard/").content.decode()
    assert badge_after(board, f'data-run="{sub.run.slug}"') == "badge-rejudged:re-judged"
    assert badge_after(board, 'data-run="opus-rerun"') == "badge-verified:verified"
    assert badge_after(board, 'data-run="gpt-paper"') == "badge-reported:reported"

    listing = client.get(reverse("leaderboard:run_list")).content.decode()
    assert badge_after(listing, ">Opus rerun by us</a>") == "badge-verified:verified"
    assert badge_after(listing, f">{sub.run.name}</a>") == "badge-rejudged:re-judged"

    page = client.get(reverse("leaderboard:run_detail", args=[sub.run.slug])).content.decode()
    assert badge_after(page, "<h1>") == "badge-rejudged:re-judged"
    # the badge's title says what was verified
    assert "Uploaded by an author; our judge (ours: anthropic " in page
    assert "judged every trajectory: 6 of 6 rubric items (finished " in page

    model_page = client.get(reverse("leaderboard:model_detail", args=[sub.run.model.slug])).content.decode()
    assert badge_after(model_page, ">Opus rerun by us</a>") == "badge-verified:verified"


def test_mark_verified_by_rerun_in_the_admin(client, runs):
    sub, rerun, reported, staff = runs
    client.force_login(staff)
    url = reverse("admin:trajectories_submission_changelist")

    def act(rerun_slug):
        return client.post(
            url, {"action": "mark_verified", "_selected_action": [sub.pk], "rerun": rerun_slug}, follow=True
        ).content.decode()

    assert "mark verified: name the rerun" in act("")
    assert "mark verified: no run with slug &#x27;nope&#x27;" in act("nope")
    assert "is reported (published figures) (expected a run by our harness)" in act("gpt-paper")
    sub.run.refresh_from_db()
    assert run_badge(sub.run.provenance, sub.run.metadata).label == "re-judged", "refusals change nothing"

    assert f"Submission {sub.pk}: marked verified." in act("opus-rerun")
    sub.refresh_from_db()
    assert (
        sub.review_log[-1]["by"] == "michael" and sub.review_log[-1]["label"] == "marked verified by rerun opus-rerun"
    )
    client.logout()
    cache.clear()
    page = client.get(reverse("leaderboard:run_detail", args=[sub.run.slug])).content.decode()
    assert badge_after(page, "<h1>") == "badge-verified:verified"
    assert (
        f'verified by rerun <a href="{reverse("leaderboard:run_detail", args=["opus-rerun"])}">opus-rerun</a>' in page
    )
    board = client.get("/leaderboard/").content.decode()
    assert badge_after(board, f'data-run="{sub.run.slug}"') == "badge-verified:verified"
    assert "marked verified by michael on " in page and ". Our judge (ours: anthropic " in page


def test_submission_page_shows_the_run_badge(client, runs):
    sub, *_rest = runs
    client.force_login(sub.author)
    page = client.get(reverse("trajectories:submission_detail", args=[sub.pk])).content.decode()
    assert badge_after(page, "Submission ") == "badge-rejudged:re-judged"
    assert '<span class="badge-means">Uploaded by an author</span>' in page


def board_row(html: str, slug: str) -> str:
    match = re.search(rf'<tr(?: data-kind="reported")? data-run="{re.escape(slug)}".*?</tr>', html, re.S)
    assert match, f"no board row for {slug}"
    return match.group(0)


def test_badge_in_api_rows_and_in_the_boards_csv_and_json_exports(client, runs):
    sub, _rerun, _reported, _staff = runs
    expected = {sub.run.slug: "rejudged", "opus-rerun": "verified", "gpt-paper": "reported"}

    api = client.get("/api/leaderboard").json()["rows"]
    assert {r["run"]: r["badge"] for r in api} == expected
    mine = next(r for r in api if r["run"] == sub.run.slug)
    assert mine["badge_title"].startswith("Uploaded by an author; our judge (ours: anthropic ")
    assert "6 of 6 rubric items" in mine["badge_title"]

    exported = list(csv.DictReader(io.StringIO(client.get("/leaderboard/?format=csv").content.decode())))
    assert {e["run"]: e["badge"] for e in exported} == expected
    data = client.get("/leaderboard/?format=json").json()
    assert {r["run"]: r["badge"] for r in data["rows"]} == expected
    # each export says what its badge means: the badge's tooltip on the page, word for word
    board = client.get("/leaderboard/").content.decode()
    for slug in expected:
        tooltip = re.search(r'<span class="badge badge-[a-z-]+" title="([^"]+)"', board_row(board, slug)).group(1)
        assert {e["badge_title"] for e in exported if e["run"] == slug} == {html.unescape(tooltip)}
        assert {r["badge_title"] for r in data["rows"] if r["run"] == slug} == {html.unescape(tooltip)}
    mine_csv = next(e for e in exported if e["run"] == sub.run.slug)
    assert mine_csv["badge_title"] == mine["badge_title"], "the same words as the API"

    # documented in /api/docs (the OpenAPI schema it renders)
    schema = client.get("/api/openapi.json").json()["components"]["schemas"]["BoardRowOut"]
    assert {"badge", "badge_title"} <= set(schema["required"])
    assert "rejudged: uploaded, every trajectory judged by our judge" in schema["properties"]["badge"]["description"]
    assert "awaiting-judge" in schema["properties"]["badge"]["description"]


def test_an_upload_is_re_judged_only_once_our_judge_has_judged_it_never_scored_from_its_own_verdicts(
    client, people, settings, monkeypatch, tmp_path, django_capture_on_commit_callbacks
):
    _suite, author, staff = people
    # The author's own judge says every item passed; ours will say every item failed.
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, True, True]))
    sub = uploads.submit_archive(author, upload(archive), METADATA).submission
    review.decide(sub, staff, "approve")  # a maintainer may approve before our judge has run
    slug = sub.run.slug

    def board():
        cache.clear()
        html = client.get("/leaderboard/").content.decode()
        row = next(r for r in client.get("/api/leaderboard").json()["rows"] if r["run"] == slug)
        return board_row(html, slug), row

    html, row = board()
    assert badge_after(html, f'data-run="{slug}"') == "badge-awaiting-judge:awaiting our judge"
    assert "our judge has not judged it yet, so it has no score" in html
    assert row["badge"] == "awaiting-judge" and row["judge"] == "" and row["judge_origin"] == ""
    assert row["rubric_pct"]["value"] is None and row["perfect_pct"]["value"] is None, "self-reported never scored"
    assert '<span class="na">not judged yet</span>' in html

    failure = '{"reasoning": "Not done.", "cited_steps": [1], "verdict": "failure"}'
    with our_judge(settings, monkeypatch, reply=failure) as judge:
        # queued for our judge: the queue is recorded, and the test judges in place of a worker
        monkeypatch.setattr(review, "request_run_judging", lambda run_id: None)
        review.queue_judging(sub.pk)
        html, row = board()
        assert badge_after(html, f'data-run="{slug}"') == "badge-judging:being judged"
        assert row["badge"] == "judging"

        first, second = run_trajectories(sub.run)
        judge_trajectory(first, judge)
        review.after_trajectory_judged(first.pk)
        html, row = board()
        assert row["badge"] == "judging", "half judged is not re-judged"
        assert row["judge_origin"] == "ours" and row["counts"]["unjudged"] == 1

        judge_trajectory(second, judge)
        review.after_trajectory_judged(second.pk)
    html, row = board()
    assert badge_after(html, f'data-run="{slug}"') == "badge-rejudged:re-judged"
    assert row["badge"] == "rejudged" and "6 of 6 rubric items" in row["badge_title"]
    assert row["rubric_pct"]["value"] == 0.0 and row["perfect_pct"]["value"] == 0.0, "our judge's verdicts"
    sub.refresh_from_db()
    assert sub.status == "published", "judging finishing after approval leaves the decision alone"
    assert sub.metadata["judging"]["state"] == "judged"
