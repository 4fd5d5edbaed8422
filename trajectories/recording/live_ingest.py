"""A harness recorder sink that stores each step in the database through trajectories/recording/ingest.py as
it happens, so the run page and player show a live trajectory. Step writes are keyed on
(trajectory, index): a redelivered or restarted task rewrites its steps instead of duplicating them."""

from typing import cast

from django.db import transaction

from harness.actions import parse_action
from harness.results import StepRecord, parse_timestamp
from trajectories.models import Step, Trajectory
from trajectories.recording import action_counts
from trajectories.recording.ingest import add_step, all_or_nothing, delete_unused, finish_trajectory

_TOOLS = set(Step.Tool.values)


class StopRequested(Exception):
    """Raised from the sink to stop the agent loop between steps (run cancelled, lease lost)."""


def step_record(row: dict, index: int) -> StepRecord:
    """A traj.jsonl row as the harness recorder writes it, as a StepRecord at 1-based ``index``."""
    action_text = cast(str, row.get("action")) if isinstance(row.get("action"), str) else str(row.get("action"))
    info = dict(row.get("info") or {})
    tool = cast(str, row.get("tool")) if row.get("tool") in _TOOLS else "computer"  # one of Step.Tool's values
    tool_output = ""
    if action_text == "TOOL_CALL":
        tool, action = "bash", {"type": "bash"}
    elif action_text == "PREDICT_CRASH":
        tool, action = "control", {"type": "other", "text": "PREDICT_CRASH"}
        tool_output = str(info.get("error", ""))
    else:
        action = parse_action(action_text)
    execution = row.get("execution")
    if isinstance(execution, dict):
        info["execution"] = execution
        tool_output = "\n".join(str(execution.get(k) or "") for k in ("output", "error") if execution.get(k))
    return StepRecord(
        index=index,
        turn=int(row.get("step_num") or 0),
        tool=tool,
        action=action,
        action_text=action_text,
        model_text=str(row.get("response") or ""),
        tool_output=tool_output,
        done=bool(row.get("done")),
        info=info,
        timestamp=parse_timestamp(row.get("action_timestamp")),
    )


def _media_names(steps) -> list[str]:
    return [f.name for step in steps for f in (getattr(step, column) for column in Step.MEDIA_FIELDS) if f]


def _delete_after_commit(names: list[str]) -> None:
    # Files are stored by content hash: one may still serve another step, so only unused ones go.
    if names:
        transaction.on_commit(lambda: delete_unused(names))


def write_step(trajectory: Trajectory, record: StepRecord, screenshot: bytes | None, name: str = "") -> Step:
    """Store step ``record.index`` of ``trajectory``, replacing a step already stored at that index
    (the trajectory's action counts move by the new step less the replaced one, so a re-sent step
    is counted once)."""
    with all_or_nothing() as files:
        old = list(Step.objects.filter(trajectory=trajectory, index=record.index))
        stale = _media_names(old)
        for step in old:
            step.delete()
        step = add_step(trajectory, record, screenshot, screenshot_name=name, written=files)
        action_counts.adjust(trajectory, added=[step], removed=old)
        _delete_after_commit([n for n in stale if n != step.screenshot.name])
    return step


def drop_steps_after(trajectory: Trajectory, last_index: int) -> int:
    """Remove steps an earlier, longer attempt left past ``last_index`` (and their files)."""
    leftovers = list(Step.objects.filter(trajectory=trajectory, index__gt=last_index))
    if not leftovers:
        return 0
    with transaction.atomic():
        _delete_after_commit(_media_names(leftovers))
        Step.objects.filter(pk__in=[s.pk for s in leftovers]).delete()
        action_counts.adjust(trajectory, removed=leftovers)
    return len(leftovers)


class LiveIngestSink:
    """Writes each recorded step now; keeps the recorder's summary for ``close``. ``should_stop()``
    is asked after every step and returns a reason to stop, or "" to go on."""

    def __init__(self, trajectory: Trajectory, *, should_stop=None):
        self.trajectory = trajectory
        self.should_stop = should_stop
        self.written = 0
        self.summary: dict | None = None

    def begin(self, meta: dict) -> None:
        self.written = 0
        self.summary = None

    def step(self, row: dict, screenshot: bytes | None) -> None:
        self.written += 1
        write_step(self.trajectory, step_record(row, self.written), screenshot, row.get("screenshot_file") or "")
        if self.should_stop is not None:
            reason = self.should_stop()
            if reason:
                raise StopRequested(reason)

    def finish(self, summary: dict) -> None:
        self.summary = summary


def close(
    trajectory: Trajectory,
    *,
    steps: int,
    ended_by: str,
    status: str,
    final_answer: str = "",
    error: str = "",
    usage=None,
) -> Trajectory:
    """End the trajectory through the ingest path (counts, derivatives, judging on finish), after
    dropping steps a previous attempt left beyond this one's."""
    with transaction.atomic():
        drop_steps_after(trajectory, steps)
        return finish_trajectory(
            trajectory, ended_by=ended_by, final_answer=final_answer, error=error, usage=usage, status=status
        )
