"""No traps for maintainers: publishing an upload our judge has not judged asks first and the run never
counts as graded; a rerun asks for a confirmation as cancelling does, and a second click queues
nothing; the launch form refuses a model the agent does not run and a scripted agent without its
plan; a run's page counts the tasks it ran apart from those it never ran; a demo run's badge says
what made it."""

import json
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from leaderboard.catalog.badges import run_badge
from leaderboard.models import Model, Run
from tests import run_page_data
from tests.evaluation_data import PLAN
from tests.factories import make_suite
from tests.html_text import visible_text
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.evaluations import lifecycle
from trajectories.evaluations.lifecycle import LaunchRefused, LaunchSpec
from trajectories.models import Submission
from trajectories.submissions.uploads import submit_archive
from trajectories.tasks import run_trajectory

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued_reruns(monkeypatch):
    from mypcbench_site.celery import app

    sent = []
    monkeypatch.setattr(run_trajectory, "apply_async", lambda args, task_id: sent.append(args[0]))
    monkeypatch.setattr(app.control, "revoke", lambda ids: None)
    return sent


# ---------------------------------------------------------------- publishing an unjudged upload


def test_publishing_an_unjudged_upload_asks_first_and_it_never_counts_as_graded(
    client, admin_client, settings, tmp_path, isolated_media
):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    sub = submit_archive(author, upload(zip_bytes(good_entries(tmp_path, full_judge=[True, True, True]))), METADATA)
    sub = sub.submission
    changelist = reverse("admin:trajectories_submission_changelist")
    approve = {"action": "approve", "_selected_action": [sub.pk], "reason": ""}

    asked = visible_text(admin_client.post(changelist, approve))
    assert "Publish without our judge's scores?" in asked
    assert f"Submission {sub.pk}" in asked and "without scores (—)" in asked
    assert "is not counted among the graded rows" in asked and "Queue for our judge" in asked
    assert Submission.objects.get(pk=sub.pk).status == "awaiting_review", "nothing published before the answer"

    done = visible_text(admin_client.post(changelist, {**approve, "publish_unjudged": "yes"}, follow=True))
    assert "1 submission(s) approved and published." in done and "published before our judge judged them" in done
    sub.refresh_from_db()
    assert sub.status == "published" and sub.run.publication == Run.Publication.PUBLISHED
    assert sub.review_log[-1]["label"] == "approved before our judge had judged it all"

    # on the leaderboard: shown, not judged, never among the graded rows (page, API and exports)
    board = visible_text(client.get(reverse("leaderboard:board"), {"suite": sub.run.suite.slug}))
    assert "0 graded rows, 1 not judged yet" in board
    rows = client.get("/api/leaderboard", {"suite": sub.run.suite.slug}).json()["rows"]
    assert [(r["run"], r["kind"], r["rank"]) for r in rows] == [(sub.run.slug, "not_judged", None)]


def test_approving_a_judged_upload_asks_nothing(admin_client, settings, tmp_path, isolated_media):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    cache.clear()
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    sub = submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    for trajectory in sub.run.trajectories.all():
        run_page_data.judge(trajectory, ["success", "success", "success"], name="ours: test")
    sub.metadata = {**sub.metadata, "judging": {"state": "queued", "judge": "ours: test"}}
    sub.save()
    changelist = reverse("admin:trajectories_submission_changelist")
    response = admin_client.post(changelist, {"action": "approve", "_selected_action": [sub.pk]}, follow=True)
    assert "1 submission(s) approved and published." in visible_text(response)
    assert Submission.objects.get(pk=sub.pk).status == "published"


# ---------------------------------------------------------------- rerun


def test_rerunning_from_the_run_page_asks_first_and_a_second_click_queues_nothing(admin_client, queued_reruns):
    run, _tasks = run_page_data.launch(2)
    page = visible_text(admin_client.get(reverse("leaderboard:run_detail", args=[run.slug])))
    assert "Rerun whole run…" in page and "Each asks for a confirmation first" in page
    url = reverse("trajectories:run_rerun", args=[run.slug])

    asked = admin_client.get(url, {"which": "all"})
    text = visible_text(asked)
    assert f"Rerun the whole run of {run.name}?" in text and "2 trajectories over 2 tasks" in text
    assert not Run.objects.filter(parent=run).exists()
    confirm = asked.context["reruns_seen"]
    assert confirm == 0

    first = admin_client.post(url, {"which": "all", "reruns_seen": confirm}, follow=True)
    assert "Rerun queued as a new run" in visible_text(first)
    twice = visible_text(admin_client.post(url, {"which": "all", "reruns_seen": confirm}, follow=True))
    assert "was queued since you confirmed" in twice and "nothing was queued again" in twice
    assert Run.objects.filter(parent=run).count() == 1

    asked = visible_text(admin_client.get(url, {"which": "all"}))
    assert "this run has been rerun 1 time already" in asked


