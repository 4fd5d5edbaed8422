"""Private PostgreSQL, Redis and RabbitMQ servers, and a switchable gate in front of an S3 server,
for fault tests that restart or cut them (tests/site/test_faults_smoke.py, bench/bench_faults.py):
each in its own temporary folder on free loopback ports, so restarting one never touches the
machine's shared servers that other test runs use. Django-free.

PostgreSQL refuses to run as root, so as root it runs as the `postgres` user; RabbitMQ's start
script runs its node as the `rabbitmq` user, so the folder is handed to that user (a ``base``
folder given must then be open to them, e.g. mode 755)."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

PG_BIN_CANDIDATES = ("/usr/local/bin", "/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin",
                     "/usr/lib/postgresql/15/bin")  # fmt: skip


class ServiceUnavailable(RuntimeError):
    """The server cannot be started here; the message says why."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_until(what: str, probe, timeout: float = 60.0, interval: float = 0.1) -> float:
    """Seconds it took ``probe()`` to return true; ServiceUnavailable after ``timeout``."""
    start = time.monotonic()
    last = None
    while time.monotonic() - start < timeout:
        try:
            if probe():
                return time.monotonic() - start
        except Exception as exc:  # noqa: BLE001 - any failure means "not yet"
            last = exc
        time.sleep(interval)
    raise ServiceUnavailable(f"{what} did not come up in {timeout:.0f} s ({last})")


def _run_as(user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--"] if user else []


def _hand_to(path: Path, user: str | None) -> None:
    if not user:
        return
    entry = pwd.getpwnam(user)
    for folder, _dirs, files in os.walk(path):
        os.chown(folder, entry.pw_uid, entry.pw_gid)
        for name in files:
            os.chown(os.path.join(folder, name), entry.pw_uid, entry.pw_gid)


class PrivatePostgres:
    """initdb + pg_ctl in a temporary folder; ``url`` names database ``name`` (created on start)."""

    def __init__(self, name: str = "mypcbench_faults", base: Path | None = None):
        self.bin = next((Path(d) for d in PG_BIN_CANDIDATES if (Path(d) / "pg_ctl").exists()), None)
        if self.bin is None:
            raise ServiceUnavailable("PostgreSQL's initdb and pg_ctl were not found")
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            try:
                pwd.getpwnam(self.user)
            except KeyError:
                raise ServiceUnavailable("running as root and there is no postgres user to run PostgreSQL as")
        self.base = Path(tempfile.mkdtemp(prefix="private-pg-", dir=base))
        self.data = self.base / "data"
        self.port = free_port()
        self.name = name

    @property
    def server_url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.server_url}/{self.name}"

    def _pg(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([*_run_as(self.user), *argv], capture_output=True, text=True, check=check)

    def start(self) -> float:
        """Start (initialising the folder the first time); returns seconds until it answered."""
        first = not self.data.exists()
        if first:
            _hand_to(self.base, self.user)
            self._pg(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                     "--no-sync")  # fmt: skip
        began = time.monotonic()
        options = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        self._pg(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.base / "log"), "-w",
                 "-t", "60", "start")  # fmt: skip
        if first:
            psql = shutil.which("psql") or str(self.bin / "psql")
            subprocess.run([psql, f"{self.server_url}/postgres", "-qc", f'CREATE DATABASE "{self.name}"'],
                           check=True, capture_output=True)  # fmt: skip
        return time.monotonic() - began

    def stop(self, mode: str = "fast") -> None:
        """``fast`` ends every session (what a restart does to the site); ``immediate`` is a crash."""
        if self.data.exists():
            self._pg(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self, down_seconds: float = 0.0) -> float:
        self.stop()
        time.sleep(down_seconds)
        return self.start()

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)


