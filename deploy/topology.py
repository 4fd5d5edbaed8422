"""The multi-host topology on one machine (deploy/README.md): gunicorn web processes and one Celery
worker per queue, each process in its own working, var, media and temp folder (no shared disk, as on
separate hosts), against PostgreSQL, Redis or RabbitMQ as broker, Redis as the shared cache, and a
local S3 server (moto) as media storage. deploy/docker-compose.yml describes the same processes with
the same commands (tests/site/test_deploy.py compares them).

    python deploy/topology.py up [--broker redis|rabbitmq] [--check]   # Ctrl-C stops everything
    python deploy/topology.py make-bucket                             # create MYPCBENCH_S3_BUCKET
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import boto3
import psycopg
import redis
import requests
from botocore.config import Config

sys.path.insert(0, str(Path(__file__).resolve().parent))
import front_proxy  # noqa: E402 - deploy/ is not a package
import paint_check  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WORKER_QUEUES = ("vm", "judging", "media", "default")
WEB_WORKERS = 2
# Every service's address may be set in the environment (TOPOLOGY_*); these are this machine's.
BROKERS = {
    "redis": os.environ.get("TOPOLOGY_REDIS_BROKER_URL", "redis://127.0.0.1:6379/2"),
    "rabbitmq": os.environ.get("TOPOLOGY_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672//"),
}
CACHE_URL = os.environ.get("TOPOLOGY_CACHE_URL", "redis://127.0.0.1:6379/3")
DATABASE_URL = "postgres://postgres@127.0.0.1:5432/mypcbench_topology"  # or TOPOLOGY_DATABASE_URL
BUCKET = "mypcbench-media"
RESTART_PAUSE = 2.0
KEPT_LOGS = 5  # each process's log of this start and of the four before it (name.log.1 ... .4)
# Settings every process gets (the compose file's x-app environment names the same ones).
SHARED_SETTINGS = (
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "MYPCBENCH_CACHE_URL",
    "MYPCBENCH_S3_BUCKET",
    "AWS_S3_ENDPOINT_URL",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "MYPCBENCH_VAR_DIR",
    "DJANGO_MEDIA_ROOT",
    "MYPCBENCH_UPLOAD_VALIDATION",
    *("MYPCBENCH_VM_LEASE_SECONDS", "MYPCBENCH_WORK_LEASE_SECONDS", "MYPCBENCH_QUEUE_PATIENCE_SECONDS"),
    "MYPCBENCH_BROKER_VISIBILITY_SECONDS",
)
# Recovery from a lost host (docs/operating.md#lost-hosts-work-leases-and-the-sweeper): a dead worker's
# leases lapse after 60 s and every worker's sweeper resends its work, so it is redone within about two
# minutes on either broker; Redis's visibility timeout is only a backstop. The compose file sets the same.
LEASE_SETTINGS = {
    "MYPCBENCH_VM_LEASE_SECONDS": "60",
    "MYPCBENCH_WORK_LEASE_SECONDS": "60",
    "MYPCBENCH_QUEUE_PATIENCE_SECONDS": "120",
    "MYPCBENCH_BROKER_VISIBILITY_SECONDS": "3600",
}


def web_command(bind: str) -> list[str]:
    return [
        "gunicorn",
        "mypcbench_site.wsgi:application",
        "--bind",
        bind,
        "--workers",
        str(WEB_WORKERS),
        "--access-logfile",
        "-",
    ]


def worker_command(queue: str, processes: str = "1") -> list[str]:
    """A queue's worker; ``processes`` is its pool size (a vm worker's is its host's VM slots)."""
    return [
        "celery",
        "-A",
        "mypcbench_site",
        "worker",
        "-Q",
        queue,
        "--concurrency",
        processes,
        "--hostname",
        f"{queue}@%h",
        "--loglevel",
        "INFO",
    ]


