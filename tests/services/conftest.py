"""A real Celery worker process for tests: same test database, same broker, same media folder as
the pytest process; started per test, killed at teardown."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings

from mypcbench_site import celery_app

READY_TIMEOUT = 60
WORKER_QUEUES = ("default", "media", "judging", "vm")


def database_url_for_worker() -> str:
    """A DATABASE_URL naming the database pytest-django is using right now (the test database)."""
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{Path(db['NAME']).resolve()}"
    if db["ENGINE"].endswith("postgresql"):
        user = quote(db.get("USER") or "")
        password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
        auth = f"{user}{password}@" if user else ""
        port = f":{db['PORT']}" if db.get("PORT") else ""
        return f"postgres://{auth}{db.get('HOST') or '127.0.0.1'}{port}/{db['NAME']}"
    raise RuntimeError(f"no worker DATABASE_URL for engine {db['ENGINE']}")


def purge_queues() -> None:
    """Drop messages left by earlier runs so the worker only sees this test's work."""
    with celery_app.connection_for_write() as connection:
        channel = connection.default_channel
        for queue in WORKER_QUEUES:
            try:
                channel.queue_purge(queue)
            except Exception:  # a queue never declared on this broker has nothing to purge
                pass


class Worker:
    def __init__(self, process: subprocess.Popen, log_path: Path):
        self.process = process
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self, sig=signal.SIGKILL) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            self.process.wait(timeout=30)


def start_worker(log_path: Path) -> Worker:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="mypcbench_site.settings",
        DATABASE_URL=database_url_for_worker(),
        MYPCBENCH_VAR_DIR=str(settings.VAR_DIR),
        DJANGO_MEDIA_ROOT=str(settings.MEDIA_ROOT),
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        PYTHONUNBUFFERED="1",
    )
    celery = Path(sys.executable).parent / "celery"
    command = [str(celery), "-A", "mypcbench_site", "worker", "-Q", ",".join(WORKER_QUEUES)]
    command += ["-c", "1", "--pool", "solo", "--loglevel", "INFO", "--without-gossip", "--without-mingle"]
    command += ["--hostname", f"test-{os.getpid()}@%h"]
    log = log_path.open("wb")
    process = subprocess.Popen(
        command,
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so teardown kills nothing else
    )
    log.close()
    worker = Worker(process, log_path)
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"celery worker exited with {process.returncode}:\n{worker.log()}")
        if " ready." in worker.log():
            return worker
        time.sleep(0.2)
    worker.kill()
    raise RuntimeError(f"celery worker not ready after {READY_TIMEOUT}s:\n{worker.log()}")


@pytest.fixture
def worker_factory(transactional_db, tmp_path):
    """Call it to start a real worker on the test database and broker; every worker started is killed afterwards."""
    purge_queues()
    handles = []

    def start() -> Worker:
        worker = start_worker(tmp_path / f"worker-{len(handles)}.log")
        handles.append(worker)
        return worker

    yield start
    for worker in handles:
        try:
            worker.kill(signal.SIGTERM)
        except subprocess.TimeoutExpired:
            worker.kill()