def test_the_run_list_asks_before_rerunning_the_whole_run(admin_client, queued_reruns):
    run, _tasks = run_page_data.launch(1)
    changelist = reverse("admin:leaderboard_run_changelist")
    form = {"action": "rerun_whole", "_selected_action": [run.pk]}
    response = admin_client.post(changelist, form)
    asked = visible_text(response)
    assert f"{run.name} : 1 trajectory queued" in asked and 'value="Yes, queue the rerun"' in response.content.decode()
    assert not Run.objects.filter(parent=run).exists()
    confirmed = {**form, "confirm_rerun": "yes", f"reruns_seen_{run.pk}": "0"}
    admin_client.post(changelist, confirmed)
    response = admin_client.post(changelist, confirmed, follow=True)  # the same confirmation, clicked twice
    assert "was queued since you confirmed" in visible_text(response)
    assert Run.objects.filter(parent=run).count() == 1


# ---------------------------------------------------------------- the launch form


def launch_form(suite, **overrides):
    return {
        "suite": suite.pk,
        "tool_surface": "computer+bash",
        "turn_budget": 10,
        "screenshot_window": 5,
        "backend": "fake",
        "attempts": 1,
        **overrides,
    }


def test_the_launch_form_refuses_a_scripted_agent_under_a_real_models_name_or_without_a_plan(
    admin_client, queued_reruns
):
    suite, _tasks = run_page_data.make_suite(2)
    opus = Model.objects.create(name="Claude Opus 4.6", slug="claude-opus-4-6", provider="anthropic")
    url = reverse("admin:run_launch")
    form = admin_client.get(url)
    assert form.context["form"]["model"].value() is None and form.context["form"]["agent_type"].value() is None

    page = visible_text(admin_client.post(url, launch_form(suite, model=opus.pk, agent_type="scripted")))
    assert "the scripted agent calls no model, so its run must not be named after Claude Opus 4.6 (Anthropic)" in page
    assert "the scripted agent replays a plan and none was given" in page
    page = visible_text(admin_client.post(url, launch_form(suite, model=opus.pk, agent_type="openai", plan="")))
    assert "Claude Opus 4.6 is a Anthropic model: the openai agent runs OpenAI models" in page
    page = visible_text(admin_client.post(url, launch_form(suite, agent_type="gemini")))
    assert "choose the model the gemini agent runs (a Google model)" in page
    assert not Run.objects.exists() and queued_reruns == []

    # a scripted agent with its plan and no model: named for what it is
    response = admin_client.post(url, launch_form(suite, agent_type="scripted", plan=json.dumps(PLAN)))
    assert response.status_code == 302
    run = Run.objects.get()
    assert run.model.name == "Scripted agent (no model)" and run.model.provider == "scripted"
    assert run.name.startswith("Scripted agent (no model) · scripted · ")
    trajectory = run.trajectories.first()
    player = admin_client.get(reverse("trajectories:trajectory_player", args=[trajectory.pk]))
    assert "Claude Opus 4.6" not in visible_text(player)


# ---------------------------------------------------------------- what a run ran


def test_a_smoke_run_of_a_few_tasks_counts_the_tasks_it_ran(admin_client, queued_reruns):
    suite, tasks = run_page_data.make_suite(9)
    model = Model.objects.create(name="Scripted player", slug="scripted-player")
    with mock.patch.object(run_trajectory, "apply_async"):
        run = lifecycle.launch_run(
            LaunchSpec(suite=suite, model=model, agent_type="scripted", plan=PLAN, tasks=tasks[:3])
        )
    for trajectory in run_page_data.trajectories(run):
        run_page_data.start(trajectory)
        run_page_data.finish(trajectory, 0)
    url = reverse("leaderboard:run_detail", args=[run.slug])
    page = visible_text(admin_client.get(url))
    assert "0 of 9 tasks" not in page
    assert "3 tasks run, none judged yet · 6 of the suite's tasks not run (failures on the leaderboard)" in page
    for trajectory, verdict in zip(run_page_data.trajectories(run), ["success", "failure", "success"], strict=True):
        run_page_data.judge(trajectory, [verdict, verdict])
    page = visible_text(admin_client.get(url))
    assert "2 of 3 tasks it ran · 6 of the suite's tasks not run (failures on the leaderboard)" in page


# ---------------------------------------------------------------- badges


def test_a_demo_runs_badge_says_what_made_it():
    dummy = run_badge("harness", {"launch": {"backend": "fake"}}, agent_type="dummy", demo=True)
    assert dummy.label == "demo run"
    assert "the dummy agent (no model is called) on the fake guest" in dummy.title
    assert "browser scripts" not in dummy.title and "verdicts written by the script" not in dummy.title
    recorded = run_badge("imported", {}, agent_type="scripted-demo", demo=True)
    assert "fixed browser scripts" in recorded.title
    uploaded = run_badge("upload", {}, agent_type="claude-cua", demo=True)
    assert uploaded.title.startswith("Uploaded by an author on the demo suite") and "scripts" not in uploaded.title


def test_a_rerun_the_service_refuses_once_another_was_queued_since(queued_reruns):
    run, _tasks = run_page_data.launch(1)
    lifecycle.rerun(run, "all", reruns_seen=0)
    with pytest.raises(LaunchRefused, match="was queued since you confirmed"):
        lifecycle.rerun(run, "all", reruns_seen=0)
    assert lifecycle.rerun(run, "all").parent == run, "callers that confirm nothing are not held back"
