"""Celery tasks of trajectories: thin wrappers calling the services (media derivatives, our judge,
running a launched trajectory, checking a received upload). Nothing imports this module: work is
asked for by task name through trajectories.queue, and Celery's autodiscovery registers these tasks. Every task
acknowledges late (a killed worker's message is delivered again) and is idempotent; one that meets
the database or the object store not answering is retried with backoff instead of failing, so an
outage of either loses no work."""

import logging
import time

from celery import shared_task
from celery.exceptions import Reject, Retry
from django.conf import settings
from kombu.exceptions import OperationalError as BrokerUnavailable

from mypcbench_site.outages import SERVICE_UNAVAILABLE, retry_countdown
from trajectories.evaluations import lifecycle
from trajectories.judging import our_judge
from trajectories.recording import media
from trajectories.submissions import review, uploads
from trajectories.submissions.low_priority import at_low_priority

logger = logging.getLogger(__name__)


# How long a worker keeps trying to put a retry on a broker that is itself not answering (a Redis or
# RabbitMQ restart) before giving the message up.
BROKER_PATIENCE_SECONDS = 600


def _retry_outage(task, exc: Exception):
    """Ask for the same work again later: the database, the object store or the cache is not
    answering. When the broker does not take the retry either (it is restarting too), keep trying
    here rather than let the message be acknowledged as failed and the work lost."""
    delay = retry_countdown(task.request.retries)
    logger.warning("%s %s: %s: %s; retrying in %.0f s", task.name, task.request.args, type(exc).__name__, exc, delay)
    deadline = time.monotonic() + BROKER_PATIENCE_SECONDS
    while True:
        try:
            return task.retry(exc=exc, countdown=delay)
        except Retry:
            raise
        except Reject as rejected:
            # Celery rejects the message (requeue=False: the work lost) when it cannot publish the retry
            if not isinstance(rejected.reason, (BrokerUnavailable, *SERVICE_UNAVAILABLE)):
                raise
            if time.monotonic() > deadline:
                raise
            logger.warning(
                "%s: the broker did not take the retry (%s); asking again in 2 s", task.name, rejected.reason
            )
            time.sleep(2)


@shared_task(bind=True, acks_late=True, queue="media", ignore_result=True, max_retries=None)
def make_derivatives(self, trajectory_id: int, force: bool = False) -> dict | None:
    """Make display-size AVIF and WebP derivatives and thumbnails for a trajectory's steps.

    Idempotent: steps that already have both derivatives are skipped, so a redelivered or
    repeated message only finishes what is missing."""
    try:
        summary = media.make_trajectory_derivatives(trajectory_id, force=force)
    except SERVICE_UNAVAILABLE as exc:
        raise _retry_outage(self, exc) from exc
    if summary is None:
        logger.warning("make_derivatives: trajectory %s no longer exists; nothing to do", trajectory_id)
        return None
    return summary.as_dict()


@shared_task(bind=True, acks_late=True, queue="media", ignore_result=True, max_retries=None)
def validate_submission(self, submission_id: int) -> str | None:
    """Check and store an upload the web process received (MYPCBENCH_UPLOAD_VALIDATION=worker), at the
    upload priority (MYPCBENCH_UPLOAD_NICE) and in Linux's idle scheduling class. Idempotent: a
    submission no longer validating is left alone."""
    try:
        return at_low_priority(uploads.validate_received, submission_id, idle=True)
    except SERVICE_UNAVAILABLE as exc:
        raise _retry_outage(self, exc) from exc


@shared_task(bind=True, acks_late=True, queue="judging", ignore_result=True, max_retries=None)
def judge_trajectory_task(self, trajectory_id: int, spec: dict, force: bool = False) -> dict | None:
    """Judge one trajectory's rubric items with our judge (queue "judging").

    Idempotent: items already judged by this configuration are skipped, so a redelivered message
    only judges what is missing or errored (one row per trajectory, rubric item and judge: a
    unique constraint)."""
    try:
        result = our_judge.judge_trajectory_by_id(trajectory_id, spec, force=force)
        if result is None:
            logger.warning("judge_trajectory_task: trajectory %s no longer exists; nothing to do", trajectory_id)
        else:
            review.after_trajectory_judged(trajectory_id)  # an uploaded run moves on to review once all is judged
    except SERVICE_UNAVAILABLE as exc:
        raise _retry_outage(self, exc) from exc
    return result


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, queue="vm", ignore_result=True, max_retries=None)
def run_trajectory(self, trajectory_id: int) -> str:
    """Run one trajectory of a launched evaluation in one of this worker's VM slots (queue "vm").

    Idempotent: an ended trajectory is left alone, one whose worker died restarts from a clean reset,
    and one running elsewhere under a live lease is asked about again when that lease could lapse,
    so a redelivered message neither runs it twice nor drops it. With every slot busy it waits and
    retries; so it does while the database or the object store does not answer."""
    try:
        outcome = lifecycle.execute_trajectory(trajectory_id)
    except SERVICE_UNAVAILABLE as exc:
        raise _retry_outage(self, exc) from exc
    if outcome == lifecycle.NO_SLOT:
        raise self.retry(countdown=float(getattr(settings, "MYPCBENCH_VM_SLOT_WAIT_SECONDS", 10)))
    if outcome == lifecycle.LEASE_HELD:
        raise self.retry(countdown=lifecycle.retry_after(trajectory_id))
    return outcome
