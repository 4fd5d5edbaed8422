"""Bench: visitors under load, with Locust, against the site as it runs for users: gunicorn web
processes on PostgreSQL with the shared Redis cache, on the bench database (30 runs x 184 tasks x 3
attempts by default). Visitors browse the leaderboard, the analysis pages, task pages, run pages and
the player, fetching the player's screenshots as a browser would. Every page request is paired with
a request for the same bytes served as a static file by the same server (whitenoise), so each page's
p95 is compared with the static p95 measured under the same load at the same moment. Goal (issue
19): every page's p95 within 3x of the static p95 at the highest sustainable load, and no errors.

Scenarios, one after the other on the same server:
  browse      visitors only, at each concurrency level (--levels);
  judging     the same visitors at the highest level while judgments arrive (--judgments-per-second),
              each moving the data version the figure caches are keyed on, as a judging run does;
  upload      the same visitors at the highest level while an author uploads 100-step archives one
              after the other through the API (validated and ingested by the web processes, as
              uploads are); each page's p95 is compared with its p95 in the browse round at that
              level. Goal (issue 19): no page's p95 moves by more than 20%.

Celery work the site asks for (derivatives, judging) goes to the queue, as to workers on other hosts;
no worker takes it here.

    .venv/bin/python bench/bench_load.py                       # full scale (building takes minutes)
    .venv/bin/python bench/bench_load.py --runs 6 --tasks 40 --levels 2,8 --duration 15

Locust runs from its own environment (`.venv-bench`, made from requirements-bench.txt on first use)
so its event loop library never meets the site's. PostgreSQL and Redis on 127.0.0.1 as bin/test uses
them; the bench database is `mypcbench_load` (dropped and rebuilt unless --reuse). Traffic goes only to
127.0.0.1, bounded in count and time.
"""

import argparse
import csv
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BENCH_VENV = ROOT / ".venv-bench"
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
DATABASE = "mypcbench_load"
CACHE_URL = "redis://127.0.0.1:6379/7"
GOAL = 3.0

