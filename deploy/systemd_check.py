"""The systemd units of deploy/systemd/ run for real (deploy/compose-check --systemd): a container with
systemd as PID 1 (privileged) stands for a bare Debian host; the steps of docs/operating.md ("From an
empty host to a supervised, proxied, backed-up site") are run in it as an operator types them, then
the site is checked through nginx, a worker's main process is killed and Restart= must bring it back,
the sweep timer's service runs once, and a backup is made. Each command is printed with its time.

Differences from the page, each said when it runs: media stay on disk (no S3 server on this host), and
the database, broker user and settings get this check's own passwords.
"""

from __future__ import annotations

import re
import secrets
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
IMAGE = "mypcbench-local/systemd-host:bookworm"
CONTAINER = "mypcbench-systemd-check"
QUEUES = ("vm", "judging", "media", "default")
UNITS = ("mypcbench-web", "mypcbench-worker@default", "mypcbench-worker@media", "mypcbench-worker@judging")
# systemd as PID 1 needs what --privileged gives, but --privileged fails where the Docker host itself lacks a
# capability ("unable to apply caps: operation not permitted": these machines have no CAP_SYS_RESOURCE), so:
# every capability but that one, no seccomp or AppArmor filter, the cgroup tree writable, /run in memory.
RUN_OPTIONS = [
    *("--cap-add", "ALL", "--cap-drop", "SYS_RESOURCE"),
    *("--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined"),
    *("--tmpfs", "/run", "--tmpfs", "/run/lock", "-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw"),
]
# docs/operating.md step 6: the template filled with its values (only ${MYPCBENCH_*}: nginx's own $variables stay)
FILL_TEMPLATE = (
    "export MYPCBENCH_UPSTREAM=unix:/run/mypcbench/gunicorn.sock MYPCBENCH_SERVER_NAME=localhost "
    "MYPCBENCH_HTTP_LISTEN=80 MYPCBENCH_HTTPS_LISTEN=443 MYPCBENCH_HTTPS_PORT= "
    "MYPCBENCH_TLS_CERT=/etc/nginx/tls.crt MYPCBENCH_TLS_KEY=/etc/nginx/tls.key "
    "MYPCBENCH_BODY_LIMIT=1025m MYPCBENCH_MEDIA_DIR=/srv/mypcbench/var/media && "
    "envsubst \"$(compgen -e | grep '^MYPCBENCH_' | sed 's/.*/${&}/')\" "
    "< /srv/mypcbench/deploy/nginx/mypcbench.conf.template > /etc/nginx/sites-enabled/mypcbench.conf "
    "&& rm -f /etc/nginx/sites-enabled/default"
)
LOAD_ENV = "set -a && . /etc/mypcbench/env && set +a && cd /srv/mypcbench"


def settings(db_password: str, broker_password: str) -> str:
    """/etc/mypcbench/env as docs/operating.md step 3 gives it, without S3 (media on disk here)."""
    return "\n".join(
        [
            "DJANGO_DEBUG=0",
            f"DJANGO_SECRET_KEY={secrets.token_urlsafe(64)}",
            "DJANGO_ALLOWED_HOSTS=localhost",
            "DJANGO_CSRF_TRUSTED_ORIGINS=https://localhost",
            f"DATABASE_URL=postgres://mypcbench:{db_password}@127.0.0.1:5432/mypcbench",
            f"CELERY_BROKER_URL=amqp://mypcbench:{broker_password}@127.0.0.1:5672//",
            "MYPCBENCH_CACHE_URL=redis://127.0.0.1:6379/3",
            "MYPCBENCH_CLIENT_ADDRESS_HEADER=HTTP_X_REAL_IP",
            "MYPCBENCH_UPLOAD_VALIDATION=worker",
            "MYPCBENCH_VAR_DIR=/srv/mypcbench/var",
            "",
        ]
    )


