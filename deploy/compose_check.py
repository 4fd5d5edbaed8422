"""Run deploy/docker-compose.yml for real, as an operator would from deploy/README.md, and check it:
build, `up -d`, wait until every service is healthy, probe the site through nginx (the redirect, TLS,
pages, the upload body limit, gunicorn not published, every queue's worker, the media path through the
bucket), kill a worker container's main process and see compose's restart policy start it again, then
`down -v`. Prints each part with its time; exit 1 when a check fails.

    deploy/compose-check [--local-images] [--keep] [--http-port N] [--https-port N]
    deploy/compose-check --systemd [--keep]   # the systemd units under systemd as PID 1 (systemd_check.py)

--local-images builds the stand-in images (deploy/local-images) and adds
deploy/docker-compose.local-images.yml, for hosts that cannot pull the official images.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
import front_proxy  # noqa: E402 - deploy/ is not a package
import systemd_check  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
COMPOSE_FILE = HERE / "docker-compose.yml"
LOCAL_IMAGES_FILE = HERE / "docker-compose.local-images.yml"
PROJECT = "mypcbench-check"
ONE_SHOT = ("bucket", "migrate")
QUEUES = ("vm", "judging", "media", "default")
# nginx's body limit for the check: the same 8 MiB + 1 MB as run-topology, so the uploads are quick
BODY_LIMIT = front_proxy.BODY_LIMIT


def compose_files(local_images: bool) -> list[str]:
    """The -f arguments: the shipped file, and the stand-in images' override when asked."""
    files = ["-f", str(COMPOSE_FILE)]
    if local_images:
        files += ["-f", str(LOCAL_IMAGES_FILE)]
    return files


def compose_env(*, tls_dir: Path, http_port: int, https_port: int) -> dict[str, str]:
    """What deploy/README.md tells an operator to export, with this check's ports and certificate."""
    return {
        **os.environ,
        "COMPOSE_PROJECT_NAME": PROJECT,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
        "POSTGRES_PASSWORD": secrets.token_urlsafe(24),
        "DJANGO_ALLOWED_HOSTS": "localhost",
        "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://localhost:{https_port}",
        "MYPCBENCH_SERVER_NAME": "localhost",
        "MYPCBENCH_TLS_DIR": str(tls_dir),
        "MYPCBENCH_HTTP_PORT": str(http_port),
        "MYPCBENCH_HTTPS_PORT_PUBLISHED": str(https_port),
        "MYPCBENCH_BODY_LIMIT": BODY_LIMIT,
    }


@contextmanager
def part(name: str, timings: list[tuple[str, float]]):
    started = time.monotonic()
    print(f"== {name}", flush=True)
    try:
        yield
    finally:
        took = time.monotonic() - started
        timings.append((name, took))
        print(f"   ({name}: {took:.1f} s)", flush=True)


