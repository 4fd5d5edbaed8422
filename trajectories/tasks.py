"""Celery tasks of trajectories: thin wrappers calling the services (media derivatives, our judge,
running a launched trajectory, checking a received upload). Nothing imports this module: work is
asked for by task name through trajectories.queue, and Celery's autodiscovery registers these tasks. Every task
acknowledges late (a killed worker's message is delivered again) and is idempotent; one that meets
the database or the object store not answering is retried with backoff instead of failing, so an
outage of either loses no work.

Each tracked task holds a work lease while it works (trajectories.queue.leases), renewed by a
heartbeat, and every worker process runs a sweeper thread (started when the worker is ready) that
marks a dead host's trajectories interrupted, sends again the work whose lease lapsed or whose message
waited too long, and removes the upload temporary folders of dead processes on its host: recovery from
a lost host takes about two lease periods, whatever the broker's visibility timeout."""

import logging
import time

from celery import shared_task
from celery.exceptions import Reject, Retry
from celery.signals import worker_ready, worker_shutting_down
from django.conf import settings
from kombu.exceptions import OperationalError as BrokerUnavailable

from mypcbench_site.outages import SERVICE_UNAVAILABLE, retry_countdown
from trajectories import queue
from trajectories.evaluations import lifecycle, slots
from trajectories.judging import our_judge
from trajectories.queue import leases
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


class HeldElsewhere(Exception):
    """A live worker holds this work's lease: it does the work (or the sweeper sends it again)."""


def _leased(task, args: tuple, work, owed_after=lambda result: False):
    """Do ``work(lease)`` holding the message's work lease, renewed while it runs. The lease ends when the
    work ends (done, or failed with its reason written); it goes back to queued when the work is
    retried (an outage, ``owed_after(result)``), so a lost retry message is sent again by the sweeper.
    Raises HeldElsewhere when a live worker holds the lease. The lease is keyed on the message's
    arguments as sent (``args`` when the task is called directly)."""
    sent = task.request.args if task.request.args is not None else args
    try:
        lease = leases.take(task.name, sent)
    except SERVICE_UNAVAILABLE as exc:
        raise _retry_outage(task, exc) from exc
    if lease is None:
        raise HeldElsewhere(f"{task.name}{tuple(sent)}")
    try:
        with leases.Heartbeat(lease):
            result = work(lease)
    except SERVICE_UNAVAILABLE as exc:
        try:
            leases.release(lease, f"retried: {type(exc).__name__}")
        except SERVICE_UNAVAILABLE:
            pass  # the lease lapses and the sweeper sends the work again if the retry is lost
        raise _retry_outage(task, exc) from exc
    except Exception:
        leases.done(lease)  # the work ended with its reason written (a trajectory's error)
        raise
    if owed_after(result):
        leases.release(lease, f"retried: {result}")
    else:
        leases.done(lease)
    return result


def _held(task, exc: HeldElsewhere) -> None:
    logger.info("%s: %s; left to that worker", task.name, exc)


@shared_task(bind=True, acks_late=True, queue="media", ignore_result=True, max_retries=None)
def make_derivatives(self, trajectory_id: int, force: bool = False) -> dict | None:
    """Make display-size AVIF and WebP derivatives and thumbnails for a trajectory's steps.

    Idempotent: steps that already have both derivatives are skipped, so a redelivered or
    repeated message only finishes what is missing."""
    try:
        summary = _leased(
            self, (trajectory_id,), lambda lease: media.make_trajectory_derivatives(trajectory_id, force=force)
        )
    except HeldElsewhere as exc:
        _held(self, exc)
        return None
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
        return _leased(self, (submission_id,), lambda lease: check_submission(submission_id, lease.requeues))
    except HeldElsewhere as exc:
        _held(self, exc)
        return None


# A check whose worker died this many times (an archive that kills it each time) ends refused, with why.
CHECK_ATTEMPTS = 3


def check_submission(submission_id: int, requeues: int) -> str | None:
    """The check of a received upload, or its end with the reason once its workers died too often."""
    if requeues >= CHECK_ATTEMPTS:
        return uploads.give_up_check(submission_id, requeues)
    return at_low_priority(uploads.validate_received, submission_id, idle=True)


