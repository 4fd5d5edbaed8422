"""Whose verdict it is: the player, the plain trajectory page, the run page and the task page name
the judge of every verdict they show, and an author's own verdicts carry a visible "self-reported,
not scored" label (never our green "Success" with no name)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from leaderboard.models import JudgeConfig
from tests.factories import make_suite
from tests.html_text import visible_text
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.models import Judgment
from trajectories.submissions.uploads import submit_archive

pytestmark = pytest.mark.django_db

LABEL = "self-reported, not scored"


@pytest.fixture
def uploaded(settings, tmp_path, isolated_media):
    """An author's upload carrying their own judge's verdicts (two pass, one fails per task), not
    judged by us yet; the author is logged in by the tests that need it."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    cache.clear()
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    data = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    submission = submit_archive(author, upload(data, "opus-run.zip"), METADATA).submission
    return author, submission.run


def first(run):
    return run.trajectories.get(task__task_id=TASK_IDS[0])


def test_the_player_names_the_authors_own_judge_and_labels_its_verdicts(client, uploaded):
    author, run = uploaded
    trajectory = first(run)
    client.force_login(author)
    response = client.get(reverse("trajectories:trajectory_player", args=[trajectory.pk]))
    text = visible_text(response)
    own = JudgeConfig.objects.get(origin=JudgeConfig.Origin.SELF_REPORTED)
    assert f"Verdicts by {own.name} (Self-reported by the author) {LABEL}" in text
    # what the script draws each item from (tests/browser/test_verdict_labels_browser.py sees it drawn)
    judges = response.context["payload"]["judges"]
    assert [(j["origin"], j["self_reported"], j["scores_run"], j["note"]) for j in judges] == [
        ("self_reported", True, False, LABEL)
    ]


def test_the_player_names_our_judge_first_and_says_it_scores_the_run(client, uploaded):
    author, run = uploaded
    trajectory = first(run)
    ours = JudgeConfig.objects.create(name="our judge (gemini-3.1-flash-lite, v3)", origin="ours", model="m")
    for judgment in trajectory.judgments.all():
        Judgment.objects.create(
            trajectory=trajectory, rubric_item=judgment.rubric_item, judge=ours, verdict="failure", explanation="No."
        )
    client.force_login(author)
    response = client.get(reverse("trajectories:trajectory_player", args=[trajectory.pk]))
    text = visible_text(response)
    assert f"Verdicts by {ours.name} (Our judge) · the judge this run is scored by" in text
    judges = response.context["payload"]["judges"]
    assert [j["name"] for j in judges][0] == ours.name and judges[0]["scores_run"] is True
    assert judges[1]["self_reported"] is True and judges[1]["note"] == LABEL


def test_the_plain_trajectory_page_labels_each_self_reported_verdict(client, uploaded):
    author, run = uploaded
    client.force_login(author)
    text = visible_text(client.get(reverse("trajectories:trajectory_detail", args=[first(run).pk])))
    assert (
        text.count(f"Success {LABEL}") == 2
        and text.count(f"Failure Premature done {LABEL}") + text.count(f"Failure {LABEL}") == 1
    )
    assert "(Self-reported by the author)" in text


def test_the_run_page_names_whose_verdicts_its_table_counts(client, uploaded):
    _author, run = uploaded
    staff = get_user_model().objects.create_user("michael", password="pw", is_staff=True)
    client.force_login(staff)
    url = reverse("leaderboard:run_detail", args=[run.slug])
    text = visible_text(client.get(url))
    assert "No judge's verdicts are counted below yet." in text
    assert f"The author's own 6 verdicts are shown in each trajectory's player, labelled {LABEL}" in text

    ours = JudgeConfig.objects.create(name="our judge (gemini-3.1-flash-lite, v3)", origin="ours", model="m")
    for trajectory in run.trajectories.all():
        for judgment in trajectory.judgments.all():
            Judgment.objects.create(
                trajectory=trajectory, rubric_item=judgment.rubric_item, judge=ours, verdict="success"
            )
    text = visible_text(client.get(url))
    assert f"Judgments and scores below: verdicts by {ours.name} (Our judge)" in text


def test_the_task_page_names_the_judge_of_each_runs_solve_rate(client, uploaded):
    _author, run = uploaded
    staff = get_user_model().objects.create_user("michael", password="pw", is_staff=True)
    client.force_login(staff)
    url = reverse("leaderboard:task_detail", args=[run.suite.slug, TASK_IDS[0]])
    text = visible_text(client.get(url))
    assert f"not judged yet the author's own verdicts: {LABEL}" in text

    ours = JudgeConfig.objects.create(name="our judge (gemini-3.1-flash-lite, v3)", origin="ours", model="m")
    trajectory = first(run)
    for judgment in trajectory.judgments.all():
        Judgment.objects.create(trajectory=trajectory, rubric_item=judgment.rubric_item, judge=ours, verdict="success")
    text = visible_text(client.get(url))
    assert f"1 of 1 graded attempt judged by {ours.name}" in text
