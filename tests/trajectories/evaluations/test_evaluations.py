"""Launching, executing, rerunning and cancelling harness evaluations, without a worker: the queued
Celery task is called directly, against the fake guest on loopback with the scripted agent."""

import os
import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from botocore.exceptions import EndpointConnectionError
from celery.exceptions import Retry
from django.db import OperationalError
from django.utils import timezone

from leaderboard.models import Run
from tests.evaluation_data import PLAN
from trajectories.evaluations import lifecycle, slots
from trajectories.evaluations.lifecycle import LaunchRefused, LaunchSpec
from trajectories.judge_spec import JudgeSpec
from trajectories.models import Step, Trajectory, VmSlot
from trajectories.recording import live_ingest
from trajectories.tasks import judge_trajectory_task, run_trajectory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quiet_settings")]


@pytest.fixture(autouse=True)
def two_vm_slots(settings):
    """Beside the folder's quiet settings: two VM slots, leases that outlast a test."""
    settings.MYPCBENCH_VM_SLOTS = 2
    settings.MYPCBENCH_VM_LEASE_SECONDS = 300


def launch(world, user=None, **overrides):
    spec = LaunchSpec(suite=world["suite"], model=world["model"], agent_type="scripted", plan=PLAN, **overrides)
    return lifecycle.launch_run(spec, user)


def test_launch_creates_a_queued_harness_run_with_one_message_per_task_and_attempt(world, queued, admin_user):
    run = launch(world, admin_user, attempts=2, turn_budget=7)
    assert run.provenance == "harness" and run.status == "queued" and run.launched_by == admin_user
    assert run.turn_budget == 7 and run.agent_type == "scripted" and run.attempts_per_task == 2
    ordered = run.trajectories.order_by("task__position", "attempt")
    rows = list(ordered.values_list("task__task_id", "attempt", "status"))
    assert rows == [
        ("action-e001", 0, "queued"),
        ("action-e001", 1, "queued"),
        ("action-e002", 0, "queued"),
        ("action-e002", 1, "queued"),
    ]
    assert sorted(queued) == sorted(run.trajectories.values_list("pk", flat=True))
    assert set(run.metadata["celery_ids"].values()) == set(queued.task_ids)
    counts = lifecycle.progress(run)
    assert (counts["total"], counts["queued"], counts["running"], counts["done"], counts["live"]) == (4, 4, 0, 0, True)


def test_the_task_runs_a_trajectory_against_the_fake_guest_and_streams_its_steps(world, queued):
    run = launch(world, tasks=[world["tasks"][0]])
    (trajectory_id,) = queued
    assert run_trajectory.run(trajectory_id) == "done"
    trajectory = Trajectory.objects.get(pk=trajectory_id)
    assert trajectory.status == "finished" and trajectory.ended_by == "done"
    assert trajectory.final_answer == "Replied to Jan."
    steps = list(trajectory.steps.order_by("index"))
    assert [s.action_text for s in steps] == [
        "pyautogui.click(100, 200)",
        "pyautogui.write('hello')",
        "pyautogui.press('enter')",
        "DONE",
    ]
    assert [s.turn for s in steps] == [1, 2, 2, 3]
    assert steps[0].action["type"] == "click" and steps[-1].tool == "control"
    assert all(s.screenshot and s.screenshot_width == 1280 for s in steps)
    assert trajectory.n_steps == 4
    run.refresh_from_db()
    assert run.status == "finished" and run.finished_at is not None
    assert not VmSlot.objects.filter(trajectory__isnull=False).exists(), "the slot is given back"
    assert run_trajectory.run(trajectory_id) == "already ended", "a redelivered message changes nothing"
    assert trajectory.steps.count() == 4


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_refused_before_anything_is_queued(world, queued, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(LaunchRefused) as refused:
        launch(world, backend="remote", url="http://127.0.0.1:9", judge=JudgeSpec(provider="google"), turn_budget=0)
    text = str(refused.value)
    assert "turn budget 0" in text
    assert "remote backend: the guest at http://127.0.0.1:9 does not answer" in text
    assert "judge:" in text and "GEMINI_API_KEY" in text
    assert not Run.objects.exists() and queued == []


@pytest.mark.parametrize(
    ("agent", "variables"),
    [
        ("anthropic", ["ANTHROPIC_API_KEY"]),
        ("openai", ["OPENAI_API_KEY"]),
        ("gemini", ["GEMINI_API_KEY", "GOOGLE_API_KEY"]),
    ],
)
def test_a_provider_agent_without_its_key_is_refused(world, queued, monkeypatch, agent, variables):
    for name in variables:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LaunchRefused, match=f"agent {agent}: no API key for the {agent} agent: set {variables[0]}"):
        lifecycle.launch_run(LaunchSpec(suite=world["suite"], model=world["model"], agent_type=agent))
    assert not Run.objects.exists() and queued == []


