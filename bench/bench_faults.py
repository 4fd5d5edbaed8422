"""Bench: scripted faults against the real topology (deploy/topology.py: gunicorn, one Celery worker
per queue, each in its own folders), on PRIVATE PostgreSQL, Redis and RabbitMQ servers started in
temporary folders on free ports (tests/services/private_services.py), never the machine's shared
ones, and a moto S3 server behind a gate the bench can shut.

Each fault is injected in the middle of a launched run: the scripted agent plays a plan against the
fake guest on the vm worker, every finished trajectory is judged on the judging worker (the real
Anthropic SDK against the provider simulator on loopback), the media worker makes derivatives in the
bucket. Then the bench waits for the run to complete and counts, from the database:

    trajectories lost        launched trajectories not finished with every step at the end
    trajectories duplicated  rows beyond one per (run, task, attempt) plus steps beyond the plan's
    judgments lost           rubric items x trajectories without a verdict
    judgments duplicated     rows beyond one per (trajectory, rubric item, judge)
    judge calls repeated     provider calls beyond the no-fault run's count (work redone, not stored twice)
    derivatives missing      steps whose display image or thumbnail was never made
    resumed after            seconds from the fault to the next piece of work completed after it
    web                      what visitors got meanwhile (GET /leaderboard/ every 0.25 s)
    shown finished while owing  seconds the run said "finished" while a trajectory or judgment was missing

Faults: kill -9 of the vm worker's pool process (the worker lives) and of the whole vm worker
(its host lost; replaced a second later by a worker on another host), kill -9 of the whole judging
worker, a Redis restart (broker and cache), a RabbitMQ restart, a PostgreSQL restart, the object
store cut off mid-run; and, without a run, kill -9 of the whole media worker mid-check of an upload
(replaced by another host). Every run uses the shipped lease and broker settings.

Run: .venv/bin/python bench/bench_faults.py [--brokers redis,rabbitmq] [--only vm-child,pg-restart]
     [--tasks 4] [--turns 10] [--keep]   (about 20 minutes for both brokers on 2 CPUs)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.services.private_services import (  # noqa: E402
    Gate,
    PrivatePostgres,
    PrivateRabbitMQ,
    PrivateRedis,
    ServiceUnavailable,
    free_port,
    wait_until,
)
from tests.simulators import ProviderSimulator  # noqa: E402


def load_topology():
    spec = importlib.util.spec_from_file_location("deploy_topology", ROOT / "deploy" / "topology.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


topology_module = load_topology()

VERDICT = '{"reasoning": "The reply is sent in the last step.", "cited_steps": [1], "verdict": "success"}'
# The leases, the queue patience and the broker's visibility timeout are the shipped ones
# (topology_module.LEASE_SETTINGS, as the compose file sets them), never shortened for the bench.


@dataclass
class Outcome:
    fault: str
    broker: str
    command: str
    lost: int | str = "-"
    duplicated: int | str = "-"
    judgments_lost: int | str = "-"
    judgments_duplicated: int | str = "-"
    judge_calls_repeated: int | str = "-"
    derivatives_missing: int | str = "-"
    resumed_after: float | None = None
    seconds: float | None = None
    finished_while_owing: float = 0.0  # seconds the run showed "finished" while work was still owed
    web: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        counted = (self.lost, self.duplicated, self.judgments_lost, self.judgments_duplicated, self.derivatives_missing)
        return (
            all(value in (0, "-") for value in counted)
            and not self.finished_while_owing
            and not any(n.startswith("FAIL") for n in self.notes)
        )


def process_children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


class WebProbe:
    """GET a page every ``interval`` seconds in a thread; keeps (time, status or error) samples."""

    def __init__(self, url: str, interval: float = 0.25):
        self.url, self.interval = url, interval
        self.samples: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=15)

    def _loop(self):
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=10) as response:
                    status = str(response.status)
            except urllib.error.HTTPError as exc:
                body = exc.read(4000).decode(errors="replace")
                status = str(exc.code) + (" plain" if exc.code == 503 and "Traceback" not in body else "")
            except OSError as exc:
                status = f"no answer ({type(exc).__name__})"
            self.samples.append((started, status))
            self._stop.wait(self.interval)

    def summary(self, since: float = 0.0) -> str:
        counts = Counter(status for at, status in self.samples if at >= since)
        return ", ".join(f"{n} x {status}" for status, n in sorted(counts.items()))


class Rig:
    """The private services, the topology on them, Django in this process on the same settings."""

    def __init__(self, broker: str, args):
        self.broker, self.args = broker, args
        self.base = Path(tempfile.mkdtemp(prefix=f"bench-faults-{broker}-"))
        self.base.chmod(0o755)  # PostgreSQL and RabbitMQ run as their own users inside it
        self.pg = PrivatePostgres(base=self.base)
        self.redis = PrivateRedis(base=self.base)
        self.rabbit = PrivateRabbitMQ(base=self.base) if broker == "rabbitmq" else None
        self.moto_port = free_port()
        self.moto: subprocess.Popen | None = None
        self.gate: Gate | None = None
        self.sim = ProviderSimulator(lambda request: VERDICT, latency=(0.4, 0.4))
        self.topology = None
        self.baseline_calls_per_trajectory: float | None = None
        self.baseline_seconds: float | None = None
        self.extra_settings: dict[str, str] = {}  # for every process, over the ones below (bench_capacity.py)

    # ------------------------------------------------------------ up and down

    def up(self) -> None:
        self.pg.start()
        self.redis.start()
        if self.rabbit is not None:
            self.rabbit.start()
        log = (self.base / "moto.log").open("ab")
        moto = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.moto_port)]
        self.moto = subprocess.Popen(moto, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until("moto", lambda: urllib.request.urlopen(f"http://127.0.0.1:{self.moto_port}/moto-api/", timeout=2))
        self.gate = Gate(self.moto_port)
        self.sim.__enter__()
        broker_url = self.rabbit.url if self.rabbit is not None else self.redis.url(0)
        self.topology = topology_module.Topology(
            state=self.base / "hosts",
            broker=self.broker,
            web_port=free_port(),
            s3_endpoint=self.gate.url,
            broker_url=broker_url,
            database_url=self.pg.url,
            cache_url=self.redis.url(1),
            extra_env={
                "MYPCBENCH_DERIVATIVES": "queue",
                "MYPCBENCH_JUDGE_ON_FINISH": "0",
                "ANTHROPIC_API_KEY": "bench-faults",
                "AWS_MAX_ATTEMPTS": "2",  # botocore's own retries: fail fast while the store is cut off
                "AWS_RETRY_MODE": "standard",
                **self.extra_settings,
            },
        )
        self.topology.state.mkdir(parents=True)
        self.topology.up()
        os.environ.update(self.topology.env("bench", self.gate.url))
        os.environ["DJANGO_SETTINGS_MODULE"] = "mypcbench_site.settings"
        import django

        django.setup()
        self.wait_for_workers()
        self.seed()

    def wait_for_workers(self) -> None:
        for name in ("worker-vm", "worker-judging", "worker-media", "worker-default"):
            log = self.topology.state / f"{name}.log"
            wait_until(f"{name} ready", lambda log=log: log.exists() and " ready." in log.read_text(errors="replace"),
                       timeout=90)  # fmt: skip
        wait_until("gunicorn", lambda: self.get("/") == 200, timeout=60)

    def down(self) -> None:
        if self.topology is not None:
            self.topology.stop()
        if self.gate is not None:
            self.gate.close()
        if self.moto is not None and self.moto.poll() is None:
            os.killpg(self.moto.pid, signal.SIGKILL)
        self.sim.__exit__(None, None, None)
        for service in (self.rabbit, self.redis, self.pg):
            if service is not None:
                service.destroy()

    # ------------------------------------------------------------ helpers

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.topology.web_port}{path}"

    def get(self, path: str) -> int:
        try:
            with urllib.request.urlopen(self.url(path), timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code

    def kill(self, name: str, *, child_only: bool = False) -> None:
        process = self.topology.processes[name]
        if child_only:
            for pid in process_children(process.pid):
                os.kill(pid, signal.SIGKILL)
            return
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def log_has(self, name: str, text: str) -> int:
        path = self.topology.state / f"{name}.log"
        return path.read_text(errors="replace").count(text) if path.exists() else 0

    def seed(self) -> None:
        from tests.evaluation_data import make_eval_suite

        self.suite, self.tasks, self.model = make_eval_suite(self.args.tasks)

    def plan(self) -> dict:
        turns = [
            {"response": f"Step {i}.", "actions": [f"pyautogui.click({10 * i}, 20)"]} for i in range(1, self.args.turns)
        ]
        return {"turns": turns, "final_answer": "Done."}

    def launch(self, name: str):
        from trajectories.evaluations import lifecycle
        from trajectories.judge_spec import JudgeSpec

        judge = JudgeSpec(provider="anthropic", base_url=self.sim.url, concurrency=2, attempts=3)
        spec = lifecycle.LaunchSpec(suite=self.suite, model=self.model, agent_type="scripted", plan=self.plan(),
                                    sleep_after=self.args.sleep_after, turn_budget=self.args.turns + 5, judge=judge,
                                    name=name)  # fmt: skip
        return lifecycle.launch_run(spec)

    def progress_mark(self, run) -> tuple:
        """Grows whenever any work completes: a step written (new rows even when rewritten), a
        judgment stored, a trajectory finished, a derivative made."""
        from django.db.models import Max

        from trajectories.models import Judgment, Step

        steps = Step.objects.filter(trajectory__run=run)
        return (
            steps.aggregate(m=Max("pk"))["m"] or 0,
            Judgment.objects.filter(trajectory__run=run).exclude(verdict="error").count(),
            run.trajectories.filter(status="finished").count(),
            steps.exclude(display_image="").count(),
        )

    def complete(self, run) -> bool:
        from leaderboard.models import Run

        mark = self.progress_mark(run)
        expected = len(self.tasks)
        status = Run.objects.filter(pk=run.pk).values_list("status", flat=True).first()
        steps = run.trajectories.filter(status="finished").count() * self.args.turns
        return status == "finished" and mark[2] == expected and mark[1] == 2 * expected and mark[3] >= steps

    def shown_finished_while_owing(self, run) -> bool:
        """The run says "finished" while a trajectory or a judgment it owes is missing."""
        from leaderboard.models import Run

        mark = self.progress_mark(run)
        status = Run.objects.filter(pk=run.pk).values_list("status", flat=True).first()
        return status == "finished" and (mark[2] < len(self.tasks) or mark[1] < 2 * len(self.tasks))

    def snapshot(self, run) -> dict:
        """What was under way when the fault came: the running trajectory (the victim of a vm fault)
        and its newest step, the judgments stored, and the progress mark."""
        from django.db.models import Max

        from trajectories.models import Judgment, Step

        victim = run.trajectories.filter(status="running").values_list("pk", flat=True).first()
        return {
            "victim": victim,
            "victim_step": Step.objects.filter(trajectory_id=victim).aggregate(m=Max("pk"))["m"] or 0,
            "judgments": Judgment.objects.filter(trajectory__run=run).exclude(verdict="error").count(),
            "mark": self.progress_mark(run),
        }

    def recovered(self, run, what: str, before: dict) -> bool:
        """``victim``: the trajectory running at the fault writes a step again (rerun from a clean
        reset); ``judgment``: a judgment is stored after the fault; ``any``: any work completes."""
        from trajectories.models import Judgment, Step

        if what == "victim":
            return Step.objects.filter(trajectory_id=before["victim"], pk__gt=before["victim_step"]).exists()
        if what == "judgment":
            return Judgment.objects.filter(trajectory__run=run).exclude(verdict="error").count() > before["judgments"]
        return self.progress_mark(run) != before["mark"]

    def watch(self, run, timeout: float, what: str, before: dict | None, outcome: Outcome):
        """Wait until the run is complete; returns (when ``what`` recovered, end time). Adds up in
        ``outcome`` how long the run showed "finished" while it owed work."""
        from django.db import close_old_connections

        resumed = None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            close_old_connections()
            try:
                if before is not None and resumed is None and self.recovered(run, what, before):
                    resumed = time.monotonic()
                if self.complete(run):
                    return resumed, time.monotonic()
                if self.shown_finished_while_owing(run):
                    outcome.finished_while_owing += 0.2
            except Exception:  # noqa: BLE001 - the database may be down during the fault
                pass
            time.sleep(0.2)
        return resumed, time.monotonic()

    def count(self, run, outcome: Outcome, calls_before: int) -> None:
        from django.db.models import Count

        from trajectories.models import Judgment, Step, Trajectory

        trajectories = Trajectory.objects.filter(run=run)
        expected = len(self.tasks)
        full = trajectories.filter(status="finished", n_steps=self.args.turns).count()
        outcome.lost = expected - full
        extra_rows = sum(
            n - 1
            for n in trajectories.values("task", "attempt").annotate(n=Count("pk")).values_list("n", flat=True)
            if n > 1
        )
        extra_steps = max(0, Step.objects.filter(trajectory__run=run).count() - expected * self.args.turns)
        outcome.duplicated = extra_rows + extra_steps
        judged = Judgment.objects.filter(trajectory__run=run)
        outcome.judgments_lost = 2 * expected - judged.exclude(verdict="error").count()
        outcome.judgments_duplicated = sum(
            n - 1
            for n in judged.values("trajectory", "rubric_item", "judge")
            .annotate(n=Count("pk"))
            .values_list("n", flat=True)
            if n > 1
        )
        calls = len(self.sim.requests) - calls_before
        if self.baseline_calls_per_trajectory is None:
            self.baseline_calls_per_trajectory = calls / expected
            outcome.judge_calls_repeated = 0
        else:
            outcome.judge_calls_repeated = round(calls - self.baseline_calls_per_trajectory * expected)
        outcome.derivatives_missing = Step.objects.filter(trajectory__run=run, display_image="").count()
        restarted = trajectories.exclude(error="").values_list("task__task_id", "status", "error")
        for task_id, status, error in restarted:
            outcome.notes.append(f"{task_id} {status}: {error[:120]}")

    # ------------------------------------------------------------ a run with a fault in it

    def run_with_fault(self, fault: str, command: str, trigger, inject, recovery: str = "any") -> Outcome:
        """Launch a run, wait for ``trigger(run)``, call ``inject(run) -> (fault start, service back)``,
        wait for the run to complete, count. ``recovery`` says what "resumed" means (see recovered)."""
        from django.db import close_old_connections

        outcome = Outcome(fault, self.broker, command)
        calls_before = len(self.sim.requests)
        started = time.monotonic()
        run = self.launch(f"{fault} ({self.broker})")
        with WebProbe(self.url("/leaderboard/")) as probe:
            fault_at = before = None
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                close_old_connections()
                if trigger(run):
                    before = self.snapshot(run)
                    fault_at, back_at = inject(run)
                    if recovery == "any" and back_at is not None:
                        close_old_connections()
                        before = self.snapshot(run)  # work done once the service is back, not before
                    break
                time.sleep(0.1)
            else:
                outcome.notes.append("FAIL: the trigger never came")
            resumed, ended = self.watch(run, self.args.timeout, recovery, before if fault_at else None, outcome)
            if fault_at is not None:
                outcome.web = probe.summary(since=fault_at)
        close_old_connections()
        outcome.seconds = ended - started
        if fault_at is not None and resumed is not None:
            outcome.resumed_after = resumed - fault_at
        if not self.complete(run):
            outcome.notes.append(f"FAIL: not complete after {self.args.timeout:.0f} s: {self.progress_mark(run)}")
        self.count(run, outcome, calls_before)
        return outcome

    # ------------------------------------------------------------ triggers

    def running_with_steps(self, n: int):
        from trajectories.models import Step

        def trigger(run) -> bool:
            running = run.trajectories.filter(status="running").first()
            return running is not None and Step.objects.filter(trajectory=running).count() >= n

        return trigger

    def judging_in_flight(self, run) -> bool:
        return self.sim.in_flight > 0

    def some_done(self, run) -> bool:
        return (
            run.trajectories.filter(status="finished").exists() and run.trajectories.filter(status="running").exists()
        )


# ---------------------------------------------------------------- the faults


def scenario_baseline(rig: Rig) -> Outcome:
    outcome = rig.run_with_fault("no fault", "-", lambda run: True, lambda run: (None, None))
    rig.baseline_seconds = outcome.seconds
    return outcome


def scenario_vm_child(rig: Rig) -> Outcome:
    def inject(run):
        at = time.monotonic()
        rig.kill("worker-vm", child_only=True)
        return at, at

    return rig.run_with_fault("kill -9 vm worker's pool process mid-trajectory",
                              "kill -9 <pool pid of worker-vm>", rig.running_with_steps(3), inject,
                              "victim")  # fmt: skip


def scenario_vm_host(rig: Rig) -> Outcome:
    def inject(run):
        at = time.monotonic()
        rig.kill("worker-vm")
        time.sleep(1)
        rig.topology.restart("worker-vm", MYPCBENCH_WORKER_NAME=f"worker-vm-{int(at)}")
        return at, time.monotonic()

    return rig.run_with_fault("kill -9 whole vm worker mid-trajectory (host lost), a new host 1 s later",
                              "kill -9 -<worker-vm pgid>; start worker-vm as another host",
                              rig.running_with_steps(3), inject, "victim")  # fmt: skip


def scenario_judging_host(rig: Rig) -> Outcome:
    def inject(run):
        at = time.monotonic()
        rig.kill("worker-judging")
        time.sleep(1)
        rig.topology.restart("worker-judging", MYPCBENCH_WORKER_NAME=f"worker-judging-{int(at)}")
        return at, time.monotonic()

    return rig.run_with_fault("kill -9 whole judging worker mid-judgment (host lost), a new host 1 s later",
                              "kill -9 -<worker-judging pgid>; start worker-judging as another host",
                              rig.judging_in_flight, inject, "judgment")  # fmt: skip


def scenario_redis_restart(rig: Rig) -> Outcome:
    def inject(run):
        at = time.monotonic()
        rig.redis.restart(down_seconds=3)
        return at, time.monotonic()

    return rig.run_with_fault("Redis restarted mid-run (broker and cache; append-only file), 3 s down",
                              "redis-cli shutdown; redis-server --appendonly yes ...", rig.some_done,
                              inject)  # fmt: skip


def scenario_rabbitmq_restart(rig: Rig) -> Outcome:
    def inject(run):
        at = time.monotonic()
        rig.rabbit.restart(down_seconds=1)
        return at, time.monotonic()

    return rig.run_with_fault("RabbitMQ restarted mid-run", "rabbitmqctl -n <node> stop; rabbitmq-server",
                              rig.some_done, inject)  # fmt: skip


def scenario_pg_restart(rig: Rig) -> Outcome:
    def inject(run):
        at = time.monotonic()
        rig.pg.restart(down_seconds=5)
        return at, time.monotonic()

    return rig.run_with_fault("PostgreSQL restarted mid-run, 5 s down", "pg_ctl stop -m fast; sleep 5; pg_ctl start",
                              rig.running_with_steps(3), inject)  # fmt: skip


def scenario_store_down_mid_run(rig: Rig) -> Outcome:
    def inject(run):
        at = time.monotonic()
        rig.gate.shut()
        time.sleep(8)
        rig.gate.open()
        return at, time.monotonic()

    return rig.run_with_fault("object store unreachable mid-run, 8 s", "(gate in front of S3 shut for 8 s)",
                              rig.running_with_steps(3), inject)  # fmt: skip


def scenario_media_host_check(rig: Rig) -> Outcome:
    """kill -9 of the whole media worker while it checks an upload (its host lost), a new host 1 s later:
    the check is sent again by a sweeper and ends (accepted or refused with why), never stuck."""
    from django.contrib.auth import get_user_model
    from django.db import close_old_connections

    from leaderboard.models import Suite
    from tests.factories import make_suite
    from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
    from trajectories.models import Submission, WorkLease
    from trajectories.submissions import uploads

    outcome = Outcome("kill -9 whole media worker mid-check of an upload (host lost), a new host 1 s later",
                      rig.broker, "kill -9 -<worker-media pgid>; start worker-media as another host")  # fmt: skip
    if not Suite.objects.filter(slug="mypcbench-eval-round0").exists():
        make_suite(TASK_IDS)
    author, _ = get_user_model().objects.get_or_create(username="bench-author")
    folder = Path(tempfile.mkdtemp(prefix="bench-upload-"))
    # enough steps that the check takes a few seconds, so the fault lands in the middle of it
    actions = [(turn, f"pyautogui.click({turn}, 20)") for turn in range(1, 200)] + [(200, "DONE")]
    archive = zip_bytes(good_entries(folder, actions=actions))
    started = time.monotonic()
    submission = uploads.receive_archive(
        author, upload(archive, "bench.zip"), {**METADATA, "turn_budget": 250}
    ).submission
    check = WorkLease.objects.filter(task="trajectories.tasks.validate_submission", subject=submission.pk)
    fault_at = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        close_old_connections()
        if check.exclude(holder="").exists():
            fault_at = time.monotonic()
            rig.kill("worker-media")
            time.sleep(1)
            rig.topology.restart("worker-media", MYPCBENCH_WORKER_NAME=f"worker-media-{int(fault_at)}")
            break
        if not check.exists():
            outcome.notes.append("FAIL: the check ended before the fault (make the archive larger)")
            break
        time.sleep(0.02)
    ended = None
    deadline = time.monotonic() + rig.args.timeout
    while fault_at is not None and time.monotonic() < deadline:
        close_old_connections()
        if Submission.objects.filter(pk=submission.pk).exclude(status="validating").exists():
            ended = time.monotonic()
            break
        time.sleep(0.2)
    final = Submission.objects.get(pk=submission.pk)
    outcome.seconds = (ended or time.monotonic()) - started
    outcome.lost = 0 if final.status != "validating" else 1
    outcome.duplicated = max(0, Submission.objects.filter(author=author).count() - 1)
    if fault_at is not None and ended is not None:
        outcome.resumed_after = ended - fault_at
    report = (final.validation_report or [{}])[-1].get("problem", "")
    outcome.notes.append(f"submission {final.status}: {report[:120]}")
    if final.status == "validating":
        outcome.notes.append(f"FAIL: still validating after {rig.args.timeout:.0f} s")
    return outcome


SCENARIOS = {
    "baseline": (scenario_baseline, ("redis", "rabbitmq")),
    "vm-child": (scenario_vm_child, ("redis", "rabbitmq")),
    "vm-host": (scenario_vm_host, ("redis", "rabbitmq")),
    "judging-host": (scenario_judging_host, ("redis", "rabbitmq")),
    "redis-restart": (scenario_redis_restart, ("redis",)),
    "rabbitmq-restart": (scenario_rabbitmq_restart, ("rabbitmq",)),
    "pg-restart": (scenario_pg_restart, ("redis",)),
    "store-mid-run": (scenario_store_down_mid_run, ("redis",)),
    "media-host-check": (scenario_media_host_check, ("redis", "rabbitmq")),
}


def print_table(outcomes: list[Outcome]) -> None:
    print()
    print("settings (shipped): " + ", ".join(f"{k}={v}" for k, v in topology_module.LEASE_SETTINGS.items()))
    print("| fault | broker | trajectories lost / duplicated | judgments lost / duplicated | judge calls repeated "
          "| derivatives missing | resumed after | run | shown finished while owing | web meanwhile "
          "| outcome |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for o in outcomes:
        resumed = f"{o.resumed_after:.1f} s" if o.resumed_after is not None else "-"
        took = f"{o.seconds:.0f} s" if o.seconds is not None else "-"
        print(f"| {o.fault} | {o.broker} | {o.lost} / {o.duplicated} | {o.judgments_lost} / {o.judgments_duplicated} "
              f"| {o.judge_calls_repeated} | {o.derivatives_missing} | {resumed} | {took} "
              f"| {o.finished_while_owing:.0f} s | {o.web or '-'} "
              f"| {'ok' if o.ok else 'FAILED'} |")  # fmt: skip
    for o in outcomes:
        if o.notes:
            print(f"\n{o.fault} ({o.broker}):")
            for note in o.notes:
                print(f"  {note}")


def run_broker(broker: str, args) -> list[Outcome]:
    wanted = [name for name in args.only.split(",") if name]
    outcomes: list[Outcome] = []
    try:
        rig = Rig(broker, args)
    except ServiceUnavailable as exc:
        print(f"{broker}: cannot start a private server here: {exc}")
        return [Outcome("private servers", broker, "-", notes=[f"FAIL: {exc}"])]
    try:
        rig.up()
        print(f"\n{broker}: topology up in {rig.base}", flush=True)
        for name, (scenario, brokers) in SCENARIOS.items():
            if broker not in brokers or (wanted and name != "baseline" and name not in wanted):
                continue
            print(f"--- {name} ({broker})", flush=True)
            outcome = scenario(rig)
            outcomes.append(outcome)
            print(f"    {'ok' if outcome.ok else 'FAILED'} in {outcome.seconds or 0:.0f} s; {outcome}", flush=True)
    finally:
        rig.down()
        if not args.keep:
            subprocess.run(["rm", "-rf", str(rig.base)])
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brokers", default="redis,rabbitmq")
    parser.add_argument("--only", default="", help="comma-separated scenario names (baseline always runs)")
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--turns", type=int, default=10, help="steps per trajectory (the plan's turns plus DONE)")
    parser.add_argument("--sleep-after", type=float, default=0.3)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (logs) afterwards")
    parser.add_argument("--json", type=Path, help="also write the outcomes here")
    args = parser.parse_args()
    brokers = [b for b in args.brokers.split(",") if b]
    if len(brokers) == 1:
        outcomes = run_broker(brokers[0], args)
    else:
        # Django is set up once per process, on one set of servers: each broker in its own process.
        outcomes = []
        for broker in brokers:
            out = Path(tempfile.mkstemp(suffix=".json")[1])
            argv = [sys.executable, __file__, "--brokers", broker, "--json", str(out)]
            argv += [f"--{key.replace('_', '-')}={value}" for key, value in vars(args).items()
                     if key not in ("brokers", "json", "keep")]  # fmt: skip
            argv += ["--keep"] if args.keep else []
            subprocess.call(argv)
            if out.stat().st_size:
                outcomes += [Outcome(**row) for row in json.loads(out.read_text())]
            out.unlink()
    print_table(outcomes)
    if args.json:
        args.json.write_text(json.dumps([o.__dict__ for o in outcomes], indent=1))
    return 0 if outcomes and all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
