"""What a freshly stored trajectory asks for: display derivatives of its screenshots and, when
settings say so, our judge; both through the queue (trajectories.queue), never by importing tasks."""

import logging

from django.conf import settings

from trajectories import queue
from trajectories.judge_spec import JudgeSpec
from trajectories.recording import media

logger = logging.getLogger(__name__)

DERIVATIVE_MODES = ("queue", "inline", "off")


def derivatives_mode() -> str:
    mode = getattr(settings, "MYPCBENCH_DERIVATIVES", "queue")
    if mode not in DERIVATIVE_MODES:
        raise ValueError(f"MYPCBENCH_DERIVATIVES is {mode!r}; expected one of {', '.join(DERIVATIVE_MODES)}")
    return mode


def request_derivatives(trajectory_id: int) -> None:
    """Ask for derivatives of a freshly ingested trajectory (call it via transaction.on_commit).

    MYPCBENCH_DERIVATIVES decides how: "queue" sends a message to the media queue (default),
    "inline" makes them now in this process, "off" does nothing (backfill later with
    `manage.py make_derivatives`)."""
    mode = derivatives_mode()
    if mode == "off":
        return
    if mode == "inline":
        media.make_trajectory_derivatives(trajectory_id)
        return
    try:
        queue.enqueue(queue.MAKE_DERIVATIVES, trajectory_id)
    except Exception as exc:  # an unreachable broker must not fail a committed ingest
        logger.error(
            "could not queue derivatives for trajectory %s (%s); run `manage.py make_derivatives` to backfill",
            trajectory_id,
            exc,
        )


def judge_on_finish() -> bool:
    """MYPCBENCH_JUDGE_ON_FINISH: judge each trajectory when it finishes. Off unless asked for,
    so importing or running never spends API money by surprise."""
    return bool(getattr(settings, "MYPCBENCH_JUDGE_ON_FINISH", False))


def request_judging(trajectory_id: int) -> None:
    """Queue judging of a trajectory that just finished (call it via transaction.on_commit)."""
    spec = JudgeSpec.from_settings()
    try:
        queue.enqueue(queue.JUDGE_TRAJECTORY, trajectory_id, spec.as_dict())
    except Exception as exc:  # an unreachable broker must not fail a committed ingest
        logger.error("could not queue judging for trajectory %s (%s); run `manage.py judge RUN`", trajectory_id, exc)