def service_commands(bind: str, vm_processes: str = "1") -> dict[str, list[str]]:
    """Every long-running process of the topology by service name (the compose file's names); the vm
    worker runs ``vm_processes`` processes, one per VM slot of its host (MYPCBENCH_VM_SLOTS)."""
    commands = {"web": web_command(bind)}
    commands.update(
        {f"worker-{queue}": worker_command(queue, vm_processes if queue == "vm" else "1") for queue in WORKER_QUEUES}
    )
    return commands


MIGRATE_COMMAND = ["python", "manage.py", "migrate", "--noinput"]
COLLECTSTATIC_COMMAND = ["python", "manage.py", "collectstatic", "--noinput"]
MAKE_BUCKET_COMMAND = ["python", "deploy/topology.py", "make-bucket"]


def make_bucket() -> None:
    """Create MYPCBENCH_S3_BUCKET at AWS_S3_ENDPOINT_URL unless it exists (keys from the environment)."""
    bucket = os.environ["MYPCBENCH_S3_BUCKET"]
    endpoint = os.environ.get("AWS_S3_ENDPOINT_URL") or None
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name=os.environ.get("AWS_S3_REGION_NAME", "us-east-1"),
        config=Config(s3={"addressing_style": "path" if endpoint else "auto"}),
    )
    existing = {b["Name"] for b in client.list_buckets().get("Buckets", [])}
    if bucket not in existing:
        client.create_bucket(Bucket=bucket)
    if os.environ.get("MYPCBENCH_S3_PUBLIC_ACCESS") == "policy":
        # ACLs disabled: anybody may read the public/ copies of published media, nothing else
        policy = (ROOT / "deploy" / "s3-public-policy.json").read_text().replace("BUCKET", bucket)
        client.put_bucket_policy(Bucket=bucket, Policy=policy)
        print(f"bucket {bucket}: policy of deploy/s3-public-policy.json applied")
    print(f"bucket {bucket} ready at {endpoint or 'AWS'}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, probe, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            if probe():
                return
        except Exception as exc:  # noqa: BLE001 - any failure means "not yet"
            last = exc
        time.sleep(0.3)
    raise SystemExit(f"topology: {what} did not come up in {timeout:.0f} s ({last})")


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


@dataclass
class Topology:
    """The processes of the topology. The service addresses default to this machine's shared
    servers; bench/bench_faults.py points them at private ones (broker_url, database_url,
    cache_url, an S3 endpoint it started) and adds settings for every process (extra_env)."""

    state: Path
    broker: str
    web_port: int
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(50))
    s3_endpoint: str = ""
    broker_url: str = ""
    database_url: str = ""
    cache_url: str = CACHE_URL
    extra_env: dict[str, str] = field(default_factory=dict)
    commands: dict[str, tuple[list[str], dict[str, str]]] = field(default_factory=dict)
    # nginx in front (deploy/run-topology): TLS on https_port, the redirect on http_port, gunicorn on a
    # Unix socket only; without it (bench/bench_faults.py) gunicorn listens on 127.0.0.1:web_port
    front: bool = False
    restarts: dict[str, int] = field(default_factory=dict)
    http_port: int = 0
    https_port: int = 0

    def __post_init__(self):
        self.broker_url = self.broker_url or os.environ.get("TOPOLOGY_BROKER_URL") or BROKERS[self.broker]
        self.database_url = self.database_url or os.environ.get("TOPOLOGY_DATABASE_URL", DATABASE_URL)
        self.cache_url = (
            os.environ.get("TOPOLOGY_CACHE_URL", self.cache_url) if self.cache_url == CACHE_URL else self.cache_url
        )

    def host_dir(self, name: str) -> Path:
        """A process's own 'host': working, var, media and temp folders nobody else uses."""
        base = self.state / name
        for sub in ("var", "media", "tmp"):
            (base / sub).mkdir(parents=True, exist_ok=True)
        return base

    def env(self, name: str, s3_endpoint: str) -> dict[str, str]:
        base = self.host_dir(name)
        env = dict(os.environ)
        env.update(
            DJANGO_DEBUG="0",
            DJANGO_SECRET_KEY=self.secret,
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            # plain HTTP on loopback: no TLS proxy in front here
            DJANGO_SECURE_SSL_REDIRECT="0",
            DATABASE_URL=self.database_url,
            CELERY_BROKER_URL=self.broker_url,
            MYPCBENCH_CACHE_URL=self.cache_url,
            MYPCBENCH_S3_BUCKET=BUCKET,
            AWS_S3_ENDPOINT_URL=s3_endpoint,
            AWS_ACCESS_KEY_ID="topology-access-key",
            AWS_SECRET_ACCESS_KEY="topology-secret-key",
            MYPCBENCH_VAR_DIR=str(base / "var"),
            DJANGO_MEDIA_ROOT=str(base / "media"),
            # web processes only receive uploads; a media worker checks and stores them
            MYPCBENCH_UPLOAD_VALIDATION=os.environ.get("MYPCBENCH_UPLOAD_VALIDATION", "worker"),
            TMPDIR=str(base / "tmp"),
            # each process stands for a host of its own: its leases are held under this name
            MYPCBENCH_WORKER_NAME=name,
            PYTHONPATH=str(ROOT),
            PYTHONUNBUFFERED="1",
        )
        if self.front:
            env.update(
                DJANGO_SECURE_SSL_REDIRECT="1",
                DJANGO_CSRF_TRUSTED_ORIGINS=self.base_url(),
                MYPCBENCH_CLIENT_ADDRESS_HEADER="HTTP_X_REAL_IP",
                MYPCBENCH_UPLOAD_MAX_BYTES=str(front_proxy.UPLOAD_LIMIT),
                MYPCBENCH_SIGNUPS_PER_ADDRESS=str(front_proxy.SIGNUPS_PER_ADDRESS),
            )
        env.update({key: os.environ.get(key, value) for key, value in LEASE_SETTINGS.items()})
        env.update(self.extra_env)
        return env

    def base_url(self) -> str:
        """Where a visitor reaches the site: nginx over TLS, or gunicorn itself."""
        if self.front:
            return f"https://127.0.0.1:{self.https_port}"
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def socket_path(self) -> Path:
        return self.state / "web" / "gunicorn.sock"

    @property
    def cert(self) -> Path:
        return self.state / "proxy" / "tls.crt"

    def get(self, url: str, **kwargs) -> requests.Response:
        """A GET as a visitor makes it (the proxy's self-signed certificate trusted), no redirects."""
        verify = str(self.cert) if self.front and url.startswith("https://127.0.0.1") else True
        return requests.get(url, allow_redirects=False, verify=verify, timeout=20, **kwargs)

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = (self.state / f"{name}.log").open("ab")
        process = subprocess.Popen(
            self.resolve(argv),
            cwd=self.host_dir(name),
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes[name] = process
        self.commands[name] = (argv, env)
        print(f"started {name} (pid {process.pid}): {' '.join(argv)}")
        return process

    def restart(self, name: str, **settings: str) -> subprocess.Popen:
        """Start ``name`` again with its command and settings (as its supervisor would); ``settings``
        changes some (MYPCBENCH_WORKER_NAME: a replacement host instead of the same one)."""
        argv, env = self.commands[name]
        return self.start(name, argv, {**env, **settings})

    def run_once(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        result = subprocess.run(self.resolve(argv), cwd=ROOT, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"topology: {' '.join(argv)} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
        print(f"ran {name}: {' '.join(argv)}")

    @staticmethod
    def resolve(argv: list[str]) -> list[str]:
        """Programs from this Python's environment (python, gunicorn, celery)."""
        if argv[0] == "python":
            return [sys.executable, *argv[1:]]
        local = Path(sys.executable).parent / argv[0]
        return [str(local) if local.exists() else argv[0], *argv[1:]]

    def supervise(self, stopping: threading.Event, interval: float = 0.5) -> None:
        """Start again any long-running process that exits while ``stopping`` is not set (at most once
        per RESTART_PAUSE seconds each), as systemd's Restart=always or compose's restart policy do on
        real hosts; runs in a thread of its own until ``stopping`` is set."""
        last_start: dict[str, float] = {}
        while not stopping.wait(interval):
            for name, process in list(self.processes.items()):
                code = process.poll()
                if code is None or stopping.is_set():
                    continue
                if time.monotonic() - last_start.get(name, 0) < RESTART_PAUSE:
                    continue
                last_start[name] = time.monotonic()
                self.restarts[name] = self.restarts.get(name, 0) + 1
                print(f"supervisor: {name} exited with {code}; starting it again", flush=True)
                self.restart(name)

    def stop(self) -> None:
        for process in reversed(list(self.processes.values())):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for name, process in self.processes.items():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            print(f"stopped {name}")

    def up(self) -> None:
        ensure_database(self.database_url)
        if not self.s3_endpoint:
            s3_port = free_port()
            self.s3_endpoint = f"http://127.0.0.1:{s3_port}"
            self.start("s3", ["python", "-m", "moto.server", "-H", "127.0.0.1", "-p", str(s3_port)], dict(os.environ))
            wait_for("the S3 server", lambda: http_status(self.s3_endpoint + "/moto-api/") == 200)
        if self.front:
            self.start_proxy()
        s3_endpoint = self.s3_endpoint
        tools = self.env("deploy-tools", s3_endpoint)
        self.run_once("make-bucket", MAKE_BUCKET_COMMAND, tools)
        self.run_once("migrate", MIGRATE_COMMAND, tools)
        web_env = self.env("web", s3_endpoint)
        self.run_once("collectstatic", COLLECTSTATIC_COMMAND, web_env)
        bind = f"unix:{self.socket_path}" if self.front else f"127.0.0.1:{self.web_port}"
        slots = self.env("worker-vm", s3_endpoint).get("MYPCBENCH_VM_SLOTS", "1")
        for name, argv in service_commands(bind, vm_processes=slots).items():
            self.start(name, argv, web_env if name == "web" else self.env(name, s3_endpoint))

    def start_proxy(self) -> None:
        """nginx before gunicorn's socket (502 until it listens) and, as real S3 is, the local S3 server
        behind TLS too: pages over HTTPS cannot show images from a plain-HTTP origin."""
        folder = self.state / "proxy"
        folder.mkdir(exist_ok=True)
        s3_port = free_port()
        conf = front_proxy.nginx_conf(
            folder,
            upstream=f"unix:{self.socket_path}",
            http_port=self.http_port,
            https_port=self.https_port,
            s3=(s3_port, self.s3_endpoint),
        )
        self.start("proxy", front_proxy.nginx_command(conf), dict(os.environ))
        self.s3_endpoint = f"https://127.0.0.1:{s3_port}"
        self.extra_env["AWS_CA_BUNDLE"] = str(self.cert)  # boto3 trusts the test certificate
        wait_for("nginx", lambda: self.get(self.s3_endpoint + "/moto-api/").status_code == 200)

    def check(self) -> list[str]:
        """What a person would check first: pages and static files answer, every queue has a worker."""
        base = self.base_url()
        wait_for("the site", lambda: self.get(base + "/").status_code == 200)
        problems = []
        if self.front:
            problems += front_proxy.check(
                http_port=self.http_port,
                https_port=self.https_port,
                cert=self.cert,
                socket_path=self.socket_path,
                tag=secrets.token_hex(4),
                web_pid=self.processes["web"].pid,
            )
        for path in ("/", "/leaderboard/", "/static/favicon.svg"):
            status = self.get(base + path).status_code
            print(f"GET {path}: {status}")
            if status != 200:
                problems.append(f"GET {path} answered {status}")
        env = self.env("deploy-tools", self.s3_endpoint)
        expected = {f"{queue}@{socket.gethostname()}" for queue in WORKER_QUEUES}
        replied: set[str] = set()
        deadline = time.monotonic() + 90
        while not expected <= replied and time.monotonic() < deadline:
            answered = self.ping(env)
            replied |= {node for node in expected if node in answered}
        for node in sorted(expected):
            print(f"worker {node}: {'answers' if node in replied else 'NO ANSWER'}")
        problems += [f"worker {node} did not answer a ping" for node in sorted(expected - replied)]
        problems += self.check_media(base, env)
        problems += self.check_supervision(env)
        self.warn_unpersisted_queues()
        for name, process in self.processes.items():
            if process.poll() is not None:
                problems.append(f"{name} exited with {process.returncode} (see {self.state / (name + '.log')})")
        return problems

    def warn_unpersisted_queues(self) -> None:
        """Say so when the Redis holding the queues keeps them in memory only (a warning: the Redis of a
        development machine is not this script's to change)."""
        if not self.broker_url.startswith("redis://"):
            return
        try:
            client = redis.Redis.from_url(self.broker_url, socket_timeout=5, decode_responses=True)
            said = client.config_get("appendonly")
        except redis.RedisError as exc:
            print(f"warning: could not ask the broker's Redis about persistence ({exc})")
            return
        if said.get("appendonly") != "yes":
            print(
                "warning: the broker's Redis runs without its append-only file: a restart loses queued "
                "tasks (deploy/README.md, Redis persistence)"
            )
        else:
            print("broker's Redis: append-only file on")

    def check_supervision(self, env: dict[str, str], name: str = "worker-default") -> list[str]:
        """A worker killed outright (SIGKILL) is started again by the supervisor and answers a ping."""
        before = self.processes[name]
        os.killpg(before.pid, signal.SIGKILL)
        before.wait()
        node = f"{name.removeprefix('worker-')}@{socket.gethostname()}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.processes[name] is not before and node in self.ping(env):
                print(f"{name} killed (pid {before.pid}); started again (pid {self.processes[name].pid}), answers")
                return []
            time.sleep(1)
        return [f"{name} killed with SIGKILL was not started again and answering within 90 s"]

    def ping(self, env: dict[str, str]) -> str:
        result = subprocess.run(
            self.resolve(["celery", "-A", "mypcbench_site", "inspect", "ping", "--timeout", "5"]),
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        return result.stdout

    def check_media(self, base: str, env: dict[str, str]) -> list[str]:
        """A screenshot stored by one process, its derivatives made by the media worker, both read
        through gunicorn: published -> the bucket's plain URL, draft -> 404 for a visitor."""
        probe = ["python", "deploy/media_probe.py"]
        try:
            return self.probe_media(base, env, probe)
        finally:  # the probe's runs never stay on the site
            cleaned = subprocess.run(self.resolve([*probe, "clean"]), cwd=ROOT, env=env, capture_output=True, text=True)
            print(cleaned.stdout.strip() or f"media probe clean-up failed: {cleaned.stderr[-500:]}")

    def probe_media(self, base: str, env: dict[str, str], probe: list[str]) -> list[str]:
        stored = subprocess.run(self.resolve([*probe, "store"]), cwd=ROOT, env=env, capture_output=True, text=True)
        if stored.returncode != 0:
            return [f"media probe could not store: {stored.stderr[-1500:]}"]
        names = json.loads(stored.stdout.strip().splitlines()[-1])
        waited = subprocess.run(
            self.resolve([*probe, "wait", str(names["trajectory"])]), cwd=ROOT, env=env, capture_output=True, text=True
        )
        if waited.returncode != 0:
            return [f"the media worker made no derivatives: {waited.stderr[-1500:]}"]
        display = waited.stdout.strip().splitlines()[-1]
        # the player in Chromium: its screenshot must paint (policy, TLS, redirects and all)
        problems = paint_check.unpainted_images(f"{base}/trajectories/{names['trajectory']}/play/", "#stage-image")
        for name, want in ((display, 302), (names["published_screenshot"], 302), (names["draft_screenshot"], 404)):
            answer = self.get(f"{base}/media/{name}")
            status, location = answer.status_code, answer.headers.get("Location", "")
            print(f"GET /media/{name}: {status}")
            if status != want:
                problems.append(f"GET /media/{name} answered {status}, not {want}")
            elif status == 302:
                fetched = self.get(location).status_code
                print(f"  -> {location}: {fetched}")
                if not location.startswith(self.s3_endpoint) or fetched != 200:
                    problems.append(f"/media/{name} sent to {location}, which answered {fetched}")
        return problems


def ensure_database(url: str) -> None:
    server, name = url.rsplit("/", 1)
    with psycopg.connect(server + "/postgres", autocommit=True, connect_timeout=5) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start the topology (Ctrl-C stops it)")
    up.add_argument("--broker", choices=sorted(BROKERS), default="redis")
    up.add_argument("--state", type=Path, default=ROOT / "var" / "topology", help="folders and logs of every process")
    up.add_argument("--port", type=int, default=8443, help="nginx's HTTPS port on 127.0.0.1 (0: any free one)")
    up.add_argument("--http-port", type=int, default=8080, help="nginx's plain HTTP port (redirects; 0: any)")
    up.add_argument("--check", action="store_true", help="check the proxy, pages, workers and media, then stop")
    up.add_argument("--broker-url", default="", help="the broker's URL (default: TOPOLOGY_BROKER_URL, or "
                    "this machine's Redis or RabbitMQ as --broker says)")  # fmt: skip
    up.add_argument("--database-url", default="", help="PostgreSQL (default: TOPOLOGY_DATABASE_URL, or "
                    f"{DATABASE_URL})")  # fmt: skip
    up.add_argument("--cache-url", default="", help=f"the Redis cache (default: TOPOLOGY_CACHE_URL, or {CACHE_URL})")

    sub.add_parser("make-bucket", help="create MYPCBENCH_S3_BUCKET (used by the compose file too)")
    args = parser.parse_args(argv)
    if args.command == "make-bucket":
        make_bucket()
        return 0
    fresh_state(args.state)
    topology = Topology(
        state=args.state,
        broker=args.broker,
        web_port=free_port(),
        front=True,
        https_port=args.port or free_port(),
        http_port=args.http_port or free_port(),
        broker_url=args.broker_url,
        database_url=args.database_url,
        cache_url=args.cache_url or CACHE_URL,
    )
    stopping = threading.Event()
    supervisor = threading.Thread(target=topology.supervise, args=(stopping,), daemon=True)
    try:
        topology.up()
        supervisor.start()
        if args.check:
            problems = topology.check()
            print("topology: OK" if not problems else "topology: PROBLEMS\n  " + "\n  ".join(problems))
            return 1 if problems else 0
        print(f"topology up: {topology.base_url()}/ (logs in {args.state}); Ctrl-C stops it")
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
        return 0
    finally:
        stopping.set()
        if supervisor.is_alive():
            supervisor.join()
        topology.stop()


def fresh_state(state: Path) -> None:
    """A fresh set of "hosts" each start; each process's log kept, rotated (name.log -> name.log.1)."""
    state.mkdir(parents=True, exist_ok=True)
    for entry in state.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry)
        elif entry.suffix == ".log":
            for n in range(KEPT_LOGS - 1, 0, -1):
                older = entry.with_name(f"{entry.name}.{n}")
                if older.exists() and n + 1 < KEPT_LOGS:
                    older.replace(entry.with_name(f"{entry.name}.{n + 1}"))
                elif older.exists():
                    older.unlink()
            entry.replace(entry.with_name(entry.name + ".1"))


if __name__ == "__main__":
    sys.exit(main())