class Stack:
    def __init__(self, files: list[str], env: dict[str, str]):
        self.files = files
        self.env = env

    def compose(self, *args: str, check: bool = True, timeout: float = 1800) -> subprocess.CompletedProcess:
        result = subprocess.run(
            ["docker", "compose", *self.files, *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            raise SystemExit(f"compose-check: docker compose {' '.join(args)} failed:\n{result.stderr[-3000:]}")
        return result

    def exec(self, service: str, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return self.compose("exec", "-T", service, *argv, check=check, timeout=300)

    def services(self) -> list[dict]:
        """Every container of the project, running or exited (one JSON object a line, or one list)."""
        out = self.compose("ps", "--all", "--format", "json").stdout.strip()
        if out.startswith("["):
            return json.loads(out)
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def container(self, service: str) -> dict:
        cid = self.compose("ps", "-q", service).stdout.strip()
        return json.loads(subprocess.run(["docker", "inspect", cid], capture_output=True, text=True).stdout)[0]


def not_ready(services: list[dict], names: list[str]) -> list[str]:
    """Services not yet up as compose's depends_on means it: one-shots exited 0, the rest running and,
    where they have a healthcheck, healthy. A one-shot that failed raises."""
    by_name = {s["Service"]: s for s in services}
    waiting = []
    for name in names:
        service = by_name.get(name)
        if service is None:
            waiting.append(f"{name} (no container)")
        elif name in ONE_SHOT:
            if service["State"] == "exited" and service.get("ExitCode", 0) != 0:
                raise SystemExit(f"compose-check: {name} exited with {service['ExitCode']}")
            if service["State"] != "exited":
                waiting.append(f"{name} ({service['State']})")
        elif service["State"] != "running" or service.get("Health") not in ("", None, "healthy"):
            waiting.append(f"{name} ({service['State']}, {service.get('Health') or 'no healthcheck'})")
    return waiting


def wait_until_up(stack: Stack, names: list[str], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    waiting = names
    while time.monotonic() < deadline:
        waiting = not_ready(stack.services(), names)
        if not waiting:
            return
        time.sleep(2)
    raise SystemExit(f"compose-check: not up after {timeout:.0f} s: {', '.join(waiting)}")


def workers_answering(stack: Stack) -> set[str]:
    """The queues whose worker answers a ping (asked from the default worker's container)."""
    out = stack.exec(
        "worker-default", "celery", "-A", "mypcbench_site", "inspect", "ping", "--timeout", "5", check=False
    ).stdout
    return {queue for queue in QUEUES if re.search(rf"\b{queue}@\w+", out)}


def check_proxy(base: str, http_port: int, cert: Path) -> list[str]:
    problems = []
    plain = requests.get(f"http://127.0.0.1:{http_port}/leaderboard/?x=1", allow_redirects=False, timeout=10)
    went = plain.headers.get("Location", "")
    print(f"GET http://127.0.0.1:{http_port}/leaderboard/?x=1: {plain.status_code} -> {went}")
    if plain.status_code != 301 or not went.startswith("https://") or not went.endswith("/leaderboard/?x=1"):
        problems.append(f"plain HTTP answered {plain.status_code} to {went!r}, not 301 to HTTPS")
    for path in ("/", "/leaderboard/", "/static/favicon.svg"):
        answer = requests.get(base + path, verify=str(cert), allow_redirects=False, timeout=20)
        hsts = answer.headers.get("Strict-Transport-Security", "")
        print(f"GET {base}{path}: {answer.status_code}" + (f", HSTS {hsts!r}" if path == "/" else ""))
        if answer.status_code != 200 or (path == "/" and "max-age=" not in hsts):
            problems.append(f"GET {path} through nginx answered {answer.status_code} (HSTS {hsts!r})")
    problems += front_proxy.check_body_limit(base, cert)
    return problems


def published_ports(stack: Stack, names: list[str]) -> dict[str, list[str]]:
    """Each service's ports bound on the host."""
    found = {}
    for name in names:
        ports = stack.container(name)["NetworkSettings"]["Ports"] or {}
        bound = [f"{b['HostIp']}:{b['HostPort']}->{p}" for p, bindings in ports.items() for b in bindings or []]
        if bound:
            found[name] = bound
    return found


def check_media(stack: Stack, base: str, cert: Path) -> list[str]:
    """A screenshot stored by the web container, its derivatives made by the media worker, read through
    nginx: published -> a redirect to the bucket, whose URL answers 200 on the compose network; a
    draft's -> 404."""
    probe = ["python", "deploy/media_probe.py"]
    try:
        stored = stack.exec("web", *probe, "store", check=False)
        if stored.returncode != 0:
            return [f"media probe could not store: {stored.stderr[-1500:]}"]
        names = json.loads(stored.stdout.strip().splitlines()[-1])
        waited = stack.exec("web", *probe, "wait", str(names["trajectory"]), check=False)
        if waited.returncode != 0:
            return [f"the media worker made no derivatives: {waited.stderr[-1500:]}"]
        display = waited.stdout.strip().splitlines()[-1]
        problems = []
        for name, want in ((display, 302), (names["published_screenshot"], 302), (names["draft_screenshot"], 404)):
            answer = requests.get(f"{base}/media/{name}", verify=str(cert), allow_redirects=False, timeout=20)
            location = answer.headers.get("Location", "")
            print(f"GET /media/{name}: {answer.status_code}")
            if answer.status_code != want:
                problems.append(f"GET /media/{name} answered {answer.status_code}, not {want}")
            elif want == 302:
                # the bucket's address (http://s3:5000/...) is a name on the compose network
                fetched = stack.exec(
                    "web",
                    "python",
                    "-c",
                    "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).status)",
                    location,
                    check=False,
                ).stdout.strip()
                print(f"  -> {location}: {fetched or 'no answer'} (from the web container)")
                if fetched != "200":
                    problems.append(f"/media/{name} sent to {location}, which answered {fetched or 'nothing'}")
        return problems
    finally:
        cleaned = stack.exec("web", *probe, "clean", check=False)
        print(cleaned.stdout.strip() or f"media probe clean-up failed: {cleaned.stderr[-500:]}")


def check_restart(stack: Stack, service: str = "worker-default", timeout: float = 120) -> list[str]:
    """Kill the container's main process (SIGKILL, from the host) and wait until compose's restart policy
    (restart: unless-stopped) has started it again and its worker answers a ping."""
    before = stack.container(service)
    pid, restarts = before["State"]["Pid"], before["RestartCount"]
    os.kill(pid, 9)
    killed = time.monotonic()
    queue = service.removeprefix("worker-")
    while time.monotonic() - killed < timeout:
        now = stack.container(service)
        if now["RestartCount"] > restarts and now["State"]["Running"] and queue in workers_answering(stack):
            took = time.monotonic() - killed
            print(
                f"{service}: main process (pid {pid}) killed with SIGKILL; restarted by docker "
                f"(restart count {restarts} -> {now['RestartCount']}, pid {now['State']['Pid']}), "
                f"answers a ping {took:.1f} s later"
            )
            return []
        time.sleep(1)
    return [f"{service} killed with SIGKILL was not restarted and answering within {timeout:.0f} s"]


def run(args: argparse.Namespace) -> int:
    timings: list[tuple[str, float]] = []
    problems: list[str] = []
    started = time.monotonic()
    tls = Path(tempfile.mkdtemp(prefix="compose-check-tls-"))
    cert, _key = front_proxy.self_signed(tls)
    tls.chmod(0o755)
    stack = Stack(
        compose_files(args.local_images),
        compose_env(tls_dir=tls, http_port=args.http_port, https_port=args.https_port),
    )
    names = [s for s in stack.compose("config", "--services").stdout.split()]
    long_running = [n for n in names if n not in ONE_SHOT]
    base = f"https://localhost:{args.https_port}"
    try:
        if args.local_images:
            with part("local images (deploy/local-images)", timings):
                subprocess.run([str(HERE / "local-images"), *args.local_images_args], check=True)
        with part("docker compose build", timings):
            stack.compose("build")
        with part("docker compose up -d, until every service is healthy", timings):
            stack.compose("up", "-d")
            wait_until_up(stack, names)
            print(f"up: {', '.join(long_running)}; done: {', '.join(ONE_SHOT)}")
        with part("the site through nginx", timings):
            problems += check_proxy(base, args.http_port, cert)
            ports = published_ports(stack, long_running)
            print(f"ports bound on the host: {ports}")
            if set(ports) != {"proxy"}:
                problems.append(f"services other than the proxy publish ports: {sorted(set(ports) - {'proxy'})}")
        with part("workers", timings):
            deadline = time.monotonic() + 90
            answering: set[str] = set()
            while answering != set(QUEUES) and time.monotonic() < deadline:
                answering = workers_answering(stack)
            for queue in QUEUES:
                print(f"worker {queue}: {'answers' if queue in answering else 'NO ANSWER'}")
            problems += [f"worker {q} did not answer a ping" for q in QUEUES if q not in answering]
        with part("media through the bucket", timings):
            problems += check_media(stack, base, cert)
        with part("restart policy: a worker's main process killed", timings):
            problems += check_restart(stack)
    finally:
        if args.keep:
            print(f"left up (--keep): {base}/ ; stop with: docker compose -p {PROJECT} down -v")
        else:
            with part("docker compose down -v", timings):
                stack.compose("down", "-v", "--remove-orphans", check=False)
        for entry in tls.iterdir():
            entry.unlink()
        tls.rmdir()
    print("\n".join(f"{took:7.1f} s  {name}" for name, took in timings))
    print(f"{time.monotonic() - started:7.1f} s  in all; load average {Path('/proc/loadavg').read_text().split()[:3]}")
    print("compose-check: OK" if not problems else "compose-check: PROBLEMS\n  " + "\n  ".join(problems))
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--local-images", action="store_true", help="build and use the stand-in images")
    parser.add_argument("--ca", action="append", default=[], help="an extra CA for the stand-ins (local-images --ca)")
    parser.add_argument("--systemd", action="store_true", help="run the systemd units instead (systemd_check.py)")
    parser.add_argument("--keep", action="store_true", help="leave the stack up after the checks")
    parser.add_argument("--http-port", type=int, default=8080, help="nginx's plain HTTP port on the host")
    parser.add_argument("--https-port", type=int, default=8443, help="nginx's HTTPS port on the host")
    args = parser.parse_args(argv)
    args.local_images_args = [arg for ca in args.ca for arg in ("--ca", ca)]
    if args.systemd:
        subprocess.run([str(HERE / "local-images"), *args.local_images_args], check=True)
        return systemd_check.run(keep=args.keep)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
