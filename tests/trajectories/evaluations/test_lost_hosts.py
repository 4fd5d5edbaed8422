"""A lost host's work comes back without the broker: work leases, the sweeper that resends expired
ones, and runs that are finished only when nothing they owe is left."""

import subprocess
import sys
from datetime import timedelta

import pytest
from django.utils import timezone

from leaderboard.models import Run
from tests.evaluation_data import PLAN
from trajectories import queue, tasks
from trajectories.evaluations import lifecycle
from trajectories.evaluations.lifecycle import LaunchSpec
from trajectories.models import Trajectory, VmSlot, WorkLease
from trajectories.queue import leases
from trajectories.recording import live_ingest
from trajectories.tasks import judge_trajectory_task, run_trajectory

pytestmark = pytest.mark.usefixtures("quiet_settings")

JUDGE = {"provider": "anthropic", "model": "", "base_url": "http://127.0.0.1:9"}


def launch(world, n=1):
    spec = LaunchSpec(suite=world["suite"], model=world["model"], agent_type="scripted", plan=PLAN,
                      tasks=world["tasks"][:n])  # fmt: skip
    return lifecycle.launch_run(spec)


class Sent(list):
    """(task name, args) of every message the sweeper sends."""

    def __call__(self, name, *args):
        self.append((name, args))


def lost_with_its_host(trajectory, *, seconds_ago: float = 1):
    """What a host lost mid-trajectory leaves: the trajectory running with two steps, its VM slot and
    its work lease held by a process on another host, both lapsed ``seconds_ago``."""
    Trajectory.objects.filter(pk=trajectory.pk).update(status="running")
    for index in (1, 2):
        row = {"step_num": index, "action": "pyautogui.click(1, 1)", "response": "old", "done": False, "info": {}}
        live_ingest.write_step(trajectory, live_ingest.step_record(row, index), None)
    lapsed = timezone.now() - timedelta(seconds=seconds_ago)
    holder = "lost-host|4242|99|abc"
    VmSlot.objects.create(worker="lost-host", slot=0, trajectory=trajectory, holder=holder, expires_at=lapsed)
    WorkLease.objects.filter(task=queue.RUN_TRAJECTORY, subject=trajectory.pk).update(holder=holder, expires_at=lapsed)


def test_a_lost_hosts_trajectory_is_marked_interrupted_resent_once_and_run_again(world, queued, monkeypatch):
    run = launch(world)
    trajectory = run.trajectories.get()
    lost_with_its_host(trajectory)
    sent = Sent()
    monkeypatch.setattr(queue, "enqueue", lambda name, *args, **kw: sent(name, *args))
    tasks.sweep_once()
    trajectory.refresh_from_db()
    assert trajectory.status == "interrupted" and "lost-host" in trajectory.error
    assert sent == [(queue.RUN_TRAJECTORY, (trajectory.pk,))], "sent again by the sweeper"
    tasks.sweep_once()
    assert len(sent) == 1, "a second sweep (or a second host's sweeper) does not send it twice"
    progress = lifecycle.progress(Run.objects.get(pk=run.pk))
    assert progress["status"] != "finished" and progress["live"]
    assert [(w["what"], w["task"]) for w in progress["owed"]] == [("to run", trajectory.task.task_id)]
    assert "lost-host stopped renewing" in progress["owed"][0]["note"]
    assert progress["owed_text"].startswith(f"Not finished: still owed 1 to run; the oldest, {trajectory.task.task_id}")

    assert run_trajectory.run(trajectory.pk) == "done"
    trajectory.refresh_from_db()
    assert (trajectory.status, trajectory.n_steps) == ("finished", 4)
    assert "old" not in set(trajectory.steps.values_list("model_text", flat=True)), "run again from a clean reset"
    assert Run.objects.get(pk=run.pk).status == "finished"
    assert not WorkLease.objects.exists(), "nothing owed any more"


def test_a_message_that_waited_too_long_is_resent_with_doubling_patience(world, queued, settings):
    settings.MYPCBENCH_QUEUE_PATIENCE_SECONDS = 100
    run = launch(world)
    trajectory = run.trajectories.get()
    sent = Sent()
    now = timezone.now()
    assert leases.sweep(sent, now=now + timedelta(seconds=99)) == [] and sent == [], "still within its patience"
    leases.sweep(sent, now=now + timedelta(seconds=101))
    assert sent == [(queue.RUN_TRAJECTORY, (trajectory.pk,))]
    leases.sweep(sent, now=now + timedelta(seconds=101 + 199))
    assert len(sent) == 1, "the second resend waits twice as long"
    leases.sweep(sent, now=now + timedelta(seconds=101 + 201))
    assert len(sent) == 2


def test_a_live_holders_work_is_left_to_it_and_never_resent(world, queued):
    run = launch(world)
    trajectory = run.trajectories.get()
    args = (trajectory.pk,)
    lease = leases.take(queue.RUN_TRAJECTORY, args)
    assert lease is not None
    assert leases.take(queue.RUN_TRAJECTORY, args) is None, "a redelivered message leaves it to the holder"
    later = timezone.now() + timedelta(seconds=leases.lease_seconds() / 2)
    assert leases.renew(lease, now=later)
    sent = Sent()
    assert leases.sweep(sent, now=later + timedelta(seconds=leases.lease_seconds() - 1)) == []
    leases.done(lease)
    assert not WorkLease.objects.filter(task=queue.RUN_TRAJECTORY).exists()


def test_a_dead_process_on_this_host_gives_its_work_back_at_once(world, queued):
    run = launch(world)
    trajectory = run.trajectories.get()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    holder = leases.new_holder().split("|")
    holder[1] = str(dead.pid)
    WorkLease.objects.filter(task=queue.RUN_TRAJECTORY).update(
        holder="|".join(holder), expires_at=timezone.now() + timedelta(minutes=10)
    )
    sent = Sent()
    leases.sweep(sent)
    assert sent == [(queue.RUN_TRAJECTORY, (trajectory.pk,))], "no wait for the ten-minute lease"


def test_a_run_owing_a_judge_pass_is_not_finished_until_it_is_done(world, queued, monkeypatch):
    judged = []
    monkeypatch.setattr(judge_trajectory_task, "apply_async", lambda args, *rest, **kw: judged.append(args))
    run = launch(world)
    trajectory = run.trajectories.get()
    assert run_trajectory.run(trajectory.pk) == "done"
    queue.enqueue(queue.JUDGE_TRAJECTORY, trajectory.pk, JUDGE)
    assert judged, "the judge pass was queued"
    Run.objects.filter(pk=run.pk).update(status="running")
    lifecycle.refresh_run_status(run.pk)
    progress = lifecycle.progress(Run.objects.get(pk=run.pk))
    assert progress["status"] == "running" and progress["done"] == 1
    assert [w["what"] for w in progress["owed"]] == ["to judge"]
    lease = leases.take(queue.JUDGE_TRAJECTORY, (trajectory.pk, JUDGE))
    assert lease is not None
    leases.done(lease)
    lifecycle.refresh_trajectory_run(trajectory.pk)
    assert Run.objects.get(pk=run.pk).status == "finished"


def test_work_sent_again_after_it_was_done_does_nothing(world, queued):
    run = launch(world)
    trajectory = run.trajectories.get()
    assert run_trajectory.run(trajectory.pk) == "done"
    assert run_trajectory.run(trajectory.pk) == "already ended", "a late duplicate changes nothing"
    assert trajectory.steps.count() == 4 and not WorkLease.objects.exists()
