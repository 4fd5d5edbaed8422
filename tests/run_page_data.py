"""A launched harness run moved through its states by the same services a worker calls (slot lease,
live step ingest, close, judgments), for run page, progress and browser tests. Launching sends no
message: there is no broker in these tests, so the queue's apply_async is replaced while launching."""

from unittest import mock

from django.utils import timezone

from leaderboard.models import JudgeConfig, Model, Run, Suite
from tests.catalog_data import add_rubric, make_task, png_bytes
from tests.evaluation_data import PLAN
from trajectories import queue
from trajectories.evaluations import lifecycle, slots
from trajectories.evaluations.lifecycle import LaunchSpec
from trajectories.models import Judgment, Trajectory, VmSlot, WorkLease
from trajectories.recording import live_ingest
from trajectories.tasks import run_trajectory


def make_suite(n_tasks: int) -> tuple[Suite, list]:
    """A fresh suite (its own name, so a test can launch several) of tasks with two rubric items each."""
    number = Suite.objects.count() + 1
    suite = Suite.objects.create(name=f"Run page suite {number}", version="v1", slug=f"run-page-suite-{number}")
    tasks = []
    for i in range(1, n_tasks + 1):
        task = make_task(suite, f"action-e{i:03d}", "bounded_action", [], position=i, instruction=f"Reply to mail {i}.")
        add_rubric(task, [1.0, 1.0])
        tasks.append(task)
    return suite, tasks


def launch(n_tasks: int = 2, *, attempts: int = 1, user=None):
    """A queued harness run over a fresh suite of ``n_tasks`` tasks (scripted agent, fake guest)."""
    suite, tasks = make_suite(n_tasks)
    model, _ = Model.objects.get_or_create(slug="scripted-player", defaults={"name": "Scripted player"})
    with mock.patch.object(run_trajectory, "apply_async"):
        run = lifecycle.launch_run(
            LaunchSpec(suite=suite, model=model, agent_type="scripted", plan=PLAN, attempts=attempts), user
        )
    return run, tasks


def trajectories(run) -> list[Trajectory]:
    return list(run.trajectories.select_related("task").order_by("task__position", "attempt"))


def start(trajectory: Trajectory) -> None:
    """What a worker does first: lease a VM slot, mark the trajectory (and its run) running."""
    lease = slots.acquire(trajectory, worker="test-worker", slots=64)
    assert lease is not None, "no free VM slot"
    Trajectory.objects.filter(pk=trajectory.pk).update(status=Trajectory.Status.RUNNING, started_at=timezone.now())
    trajectory.refresh_from_db()
    Run.objects.filter(pk=trajectory.run_id, status=Run.Status.QUEUED).update(status=Run.Status.RUNNING)


def record_step(trajectory: Trajectory, index: int, action: str = "pyautogui.click(100, 200)") -> None:
    """One step streamed in through the live ingest path, as the recorder sink writes it."""
    row = {"step_num": index, "action": action, "response": f"Step {index}.", "done": action == "DONE"}
    live_ingest.write_step(trajectory, live_ingest.step_record(row, index), png_bytes((20 * index % 255, 90, 160)))


def finish(trajectory: Trajectory, steps: int, *, ended_by: str = "done", status: str = "finished") -> None:
    """The end of a trajectory: closed through ingest, its slot and its work lease given back (the
    work is done), the run's status refreshed."""
    live_ingest.close(trajectory, steps=steps, ended_by=ended_by, status=status, final_answer="Replied to Jan.")
    lease = VmSlot.objects.filter(trajectory=trajectory).first()
    if lease is not None:
        slots.release(lease)
    WorkLease.objects.filter(task=queue.RUN_TRAJECTORY, subject=trajectory.pk).delete()
    lifecycle.refresh_run_status(trajectory.run_id)


def judge(trajectory: Trajectory, verdicts: list[str | None], name: str = "test-judge") -> JudgeConfig:
    """Verdicts on the task's current rubric items in position order (None skips an item), by one judge."""
    config, _ = JudgeConfig.objects.get_or_create(name=name, defaults={"origin": JudgeConfig.Origin.OURS})
    items = trajectory.task.rubric_items.filter(is_current=True).order_by("position")
    for item, verdict in zip(items, verdicts, strict=False):
        if verdict is None:  # not this item (yet)
            continue
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=config, verdict=verdict,
                                explanation=f"{verdict} on {item.rubric_id}")  # fmt: skip
    return config
