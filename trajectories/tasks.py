"""Celery tasks for trajectories: media derivatives (display WebP and thumbnails), plus the one
function ingest calls to ask for them."""

import logging

from celery import shared_task
from django.conf import settings

from . import media

logger = logging.getLogger(__name__)

DERIVATIVE_MODES = ("queue", "inline", "off")


@shared_task(acks_late=True, queue="media", ignore_result=True)
def make_derivatives(trajectory_id: int, force: bool = False) -> dict | None:
    """Make display-size WebP derivatives and thumbnails for a trajectory's steps.

    Idempotent: steps that already have both derivatives are skipped, so a redelivered or
    repeated message only finishes what is missing."""
    summary = media.make_trajectory_derivatives(trajectory_id, force=force)
    if summary is None:
        logger.warning("make_derivatives: trajectory %s no longer exists; nothing to do", trajectory_id)
        return None
    return summary.as_dict()


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
        make_derivatives.delay(trajectory_id)
    except Exception as exc:  # an unreachable broker must not fail a committed ingest
        logger.error(
            "could not queue derivatives for trajectory %s (%s); run `manage.py make_derivatives` to backfill",
            trajectory_id,
            exc,
        )


@shared_task(acks_late=True, queue="judging", ignore_result=True)
def judge_trajectory_task(trajectory_id: int, spec: dict, force: bool = False) -> dict | None:
    """Judge one trajectory's rubric items with our judge (queue "judging").

    Idempotent: items already judged by this configuration are skipped, so a redelivered message
    only judges what is missing or errored."""
    from . import judging

    result = judging.judge_trajectory_by_id(trajectory_id, spec, force=force)
    if result is None:
        logger.warning("judge_trajectory_task: trajectory %s no longer exists; nothing to do", trajectory_id)
    else:
        from .submissions import after_trajectory_judged

        after_trajectory_judged(trajectory_id)  # an uploaded run moves on to review once all is judged
    return result


def judge_on_finish() -> bool:
    """MYPCBENCH_JUDGE_ON_FINISH: judge each trajectory when it finishes. Off unless asked for,
    so importing or running never spends API money by surprise."""
    return bool(getattr(settings, "MYPCBENCH_JUDGE_ON_FINISH", False))


def request_judging(trajectory_id: int) -> None:
    """Queue judging of a trajectory that just finished (call it via transaction.on_commit)."""
    from . import judging

    spec = judging.JudgeSpec.from_settings()
    try:
        judge_trajectory_task.delay(trajectory_id, spec.as_dict())
    except Exception as exc:  # an unreachable broker must not fail a committed ingest
        logger.error("could not queue judging for trajectory %s (%s); run `manage.py judge RUN`", trajectory_id, exc)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, queue="vm", ignore_result=True, max_retries=None)
def run_trajectory(self, trajectory_id: int) -> str:
    """Run one trajectory of a launched evaluation in one of this worker's VM slots (queue "vm").

    Idempotent: an ended trajectory is left alone and one running elsewhere under a live lease is
    skipped, so a redelivered message does no harm. With every slot busy it waits and retries."""
    from django.conf import settings

    from . import evaluations

    outcome = evaluations.execute_trajectory(trajectory_id)
    if outcome == evaluations.NO_SLOT:
        raise self.retry(countdown=float(getattr(settings, "MYPCBENCH_VM_SLOT_WAIT_SECONDS", 10)))
    return outcome