LOCUSTFILE = """
import json, os, random
from locust import HttpUser, between, task

PAGES = json.load(open(os.environ["BENCH_PAGES"]))

def visit(client, kind):
    page = random.choice(PAGES[kind])
    client.get(page["url"], name=kind)
    for image in page.get("images", []):
        client.get(image, name="screenshot (" + kind + ")")
    client.get(page["static"], name="static copy of " + kind)

class Visitor(HttpUser):
    wait_time = between(0.5, 1.5)

    @task(4)
    def leaderboard(self):
        visit(self.client, "leaderboard")

    @task(3)
    def analysis(self):
        visit(self.client, "analysis")

    @task(3)
    def task_page(self):
        visit(self.client, "task")

    @task(2)
    def run_page(self):
        visit(self.client, "run")

    @task(4)
    def player(self):
        visit(self.client, "player")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_locust() -> Path:
    locust = BENCH_VENV / "bin" / "locust"
    if not locust.exists():
        print("making .venv-bench for Locust (once) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
        subprocess.run(
            [str(BENCH_VENV / "bin" / "pip"), "install", "-q", "-r", str(ROOT / "requirements-bench.txt")],
            check=True,
        )
    return locust


def site_env(var_dir: Path) -> dict:
    env = dict(os.environ)
    env.update(
        MYPCBENCH_VAR_DIR=str(var_dir),
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{DATABASE}",
        MYPCBENCH_CACHE_URL=CACHE_URL,
        DJANGO_SETTINGS_MODULE="mypcbench_site.settings",
        DJANGO_DEBUG="0",
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SECRET_KEY="bench-only-secret-key-not-for-production-use-0123456789",
        MYPCBENCH_SERVE_MEDIA="1",  # one host, no front server: Django serves media after its check
        CELERY_TASK_ALWAYS_EAGER="0",  # derivatives and judging are queued for workers elsewhere
    )
    return env


def recreate_database() -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DATABASE}")


def build(args, var_dir: Path) -> dict:
    """Build (or reuse) the bench database, give a sample of trajectories real screenshots, and save
    each sample page's bytes as a static file. Returns the pages Locust visits."""
    if not args.reuse:
        recreate_database()
    os.environ.update(site_env(var_dir))
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.files.base import ContentFile
    from django.core.management import call_command
    from django.test import Client
    from PIL import Image

    from leaderboard.models import Run, Task
    from tests.board_data import build_synthetic
    from trajectories.models import Step, Trajectory

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG off: hashed static names
    if not Run.objects.filter(suite__slug="big").exists():
        start = time.perf_counter()
        build_synthetic(runs=args.runs, tasks=args.tasks, attempts=args.attempts, steps=args.steps, seed=0, slug="big")
        print(f"built in {time.perf_counter() - start:.0f} s", flush=True)
    print(f"{Trajectory.objects.count():,} trajectories, {Step.objects.count():,} steps", flush=True)

    # screenshots for the player sample: display-size WebP images, one per step, as derivatives are
    sample = list(Trajectory.objects.filter(run__suite__slug="big").order_by("pk")[:: max(1, args.tasks)][:12])
    for n, trajectory in enumerate(sample):
        steps = list(trajectory.steps.order_by("index")[:20])
        for step in steps:
            if step.display_image and step.display_image.storage.exists(step.display_image.name):
                continue  # --reuse with the same media folder
            image = Image.effect_noise((1024, 640), 40 + (n * 7 + step.index) % 60).convert("RGB")
            out = io.BytesIO()
            image.save(out, format="WEBP", quality=60)
            step.display_image.save(f"bench-{trajectory.pk}-{step.index}.webp", ContentFile(out.getvalue()), save=False)
            step.save(update_fields=["display_image"])

    client = Client()
    tasks = list(Task.objects.filter(suite__slug="big").order_by("position")[:: max(1, args.tasks // 8)][:8])
    runs = list(
        Run.objects.filter(suite__slug="big", publication="published").order_by("slug")[:: max(1, args.runs // 6)][:6]
    )
    wanted = {
        "leaderboard": ["/leaderboard/?suite=big", "/"],
        "analysis": ["/analysis/", "/analysis/failures/", "/analysis/scaling/"],
        "task": [f"/tasks/big/{t.task_id}/" for t in tasks],
        "run": [f"/runs/{r.slug}/" for r in runs],
        "player": [f"/trajectories/{t.pk}/play/" for t in sample],
    }
    static_root = Path(os.environ["MYPCBENCH_VAR_DIR"]) / "staticfiles"
    copies = static_root / "bench-copy"
    copies.mkdir(parents=True, exist_ok=True)
    pages = {}
    cache.clear()
    for kind, urls in wanted.items():
        pages[kind] = []
        for i, url in enumerate(urls):
            response = client.get(url)
            if response.status_code != 200:
                raise SystemExit(f"{url} answered {response.status_code}: the bench database is not what it expects")
            name = f"{kind}-{i}.html"
            (copies / name).write_bytes(response.content)
            page = {"url": url, "static": f"/static/bench-copy/{name}"}
            if kind == "player":
                trajectory = sample[i]
                page["images"] = [
                    s.display_image.url for s in trajectory.steps.order_by("index")[:20] if s.display_image
                ][:8]
            pages[kind].append(page)
    return pages


def start_server(args, var_dir: Path, port: int) -> subprocess.Popen:
    env = site_env(var_dir)
    server = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "mypcbench_site.wsgi", "-w", str(args.web_workers),
         "-b", f"127.0.0.1:{port}", "--access-logfile", "-", "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=open(var_dir / "gunicorn.log", "w"),
        start_new_session=True,
    )  # fmt: skip
    import requests

    for _ in range(120):
        try:
            if requests.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                return server
        except requests.RequestException:
            time.sleep(0.5)
    raise SystemExit(f"gunicorn did not answer; see {var_dir / 'gunicorn.log'}")


def run_locust(locust: Path, port: int, users: int, seconds: int, pages_file: Path, out: Path) -> list[dict]:
    locustfile = out.parent / "locustfile.py"
    locustfile.write_text(LOCUSTFILE)
    prefix = out / f"u{users}"
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [str(locust), "-f", str(locustfile), "--headless", "-u", str(users), "-r", str(users), "-t", f"{seconds}s",
         "--host", f"http://127.0.0.1:{port}", "--csv", str(prefix), "--only-summary", "--loglevel", "ERROR",
         "--stop-timeout", "10"],
        env={**os.environ, "BENCH_PAGES": str(pages_file)}, check=False, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    with open(f"{prefix}_stats.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def report(title: str, rows: list[dict]) -> list[str]:
    by_name = {r["Name"]: r for r in rows}
    header = f"{'page':<28}{'reqs':>7}{'fail':>6}{'p50':>7}{'p95':>7}{'p99':>7}  {'static p95':>10}  ratio"
    lines = [f"\n{title}", header]
    worst = 0.0
    for name, r in sorted(by_name.items()):
        if name.startswith("static copy of ") or name == "Aggregated":
            continue
        static = by_name.get(f"static copy of {name}")
        ratio = ""
        if static and float(static["95%"]) > 0:
            value = float(r["95%"]) / float(static["95%"])
            worst = max(worst, value)
            ratio = f"{value:.1f}x"
        lines.append(
            f"{name:<28}{r['Request Count']:>7}{r['Failure Count']:>6}{r['50%']:>7}{r['95%']:>7}{r['99%']:>7}  "
            f"{(static or {}).get('95%', ''):>10}  {ratio}"
        )
    total = by_name.get("Aggregated", {})
    lines.append(
        f"throughput {float(total.get('Requests/s', 0)):.1f} requests/s, {total.get('Failure Count', '?')} failures; "
        f"worst page p95 / static p95 = {worst:.1f}x (goal at most {GOAL:g}x)"
    )
    return lines


def judgments_arrive(stop: threading.Event, per_second: float, counter: list) -> None:
    """Save judgments at a steady rate, each moving the data version (as the judge's writes do)."""
    from django.db import close_old_connections

    from trajectories.models import Judgment

    pks = list(Judgment.objects.filter(trajectory__run__suite__slug="big").values_list("pk", flat=True)[:5000])
    i = 0
    while not stop.is_set():
        started = time.perf_counter()
        judgment = Judgment.objects.get(pk=pks[i % len(pks)])
        judgment.save()
        counter[0] += 1
        i += 1
        stop.wait(max(0.0, 1.0 / per_second - (time.perf_counter() - started)))
    close_old_connections()


UPLOAD_STEPS = 100
UPLOAD_GOAL = 1.2


def upload_archive(task_id: str, seed: int) -> bytes:
    """A 100-step upstream result folder for one task of the bench suite, zipped: 1280x800 screenshots
    (a flat desktop with a band of noise, about 150 KB each as PNG, like real screens' size)."""
    import random
    import zipfile

    from PIL import Image

    from tests.factories import write_task_dir

    rng = random.Random(seed)
    actions = [(i, f"pyautogui.click({rng.randrange(1280)}, {rng.randrange(800)})") for i in range(1, UPLOAD_STEPS)]
    actions.append((UPLOAD_STEPS, "DONE"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_task_dir(Path(tmp), task_id, actions=actions)
        for n, png in enumerate(sorted(folder.glob("step_*.png"))):
            screen = Image.new("RGB", (1280, 800), (40 + n % 50, 90, 160))
            band = Image.effect_noise((1280, 120), 60 + (seed * 7 + n) % 40).convert("RGB")
            screen.paste(band, (0, 300 + n % 200))
            screen.save(png, format="PNG")
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    archive.write(path, f"{task_id}/{path.relative_to(folder)}")
        return buffer.getvalue()


def uploader_token() -> tuple[str, str]:
    """An author and an API token for the upload scenario (made once per database), and a task id."""
    from django.contrib.auth import get_user_model

    from leaderboard.models import Task
    from trajectories.submissions.tokens import create_token

    author, _ = get_user_model().objects.get_or_create(username="bench-uploader")
    task_id = Task.objects.filter(suite__slug="big").order_by("position").values_list("task_id", flat=True)[0]
    return create_token(author, f"bench {time.time_ns()}")[1], task_id


def uploads_arrive(stop: threading.Event, port: int, token: str, archives: list[bytes], done: list) -> None:
    """Upload the distinct 100-step archives one after the other until told to stop (or none is left);
    record each answer."""
    import requests

    metadata = {
        "suite": "big", "model": "Bench upload model", "agent": "bench", "tool_surface": "computer",
        "turn_budget": UPLOAD_STEPS, "harness_version": "bench", "image_version": "bench",
    }  # fmt: skip
    for archive in archives:
        if stop.is_set():
            break
        started = time.perf_counter()
        answer = requests.post(
            f"http://127.0.0.1:{port}/api/submissions",
            headers={"Authorization": f"Bearer {token}"},
            files={"archive": ("bench-upload.zip", archive, "application/zip")},
            data={"metadata": json.dumps(metadata)},
            timeout=600,
        )
        done.append((answer.status_code, len(archive), time.perf_counter() - started, answer.text[:300]))


def while_working(work, args: tuple, measure):
    """``measure()`` while ``work(stop, *args)`` runs in a thread; the thread is told to stop and
    waited for afterwards."""
    stop = threading.Event()
    worker = threading.Thread(target=work, args=(stop, *args))
    worker.start()
    try:
        return measure()
    finally:
        stop.set()
        worker.join()


def compare(title: str, base: list[dict], rows: list[dict]) -> list[str]:
    """Each page's p95 beside its p95 in ``base`` (the same level without the extra work)."""
    before = {r["Name"]: r for r in base}
    lines = [f"\n{title}", f"{'page':<28}{'reqs':>7}{'fail':>6}{'p95 before':>11}{'p95 now':>9}  moved"]
    worst = 0.0
    for r in sorted(rows, key=lambda r: r["Name"]):
        name = r["Name"]
        if name.startswith("static copy of ") or name == "Aggregated" or name not in before:
            continue
        old, new = float(before[name]["95%"]), float(r["95%"])
        moved = new / old if old > 0 else 0.0
        worst = max(worst, moved)
        lines.append(f"{name:<28}{r['Request Count']:>7}{r['Failure Count']:>6}{old:>11.0f}{new:>9.0f}  {moved:.2f}x")
    lines.append(f"worst page p95 now / before = {worst:.2f}x (goal at most {UPLOAD_GOAL:g}x)")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--tasks", type=int, default=184)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--levels", default="4,16,32", help="concurrent visitors, comma-separated")
    parser.add_argument("--duration", type=int, default=30, help="seconds per level")
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--judgments-per-second", type=float, default=10.0)
    parser.add_argument("--reuse", action="store_true", help="keep the bench database built by an earlier run")
    parser.add_argument("--uploads", type=int, default=3, help="archives the upload scenario sends at most")
    parser.add_argument(
        "--scenarios", default="upload,judging", help="after browse, comma-separated: upload, judging (default: both)"
    )
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",") if x.strip()]

    locust = ensure_locust()
    var_dir = Path(os.environ.get("MYPCBENCH_VAR_DIR") or tempfile.mkdtemp(prefix="bench-load-"))
    print(
        f"scale: {args.runs} runs x {args.tasks} tasks x {args.attempts} attempts x ~{args.steps} steps; "
        f"gunicorn x{args.web_workers}; PostgreSQL {DATABASE}; Redis cache {CACHE_URL}; {os.cpu_count()} CPUs",
        flush=True,
    )
    pages = build(args, var_dir)
    pages_file = var_dir / "pages.json"
    pages_file.write_text(json.dumps(pages))
    port = free_port()
    server = start_server(args, var_dir, port)
    out = var_dir / "locust"
    lines = []
    try:
        for users in levels:
            rows = run_locust(locust, port, users, args.duration, pages_file, out)
            lines += report(f"browse: {users} concurrent visitors, {args.duration} s", rows)
            print(f"level {users} done", flush=True)
        users, browse_rows = levels[-1], rows
        if "upload" in args.scenarios:
            token, task_id = uploader_token()
            seed = time.time_ns() % 100_000  # new archives each run: an archive already uploaded is not ingested again
            archives = [upload_archive(task_id, seed + n) for n in range(args.uploads)]
            done = []
            visitors = (locust, port, users, args.duration, pages_file)
            rows = while_working(
                uploads_arrive, (port, token, archives, done), lambda: run_locust(*visitors, out / "upload")
            )
            answers = ", ".join(f"{code} ({size / 1e6:.1f} MB in {secs:.1f} s)" for code, size, secs, _ in done)
            lines += report(f"upload: {users} visitors while 100-step archives are uploaded: {answers}", rows)
            lines += compare(f"upload: each page's p95 beside the browse round at {users} visitors", browse_rows, rows)
            refused = [text for code, _, _, text in done if code not in (200, 201)]
            if refused:
                lines.append(f"upload refused: {refused[0]}")
            print("upload done", flush=True)
        if "judging" in args.scenarios:
            counter = [0]
            visitors = (locust, port, users, args.duration, pages_file)
            rows = while_working(
                judgments_arrive, (args.judgments_per_second, counter), lambda: run_locust(*visitors, out / "judging")
            )
            lines += report(
                f"judging: {users} visitors while {counter[0]} judgments arrive "
                f"({counter[0] / args.duration:.1f} per second)",
                rows,
            )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
