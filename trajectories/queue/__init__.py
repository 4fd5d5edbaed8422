"""The one way into the Celery queues: work is asked for by task name, so no service imports the
tasks module (which imports the services). Uses Celery's current app and the work lease rows.

A message the broker cannot take (Redis or RabbitMQ restarting) is sent again until it can, for a
while: inside a worker's task, where nobody waits on the answer and the work would otherwise be lost
(a finished trajectory's derivatives and judging), for up to WORKER_PATIENCE_SECONDS; in a web
request, which someone is waiting on, for up to REQUEST_PATIENCE_SECONDS.

Every tracked message (running a trajectory, judging, checking a submission, derivatives) gets a work
lease row before it is sent (``leases``), so a message lost with its worker's host is sent again by the
sweeper instead of waiting for the broker's visibility timeout."""

import logging
import time

from celery import current_app, current_task
from django.db import DatabaseError
from kombu.exceptions import OperationalError as BrokerUnavailable

from trajectories.queue import leases

logger = logging.getLogger(__name__)

WORKER_PATIENCE_SECONDS = 600.0
REQUEST_PATIENCE_SECONDS = 10.0
RETRY_PAUSE_SECONDS = 1.0

# Task names are the tasks module's paths; settings.CELERY_TASK_ROUTES routes by them.
MAKE_DERIVATIVES = "trajectories.tasks.make_derivatives"
JUDGE_TRAJECTORY = "trajectories.tasks.judge_trajectory_task"
RUN_TRAJECTORY = "trajectories.tasks.run_trajectory"
VALIDATE_SUBMISSION = "trajectories.tasks.validate_submission"


def _task(name: str):
    """The registered task; Celery's own discovery imports each app's tasks module the first time."""
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    return current_app.tasks[name]


def enqueue(name: str, *args, task_id: str | None = None, patience: float | None = None, track: bool = True) -> None:
    """Send one message for task ``name``; ``task_id`` names it so it can be revoked later. While the
    broker does not take it, try again for ``patience`` seconds (default: see the module's docstring),
    then raise what the broker raised. ``track``: record the work as owed first (the sweeper, which
    resends owed work, sends without)."""
    task = _task(name)
    if patience is None:
        patience = WORKER_PATIENCE_SECONDS if current_task else REQUEST_PATIENCE_SECONDS
    deadline = time.monotonic() + patience
    try:
        if track:
            leases.owe(name, args)
    except DatabaseError as exc:  # the message still goes; only its resend after a lost host is not tracked
        logger.warning("could not record %s%s as owed: %s", name, args, exc)
    while True:
        try:
            if task_id is None:
                task.delay(*args)
            else:
                task.apply_async(args, task_id=task_id)
            return
        except BrokerUnavailable as exc:
            if time.monotonic() + RETRY_PAUSE_SECONDS > deadline:
                raise
            logger.warning("the broker did not take %s%s (%s); sending it again in %.0f s", name, args, exc,
                           RETRY_PAUSE_SECONDS)  # fmt: skip
            time.sleep(RETRY_PAUSE_SECONDS)


def signature(name: str, *args):
    """A signature of task ``name`` for a Celery group or chain."""
    return _task(name).s(*args)


def revoke(task_ids: list[str]) -> None:
    """Tell workers to drop queued messages by id."""
    current_app.control.revoke(task_ids)
