"""The run page of a harness run while it runs: the progress endpoint's per-trajectory rows (status,
steps so far, how it ended, judged or not, score, player link) in a constant number of queries, the
table rendered from the same rows, and the staff actions (cancel after a confirmation, rerun as a new
run) with their flash messages. No broker here: the queue's apply_async and revoke are replaced."""

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from leaderboard.models import Run
from tests import run_page_data
from trajectories.evaluations import lifecycle
from trajectories.recording import live_ingest
from trajectories.tasks import run_trajectory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quiet_runs")]


@pytest.fixture
def no_broker(monkeypatch):
    """Messages a rerun would queue, and revocations a cancel would broadcast (no broker in these tests)."""
    from mypcbench_site.celery import app

    sent = {"queued": [], "revoked": []}
    monkeypatch.setattr(run_trajectory, "apply_async", lambda args, task_id: sent["queued"].append(args[0]))
    monkeypatch.setattr(app.control, "revoke", lambda ids: sent["revoked"].extend(ids))
    return sent


def rows_by_task(progress) -> dict:
    return {row["task"]: row for row in progress["trajectories"]}


# ---------------------------------------------------------------- the rows the page polls


def test_each_row_follows_its_trajectory_from_queued_to_judged():
    run, _ = run_page_data.launch(3)
    first, second, third = run_page_data.trajectories(run)
    rows = rows_by_task(lifecycle.progress(run))
    assert [rows[t.task.task_id]["status"] for t in (first, second, third)] == ["queued"] * 3
    assert rows["action-e001"]["player_url"] is None, "nothing to play before the first step"

    run_page_data.start(first)
    run_page_data.record_step(first, 1)
    run_page_data.record_step(first, 2)
    run_page_data.start(second)
    for index in range(1, 5):
        run_page_data.record_step(second, index)
    run_page_data.finish(second, 4)
    progress = lifecycle.progress(Run.objects.get(pk=run.pk))
    rows = rows_by_task(progress)
    running, finished, queued = rows["action-e001"], rows["action-e002"], rows["action-e003"]
    assert (running["status_display"], running["steps"], running["ended_by_display"]) == ("Running", 2, "")
    assert running["player_url"] == reverse("trajectories:trajectory_player", args=[first.pk])
    assert (finished["status_display"], finished["steps"], finished["ended_by_display"]) == ("Finished", 4, "Done")
    assert (finished["judging"], finished["score"], finished["judged"]) == ("waiting", None, 0)
    assert (queued["status"], queued["steps"], queued["player_url"]) == ("queued", 0, None)
    assert {k: progress[k] for k in ("queued", "running", "done", "judged", "steps", "live")} == {
        "queued": 1, "running": 1, "done": 1, "judged": 0, "steps": 6, "live": True,
    }  # fmt: skip

    run_page_data.judge(second, ["success"])  # one of two rubric items so far
    row = rows_by_task(lifecycle.progress(run))["action-e002"]
    assert (row["judging"], row["score"], row["passed"], row["judged"]) == ("judging", None, 1, 1)
    run_page_data.judge(second, [None, "failure"])
    row = rows_by_task(lifecycle.progress(run))["action-e002"]
    assert (row["judging"], row["score"], row["passed"], row["judged"]) == ("graded", 0.5, 1, 2)


def test_a_graded_trajectory_shows_its_rubric_score_and_a_judge_error_is_unknown_not_a_failure():
    run, _ = run_page_data.launch(2)
    graded, errored = run_page_data.trajectories(run)
    for trajectory in (graded, errored):
        run_page_data.start(trajectory)
        run_page_data.record_step(trajectory, 1)
        run_page_data.finish(trajectory, 1)
    run_page_data.judge(graded, ["success", "failure"])
    run_page_data.judge(errored, ["success", "error"])
    progress = lifecycle.progress(Run.objects.get(pk=run.pk))
    rows = rows_by_task(progress)
    assert (rows["action-e001"]["judging"], rows["action-e001"]["score"]) == ("graded", 0.5)
    assert (rows["action-e001"]["passed"], rows["action-e001"]["judged"]) == (1, 2)
    assert (rows["action-e002"]["judging"], rows["action-e002"]["score"]) == ("error", None)
    assert rows["action-e002"]["judge_errors"] == 1
    assert (progress["judged"], progress["live"], progress["status"]) == (1, False, "finished")


def test_an_interrupted_trajectory_shows_the_steps_it_recorded():
    run, _ = run_page_data.launch(1)
    (trajectory,) = run_page_data.trajectories(run)
    run_page_data.start(trajectory)
    run_page_data.record_step(trajectory, 1)
    run_page_data.record_step(trajectory, 2)
    run_page_data.record_step(trajectory, 3)
    from trajectories.models import VmSlot

    VmSlot.objects.filter(trajectory=trajectory).update(expires_at="2000-01-01T00:00:00Z")  # the worker died
    row = lifecycle.progress(Run.objects.get(pk=run.pk))["trajectories"][0]
    assert (row["status"], row["steps"], row["judging"]) == ("interrupted", 3, "")
    assert row["player_url"], "the recorded steps can be played"


