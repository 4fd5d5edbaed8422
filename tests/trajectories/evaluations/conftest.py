"""Fixtures of the evaluations' tests: quiet settings, the messages a launch would send, the world
(a suite of evaluation tasks and a model) a launch is for."""

import pytest

from tests.evaluation_data import make_eval_suite
from trajectories.tasks import run_trajectory


@pytest.fixture
def quiet_settings(settings):
    """No derivatives and no judging when a trajectory finishes (the launch tests use it by pytestmark)."""
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_JUDGE_ON_FINISH = False


class Queued(list):
    """The trajectory ids of the messages sent, in order; ``task_ids`` holds each message's Celery task id."""

    def __init__(self):
        super().__init__()
        self.task_ids = []

    def clear(self):
        super().clear()
        self.task_ids.clear()


@pytest.fixture
def queued(monkeypatch):
    """Messages the launch would send to the broker (no broker or worker in these tests)."""
    sent = Queued()

    def send(args, task_id):
        sent.append(args[0])
        sent.task_ids.append(task_id)

    monkeypatch.setattr(run_trajectory, "apply_async", send)
    return sent


@pytest.fixture
def world(request, db):
    """A suite of two evaluation tasks and a model; a test module's ``EVAL_TASKS`` sets another count."""
    suite, tasks, model = make_eval_suite(getattr(request.module, "EVAL_TASKS", 2))
    return {"suite": suite, "tasks": tasks, "model": model}
