"""Work asked for while the broker is restarting is not lost: trajectories.queue.enqueue sends the
message again until the broker takes it. A real Celery app in a separate process publishes to a
private Redis or RabbitMQ (never the machine's own) that is down when it starts sending and comes back
a few seconds later; the message is then in the broker's queue exactly once. Without the patience the
same publish fails (kombu's own retry gives up within a second), which the last test pins."""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.services.private_services import PrivateRabbitMQ, PrivateRedis, ServiceUnavailable

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]

SEND = """
import sys, time
import django
django.setup()
from trajectories import queue
began = time.monotonic()
try:
    queue.enqueue(queue.MAKE_DERIVATIVES, 41, patience=float(sys.argv[1]))
except Exception as exc:
    print("REFUSED", type(exc).__name__, exc)
    raise SystemExit(3)
print("SENT after %.1f s" % (time.monotonic() - began))
"""


def _send(broker_url: str, patience: float, tmp_path: Path) -> subprocess.Popen:
    env = dict(os.environ, CELERY_BROKER_URL=broker_url, MYPCBENCH_VAR_DIR=str(tmp_path / "var"),
               DJANGO_SETTINGS_MODULE="mypcbench_site.settings", CELERY_TASK_ALWAYS_EAGER="0")  # fmt: skip
    env.pop("DATABASE_URL", None)  # publishing needs no database
    return subprocess.Popen([sys.executable, "-c", SEND, str(patience)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip


def _media_messages_in_redis(redis: PrivateRedis) -> int:
    done = subprocess.run(["redis-cli", "-p", str(redis.port), "LLEN", "media"], capture_output=True, text=True)
    return int(done.stdout.strip())


def _media_messages_in_rabbitmq(rabbit: PrivateRabbitMQ) -> int:
    done = subprocess.run([rabbit.ctl, "-n", rabbit.node, "list_queues", "name", "messages", "--quiet"],
                          env=rabbit.env(), capture_output=True, text=True, timeout=60)  # fmt: skip
    counts = dict(line.split() for line in done.stdout.splitlines() if line.strip() and len(line.split()) == 2)
    return int(counts.get("media", 0))


@pytest.fixture
def redis(tmp_path):
    try:
        server = PrivateRedis(base=tmp_path)
    except ServiceUnavailable as exc:
        pytest.skip(str(exc))
    yield server
    server.destroy()


def test_a_message_sent_while_redis_restarts_arrives_once_it_is_back(redis, tmp_path):
    sender = _send(redis.url(0), patience=60, tmp_path=tmp_path)  # Redis is not running yet
    time.sleep(3)
    assert sender.poll() is None, sender.stdout.read()  # still trying, not given up
    redis.start()
    out, _ = sender.communicate(timeout=60)
    assert sender.returncode == 0 and "SENT after" in out, out
    assert _media_messages_in_redis(redis) == 1


def test_without_patience_the_same_message_is_refused_with_the_brokers_reason(redis, tmp_path):
    sender = _send(redis.url(0), patience=0, tmp_path=tmp_path)
    out, _ = sender.communicate(timeout=60)
    assert sender.returncode == 3 and "REFUSED OperationalError" in out and str(redis.port) in out, out


def test_a_message_sent_while_rabbitmq_restarts_arrives_once_it_is_back(tmp_path):
    try:
        rabbit = PrivateRabbitMQ()  # in /tmp, handed to the rabbitmq user (pytest's tmp_path is closed to it)
    except ServiceUnavailable as exc:
        pytest.skip(str(exc))
    try:
        rabbit.start()
        warmup = _send(rabbit.url, patience=30, tmp_path=tmp_path)  # declares the durable queue
        assert warmup.wait(timeout=60) == 0 and _media_messages_in_rabbitmq(rabbit) == 1
        restarting = threading.Thread(target=rabbit.restart, kwargs={"down_seconds": 3})
        restarting.start()
        time.sleep(1.0)
        sender = _send(rabbit.url, patience=120, tmp_path=tmp_path)  # while the node is down
        out, _ = sender.communicate(timeout=180)
        restarting.join(timeout=180)
        assert sender.returncode == 0 and "SENT after" in out, out
        assert _media_messages_in_rabbitmq(rabbit) == 2, "the first message survived the restart, the second arrived"
    finally:
        rabbit.destroy()
