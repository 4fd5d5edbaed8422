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
  upload      at the highest level, rounds of browsing alternate with rounds in which an author
              uploads distinct 100-step archives one after the other through the API, checked and
              stored as --upload-validation says: "worker" (the topology's way: the web processes
              only receive the archive, a Celery worker on the media queue started here checks and
              stores it; an upload is in flight until its submission stops "validating") or "web"
              (the web processes check and store it before they answer). Every request's own time is
              recorded; each page's p95 over the requests sent while an upload was in flight is
              compared with its p95 over the browse rounds, with a bootstrap interval, beside the
              spread of the browse rounds' own p95. Goal: no page's p95 moves by more than 20%.
              Control (leave it out with --no-control): after each upload round, a third round in which
              a do-nothing loop in the idle scheduling class spins for as long as each upload was in
              flight, so the table shows what any CPU use at all beside the visitors costs them on this
              machine, and what the uploads cost beyond that.

Celery work the site asks for (derivatives, judging) goes to the queue, as to workers on other hosts;
no worker takes it here, but for the upload worker (which makes no derivatives: MYPCBENCH_DERIVATIVES=off).

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
import json, os, random, time
from locust import HttpUser, between, events, task

PAGES = json.load(open(os.environ["BENCH_PAGES"]))
SAMPLES = open(os.environ["BENCH_SAMPLES"], "a", buffering=1)

@events.request.add_listener
def record(name, response_time, exception=None, start_time=None, **kwargs):
    # every request: when it started (epoch s), its name, its time (ms), whether it failed
    started = start_time if start_time is not None else time.time() - response_time / 1000
    SAMPLES.write(f"{started:.3f}\\t{name}\\t{response_time:.2f}\\t{0 if exception is None else 1}\\n")

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