@shared_task(bind=True, acks_late=True, queue="judging", ignore_result=True, max_retries=None)
def judge_trajectory_task(self, trajectory_id: int, spec: dict, force: bool = False) -> dict | None:
    """Judge one trajectory's rubric items with our judge (queue "judging").

    Idempotent: items already judged by this configuration are skipped, so a redelivered message
    only judges what is missing or errored (one row per trajectory, rubric item and judge: a
    unique constraint)."""
    try:
        result = _leased(
            self,
            (trajectory_id, spec),
            lambda lease: our_judge.judge_trajectory_by_id(trajectory_id, spec, force=force),
        )
    except HeldElsewhere as exc:
        _held(self, exc)
        return None
    try:
        if result is None:
            logger.warning("judge_trajectory_task: trajectory %s no longer exists; nothing to do", trajectory_id)
        else:
            review.after_trajectory_judged(trajectory_id)  # an uploaded run moves on to review once all is judged
            lifecycle.refresh_trajectory_run(trajectory_id)  # a launched run is finished once nothing is owed
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

    def owed_after(outcome: str) -> bool:
        return outcome in (lifecycle.NO_SLOT, lifecycle.LEASE_HELD) or lifecycle.still_owed(trajectory_id)

    try:
        outcome = _leased(self, (trajectory_id,), lambda lease: lifecycle.execute_trajectory(trajectory_id), owed_after)
    except HeldElsewhere as exc:
        _held(self, exc)
        return "held elsewhere"
    finally:
        try:
            lifecycle.refresh_trajectory_run(trajectory_id)  # now that its own lease is over
        except SERVICE_UNAVAILABLE:
            pass  # the retry (or the run page) works it out later
    wait = float(getattr(settings, "MYPCBENCH_VM_SLOT_WAIT_SECONDS", 10))
    if outcome == lifecycle.LEASE_HELD:
        raise self.retry(countdown=lifecycle.retry_after(trajectory_id))
    if outcome == lifecycle.NO_SLOT or lifecycle.still_owed(trajectory_id):
        raise self.retry(countdown=wait)  # no slot free, or it was interrupted here: run it again
    return outcome


def sweep_once() -> None:
    """One round of this host's sweeper: dead holders' VM slots reaped (their trajectories marked
    interrupted), expired work leases sent again, dead processes' upload temporary folders removed."""
    slots.reap_gone_holders()
    slots.reap_expired()
    leases.sweep(lambda name, *args: queue.enqueue(name, *args, track=False))
    uploads.sweep_temp_folders()


SWEEPERS: list[leases.Sweeper] = []


def sweep_interval() -> float:
    shortest = min(leases.lease_seconds(), slots.lease_seconds())
    return float(getattr(settings, "MYPCBENCH_SWEEP_SECONDS", 0) or max(0.5, shortest / 4))


@worker_ready.connect
def start_sweeper(**kwargs) -> None:
    """Every worker runs the sweeper (a thread of its main process), so no extra process is needed."""
    if getattr(settings, "MYPCBENCH_SWEEPER", True) and not SWEEPERS:
        SWEEPERS.append(leases.Sweeper(sweep_once, sweep_interval()).start())
        logger.info("sweeper started: every %.1f s", sweep_interval())


@worker_ready.connect
def check_vm_concurrency(sender=None, **kwargs) -> None:
    """Say in the worker's log when a vm worker's processes and this host's VM slots differ."""
    queues = getattr(getattr(getattr(sender, "app", None), "amqp", None), "queues", None)
    concurrency = getattr(getattr(sender, "controller", None), "concurrency", None)
    if queues is not None and isinstance(concurrency, int):
        problem = slots.concurrency_problem(set(queues.consume_from or {}), concurrency)
        if problem:
            logger.warning(problem)


@worker_shutting_down.connect
def stop_sweeper(**kwargs) -> None:
    while SWEEPERS:
        SWEEPERS.pop().stop()