class Host:
    """The container, driven through `docker exec` (as root, as an operator with sudo)."""

    def __init__(self, timings: list[tuple[str, float]]):
        self.timings = timings

    def sh(self, command: str, *, check: bool = True, quiet: bool = False, timeout: float = 600) -> str:
        started = time.monotonic()
        result = subprocess.run(
            ["docker", "exec", CONTAINER, "bash", "-c", command], capture_output=True, text=True, timeout=timeout
        )
        took = time.monotonic() - started
        if not quiet:
            shown = command.splitlines()[0] + (" ..." if "\n" in command else "")  # not the settings' secrets
            print(f"  # {shown}   [{took:.1f} s, exit {result.returncode}]", flush=True)
        if check and result.returncode != 0:
            raise SystemExit(f"systemd check: `{command}` failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
        return result.stdout

    def main_pid(self, unit: str) -> int:
        return int(self.sh(f"systemctl show -p MainPID --value {unit}", quiet=True).strip() or 0)

    def workers_answering(self) -> set[str]:
        out = self.sh(
            f"{LOAD_ENV} && .venv/bin/celery -A mypcbench_site inspect ping --timeout 5", check=False, quiet=True
        )
        return {queue for queue in QUEUES if re.search(rf"\b{queue}@\S+", out)}

    def status(self, url: str) -> str:
        return self.sh(f"curl -sk -o /dev/null -w '%{{http_code}} %{{redirect_url}}' {url}", quiet=True).strip()


def build(timings) -> None:
    started = time.monotonic()
    subprocess.run(
        ["docker", "build", "--network", "host", "-t", IMAGE, "-f", str(HERE / "local" / "systemd.Dockerfile"), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    timings.append(("the host image (systemd, packages, checkout, bin/setup)", time.monotonic() - started))
    print(f"built {IMAGE} in {timings[-1][1]:.1f} s")


def boot(timings) -> None:
    started = time.monotonic()
    subprocess.run(["docker", "rm", "-f", CONTAINER], capture_output=True)
    subprocess.run(["docker", "run", "-d", "--name", CONTAINER, *RUN_OPTIONS, IMAGE], check=True, capture_output=True)
    deadline = time.monotonic() + 180
    state = ""
    while time.monotonic() < deadline:
        result = subprocess.run(
            ["docker", "exec", CONTAINER, "systemctl", "is-system-running"], capture_output=True, text=True
        )
        state = result.stdout.strip()
        if state in ("running", "degraded"):
            break
        time.sleep(1)
    timings.append(("boot to multi-user (systemd as PID 1)", time.monotonic() - started))
    init = subprocess.run(["docker", "exec", CONTAINER, "ps", "-o", "comm=", "-p", "1"], capture_output=True, text=True)
    print(f"PID 1 is {init.stdout.strip()}; system {state or 'not answering'} after {timings[-1][1]:.1f} s")
    if state not in ("running", "degraded"):
        raise SystemExit(f"systemd check: systemd did not come up ({state!r}); docker logs {CONTAINER}")
    if state == "degraded":
        print(subprocess.run(["docker", "exec", CONTAINER, "systemctl", "--failed", "--no-legend"],
                             capture_output=True, text=True).stdout)  # fmt: skip


def operator_steps(host: Host, timings) -> None:
    """docs/operating.md's steps 2 to 6, in the container."""
    db_password, broker_password = secrets.token_hex(16), secrets.token_hex(16)
    started = time.monotonic()
    print("step 2, services: the database and its user, Redis's append-only file, the broker's user")
    host.sh("until pg_isready -q; do sleep 1; done; until redis-cli ping; do sleep 1; done")
    host.sh(f"runuser -u postgres -- psql -q -c \"CREATE USER mypcbench PASSWORD '{db_password}'\"")
    host.sh("runuser -u postgres -- createdb -O mypcbench mypcbench")
    host.sh("redis-cli CONFIG SET appendonly yes && redis-cli CONFIG REWRITE")
    host.sh("until rabbitmqctl -q await_startup; do sleep 1; done", timeout=180)
    host.sh(f"rabbitmqctl -q add_user mypcbench {broker_password} && rabbitmqctl -q set_permissions -p / mypcbench "
            "'.*' '.*' '.*'")  # fmt: skip
    print("step 3, settings: /etc/mypcbench/env (mode 600); the user the units run as")
    text = settings(db_password, broker_password)
    host.sh(f"install -d /etc/mypcbench && umask 077 && cat > /etc/mypcbench/env <<'END'\n{text}END")
    host.sh("useradd --system --home /srv/mypcbench --shell /usr/sbin/nologin mypcbench")
    host.sh("install -d -o mypcbench /srv/mypcbench/var")
    print("step 4, once per release (make-bucket skipped: media on disk here)")
    host.sh(f"{LOAD_ENV} && .venv/bin/python manage.py migrate --noinput", timeout=900)
    host.sh(f"{LOAD_ENV} && .venv/bin/python manage.py collectstatic --noinput")
    host.sh("chown -R mypcbench /srv/mypcbench/var")
    print("step 5, supervised processes")
    host.sh("cd /srv/mypcbench && cp deploy/systemd/* /etc/systemd/system/ && systemctl daemon-reload")
    host.sh(f"systemctl enable --now {' '.join(UNITS)}")
    host.sh("systemctl enable --now mypcbench-worker-vm")
    host.sh("systemctl enable --now mypcbench-sweep.timer")
    print("step 6, nginx in front (a self-signed certificate for localhost)")
    host.sh(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -keyout /etc/nginx/tls.key "
        "-out /etc/nginx/tls.crt 2>/dev/null && chmod 600 /etc/nginx/tls.key"
    )
    host.sh(FILL_TEMPLATE)
    host.sh("nginx -t && systemctl reload nginx")
    timings.append(("the operator's steps 2 to 6", time.monotonic() - started))


def checks(host: Host, timings) -> list[str]:
    problems = []
    started = time.monotonic()
    for unit in (*UNITS, "mypcbench-worker-vm", "mypcbench-sweep.timer", "nginx"):
        state = host.sh(f"systemctl is-active {unit}", check=False, quiet=True).strip()
        print(f"{unit}: {state}")
        if state != "active":
            problems.append(f"{unit} is {state}")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and host.status("https://localhost/").split()[0] != "200":
        time.sleep(1)
    for url, want in (
        ("http://localhost/leaderboard/", "301 https://localhost/leaderboard/"),
        ("https://localhost/", "200"),
        ("https://localhost/leaderboard/", "200"),
        ("https://localhost/static/favicon.svg", "200"),
    ):
        got = host.status(url)
        print(f"GET {url}: {got}")
        if got != want:
            problems.append(f"GET {url} answered {got!r}, not {want!r}")
    ports = host.sh("ss -ltnp 2>/dev/null | grep gunicorn || true", quiet=True).strip()
    sock = host.sh("test -S /run/mypcbench/gunicorn.sock && echo yes || echo no", quiet=True).strip()
    print(f"gunicorn on /run/mypcbench/gunicorn.sock: {sock}; TCP ports: {ports or 'none'}")
    if sock != "yes" or ports:
        problems.append(f"gunicorn socket {sock}, TCP {ports!r}")
    answering: set[str] = set()
    deadline = time.monotonic() + 90
    while answering != set(QUEUES) and time.monotonic() < deadline:
        answering = host.workers_answering()
    for queue in QUEUES:
        print(f"worker {queue}: {'answers' if queue in answering else 'NO ANSWER'}")
    problems += [f"worker {q} did not answer a ping" for q in QUEUES if q not in answering]
    timings.append(("the site through nginx, the workers", time.monotonic() - started))

    started = time.monotonic()
    unit = "mypcbench-worker@default"
    before = host.main_pid(unit)
    host.sh(f"kill -9 {before}")
    killed = time.monotonic()
    back = False
    while time.monotonic() - killed < 90:
        after = host.main_pid(unit)
        if after not in (0, before) and "default" in host.workers_answering():
            restarts = host.sh(f"systemctl show -p NRestarts --value {unit}", quiet=True).strip()
            print(f"{unit}: main PID {before} killed with SIGKILL; Restart= started PID {after} (NRestarts "
                  f"{restarts}), answers a ping {time.monotonic() - killed:.1f} s later")  # fmt: skip
            back = True
            break
        time.sleep(1)
    if not back:
        problems.append(f"{unit} killed with SIGKILL was not restarted and answering within 90 s")
    timings.append(("Restart=: a worker's main PID killed", time.monotonic() - started))

    started = time.monotonic()
    host.sh("systemctl start mypcbench-sweep.service", check=False)
    result = host.sh("systemctl show -p Result --value mypcbench-sweep.service", quiet=True).strip()
    said = host.sh("journalctl -u mypcbench-sweep.service -o cat --no-pager | tail -n 3", quiet=True).strip()
    print(f"mypcbench-sweep.service ran once: {result}; it said: {said!r}")
    if result != "success":
        problems.append(f"mypcbench-sweep.service ended with {result}")
    timer = host.sh("systemctl list-timers mypcbench-sweep.timer --no-legend", quiet=True).strip()
    print(f"timer: {timer}")
    if "mypcbench-sweep" not in timer:
        problems.append("mypcbench-sweep.timer is not scheduled")
    timings.append(("the sweep timer's service, once", time.monotonic() - started))

    started = time.monotonic()
    print("step 7, back it up")
    host.sh(f"{LOAD_ENV} && .venv/bin/python manage.py backup /backups/mypcbench-$(date +%F)")
    manifest = host.sh("cat /backups/mypcbench-*/manifest.json | head -c 300", quiet=True)
    print(f"backup manifest: {manifest.strip()[:200]}")
    if "rows" not in manifest and "files" not in manifest:
        problems.append("the backup wrote no manifest")
    timings.append(("backup", time.monotonic() - started))
    return problems


def run(*, keep: bool) -> int:
    timings: list[tuple[str, float]] = []
    problems: list[str] = []
    started = time.monotonic()
    try:
        build(timings)
        boot(timings)
        host = Host(timings)
        operator_steps(host, timings)
        problems += checks(host, timings)
    finally:
        if keep:
            print(f"left running (--keep): docker exec -it {CONTAINER} bash; docker rm -f {CONTAINER}")
        else:
            subprocess.run(["docker", "rm", "-f", CONTAINER], capture_output=True)
            print(f"removed the container {CONTAINER}")
    print("\n".join(f"{took:7.1f} s  {name}" for name, took in timings))
    print(f"{time.monotonic() - started:7.1f} s  in all; load average {Path('/proc/loadavg').read_text().split()[:3]}")
    print("systemd check: OK" if not problems else "systemd check: PROBLEMS\n  " + "\n  ".join(problems))
    return 1 if problems else 0