def test_a_cancelled_run_is_followed_until_its_running_trajectory_stops(no_broker):
    run, _ = run_page_data.launch(2)
    running, queued = run_page_data.trajectories(run)
    run_page_data.start(running)
    lifecycle.cancel(Run.objects.get(pk=run.pk))
    progress = lifecycle.progress(Run.objects.get(pk=run.pk))
    assert (progress["status"], progress["live"], progress["cancellable"]) == ("cancelled", True, False)
    row = rows_by_task(progress)["action-e002"]
    assert (row["status"], row["ended_by_display"]) == ("interrupted", "")
    assert row["note"].startswith("run cancelled by a maintainer before this trajectory started")
    live_ingest.close(running, steps=0, ended_by="unknown", status="interrupted", error="run cancelled")
    assert lifecycle.progress(Run.objects.get(pk=run.pk))["live"] is False


# ---------------------------------------------------------------- a constant number of queries


def _run_in_every_state(n_tasks: int) -> Run:
    """A third of the trajectories running with steps, a third finished and judged, the rest queued."""
    run, _ = run_page_data.launch(n_tasks)
    for i, trajectory in enumerate(run_page_data.trajectories(run)):
        if i % 3 == 2:
            continue
        run_page_data.start(trajectory)
        for index in (1, 2):
            run_page_data.record_step(trajectory, index)
        if i % 3 == 1:
            run_page_data.finish(trajectory, 2)
            run_page_data.judge(trajectory, ["success", "failure"])
    return run


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_the_progress_endpoint_answers_in_the_same_number_of_queries_for_3_or_30_trajectories(
    admin_client, django_assert_max_num_queries
):
    counts = {}
    for n_tasks in (3, 30):
        run = _run_in_every_state(n_tasks)
        cache.clear()  # the scoring cache cold: the most queries a poll can take
        # session, user, run; lease reaping and the run's status; scoring (runs, data version, tasks,
        # apps, rubric, trajectories, judgments, judges); the rows with their judgments; live step counts;
        # the last screens' thumbnails; what the run still owes (its unfinished trajectories and work leases)
        with django_assert_max_num_queries(22) as captured:
            response = admin_client.get(reverse("api-1:run_progress", args=[run.slug]))
        counts[n_tasks] = len(captured)
        body = response.json()
        assert len(body["trajectories"]) == n_tasks
        assert body["running"] == len(range(0, n_tasks, 3)) and body["judged"] == len(range(1, n_tasks, 3))
        assert body["steps"] == 2 * (body["running"] + body["done"])
    assert counts[3] == counts[30], counts


# ---------------------------------------------------------------- the page


def test_the_table_is_rendered_from_the_same_rows_the_page_polls(admin_client):
    run, _ = run_page_data.launch(2)
    running, queued = run_page_data.trajectories(run)
    run_page_data.start(running)
    run_page_data.record_step(running, 1)
    page = admin_client.get(reverse("leaderboard:run_detail", args=[run.slug])).content.decode()
    assert f'<tr data-trajectory="{running.pk}" data-status="running">' in page
    assert f'<tr data-trajectory="{queued.pk}" data-status="queued">' in page
    watch = reverse("trajectories:trajectory_player", args=[running.pk])
    assert f'<a href="{watch}">Watch</a>' in page, "a running trajectory links to its live player"
    assert 'data-field="running">1</dd>' in page and 'data-field="steps">1</dd>' in page, "counts rendered, no '…'"
    assert 'data-live="1"' in page and "/static/js/run_progress.js" in page and "<script>" not in page


def test_a_finished_run_page_does_not_poll():
    run, _ = run_page_data.launch(1)
    (trajectory,) = run_page_data.trajectories(run)
    run_page_data.start(trajectory)
    run_page_data.finish(trajectory, 0, ended_by="error", status="error")
    admin = User.objects.create_superuser("boss", password="pw")
    client = Client()
    client.force_login(admin)
    page = client.get(reverse("leaderboard:run_detail", args=[run.slug])).content.decode()
    assert 'data-live="0"' in page and "This run has ended" in page
    assert "Cancel run" not in page and "Rerun failed or errored" in page


# ---------------------------------------------------------------- staff actions