def test_a_provider_agent_with_its_key_launches_with_the_models_api_name(world, queued, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    world["model"].api_model = "claude-sonnet-4-6"
    world["model"].save()
    run = lifecycle.launch_run(LaunchSpec(suite=world["suite"], model=world["model"], agent_type="anthropic"))
    assert run.agent_type == "anthropic" and run.metadata["launch"]["api_model"] == "claude-sonnet-4-6"
    assert len(queued) == 2


def test_a_bad_plan_names_the_field(world, queued):
    with pytest.raises(LaunchRefused, match=r"plan.turns\[0\].actions\[0\]"):
        lifecycle.launch_run(LaunchSpec(suite=world["suite"], model=world["model"], plan={"turns": [{"actions": [3]}]}))


def test_the_runs_judge_is_asked_as_each_trajectory_finishes(world, queued, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    asked = []
    monkeypatch.setattr(judge_trajectory_task, "delay", lambda pk, spec: asked.append((pk, spec)))
    judge = JudgeSpec(provider="anthropic", model="claude-sonnet-4-6")
    run = launch(world, tasks=[world["tasks"][0]], judge=judge)
    assert run.judge_config.provider == "anthropic" and run.judge_config.model == "claude-sonnet-4-6"
    trajectory = run.trajectories.get()
    assert asked == [], "nothing is judged before it ends"
    run_trajectory.run(trajectory.pk)
    assert asked == [(trajectory.pk, judge.as_dict())]


# ---------------------------------------------------------------- leases


def test_slots_are_limited_per_worker_and_a_lapsed_lease_marks_its_trajectory_interrupted(world, queued, settings):
    settings.MYPCBENCH_VM_SLOTS = 1
    run = launch(world)
    first, second = run.trajectories.order_by("task__position")
    lease = slots.acquire(first, worker="host-a")
    assert lease is not None and lease.slot == 0
    assert slots.acquire(second, worker="host-a") is None, "host-a has one slot"
    assert slots.acquire(second, worker="host-b") is not None, "another host has its own"
    Trajectory.objects.filter(pk=first.pk).update(status="running")
    assert slots.reap_expired() == [], "a live lease is left alone"
    later = timezone.now() + timedelta(seconds=301)
    assert set(slots.reap_expired(now=later)) == {first.pk, second.pk}
    first.refresh_from_db()
    assert first.status == "interrupted" and "host-a stopped renewing" in first.error
    third = Trajectory.objects.create(run=run, task=first.task, attempt=5, status="queued")
    assert slots.acquire(third, worker="host-a", now=later) is not None, "the lapsed slot came back"


def test_renewal_keeps_a_lease_alive(world, queued):
    run = launch(world)
    trajectory = run.trajectories.first()
    lease = slots.acquire(trajectory, worker="host-a")
    before = VmSlot.objects.get(pk=lease.pk).expires_at
    assert slots.renew(lease, now=timezone.now() + timedelta(seconds=60))
    assert VmSlot.objects.get(pk=lease.pk).expires_at > before
    slots.release(lease)
    assert not slots.renew(lease), "a released lease cannot be renewed"


def test_a_redelivered_task_restarts_an_interrupted_trajectory_without_duplicating_steps(world, queued):
    run = launch(world, tasks=[world["tasks"][0]])
    trajectory = run.trajectories.get()
    # What a worker killed mid-trajectory leaves: a running trajectory, five steps (one more than a
    # full run records), and a lease that lapsed.
    Trajectory.objects.filter(pk=trajectory.pk).update(status="running")
    for index in range(1, 6):
        row = {"step_num": index, "action": "pyautogui.click(1, 1)", "response": "old", "done": False, "info": {}}
        live_ingest.write_step(trajectory, live_ingest.step_record(row, index), None)
    VmSlot.objects.create(worker="dead-host", slot=0, trajectory=trajectory, expires_at=timezone.now())
    assert lifecycle.progress(run)["interrupted"] == 1
    assert run_trajectory.run(trajectory.pk) == "done"
    trajectory.refresh_from_db()
    assert trajectory.status == "finished"
    texts = list(trajectory.steps.order_by("index").values_list("index", "model_text"))
    assert [i for i, _ in texts] == [1, 2, 3, 4], "rewritten by index, leftovers dropped"
    assert "old" not in {t for _, t in texts}
    assert Step.objects.filter(trajectory=trajectory).count() == trajectory.n_steps == 4


def _running_with_lease(trajectory, *, holder: str, worker: str = "host-a", seconds: float = 300):
    """What a worker killed mid-trajectory leaves behind: a running trajectory, two steps and a
    lease that is still live, held by ``holder``."""
    Trajectory.objects.filter(pk=trajectory.pk).update(status="running")
    for index in (1, 2):
        row = {"step_num": index, "action": "pyautogui.click(1, 1)", "response": "old", "done": False, "info": {}}
        live_ingest.write_step(trajectory, live_ingest.step_record(row, index), None)
    VmSlot.objects.create(worker=worker, slot=0, trajectory=trajectory, holder=holder,
                          expires_at=timezone.now() + timedelta(seconds=seconds))  # fmt: skip


def test_a_message_redelivered_while_another_host_holds_the_lease_is_asked_again_not_dropped(world, queued):
    run = launch(world, tasks=[world["tasks"][0]])
    trajectory = run.trajectories.get()
    _running_with_lease(trajectory, holder="another-host|4242|99|abc", seconds=120)
    with pytest.raises(Retry):
        run_trajectory.run(trajectory.pk)
    assert 119 < lifecycle.retry_after(trajectory.pk) <= 121, "asked again once the lease could have lapsed"
    trajectory.refresh_from_db()
    assert trajectory.status == "running" and trajectory.steps.count() == 2, "the other host's work is untouched"
    VmSlot.objects.filter(trajectory=trajectory).update(expires_at=timezone.now())  # the other host is gone
    assert run_trajectory.run(trajectory.pk) == "done"
    trajectory.refresh_from_db()
    assert (trajectory.status, trajectory.n_steps) == ("finished", 4)
    assert "old" not in set(trajectory.steps.values_list("model_text", flat=True)), "rerun from a clean reset"


def test_a_lease_whose_holder_on_this_host_died_is_taken_back_at_once(world, queued, tmp_path):
    run = launch(world, tasks=[world["tasks"][0]])
    trajectory = run.trajectories.get()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _running_with_lease(trajectory, holder=f"{socket.gethostname()}|{dead.pid}||abc", seconds=300)
    assert slots.holder_gone(f"{socket.gethostname()}|{dead.pid}||abc")
    assert not slots.holder_gone(f"{socket.gethostname()}|{os.getppid()}||abc"), "a live process keeps its lease"
    assert not slots.holder_gone(f"another-host|{dead.pid}||abc"), "another host's process cannot be checked"
    lifecycle.refresh_run_status(run.pk)
    assert run_trajectory.run(trajectory.pk) == "done", "no wait for the five-minute lease"
    trajectory.refresh_from_db()
    assert (trajectory.status, trajectory.n_steps) == ("finished", 4)
    assert not VmSlot.objects.filter(trajectory__isnull=False).exists()
    assert Run.objects.get(pk=run.pk).status == "finished"


def test_a_lease_this_process_took_and_lost_track_of_is_taken_back(world, queued):
    run = launch(world, tasks=[world["tasks"][0]])
    trajectory = run.trajectories.get()
    stale = slots.new_holder()  # this process's name, but no code here holds it (a crashed attempt)
    _running_with_lease(trajectory, holder=stale)
    assert slots.holder_gone(stale)
    assert run_trajectory.run(trajectory.pk) == "done"


def test_a_run_whose_trajectory_was_interrupted_is_not_finished_until_it_ran_again(world, queued, monkeypatch):
    run = launch(world, tasks=[world["tasks"][0]])
    trajectory = run.trajectories.get()
    _running_with_lease(trajectory, holder="another-host|1|1|x", seconds=-1)
    progress = lifecycle.progress(run)
    assert progress["interrupted"] == 1
    assert Run.objects.get(pk=run.pk).status != "finished", "its trajectory is owed: it runs again"
    assert [(w["what"], w["task"]) for w in progress["owed"]] == [("to run", trajectory.task.task_id)]
    seen = []
    real = lifecycle._run_in_slot

    def watching(trajectory, slot, heartbeat):
        seen.append(Run.objects.get(pk=run.pk).status)
        return real(trajectory, slot, heartbeat)

    monkeypatch.setattr(lifecycle, "_run_in_slot", watching)
    assert run_trajectory.run(trajectory.pk) == "done"
    assert seen == ["running"]
    assert Run.objects.get(pk=run.pk).status == "finished"


@pytest.mark.parametrize(
    "outage",
    [OperationalError("server closed the connection unexpectedly"), EndpointConnectionError(endpoint_url="http://s3")],
)
def test_the_database_or_store_not_answering_leaves_the_trajectory_for_a_retry(world, queued, monkeypatch, outage):
    run = launch(world, tasks=[world["tasks"][0]])
    trajectory = run.trajectories.get()

    def outage_mid_trajectory(trajectory, slot, heartbeat):
        raise outage

    with monkeypatch.context() as patched:
        patched.setattr(lifecycle, "_run_in_slot", outage_mid_trajectory)
        with pytest.raises(type(outage)):
            run_trajectory.run(trajectory.pk)  # a worker retries it; called directly the error comes out
    trajectory.refresh_from_db()
    assert trajectory.status == "running" and trajectory.error == "", "not recorded as the trajectory's failure"
    assert not VmSlot.objects.filter(trajectory=trajectory).exists(), "the lease was given back"
    assert run_trajectory.run(trajectory.pk) == "done"
    trajectory.refresh_from_db()
    assert (trajectory.status, trajectory.n_steps) == ("finished", 4)


def test_writing_the_same_step_twice_keeps_one(world, queued):
    run = launch(world, tasks=[world["tasks"][0]])
    trajectory = run.trajectories.get()
    row = {"step_num": 1, "action": "pyautogui.click(5, 5)", "response": "a", "done": False, "info": {}}
    live_ingest.write_step(trajectory, live_ingest.step_record(row, 1), None)
    live_ingest.write_step(trajectory, live_ingest.step_record({**row, "response": "b"}, 1), None)
    assert list(trajectory.steps.values_list("index", "model_text")) == [(1, "b")]


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_an_unresponsive_guest_gets_bounded_restarts_then_the_trajectory_ends_as_error(world, queued, monkeypatch,
                                                                                        settings):  # fmt: skip
    settings.MYPCBENCH_VM_GUEST_ATTEMPTS = 2
    from harness.backends import FakeEnv

    resets = []
    real_reset = FakeEnv.reset

    def reset_into_a_dead_screen(self, task=None):
        resets.append(task.id)
        real_reset(self, task)
        self.guest.fail_next("screenshot", "error", times=1000)  # the fake guest's own fault injection

    monkeypatch.setattr(FakeEnv, "reset", reset_into_a_dead_screen)
    run = launch(world, tasks=[world["tasks"][0]])
    trajectory = run.trajectories.get()
    assert run_trajectory.run(trajectory.pk) == "error"
    trajectory.refresh_from_db()
    assert resets == ["action-e001", "action-e001"], "restarted once from a clean reset, then given up"
    assert trajectory.status == "error" and trajectory.ended_by == "error"
    assert "environment not ready" in trajectory.error


# ---------------------------------------------------------------- rerun and cancel


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_rerun_failed_makes_a_new_run_and_leaves_the_old_one_alone(world, queued, admin_user):
    run = launch(world)
    ok, bad = run.trajectories.order_by("task__position")
    run_trajectory.run(ok.pk)
    Trajectory.objects.filter(pk=bad.pk).update(status="error", ended_by="error", error="guest died")
    lifecycle.refresh_run_status(run.pk)
    queued.clear()
    new = lifecycle.rerun(run, "failed", user=admin_user)
    assert new.pk != run.pk and new.parent == run and new.status == "queued"
    assert list(new.trajectories.values_list("task__task_id", "attempt", "status")) == [("action-e002", 0, "queued")]
    assert list(queued) == [new.trajectories.get().pk]
    assert Trajectory.objects.get(pk=bad.pk).error == "guest died", "the old run is not overwritten"
    assert run_trajectory.run(new.trajectories.get().pk) == "done"
    whole = lifecycle.rerun(run, "all")
    assert whole.trajectories.count() == 2 and "rerun 2" in whole.name
    one = lifecycle.rerun(run, "task", task=world["tasks"][0])
    assert list(one.trajectories.values_list("task__task_id", flat=True)) == ["action-e001"]


def test_rerun_of_nothing_failed_is_refused(world, queued):
    run = launch(world, tasks=[world["tasks"][0]])
    run_trajectory.run(run.trajectories.get().pk)
    with pytest.raises(LaunchRefused, match="no failed or errored trajectories to rerun"):
        lifecycle.rerun(run, "failed")


def test_cancel_revokes_queued_work_and_stops_a_running_trajectory_at_its_next_step(world, queued, monkeypatch):
    revoked = []
    from mypcbench_site.celery import app

    monkeypatch.setattr(app.control, "revoke", lambda ids: revoked.extend(ids))
    run = launch(world)
    running, waiting = run.trajectories.order_by("task__position")

    # Cancel from inside the loop, as a maintainer pressing cancel while the first step is written.
    real_write = live_ingest.write_step

    def write_then_cancel(trajectory, record, screenshot, name=""):
        step = real_write(trajectory, record, screenshot, name)
        if record.index == 1:
            lifecycle.cancel(Run.objects.get(pk=run.pk))
        return step

    monkeypatch.setattr(live_ingest, "write_step", write_then_cancel)
    assert run_trajectory.run(running.pk) == "interrupted"
    running.refresh_from_db()
    waiting.refresh_from_db()
    assert running.status == "interrupted" and running.n_steps == 1
    assert "cancelled while this trajectory was running" in running.error
    assert waiting.status == "interrupted" and "before this trajectory started" in waiting.error
    assert revoked == [run.metadata["celery_ids"][str(waiting.pk)]]
    assert run_trajectory.run(waiting.pk) == "cancelled", "a message that escaped the revoke does nothing"
    assert Trajectory.objects.get(pk=waiting.pk).n_steps == 0
    run.refresh_from_db()
    assert run.status == "cancelled"
    with pytest.raises(LaunchRefused, match="not queued or running"):
        lifecycle.cancel(run)
