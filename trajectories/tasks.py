"""Celery tasks of trajectories: thin wrappers calling the services (media derivatives, our judge,
running a launched trajectory). Nothing imports this module: work is asked for by task name
through trajectories.queue, and Celery's autodiscovery registers these tasks."""

import logging

from celery import shared_task
from django.conf import settings

from trajectories.evaluations import lifecycle as evaluations
from trajectories.judging import our_judge as judging
from trajectories.recording import media
from trajectories.submissions import review

logger = logging.getLogger(__name__)


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


@shared_task(acks_late=True, queue="judging", ignore_result=True)
def judge_trajectory_task(trajectory_id: int, spec: dict, force: bool = False) -> dict | None:
    """Judge one trajectory's rubric items with our judge (queue "judging").

    Idempotent: items already judged by this configuration are skipped, so a redelivered message
    only judges what is missing or errored."""
    result = judging.judge_trajectory_by_id(trajectory_id, spec, force=force)
    if result is None:
        logger.warning("judge_trajectory_task: trajectory %s no longer exists; nothing to do", trajectory_id)
    else:
        review.after_trajectory_judged(trajectory_id)  # an uploaded run moves on to review once all is judged
    return result


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, queue="vm", ignore_result=True, max_retries=None)
def run_trajectory(self, trajectory_id: int) -> str:
    """Run one trajectory of a launched evaluation in one of this worker's VM slots (queue "vm").

    Idempotent: an ended trajectory is left alone and one running elsewhere under a live lease is
    skipped, so a redelivered message does no harm. With every slot busy it waits and retries."""
    outcome = evaluations.execute_trajectory(trajectory_id)
    if outcome == evaluations.NO_SLOT:
        raise self.retry(countdown=float(getattr(settings, "MYPCBENCH_VM_SLOT_WAIT_SECONDS", 10)))
    return outcome