class PrivateRedis:
    """redis-server on a free port. With ``persist`` (the default) every write goes to an append-only
    file in its folder, so queued and unacknowledged messages survive a restart, as a broker needs;
    without it a restart empties it."""

    def __init__(self, persist: bool = True, base: Path | None = None):
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            raise ServiceUnavailable("redis-server is not installed")
        self.base = Path(tempfile.mkdtemp(prefix="private-redis-", dir=base))
        self.port = free_port()
        self.persist = persist
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> float:
        argv = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--dir", str(self.base)]
        argv += ["--appendonly", "yes", "--appendfsync", "always"] if self.persist else ["--appendonly", "no"]
        began = time.monotonic()
        log = (self.base / "redis.log").open("ab")
        self.process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until("redis-server", self._answers, timeout=30)
        return time.monotonic() - began

    def _answers(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """SIGTERM: a clean shutdown (the append-only file is flushed); SIGKILL: a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)

    def restart(self, down_seconds: float = 0.0) -> float:
        self.stop()
        time.sleep(down_seconds)
        return self.start()

    def destroy(self) -> None:
        self.stop(signal.SIGKILL)
        shutil.rmtree(self.base, ignore_errors=True)


class PrivateRabbitMQ:
    """A RabbitMQ node of its own (node name, AMQP and distribution ports, data and log folders), so
    stopping it leaves the machine's RabbitMQ alone. Durable queues and persistent messages (what
    Celery sends) survive its restart."""

    def __init__(self, base: Path | None = None):
        self.server = shutil.which("rabbitmq-server") or ("/usr/sbin/rabbitmq-server" if Path(
            "/usr/sbin/rabbitmq-server").exists() else None)  # fmt: skip
        self.ctl = shutil.which("rabbitmqctl") or "/usr/sbin/rabbitmqctl"
        if self.server is None:
            raise ServiceUnavailable("rabbitmq-server is not installed")
        self.user = "rabbitmq" if os.geteuid() == 0 else None
        try:
            if self.user is None and pwd.getpwuid(os.geteuid()).pw_name != "rabbitmq":
                raise ServiceUnavailable("RabbitMQ's start script runs only as root or as the rabbitmq user")
        except KeyError:
            raise ServiceUnavailable("the current user has no name; RabbitMQ's scripts need one")
        self.base = Path(tempfile.mkdtemp(prefix="private-rabbitmq-", dir=base))
        self.port, self.dist_port = free_port(), free_port()
        self.node = f"faults{self.port}@localhost"
        self.process: subprocess.Popen | None = None
        (self.base / "mnesia").mkdir()
        (self.base / "log").mkdir()
        (self.base / "enabled_plugins").write_text("[].\n")
        _hand_to(self.base, self.user)

    @property
    def url(self) -> str:
        return f"amqp://guest:guest@127.0.0.1:{self.port}//"

    def env(self) -> dict[str, str]:
        return dict(
            os.environ,
            RABBITMQ_NODENAME=self.node,
            RABBITMQ_NODE_IP_ADDRESS="127.0.0.1",
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(self.dist_port),
            RABBITMQ_MNESIA_BASE=str(self.base / "mnesia"),
            RABBITMQ_LOG_BASE=str(self.base / "log"),
            RABBITMQ_ENABLED_PLUGINS_FILE=str(self.base / "enabled_plugins"),
            RABBITMQ_CONFIG_FILE=str(self.base / "rabbitmq"),
            RABBITMQ_ADVANCED_CONFIG_FILE=str(self.base / "advanced.config"),
            RABBITMQ_PID_FILE=str(self.base / "pid"),
        )

    def start(self) -> float:
        began = time.monotonic()
        log = (self.base / "server.log").open("ab")
        self.process = subprocess.Popen([self.server], env=self.env(), stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)  # fmt: skip
        wait_until("the private RabbitMQ node", self._answers, timeout=120, interval=0.5)
        return time.monotonic() - began

    def _answers(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise ServiceUnavailable(f"rabbitmq-server exited; see {self.base / 'server.log'}")
        if not port_answers(self.port):
            return False
        done = subprocess.run([self.ctl, "-n", self.node, "await_startup", "--timeout", "5"], env=self.env(),
                              capture_output=True, timeout=30)  # fmt: skip
        return done.returncode == 0

    def stop(self) -> None:
        subprocess.run([self.ctl, "-n", self.node, "stop"], env=self.env(), capture_output=True, timeout=120)
        if self.process is not None:
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def restart(self, down_seconds: float = 0.0) -> float:
        self.stop()
        time.sleep(down_seconds)
        return self.start()

    def destroy(self) -> None:
        try:
            self.stop()
        except (subprocess.TimeoutExpired, OSError):
            pass
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        shutil.rmtree(self.base, ignore_errors=True)


class Gate:
    """A TCP forwarder in front of a server (the S3 server) that a test can shut: while shut, new
    connections are refused and open ones are cut, as when the store is unreachable; ``shut_after``
    lets a number of requests through first, then shuts (an outage in the middle of an import)."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.port = free_port()
        self._open = threading.Event()
        self._open.set()
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()
        self._budget: int | None = None
        self.requests = 0
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def shut(self) -> None:
        self._open.clear()
        with self._lock:
            for conn in self._connections:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                conn.close()
            self._connections.clear()

    def open(self) -> None:
        self._budget = None
        self._open.set()

    def shut_after(self, requests: int) -> None:
        """Let ``requests`` more HTTP requests through, then shut."""
        self._budget = requests

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self._open.is_set():
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                client.close()  # reset: the client sees the connection refused or dropped
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._connections += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _count(self, data: bytes) -> bool:
        """Count the HTTP requests starting in ``data``; False once the budget is spent."""
        started = data.count(b" HTTP/1.1\r\n")
        self.requests += started
        if self._budget is None or not started:
            return True
        if self._budget < started:
            return False
        self._budget -= started
        return True

    def _pipe(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if from_client and not self._count(data):
                    self.shut()
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for conn in (source, sink):
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            with self._lock:
                for conn in (source, sink):
                    if conn in self._connections:
                        self._connections.remove(conn)
                        conn.close()

    def close(self) -> None:
        self._listener.close()
        self.shut()
