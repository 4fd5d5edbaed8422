"""An upload whose agent reached the benchmark's repository: it waits for review with the hit in its
report, its page and its run's page flag the step with a link into the player at that step, and a
maintainer publishes it only by saying why; a clean upload shows no flags and is approved as before."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from leaderboard.models import Run
from tests.html_text import visible_text
from tests.submission_data import METADATA, good_entries, upload, zip_bytes
from trajectories.models import Submission, Trajectory
from trajectories.submissions import review
from trajectories.submissions.uploads import submit_archive

pytestmark = pytest.mark.django_db

LEAKY = [
    (1, "pyautogui.click(640, 400)"),
    (2, "pyautogui.typewrite('https://github.com/ljang0/MyPCBench/blob/main/all_tasks.json', interval=0.02)"),
    (3, "DONE"),
]


@pytest.fixture
def staff():
    return get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True)


def submit(author, tmp_path, actions) -> Submission:
    entries = good_entries(tmp_path, ["retrieval-f016"], actions=actions)
    return submit_archive(author, upload(zip_bytes(entries)), METADATA).submission


def test_an_upload_with_a_hit_waits_for_review_and_flags_the_step(client, author, staff, tmp_path, isolated_media):
    sub = submit(author, tmp_path, LEAKY)
    assert sub.status == Submission.Status.AWAITING_REVIEW
    assert sub.run.publication == Run.Publication.DRAFT
    warnings = [p["problem"] for p in sub.validation_report if p["level"] == "warning"]
    (flag,) = [w for w in warnings if w.startswith("contamination:")]
    # the excerpt around the hit (PostgreSQL stores the action's keys in another order, so what precedes the
    # URL in the excerpt differs by database)
    assert flag.startswith(
        "contamination: retrieval-f016, step 2 (action) reaches the benchmark's repository: MyPCBench repository in "
    )
    assert "https://github.com/ljang0/MyPCBench/blob/main/all_tasks…”" in flag
    trajectory = Trajectory.objects.get(run=sub.run)
    step_link = f"{reverse('trajectories:trajectory_player', args=[trajectory.pk])}?step=2"

    client.force_login(author)
    response = client.get(reverse("trajectories:submission_detail", args=[sub.pk]))
    assert f'href="{step_link}"' in response.content.decode()
    page = visible_text(response)
    assert "Contamination flags 1 hit" in page
    assert "retrieval-f016, step 2 : action reaches the benchmark's repository" in page

    with pytest.raises(review.ReviewError, match="1 contamination hit \\(see the flags"):
        review.decide(sub, staff, "approve")
    sub.refresh_from_db()
    assert sub.status == Submission.Status.AWAITING_REVIEW and sub.run.publication == Run.Publication.DRAFT

    review.decide(sub, staff, "approve", "the agent only read the public README, no answers")
    sub.refresh_from_db()
    assert sub.status == Submission.Status.PUBLISHED
    # no judge ran in this test, so the log says that too
    assert sub.review_log[-1]["label"] == "approved before our judge had judged it all, despite 1 contamination hit"

    run_page = client.get(reverse("leaderboard:run_detail", args=[sub.run.slug]))
    assert f'href="{step_link}"' in run_page.content.decode()
    assert "retrieval-f016, step 2 : action reaches the benchmark's repository" in visible_text(run_page)


def test_a_clean_upload_has_no_flags_and_is_approved_without_a_reason(client, author, staff, tmp_path, isolated_media):
    sub = submit(author, tmp_path, [(1, "pyautogui.click(640, 400)"), (2, "DONE")])
    assert not [p for p in sub.validation_report if p["problem"].startswith("contamination:")]
    client.force_login(author)
    assert "Contamination flags" not in visible_text(
        client.get(reverse("trajectories:submission_detail", args=[sub.pk]))
    )
    review.decide(sub, staff, "approve")
    sub.refresh_from_db()
    assert sub.status == Submission.Status.PUBLISHED
    assert sub.review_log[-1]["label"] == "approved before our judge had judged it all"
