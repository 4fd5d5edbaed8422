"""Run badges: one include names how far we vouch for a run wherever it is shown (board rows, run
page, run list, model page, submission page): verified (our harness, or an upload a maintainer
linked to our rerun), re-judged (uploaded, judged by us), reported (published figures)."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from leaderboard.badges import run_badge
from leaderboard.models import Model, Run
from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories import submissions

pytestmark = pytest.mark.django_db


def test_badge_for_each_provenance():
    assert run_badge("harness").label == "verified"
    assert run_badge("upload").label == "re-judged"
    assert run_badge("reported").label == "reported"
    assert run_badge("imported").label == "imported"
    verified = run_badge("upload", {"verified_by_rerun": {"run": "opus-rerun", "run_name": "Opus rerun"}})
    assert verified.key == "verified" and verified.rerun_slug == "opus-rerun" and "Opus rerun" in verified.title


@pytest.fixture
def runs(settings, tmp_path):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()
    suite = make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    staff = get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True, is_superuser=True)
    sub = submissions.submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    submissions.decide(sub, staff, "approve")
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
    assert "Uploaded by an author, judged by our judge" in page  # the badge's title says what it means

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


def test_submission_page_shows_the_run_badge(client, runs):
    sub, *_rest = runs
    client.force_login(sub.author)
    page = client.get(reverse("trajectories:submission_detail", args=[sub.pk])).content.decode()
    assert badge_after(page, "Submission ") == "badge-rejudged:re-judged"
    assert '<span class="badge-means">Uploaded by an author</span>' in page
