"""Bench: evaluation throughput (trajectories per minute) on the fake guest with 1 vs 2 real Celery
worker processes on queue "vm", printed side by side with the ratio (target: close to linear up to
the machine's cores).

Each trajectory is the scripted agent playing a plan of --turns turns against the fake guest, with
--sleep-after seconds before each screenshot standing in for the VM's own time; every step is
streamed into the database through the ingest path, as in production. Both sides run the same
number of tasks on a fresh run, timed from launch to the run's end. Both worker processes share one
host, so MYPCBENCH_VM_SLOTS is set to 2 for them.

Run: .venv/bin/python bench/bench_workers.py [--tasks 16] [--turns 5] [--sleep-after 0.1]
     (SQLite in a temporary folder by default; set DATABASE_URL and CELERY_BROKER_URL for PostgreSQL/Redis)
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django(var_dir: Path) -> None:
    os.environ["MYPCBENCH_VAR_DIR"] = str(var_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")
    os.environ["MYPCBENCH_DERIVATIVES"] = "off"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def start_workers(n: int, var_dir: Path) -> list[subprocess.Popen]:
    # The filesystem broker's 1 s poll between messages would dominate short trajectories.
    env = dict(os.environ, MYPCBENCH_VM_SLOTS="2", MYPCBENCH_VM_SLOT_WAIT_SECONDS="0.5", PYTHONUNBUFFERED="1",
               MYPCBENCH_BROKER_POLL_SECONDS="0.05")  # fmt: skip
    procs = []
    for i in range(n):
        log = open(var_dir / f"worker-{n}-{i}.log", "wb")
        command = [str(Path(sys.executable).parent / "celery"), "-A", "mypcbench_site", "worker", "-Q", "vm", "-c", "1",
                   "--pool", "solo", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
                   "--hostname", f"bench{n}-{i}@%h"]  # fmt: skip
        procs.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True))  # fmt: skip
    time.sleep(4)  # workers import Django and connect to the broker
    for proc in procs:
        if proc.poll() is not None:
            raise SystemExit(f"a worker exited early; see {var_dir}")
    return procs


def stop_workers(procs) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def timed_run(n_workers: int, args, suite, model, var_dir: Path) -> tuple[float, int]:
    from leaderboard.models import Run
    from trajectories.evaluations import lifecycle
    from trajectories.evaluations.lifecycle import LaunchSpec

    plan = {
        "turns": [{"response": f"Turn {i}.", "actions": [f"pyautogui.click({20 * i}, 40)"]} for i in range(args.turns)],
        "final_answer": "bench",
    }
    procs = start_workers(n_workers, var_dir)
    try:
        start = time.monotonic()
        run = lifecycle.launch_run(
            LaunchSpec(
                suite=suite,
                model=model,
                agent_type="scripted",
                plan=plan,
                sleep_after=args.sleep_after,
                name=f"bench {n_workers} worker(s)",
            )  # fmt: skip
        )
        deadline = start + args.timeout
        while Run.objects.get(pk=run.pk).status != "finished":
            if time.monotonic() > deadline:
                raise SystemExit(f"{n_workers} worker(s): the run did not finish in {args.timeout}s; see {var_dir}")
            time.sleep(0.1)
        seconds = time.monotonic() - start
    finally:
        stop_workers(procs)
    done = run.trajectories.filter(status="finished").count()
    return seconds, done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--sleep-after", type=float, default=0.1, help="seconds before each screenshot")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    var_dir = Path(tempfile.mkdtemp(prefix="bench-workers-"))
    setup_django(var_dir)
    from leaderboard.models import Model, Suite
    from tests.catalog_data import add_rubric, make_task

    suite = Suite.objects.create(name="Bench", version="v1", slug="bench-v1")
    for i in range(args.tasks):
        add_rubric(make_task(suite, f"action-b{i:03d}", "bounded_action", [], position=i + 1), [1.0])
    model = Model.objects.create(name="Bench scripted", slug="bench-scripted")

    results = {n: timed_run(n, args, suite, model, var_dir) for n in (1, 2)}
    steps = args.turns + 1
    print(f"{args.tasks} trajectories of {steps} steps each, fake guest, {args.sleep_after:g} s before each "
          f"screenshot, database {os.environ.get('DATABASE_URL', 'SQLite')}, {os.cpu_count()} CPUs")  # fmt: skip
    print(f"{'workers':>8} {'seconds':>9} {'finished':>9} {'traj/min':>9}")
    rate = {}
    for n, (seconds, done) in results.items():
        rate[n] = done / seconds * 60
        print(f"{n:>8} {seconds:>9.1f} {done:>9} {rate[n]:>9.1f}")
    print(f"speed-up with 2 workers: {rate[2] / rate[1]:.2f}x (linear would be 2.00x)")
    return 0 if all(done == args.tasks for _, done in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