def site_env(var_dir: Path, upload_validation: str = "web") -> dict:
    env = dict(os.environ)
    env.update(
        MYPCBENCH_UPLOAD_VALIDATION=upload_validation,
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
    from django.db import connection

    with connection.cursor() as cursor:
        # Planner statistics, as autovacuum keeps them on a live site: without them a freshly built
        # database plans a media check as a scan of every trajectory (5 ms, not 0.1 ms).
        cursor.execute("ANALYZE")

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


def start_upload_worker(var_dir: Path, cpu_share: float = 1.0) -> subprocess.Popen:
    """A Celery worker on the media queue (as the topology's media worker), emptied of earlier messages
    first; it checks and stores uploads at ``cpu_share`` of one CPU and makes no derivatives."""
    env = {
        **site_env(var_dir, "worker"),
        "MYPCBENCH_DERIVATIVES": "off",
        "MYPCBENCH_UPLOAD_CPU_SHARE": str(cpu_share),
    }
    celery = str(ROOT / ".venv" / "bin" / "celery")
    subprocess.run([celery, "-A", "mypcbench_site", "purge", "-f", "-Q", "media"], cwd=ROOT, env=env,
                   capture_output=True, check=False)  # fmt: skip
    log = var_dir / "upload-worker.log"
    worker = subprocess.Popen(
        [celery, "-A", "mypcbench_site", "worker", "-Q", "media", "-c", "1", "--pool", "solo", "--without-gossip",
         "--without-mingle", "--loglevel", "INFO", "--hostname", f"bench-upload-{os.getpid()}@%h"],
        cwd=ROOT, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    for _ in range(240):
        if " ready." in log.read_text(errors="replace"):
            return worker
        if worker.poll() is not None:
            break
        time.sleep(0.25)
    raise SystemExit(f"the upload worker did not start; see {log}")


def start_server(args, var_dir: Path, port: int) -> subprocess.Popen:
    env = site_env(var_dir, args.upload_validation)
    server = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "mypcbench_site.wsgi", "-w", str(args.web_workers),
         "--threads", str(args.web_threads),
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
    """Locust's per-page statistics of one round; every request's own time is in ``out``/u<users>.samples."""
    locustfile = out.parent / "locustfile.py"
    locustfile.write_text(LOCUSTFILE)
    prefix = out / f"u{users}"
    out.mkdir(parents=True, exist_ok=True)
    Path(f"{prefix}.samples").unlink(missing_ok=True)
    subprocess.run(
        [str(locust), "-f", str(locustfile), "--headless", "-u", str(users), "-r", str(users), "-t", f"{seconds}s",
         "--host", f"http://127.0.0.1:{port}", "--csv", str(prefix), "--only-summary", "--loglevel", "ERROR",
         "--stop-timeout", "10"],
        env={**os.environ, "BENCH_PAGES": str(pages_file), "BENCH_SAMPLES": f"{prefix}.samples"}, check=False,
        stdout=subprocess.DEVNULL,
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
VISITORS_START_SECONDS = 3


def upload_archive(task_id: str, seed: int, folder: Path) -> Path:
    """A 100-step upstream result folder for one task of the bench suite, zipped into ``folder``:
    1280x800 screenshots (a flat desktop with a band of noise, about 150 KB each as PNG, like real
    screens' size), distinct for each seed so no screenshot is stored already."""
    import random
    import zipfile

    from PIL import Image

    from tests.factories import write_task_dir

    rng = random.Random(seed)
    actions = [(i, f"pyautogui.click({rng.randrange(1280)}, {rng.randrange(800)})") for i in range(1, UPLOAD_STEPS)]
    actions.append((UPLOAD_STEPS, "DONE"))
    target = folder / f"upload-{seed}.zip"
    with tempfile.TemporaryDirectory() as tmp:
        task_folder = write_task_dir(Path(tmp), task_id, actions=actions)
        for n, png in enumerate(sorted(task_folder.glob("step_*.png"))):
            screen = Image.new("RGB", (1280, 800), (40 + n % 50, 90, 160))
            band = Image.effect_noise((1280, 120), 60 + (seed * 7 + n) % 40).convert("RGB")
            screen.paste(band, (0, 300 + n % 200))
            screen.save(png, format="PNG")
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(task_folder.rglob("*")):
                if path.is_file():
                    archive.write(path, f"{task_id}/{path.relative_to(task_folder)}")
    return target


def uploader_token() -> tuple[str, str]:
    """A new author (each run: the per-author upload rate limit of an earlier run must not refuse this
    one's archives) with an API token, and a task id."""
    from django.contrib.auth import get_user_model

    from leaderboard.models import Task
    from trajectories.accounts.tokens import create_token

    author, _ = get_user_model().objects.get_or_create(username=f"bench-uploader-{time.time_ns()}")
    task_id = Task.objects.filter(suite__slug="big").order_by("position").values_list("task_id", flat=True)[0]
    return create_token(author, f"bench {time.time_ns()}")[1], task_id


def uploads_arrive(stop: threading.Event, port: int, token: str, archives: list[Path], done: list) -> None:
    """Upload the distinct 100-step archives one after the other until told to stop (or none is left);
    record each answer with the moments it was sent and answered."""
    import requests

    metadata = {
        "suite": "big", "model": "Bench upload model", "agent": "bench", "tool_surface": "computer",
        "turn_budget": UPLOAD_STEPS, "harness_version": "bench", "image_version": "bench",
    }  # fmt: skip
    stop.wait(VISITORS_START_SECONDS)  # Locust's visitors arrive first: no upload goes unwatched
    for archive in archives:
        if stop.is_set():
            break
        sent = time.time()
        with open(archive, "rb") as body:
            answer = requests.post(
                f"http://127.0.0.1:{port}/api/submissions",
                headers={"Authorization": f"Bearer {token}"},
                files={"archive": ("bench-upload.zip", body, "application/zip")},
                data={"metadata": json.dumps(metadata)},
                timeout=600,
            )
        code, text = answer.status_code, answer.text[:300]
        if code == 202:  # received: in flight until the worker has checked and stored it
            code, text = checked_by_worker(answer.json()["id"])
        done.append(
            {"code": code, "bytes": archive.stat().st_size, "sent": sent, "answered": time.time(), "text": text}
        )


def idle_loops_arrive(stop: threading.Event, durations: list[float], done: list) -> None:
    """The control of the upload rounds: for each of a round's uploads, a process that only spins in
    Linux's idle scheduling class (as the worker's checking runs) for as long as that upload was in
    flight, one after the other; it reads no file and writes nothing. Recorded like an upload."""
    stop.wait(VISITORS_START_SECONDS)
    spin = "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end: pass"
    for seconds in durations:
        if stop.is_set():
            break
        sent = time.time()
        subprocess.run(
            [sys.executable, "-c", spin, f"{seconds:.3f}"],
            preexec_fn=lambda: os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0)),
            check=True,
        )
        done.append({"sent": sent, "answered": time.time()})


def checked_by_worker(submission_id: int, patience: float = 900.0) -> tuple[str, str]:
    """Wait (reading the database, not the rate-limited API) until the worker has checked the
    submission; ("202 then <status>", its report's first error or '')."""
    from django.db import connection

    from trajectories.models import Submission

    deadline = time.monotonic() + patience
    try:
        while time.monotonic() < deadline:
            sub = Submission.objects.filter(pk=submission_id).values("status", "validation_report").first()
            if sub is None or sub["status"] != Submission.Status.VALIDATING:
                status = sub["status"] if sub else "gone"
                errors = [p["problem"] for p in (sub or {}).get("validation_report", []) if p["level"] == "error"]
                return f"202 then {status}", (errors[0] if errors else "")
            time.sleep(0.2)
        return "202 then still validating", f"not checked within {patience:.0f} s"
    finally:
        connection.close()


def read_samples(path: Path) -> list[tuple[float, str, float]]:
    """(start, page, milliseconds) of every request a round made (failed ones left out: counted apart)."""
    rows = []
    for line in path.read_text().splitlines():
        started, name, millis, failed = line.split("\t")
        if failed == "0":
            rows.append((float(started), name, float(millis)))
    return rows


PAGE_KINDS = ("leaderboard", "analysis", "task", "run", "player")


def settled(samples):
    """A browse round's requests after its first VISITORS_START_SECONDS, as the upload and control rounds
    measure only after theirs (their work starts then): Locust's visitors arriving are left out of both."""
    if not samples:
        return samples
    start = min(s[0] for s in samples)
    return [s for s in samples if s[0] >= start + VISITORS_START_SECONDS]


def by_page(samples) -> dict[str, list[float]]:
    """Request times per page kind, the player's screenshots apart, and "all pages" (the five kinds
    pooled); static copies left out."""
    pages: dict[str, list[float]] = {}
    for _, name, millis in samples:
        if name.startswith("static copy of "):
            continue
        pages.setdefault(name, []).append(millis)
        if name in PAGE_KINDS:
            pages.setdefault("all pages", []).append(millis)
    return pages


def p95_ratio(before: list[float], now: list[float], seed: int = 0, resamples: int = 2000):
    """p95(now) / p95(before) and its 95% bootstrap interval (each side resampled on its own)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    a, b = np.asarray(before), np.asarray(now)
    ratio = float(np.percentile(b, 95) / np.percentile(a, 95))
    picks_a = np.percentile(rng.choice(a, (resamples, a.size)), 95, axis=1)
    picks_b = np.percentile(rng.choice(b, (resamples, b.size)), 95, axis=1)
    low, high = np.percentile(picks_b / picks_a, [2.5, 97.5])
    return ratio, float(low), float(high)


def upload_rounds(args, locust: Path, port: int, pages_file: Path, out: Path, users: int) -> list[str]:
    """Rounds of browsing alternate with rounds in which archives are uploaded; each page's p95 over the
    requests sent while an upload was in flight, beside its p95 over the browse rounds, with a bootstrap
    interval, and the spread of the browse rounds' own p95 (what the bench cannot tell apart)."""
    token, task_id = uploader_token()
    seed = time.time_ns() % 100_000  # new archives each run: an archive already uploaded is not ingested again
    folder = out / "archives"
    folder.mkdir(parents=True, exist_ok=True)
    count = args.upload_rounds * args.uploads
    print(f"making {count} distinct 100-step archives ...", flush=True)
    archives = [upload_archive(task_id, seed + n, folder) for n in range(count)]
    browse, during, done, browse_rounds, spinning = [], [], [], [], []
    for r in range(args.upload_rounds):
        run_locust(locust, port, users, args.duration, pages_file, out / f"upload-browse{r}")
        samples = settled(read_samples(out / f"upload-browse{r}" / f"u{users}.samples"))
        browse += samples
        browse_rounds.append(by_page(samples))
        answers: list[dict] = []
        chunk = archives[r * args.uploads : (r + 1) * args.uploads]
        while_working(
            uploads_arrive,
            (port, token, chunk, answers),
            lambda r=r: run_locust(locust, port, users, args.duration, pages_file, out / f"upload{r}"),
        )
        windows = [(a["sent"], a["answered"]) for a in answers]
        samples = read_samples(out / f"upload{r}" / f"u{users}.samples")
        during += [s for s in samples if any(start <= s[0] <= end for start, end in windows)]
        done += answers
        if args.control:
            spins: list[dict] = []
            while_working(
                idle_loops_arrive,
                ([end - start for start, end in windows], spins),
                lambda r=r: run_locust(locust, port, users, args.duration, pages_file, out / f"upload-control{r}"),
            )
            samples = read_samples(out / f"upload-control{r}" / f"u{users}.samples")
            spinning += [s for s in samples if any(a["sent"] <= s[0] <= a["answered"] for a in spins)]
        print(f"upload round {r + 1} of {args.upload_rounds} done", flush=True)
    in_flight = sum(a["answered"] - a["sent"] for a in done)
    codes = ", ".join(sorted({str(a["code"]) for a in done}))
    seconds = [a["answered"] - a["sent"] for a in done]
    lines = [
        f"\nupload (checked by the {args.upload_validation}"
        + (f", at {args.upload_cpu_share:g} of a CPU" if args.upload_validation == "worker" else "")
        + f"): {users} visitors; {args.upload_rounds} rounds of "
        f"{args.duration} s browsing alternate with "
        f"{args.upload_rounds} rounds in which {len(done)} distinct 100-step archives "
        f"({min(a['bytes'] for a in done) / 1e6:.0f}-{max(a['bytes'] for a in done) / 1e6:.0f} MB) were uploaded "
        f"one after the other (answers {codes}; {min(seconds):.1f}-{max(seconds):.1f} s each, {in_flight:.0f} s "
        "in flight); requests sent while an upload was in flight, beside the browse rounds' requests",
        f"{'page':<22}{'browse n':>9}{'p95':>6}{'  browse rounds p95':>20}{'uploading n':>12}{'p95':>6}"
        f"{'moved':>8}  95% interval",
    ]
    before, now = by_page(browse), by_page(during)
    worst = ("", 0.0, 0.0, 0.0)
    for name in ["all pages", *PAGE_KINDS, "screenshot (player)"]:
        if len(before.get(name, [])) < 20 or len(now.get(name, [])) < 20:
            lines.append(f"{name:<22}too few requests to compare")
            continue
        import numpy as np

        ratio, low, high = p95_ratio(before[name], now[name])
        spread = [np.percentile(rnd[name], 95) for rnd in browse_rounds if len(rnd.get(name, [])) >= 20]
        spread_text = f"{min(spread):.0f}-{max(spread):.0f}" if spread else "-"
        lines.append(
            f"{name:<22}{len(before[name]):>9}{np.percentile(before[name], 95):>6.0f}{spread_text:>20}"
            f"{len(now[name]):>12}{np.percentile(now[name], 95):>6.0f}{ratio:>7.2f}x  {low:.2f}-{high:.2f}"
        )
        if name != "all pages" and ratio > worst[1]:
            worst = (name, ratio, low, high)
    if args.control:
        lines += control_lines(before, now, by_page(spinning))
    refused = [a["text"] for a in done if a["code"] not in (200, 201, "202 then awaiting_review", "202 then judging")]
    if refused:
        lines.append(f"upload refused: {refused[0]}")
    if worst[0]:
        lines.append(
            f"worst page: {worst[0]} p95 moved {worst[1]:.2f}x (95% interval {worst[2]:.2f}-{worst[3]:.2f}); "
            f"goal at most {UPLOAD_GOAL:g}x"
        )
    return lines


def control_lines(before: dict, uploading: dict, spinning: dict) -> list[str]:
    """The control beside the uploads: each page's p95 while only an idle-class loop spun, moved against
    the browse rounds (what any CPU use at all costs visitors on this machine), and the uploads' p95
    against it (what an upload costs beyond that)."""
    import numpy as np

    lines = [
        "control: in a third round per upload round, a do-nothing loop in the idle scheduling class spun "
        "for as long as each upload had been in flight; requests sent while it spun",
        f"{'page':<22}{'spinning n':>11}{'p95':>6}{'moved':>8}  95% interval{'uploads / spinning':>22}  95% interval",
    ]
    for name in ["all pages", *PAGE_KINDS, "screenshot (player)"]:
        sides = (before.get(name, []), uploading.get(name, []), spinning.get(name, []))
        if min(len(side) for side in sides) < 20:
            lines.append(f"{name:<22}too few requests to compare")
            continue
        moved, low, high = p95_ratio(sides[0], sides[2])
        beyond, b_low, b_high = p95_ratio(sides[2], sides[1])
        lines.append(
            f"{name:<22}{len(sides[2]):>11}{np.percentile(sides[2], 95):>6.0f}{moved:>7.2f}x  {low:.2f}-{high:.2f}"
            f"{beyond:>21.2f}x  {b_low:.2f}-{b_high:.2f}"
        )
    return lines


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--tasks", type=int, default=184)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--levels", default="4,16,32", help="concurrent visitors, comma-separated")
    parser.add_argument("--duration", type=int, default=30, help="seconds per level")
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument(
        "--web-threads", type=int, default=1, help="threads per gunicorn worker (above 1: gunicorn's gthread workers)"
    )
    parser.add_argument("--judgments-per-second", type=float, default=10.0)
    parser.add_argument("--reuse", action="store_true", help="keep the bench database built by an earlier run")
    parser.add_argument("--uploads", type=int, default=4, help="archives the upload scenario sends per round at most")
    parser.add_argument(
        "--upload-rounds", type=int, default=3, help="browse rounds and upload rounds the upload scenario alternates"
    )
    parser.add_argument(
        "--upload-validation", choices=("worker", "web"), default="worker",
        help="who checks and stores uploads: a media worker started here (the topology's way) or the web processes",
    )  # fmt: skip
    parser.add_argument(
        "--upload-cpu-share",
        type=float,
        default=1.0,
        help="the share of one CPU the media worker may use for an upload (MYPCBENCH_UPLOAD_CPU_SHARE)",
    )
    parser.add_argument(
        "--no-control",
        dest="control",
        action="store_false",
        help="leave out the upload scenario's control rounds (an idle-class loop as long as each upload)",
    )
    parser.add_argument(
        "--scenarios", default="upload,judging", help="after browse, comma-separated: upload, judging (default: both)"
    )
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",") if x.strip()]

    locust = ensure_locust()
    var_dir = Path(os.environ.get("MYPCBENCH_VAR_DIR") or tempfile.mkdtemp(prefix="bench-load-"))
    print(
        f"scale: {args.runs} runs x {args.tasks} tasks x {args.attempts} attempts x ~{args.steps} steps; "
        f"gunicorn x{args.web_workers} ({args.web_threads} threads each); PostgreSQL {DATABASE}; "
        f"Redis cache {CACHE_URL}; {os.cpu_count()} CPUs",
        flush=True,
    )
    pages = build(args, var_dir)
    pages_file = var_dir / "pages.json"
    pages_file.write_text(json.dumps(pages))
    port = free_port()
    server = start_server(args, var_dir, port)
    upload_worker = None
    if "upload" in args.scenarios and args.upload_validation == "worker":
        upload_worker = start_upload_worker(var_dir, args.upload_cpu_share)
    out = var_dir / "locust"
    lines = []
    try:
        for users in levels:
            rows = run_locust(locust, port, users, args.duration, pages_file, out)
            lines += report(f"browse: {users} concurrent visitors, {args.duration} s", rows)
            print(f"level {users} done", flush=True)
        users = levels[-1]
        if "upload" in args.scenarios:
            lines += upload_rounds(args, locust, port, pages_file, out, users)
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
        for process in (server, upload_worker):
            if process is not None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
