"""The one way into the Celery queues: work is asked for by task name, so no service imports the
tasks module (which imports the services). Uses only Celery's current app."""

from celery import current_app

# Task names are the tasks module's paths; settings.CELERY_TASK_ROUTES routes by them.
MAKE_DERIVATIVES = "trajectories.tasks.make_derivatives"
JUDGE_TRAJECTORY = "trajectories.tasks.judge_trajectory_task"
RUN_TRAJECTORY = "trajectories.tasks.run_trajectory"


def _task(name: str):
    """The registered task; Celery's own discovery imports each app's tasks module the first time."""
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    return current_app.tasks[name]


def enqueue(name: str, *args, task_id: str | None = None) -> None:
    """Send one message for task ``name``; ``task_id`` names it so it can be revoked later.
    Raises whatever the broker raises when it cannot take the message."""
    task = _task(name)
    if task_id is None:
        task.delay(*args)
    else:
        task.apply_async(args, task_id=task_id)


def signature(name: str, *args):
    """A signature of task ``name`` for a Celery group or chain."""
    return _task(name).s(*args)


def revoke(task_ids: list[str]) -> None:
    """Tell workers to drop queued messages by id."""
    current_app.control.revoke(task_ids)