def test_cancel_asks_first_then_cancels_and_says_so(admin_client, no_broker):
    run, _ = run_page_data.launch(3)
    running, *_ = run_page_data.trajectories(run)
    run_page_data.start(running)
    page_url = reverse("leaderboard:run_detail", args=[run.slug])
    cancel_url = reverse("trajectories:run_cancel", args=[run.slug])
    assert f'href="{cancel_url}"' in admin_client.get(page_url).content.decode()

    confirm = admin_client.get(cancel_url).content.decode()
    assert "Queued trajectories (2) are dropped" in confirm and "Running trajectories (1) stop" in confirm
    assert 'name="csrfmiddlewaretoken"' in confirm
    assert Run.objects.get(pk=run.pk).status == "running", "looking at the confirmation changes nothing"

    response = admin_client.post(cancel_url, follow=True)
    assert response.redirect_chain == [(page_url, 302)]
    page = response.content.decode()
    assert "2 queued trajectories dropped; running ones stop after their next step." in page
    assert Run.objects.get(pk=run.pk).status == "cancelled"
    assert len(no_broker["revoked"]) == 2
    assert "Cancel run" not in page, "nothing left to cancel"


def test_cancelling_a_finished_run_is_refused_with_the_reason(admin_client, no_broker):
    run, _ = run_page_data.launch(1)
    (trajectory,) = run_page_data.trajectories(run)
    run_page_data.start(trajectory)
    run_page_data.finish(trajectory, 0)
    url = reverse("trajectories:run_cancel", args=[run.slug])
    assert "there is nothing to cancel" in admin_client.get(url).content.decode()
    page = admin_client.post(url, follow=True).content.decode()
    assert "Not cancelled: run" in page and "is finished, not queued or running" in page
    assert Run.objects.get(pk=run.pk).status == "finished"


def test_rerun_failed_from_the_run_page_links_the_new_run(admin_client, no_broker):
    run, _ = run_page_data.launch(3)
    done, failed, errored = run_page_data.trajectories(run)
    for trajectory, ended_by, status in ((done, "done", "finished"), (failed, "fail", "finished"),
                                         (errored, "error", "error")):  # fmt: skip
        run_page_data.start(trajectory)
        run_page_data.finish(trajectory, 0, ended_by=ended_by, status=status)
    url = reverse("trajectories:run_rerun", args=[run.slug])
    response = admin_client.post(url, {"which": "failed", "reruns_seen": "0"}, follow=True)
    new = Run.objects.get(parent=run)
    assert response.redirect_chain == [(reverse("leaderboard:run_detail", args=[run.slug]), 302)]
    assert sorted(new.trajectories.values_list("task__task_id", flat=True)) == ["action-e002", "action-e003"]
    link = f'<a href="{reverse("leaderboard:run_detail", args=[new.slug])}">{new.name}</a>'
    assert f"Rerun queued as a new run: {link} (2 trajectories)." in response.content.decode()
    assert sorted(no_broker["queued"]) == sorted(new.trajectories.values_list("pk", flat=True))
    assert Run.objects.get(pk=run.pk).status == "finished", "the old run is left alone"


def test_rerun_the_whole_run_or_one_task(admin_client, no_broker):
    run, tasks = run_page_data.launch(2)
    url = reverse("trajectories:run_rerun", args=[run.slug])
    admin_client.post(url, {"which": "all", "reruns_seen": "0"})
    admin_client.post(url, {"which": "task", "task": tasks[1].pk, "reruns_seen": "1"})
    whole, one = Run.objects.filter(parent=run).order_by("pk")
    assert whole.trajectories.count() == 2
    assert list(one.trajectories.values_list("task__task_id", flat=True)) == ["action-e002"]


def test_a_bad_rerun_request_names_what_was_wrong_and_queues_nothing(admin_client, no_broker):
    run, _ = run_page_data.launch(1)
    other_run, other_tasks = run_page_data.launch(1)
    url = reverse("trajectories:run_rerun", args=[run.slug])
    page = admin_client.post(url, {"which": "task"}, follow=True).content.decode()
    assert "Nothing was queued: task: choose the task to rerun" in page
    page = admin_client.post(url, {"which": "task", "task": other_tasks[0].pk}, follow=True).content.decode()
    assert "Nothing was queued: task: Select a valid choice." in page
    page = admin_client.post(url, {"which": "everything"}, follow=True).content.decode()
    assert "Nothing was queued: which: Select a valid choice. everything is not one of the available choices." in page
    page = admin_client.post(url, {"which": "failed"}, follow=True).content.decode()
    assert "has no failed or errored trajectories to rerun" in page
    assert not Run.objects.filter(parent__in=[run, other_run]).exists() and no_broker["queued"] == []


def test_staff_actions_need_the_csrf_token(no_broker):
    run, _ = run_page_data.launch(1)
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_superuser("boss", password="pw"))
    assert client.post(reverse("trajectories:run_cancel", args=[run.slug])).status_code == 403
    assert client.post(reverse("trajectories:run_rerun", args=[run.slug]), {"which": "all"}).status_code == 403
    assert Run.objects.get(pk=run.pk).status == "queued" and not Run.objects.filter(parent=run).exists()
