"""The admin side of evaluations: the launch form (staff only), refusals shown on the form, the rerun
form and list actions, and the run page's live progress block with its JSON endpoint."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.models import Run
from tests.evaluation_data import LAUNCH, form_data
from tests.simulators import ProviderSimulator
from tests.simulators.computer_use import qwen_call
from trajectories.evaluations import lifecycle
from trajectories.models import Trajectory
from trajectories.tasks import run_trajectory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quiet_settings")]


def test_the_launch_form_is_for_staff_only(client, world):
    response = client.get(reverse(LAUNCH))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    User.objects.create_user("author", password="pw")
    client.login(username="author", password="pw")
    assert client.get(reverse(LAUNCH)).status_code == 302, "a logged-in non-staff user is sent to the admin login"


def test_the_launch_form_lists_the_harness_agents_and_backends(admin_client, world):
    page = admin_client.get(reverse(LAUNCH)).content.decode()
    for choice in (
        'value="scripted"',
        'value="dummy"',
        'value="anthropic"',
        'value="openai_compatible"',
        'value="fake"',
        'value="remote"',
        'value="local"',
    ):
        assert choice in page
    assert "Attempts per task" in page and "action-e001" in page
    changelist = admin_client.get(reverse("admin:leaderboard_run_changelist")).content.decode()
    assert reverse(LAUNCH) in changelist, "the run list links to the launch form"


def test_the_launch_form_preselects_a_suite_with_tasks(admin_client, world):
    from leaderboard.models import Suite

    empty = Suite.objects.create(name="AAA empty", version="v0", slug="aaa-empty", is_demo=False)
    page = admin_client.get(reverse(LAUNCH)).content.decode()
    assert f'<option value="{world["suite"].pk}" selected>' in page
    assert f'<option value="{empty.pk}" selected>' not in page


def test_launching_from_the_admin_queues_the_picked_tasks_and_opens_the_run_page(admin_client, admin_user, world,
                                                                                  queued):  # fmt: skip
    form = admin_client.get(reverse(LAUNCH)).content.decode()
    assert "<title>Launch an evaluation |" in form and 'name="csrfmiddlewaretoken"' in form
    response = admin_client.post(reverse(LAUNCH), form_data(world, tasks=[world["tasks"][1].pk], attempts=2))
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("leaderboard:run_detail", args=[run.slug])
    shown = admin_client.get(response["Location"]).content.decode()
    assert f"Launched {run.name}: 2 trajectories queued." in shown
    assert run.launched_by == admin_user and run.provenance == "harness" and run.status == "queued"
    assert run.turn_budget == 10 and run.screenshot_window == 5
    assert list(run.trajectories.values_list("task__task_id", "attempt")) == [("action-e002", 0), ("action-e002", 1)]
    assert sorted(queued) == sorted(run.trajectories.values_list("pk", flat=True))


def test_a_qwen25_model_launched_from_the_form_clicks_at_the_scaled_back_pixel(admin_client, world, queued):
    """The open-weight agent against the OpenAI-compatible provider simulator on loopback (no GPU server here)."""
    world["model"].api_model = "qwen2.5-vl-72b"
    world["model"].save()
    click = qwen_call("computer_use", action="left_click", coordinate=[630, 392])  # of the 1260x784 image
    stop = "Sent.\n" + qwen_call("computer_use", action="terminate", status="success")
    with ProviderSimulator() as sim:
        sim.script = [click, stop]
        response = admin_client.post(reverse(LAUNCH), form_data(
            world, agent_type="openai_compatible", agent_base_url=sim.openai_url, coordinate_type="absolute",
            plan="", tasks=[world["tasks"][0].pk]))  # fmt: skip
        assert response.status_code == 302, response.content.decode()[:2000]
        run = Run.objects.get()
        assert run.metadata["launch"]["coordinate_type"] == "absolute"
        trajectory = run.trajectories.get()
        assert run_trajectory.run(trajectory.pk) == "done"
    # the fake guest's screen is 1280x800: the model's (630, 392) is its centre
    assert [s.action_text for s in trajectory.steps.order_by("index")] == ["pyautogui.click(640, 400)", "DONE"]
    assert "The screen's resolution is 1260x784" in sim.requests[0].body["messages"][0]["content"]
    rerun = lifecycle.rerun(run, "all")
    assert rerun.metadata["launch"]["coordinate_type"] == "absolute", "a rerun keeps the coordinate convention"


def test_a_coordinate_type_for_an_agent_that_reads_none_is_refused(admin_client, world, queued):
    response = admin_client.post(reverse(LAUNCH), form_data(world, coordinate_type="absolute"))
    assert "coordinate type &#x27;absolute&#x27;: the scripted agent calls no model" in response.content.decode()
    assert not Run.objects.exists() and queued == []


def test_a_missing_judge_key_is_refused_on_the_form_and_nothing_is_queued(admin_client, world, queued, monkeypatch):
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    response = admin_client.post(reverse(LAUNCH), form_data(world, judge_provider="google"))
    page = response.content.decode()
    assert response.status_code == 200
    assert '<ul class="errorlist nonfield"><li>Nothing was queued:</li>' in page and "GEMINI_API_KEY" in page
    assert not Run.objects.exists() and queued == []


def test_one_trajectory_launched_is_said_in_the_singular(admin_client, world, queued):
    response = admin_client.post(reverse(LAUNCH), form_data(world, tasks=[world["tasks"][0].pk]), follow=True)
    assert f"Launched {Run.objects.get().name}: 1 trajectory queued." in response.content.decode()


def test_a_plan_that_is_not_json_names_the_field(admin_client, world, queued):
    response = admin_client.post(reverse(LAUNCH), form_data(world, plan="{turns: []"))
    assert "line 1, column 2: not valid JSON" in response.content.decode()
    assert not Run.objects.exists()
    deep = "[" * 10_000 + "]" * 10_000
    response = admin_client.post(reverse(LAUNCH), form_data(world, plan=deep))
    assert response.status_code == 200 and "nested more than 64 levels deep" in response.content.decode()
    assert not Run.objects.exists()


def test_rerun_one_task_from_the_rerun_form(admin_client, world, queued):
    admin_client.post(reverse(LAUNCH), form_data(world))
    run = Run.objects.get()
    url = reverse("admin:run_rerun", args=[run.pk])
    page = admin_client.get(url).content.decode()
    assert "A rerun is always a new run" in page and f"<title>Rerun {run.name} |" in page
    assert "This run: 2 trajectories — 0 done, 0 errored," in page and 'name="csrfmiddlewaretoken"' in page
    missing = admin_client.post(url, {"which": "task"})
    assert "choose the task to rerun" in missing.content.decode()
    # nothing failed yet: refused on the form, with what was wrong, and nothing queued
    refused = admin_client.post(url, {"which": "failed"}).content.decode()
    assert '<ul class="errorlist nonfield"><li>Nothing was queued:</li>' in refused
    assert f"<li>run &#x27;{run.slug}&#x27; has no failed or errored trajectories to rerun</li>" in refused
    assert Run.objects.count() == 1
    response = admin_client.post(url, {"which": "task", "task": world["tasks"][0].pk}, follow=True)
    new = Run.objects.exclude(pk=run.pk).get()
    assert response.redirect_chain[0][1] == 302 and new.parent == run
    assert f"Rerun queued as a new run: {new.name}." in response.content.decode()
    assert new.launched_by == User.objects.get(username="admin")
    assert list(new.trajectories.values_list("task__task_id", flat=True)) == ["action-e001"]


def test_list_actions_cancel_and_rerun_failed(admin_client, world, queued, monkeypatch):
    from mypcbench_site.celery import app

    monkeypatch.setattr(app.control, "revoke", lambda ids: None)
    admin_client.post(reverse(LAUNCH), form_data(world))
    run = Run.objects.get()
    changelist = reverse("admin:leaderboard_run_changelist")
    admin_client.post(changelist, {"action": "cancel_runs", "_selected_action": [run.pk]})
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert set(run.trajectories.values_list("status", flat=True)) == {"interrupted"}
    asked = admin_client.post(changelist, {"action": "rerun_failed", "_selected_action": [run.pk]})
    assert "Yes, queue the rerun" in asked.content.decode() and not Run.objects.exclude(pk=run.pk).exists()
    admin_client.post(changelist, {"action": "rerun_failed", "_selected_action": [run.pk], "confirm_rerun": "yes"})
    new = Run.objects.exclude(pk=run.pk).get()
    assert new.parent == run and new.trajectories.count() == 2


def test_the_run_page_shows_live_progress_from_a_static_script(admin_client, client, world, queued):
    admin_client.post(reverse(LAUNCH), form_data(world))
    run = Run.objects.get()
    run_trajectory.run(run.trajectories.order_by("task__position").first().pk)
    page = admin_client.get(reverse("leaderboard:run_detail", args=[run.slug])).content.decode()
    assert 'id="run-progress"' in page and "/static/js/run_progress.js" in page and "<script>" not in page
    progress = admin_client.get(reverse("api-1:run_progress", args=[run.slug])).json()
    assert {k: progress[k] for k in ("total", "queued", "running", "done", "errored", "live")} == {
        "total": 2,
        "queued": 1,
        "running": 0,
        "done": 1,
        "errored": 0,
        "live": True,
    }
    assert progress["steps"] == Trajectory.objects.get(run=run, status="finished").n_steps
    assert client.get(reverse("api-1:run_progress", args=[run.slug])).status_code == 404, "a draft run is not public"


def test_a_trajectorys_steps_and_judgments_are_read_only_in_the_admin(admin_client, world, queued):
    admin_client.post(reverse(LAUNCH), form_data(world))
    trajectory = Trajectory.objects.order_by("pk").first()
    page = admin_client.get(reverse("admin:trajectories_trajectory_change", args=[trajectory.pk])).content.decode()
    assert "Steps" in page and "Judgments" in page
    # recorded evidence is never added or edited by hand: no empty forms to fill in, no add links
    assert 'name="steps-0-action_text"' not in page
    assert 'name="steps-MAX_NUM_FORMS" value="0"' in page and 'name="judgments-MAX_NUM_FORMS" value="0"' in page
