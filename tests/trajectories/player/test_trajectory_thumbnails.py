"""Thumbnails of each trajectory's last screen and its score, where trajectories are listed: the run
page's table (and the progress rows it polls, so a running trajectory's thumbnail follows its latest
step) and the trajectory list. One query for every thumbnail on a page, whatever its length."""

import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from tests import run_page_data
from trajectories.evaluations import lifecycle
from trajectories.models import Step
from trajectories.recording import selectors

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quiet_runs")]


def _screenshot_url(trajectory, index) -> str:
    return Step.objects.get(trajectory=trajectory, index=index).screenshot.url


def test_a_running_trajectory_shows_its_latest_screen_and_a_finished_one_its_last():
    run, _ = run_page_data.launch(3)
    running, finished, queued = run_page_data.trajectories(run)
    run_page_data.start(running)
    run_page_data.record_step(running, 1)
    rows = {row["id"]: row for row in lifecycle.progress(run)["trajectories"]}
    assert rows[running.pk]["thumbnail"] == _screenshot_url(running, 1)
    run_page_data.record_step(running, 2)
    run_page_data.start(finished)
    for index in (1, 2, 3):
        run_page_data.record_step(finished, index)
    run_page_data.finish(finished, 3)
    rows = {row["id"]: row for row in lifecycle.progress(run)["trajectories"]}
    assert rows[running.pk]["thumbnail"] == _screenshot_url(running, 2), "the thumbnail follows the latest step"
    assert rows[finished.pk]["thumbnail"] == _screenshot_url(finished, 3)
    assert rows[queued.pk]["thumbnail"] == "", "nothing recorded yet, no thumbnail"
    assert len({rows[running.pk]["thumbnail"], rows[finished.pk]["thumbnail"]}) == 2


def test_the_smallest_image_is_used_and_a_last_step_without_screenshot_is_passed_over():
    run, _ = run_page_data.launch(1)
    (trajectory,) = run_page_data.trajectories(run)
    run_page_data.start(trajectory)
    run_page_data.record_step(trajectory, 1)
    run_page_data.record_step(trajectory, 2)
    Step.objects.filter(trajectory=trajectory, index=1).update(thumbnail="derived/one-thumb.webp")
    # a last step whose screenshot is missing (an import with --allow-missing-screenshots)
    Step.objects.filter(trajectory=trajectory, index=2).update(screenshot="", thumbnail="")
    urls = selectors.final_screenshots([trajectory.pk])
    assert urls == {trajectory.pk: Step.objects.get(trajectory=trajectory, index=1).thumbnail.url}
    assert urls[trajectory.pk].endswith("one-thumb.webp")
    assert selectors.final_screenshots([]) == {}


def test_the_run_page_table_shows_each_last_screen_linked_to_the_player(admin_client):
    run, _ = run_page_data.launch(2)
    played, queued = run_page_data.trajectories(run)
    run_page_data.start(played)
    run_page_data.record_step(played, 1)
    run_page_data.record_step(played, 2)
    run_page_data.finish(played, 2)
    html = admin_client.get(reverse("leaderboard:run_detail", args=[run.slug])).content.decode()
    player = reverse("trajectories:trajectory_player", args=[played.pk])
    assert re.search(
        rf'<a href="{re.escape(player)}"><img class="list-thumb" src="{re.escape(_screenshot_url(played, 2))}" '
        rf'alt="Last screen of {played.task.task_id} attempt {played.attempt}, play it"',
        html,
    ), "the last step's image, linked to the player, described for screen readers"
    assert html.count('class="list-thumb"') == 1, "the queued trajectory has no image"


def test_the_trajectory_list_shows_last_screens_and_scores(admin_client):
    run, _ = run_page_data.launch(3)
    graded, unjudged, queued = run_page_data.trajectories(run)
    for trajectory in (graded, unjudged):
        run_page_data.start(trajectory)
        run_page_data.record_step(trajectory, 1)
        run_page_data.finish(trajectory, 1)
    run_page_data.judge(graded, ["success", "failure"])  # one of two equal-weight items: 0.50
    cache.clear()
    response = admin_client.get(reverse("trajectories:trajectory_list"), {"run": run.slug})
    html = response.content.decode()
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", html, re.S):
        task = re.search(r">(action-e\d+)", row)
        if task:
            rows[task.group(1)] = row
    assert _screenshot_url(graded, 1) in rows[graded.task.task_id]
    assert re.search(r'<td class="num"[^>]*>0\.50</td>', rows[graded.task.task_id]), "a graded trajectory's score"
    assert "not graded" in rows[unjudged.task.task_id] and "list-thumb" in rows[unjudged.task.task_id]
    assert "list-thumb" not in rows[queued.task.task_id] and "not graded" not in rows[queued.task.task_id]


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_the_trajectory_list_answers_in_the_same_number_of_queries_for_3_or_30(
    admin_client, django_assert_max_num_queries
):
    counts = {}
    for n in (3, 30):
        run, _ = run_page_data.launch(n)
        for trajectory in run_page_data.trajectories(run):
            run_page_data.start(trajectory)
            run_page_data.record_step(trajectory, 1)
            run_page_data.finish(trajectory, 1)
            run_page_data.judge(trajectory, ["success", "success"])
        cache.clear()
        with django_assert_max_num_queries(40) as captured:
            response = admin_client.get(reverse("trajectories:trajectory_list"), {"run": run.slug})
        assert response.content.decode().count('class="list-thumb"') == n
        counts[n] = len(captured)
    assert counts[3] == counts[30], counts
