"""A task that meets an outage asks for itself again later; when the broker cannot take that retry
either (Redis or RabbitMQ restarting at the same moment), Celery would reject the message for good
and the work would be lost, so the worker keeps asking until the broker is back (bounded). The
broker is stood in for by a task whose retry() fails as Celery's does when publishing fails."""

import pytest
from celery.exceptions import Reject, Retry
from kombu.exceptions import OperationalError

from trajectories import tasks


class FlakyBroker:
    name = "trajectories.tasks.run_trajectory"

    def __init__(self, failures: int, reason=None):
        self.failures, self.calls = failures, 0
        self.reason = reason or OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        self.request = type("Request", (), {"retries": 0, "args": [7]})()

    def retry(self, exc, countdown):
        self.calls += 1
        if self.calls <= self.failures:
            raise Reject(self.reason, requeue=False)
        raise Retry("asked again", exc, when=countdown)


def test_a_retry_the_broker_refuses_is_asked_again_until_it_is_taken(monkeypatch):
    naps = []
    monkeypatch.setattr(tasks.time, "sleep", naps.append)
    broker = FlakyBroker(failures=3)
    with pytest.raises(Retry):
        tasks._retry_outage(broker, ConnectionError("cache down"))
    assert broker.calls == 4 and naps == [2, 2, 2]


def test_a_rejection_for_another_reason_is_not_retried(monkeypatch):
    monkeypatch.setattr(tasks.time, "sleep", lambda s: pytest.fail("no waiting for a non-outage"))
    broker = FlakyBroker(failures=1, reason=ValueError("cannot serialise the arguments"))
    with pytest.raises(Reject):
        tasks._retry_outage(broker, ConnectionError("cache down"))
    assert broker.calls == 1


def test_the_worker_gives_up_after_its_patience(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(tasks.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(tasks.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + 200))
    broker = FlakyBroker(failures=100)
    with pytest.raises(Reject):
        tasks._retry_outage(broker, ConnectionError("cache down"))
    assert broker.calls == 5  # 0, 200, 400, 600 s within the 600 s of patience, then past it
