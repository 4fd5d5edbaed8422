"""A REAL Celery worker on queue "vm" runs launched evaluations against the fake guest: trajectories
stream into the database step by step; a worker killed mid-trajectory leaves it interrupted once its
VM slot lease lapses, and a worker on another host sends it again (its sweeper) and the same run completes."""

import signal

import pytest

from leaderboard.models import Run
from tests.evaluation_data import PLAN, make_eval_suite
from tests.services.test_worker import wait_for
from tests.simulators import ProviderSimulator
from trajectories.evaluations import lifecycle
from trajectories.evaluations.lifecycle import LaunchSpec
from trajectories.judge_spec import JudgeSpec
from trajectories.models import Judgment, Step, Trajectory, VmSlot

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

SLOW_PLAN = {
    "turns": [{"response": f"Step {i}.", "actions": [f"pyautogui.click({10 * i}, 20)"]} for i in range(1, 41)],
    "final_answer": "Done slowly.",
}


@pytest.fixture(autouse=True)
def worker_settings(settings, monkeypatch):
    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setenv("MYPCBENCH_DERIVATIVES", "off")  # the worker process reads its settings from the env
    monkeypatch.setenv("MYPCBENCH_JUDGE_ON_FINISH", "0")
    monkeypatch.setenv("MYPCBENCH_VM_LEASE_SECONDS", "2")  # a killed worker's slot comes back quickly


def test_a_worker_runs_a_launched_two_task_run_end_to_end(worker_factory):
    suite, tasks, model = make_eval_suite(2)
    worker = worker_factory()
    run = lifecycle.launch_run(LaunchSpec(suite=suite, model=model, agent_type="scripted", plan=PLAN))
    wait_for(lambda: Run.objects.get(pk=run.pk).status == "finished", "the run to finish", worker)

    trajectories = list(run.trajectories.order_by("task__position"))
    assert [(t.task.task_id, t.status, t.ended_by, t.n_steps) for t in trajectories] == [
        ("action-e001", "finished", "done", 4),
        ("action-e002", "finished", "done", 4),
    ]
    assert trajectories[0].final_answer == "Replied to Jan."
    assert all(s.screenshot for s in Step.objects.filter(trajectory__run=run))
    assert not VmSlot.objects.filter(trajectory__isnull=False).exists(), "every slot was given back"
    counts = lifecycle.progress(Run.objects.get(pk=run.pk))
    assert (counts["done"], counts["queued"], counts["running"], counts["live"]) == (2, 0, 0, False)


def test_each_trajectory_is_judged_by_the_runs_judge_when_it_ends(worker_factory, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # read by the worker process too
    suite, tasks, model = make_eval_suite(2)
    verdict = '{"reasoning": "The reply is sent in step 3.", "cited_steps": [3], "verdict": "success"}'
    with ProviderSimulator(lambda request: verdict) as sim:
        worker = worker_factory()
        judge = JudgeSpec(provider="anthropic", base_url=sim.url, concurrency=2, attempts=1)
        run = lifecycle.launch_run(LaunchSpec(suite=suite, model=model, plan=PLAN, judge=judge))
        judgments = Judgment.objects.filter(trajectory__run=run)
        wait_for(lambda: judgments.count() == 4, "2 rubric items x 2 trajectories judged", worker)
    assert set(judgments.values_list("verdict", flat=True)) == {"success"}
    assert set(judgments.values_list("judge", flat=True)) == {run.judge_config_id}
    assert lifecycle.progress(Run.objects.get(pk=run.pk))["judged"] == 2


def test_a_worker_killed_mid_trajectory_is_replaced_and_its_trajectory_runs_again_in_the_same_run(
    worker_factory, monkeypatch
):
    monkeypatch.setenv("MYPCBENCH_WORK_LEASE_SECONDS", "2")
    suite, tasks, model = make_eval_suite(1)
    worker = worker_factory()
    run = lifecycle.launch_run(
        LaunchSpec(suite=suite, model=model, agent_type="scripted", plan=SLOW_PLAN, sleep_after=0.25, turn_budget=50)
    )
    trajectory = run.trajectories.get()
    wait_for(lambda: Step.objects.filter(trajectory=trajectory).count() >= 3, "steps streaming in", worker)
    assert Trajectory.objects.get(pk=trajectory.pk).status == "running"
    assert lifecycle.progress(run)["running"] == 1

    worker.kill(signal.SIGKILL)  # the host is lost: nothing of it comes back
    # The lease lapses two seconds after the last renewal; progress reaps it.
    wait_for(lambda: lifecycle.progress(Run.objects.get(pk=run.pk))["interrupted"] == 1, "interrupted", worker)
    trajectory.refresh_from_db()
    assert trajectory.status == "interrupted" and "stopped renewing its VM slot lease" in trajectory.error
    progress = lifecycle.progress(Run.objects.get(pk=run.pk))
    assert progress["status"] != "finished", "the run owes the trajectory: not finished"
    assert [w["what"] for w in progress["owed"]] == ["to run"]

    monkeypatch.setenv("MYPCBENCH_WORKER_NAME", "replacement-host")
    second = worker_factory()  # another host; its sweeper sends the lost work again
    wait_for(lambda: Run.objects.get(pk=run.pk).status == "finished", "the same run to finish", second)
    trajectory.refresh_from_db()
    assert (trajectory.status, trajectory.ended_by, trajectory.n_steps) == ("finished", "done", 41)
    assert trajectory.steps.count() == 41, "run again from a clean reset: no step twice"
    assert "sent again" in second.log() or "sweeper" in second.log()
    assert run.trajectories.count() == 1 and not lifecycle.progress(Run.objects.get(pk=run.pk))["owed"]
