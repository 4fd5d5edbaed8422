"""Bench: the capacity model's figures measured on the real topology (deploy/topology.py: gunicorn and
one Celery worker per queue, each in its own folders) on PRIVATE PostgreSQL, Redis or RabbitMQ servers
and a moto S3 server (the rig of bench/bench_faults.py), never the machine's shared ones.

What stands for the model: the Anthropic agent of the harness (the real SDK, the real agent code)
against the provider simulator on loopback, which answers every call after a fixed --model-seconds
(a click, then DONE at the last step). What stands for the VM: the fake guest, with --sleep-after
seconds before each screenshot, as the launch sets them. Derivatives are off: on real hosts the media
worker runs elsewhere, and here it would take CPU from the vm worker.

Three measurements, each from the database:

    slots        one vm worker holding 1, 2 and 4 VM slots (MYPCBENCH_VM_SLOTS, --concurrency), a run of
                 --tasks trajectories each: trajectories per hour per slot, from the launch to the last
                 trajectory ended, beside the capacity model's arithmetic for the same step time; the
                 scaling against 1 slot; the seconds between two steps (the model, the guest, the harness)
    judge        a judge pass over every finished trajectory at once, the judge at its shipped defaults
                 (JudgeSpec.from_settings, the real Anthropic SDK) against the provider simulator at
                 --judge-seconds per call: judge calls and judgments stored per minute on the one
                 judging worker, and the most calls in flight
    lost host    two vm hosts of --lost-host-slots slots each; kill -9 of one host's whole worker while it
                 holds running trajectories (the host is not replaced): seconds until the other host
                 writes a step of them again and until they are finished, at the shipped lease settings
                 (topology LEASE_SETTINGS); trajectories lost and duplicated

The load average of the machine is printed beside each figure: this bench shares its CPUs.

Run: .venv/bin/python bench/bench_capacity.py [--slots 1,2,4] [--tasks 8] [--steps 6] [--model-seconds 2]
     [--broker redis|rabbitmq] [--no-lost-host] [--quick] [--json out.json]   (about 10 minutes on 2 CPUs)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.simulators import ProviderSimulator  # noqa: E402
from tests.simulators.computer_use import anthropic_turn  # noqa: E402


def load_faults():
    spec = importlib.util.spec_from_file_location("bench_faults", ROOT / "bench" / "bench_faults.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


faults = load_faults()
topology_module = faults.topology_module
HARNESS_SECONDS = 0.05  # the capacity model's harness time per step (bench_harness.py: under 0.05 s)


@dataclass
class SlotFigures:
    slots: int
    trajectories: int
    finished: int
    seconds: float  # from the launch to the last trajectory ended
    step_seconds: float  # mean time between two steps of a trajectory
    per_hour_per_slot: float
    arithmetic_per_hour_per_slot: float
    model_calls: int
    load: tuple[float, float]


@dataclass
class JudgeFigures:
    trajectories: int
    judgments: int
    judgments_owed: int
    calls: int
    seconds: float
    calls_per_minute: float
    judgments_per_minute: float
    most_in_flight: int
    load: tuple[float, float]


@dataclass
class LostHostFigures:
    slots_per_host: int
    victims: int = 0
    noticed_after: float | None = None  # the dead host's trajectories marked interrupted
    restarted_after: float | None = None  # the last of them writing a step again
    restarted_on: list[str] = field(default_factory=list)
    finished_after: float | None = None  # the last of them finished
    run_seconds: float | None = None
    lost: int = 0
    duplicated: int = 0
    load: tuple[float, float] = (0.0, 0.0)
    notes: list[str] = field(default_factory=list)


def load_average() -> float:
    return os.getloadavg()[0]


class CapacityRig(faults.Rig):
    """bench_faults' rig with the Anthropic agent against a model simulator, vm hosts started here."""

    def __init__(self, args):
        super().__init__(args.broker, args)
        low, high = args.judge_seconds
        self.sim = ProviderSimulator(lambda request: faults.VERDICT, latency=(low, high))
        self.model_sim = ProviderSimulator(self.model_reply, latency=(args.model_seconds, args.model_seconds))
        self.extra_settings = {"MYPCBENCH_DERIVATIVES": "off"}
        self.runs: list = []
        self.steps_expected = args.steps  # the simulated model answers DONE at the last step

    def model_reply(self, request):
        """A click on every turn but the last; DONE on the last (the count of the model's earlier turns
        is in the request: the agent sends its whole conversation)."""
        answered = sum(1 for message in request.body.get("messages", []) if message.get("role") == "assistant")
        if answered + 1 >= self.args.steps:
            return anthropic_turn("The reply is sent.\n```DONE```")
        return anthropic_turn("Clicking.", [("computer", {"action": "left_click", "coordinate": [20 + answered, 40]})])

    def up(self) -> None:
        self.model_sim.__enter__()
        super().up()
        self.stop_process("worker-vm")  # the bench starts its own vm hosts, with their own slots

    def down(self) -> None:
        try:
            super().down()
        finally:
            self.model_sim.__exit__(None, None, None)

    def seed(self) -> None:
        from leaderboard.models import Model, Suite
        from tests.catalog_data import add_rubric, make_task

        self.suite = Suite.objects.create(name="Capacity", version="v1", slug="capacity-v1")
        self.tasks = []
        for i in range(1, self.args.tasks + 1):
            task = make_task(self.suite, f"action-c{i:03d}", "bounded_action", [], position=i,
                             instruction=f"Reply to mail {i}.")  # fmt: skip
            add_rubric(task, [1.0] * self.args.items)
            self.tasks.append(task)
        self.model = Model.objects.create(name="Simulated model", slug="simulated-model", family="Bench",
                                          api_model="claude-sonnet-4-6")  # fmt: skip

    # ------------------------------------------------------------ vm hosts

    def start_vm_host(self, name: str, slots: int) -> None:
        """A vm worker standing for a host of its own with ``slots`` VM slots (as docs/operating.md says:
        MYPCBENCH_VM_SLOTS and the same --concurrency)."""
        argv = topology_module.worker_command("vm", str(slots))
        argv[argv.index("--hostname") + 1] = f"{name}@%h"
        env = self.topology.env(name, self.topology.s3_endpoint)
        env.update(MYPCBENCH_VM_SLOTS=str(slots), MYPCBENCH_WORKER_NAME=name)
        self.topology.start(name, argv, env)
        log = self.topology.state / f"{name}.log"
        faults.wait_until(f"{name} ready", lambda: log.exists() and " ready." in log.read_text(errors="replace"),
                          timeout=120)  # fmt: skip

    def stop_process(self, name: str) -> None:
        process = self.topology.processes[name]
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    # ------------------------------------------------------------ runs

    def launch(self, name: str):
        from trajectories.evaluations import lifecycle

        spec = lifecycle.LaunchSpec(suite=self.suite, model=self.model, agent_type="anthropic",
                                    agent_base_url=self.model_sim.url, sleep_after=self.args.sleep_after,
                                    turn_budget=self.args.steps + 5, name=name)  # fmt: skip
        run = lifecycle.launch_run(spec)
        self.runs.append(run)
        return run

    def wait_finished(self, run, timeout: float) -> bool:
        from django.db import close_old_connections

        from leaderboard.models import Run

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            close_old_connections()
            if Run.objects.filter(pk=run.pk, status="finished").exists():
                return True
            time.sleep(0.3)
        return False

    def warm_up(self, slots: int) -> None:
        """One trajectory per slot first, not measured: each pool process imports the agent's SDK and
        opens its connections once, as a host does once in its life, not once per run."""
        from trajectories.evaluations import lifecycle

        spec = lifecycle.LaunchSpec(suite=self.suite, model=self.model, agent_type="anthropic",
                                    agent_base_url=self.model_sim.url, sleep_after=self.args.sleep_after,
                                    turn_budget=self.args.steps + 5, tasks=self.tasks[:slots],
                                    name=f"warm-up, {slots} VM slot(s)")  # fmt: skip
        started = time.monotonic()
        run = lifecycle.launch_run(spec)
        self.wait_finished(run, self.args.timeout)
        print(
            f"    warm-up: {min(slots, len(self.tasks))} trajectories in {time.monotonic() - started:.1f} s", flush=True
        )

    def step_seconds(self, run) -> float:
        """The mean time between two steps of a finished trajectory (its steps' timestamps)."""
        rows = run.trajectories.filter(status="finished", n_steps__gt=1).values_list("started_at", "finished_at",
                                                                                      "n_steps")  # fmt: skip
        gaps = [(end - start).total_seconds() / (n - 1) for start, end, n in rows if start and end]
        return sum(gaps) / len(gaps) if gaps else 0.0

    def measure_slots(self, slots: int) -> SlotFigures:
        from django.db.models import Max

        name = f"vm-{slots}-slots"
        self.start_vm_host(name, slots)
        self.warm_up(slots)
        load_before, calls_before = load_average(), len(self.model_sim.requests)
        run = self.launch(f"capacity, {slots} VM slot(s)")
        if not self.wait_finished(run, self.args.timeout):
            print(f"    the run with {slots} slot(s) did not finish in {self.args.timeout:.0f} s", flush=True)
        load_after = load_average()
        self.stop_process(name)
        trajectories = run.trajectories.all()
        finished = trajectories.filter(status="finished", n_steps=self.steps_expected)  # every step written
        last = trajectories.aggregate(m=Max("updated_at"))["m"]
        run.refresh_from_db()
        seconds = (last - run.created_at).total_seconds()
        step = self.args.model_seconds + self.args.sleep_after + HARNESS_SECONDS
        return SlotFigures(
            slots=slots,
            trajectories=trajectories.count(),
            finished=finished.count(),
            seconds=seconds,
            step_seconds=self.step_seconds(run),
            per_hour_per_slot=finished.count() / seconds * 3600 / slots,
            arithmetic_per_hour_per_slot=3600 / (self.args.steps * step),
            model_calls=len(self.model_sim.requests) - calls_before,
            load=(load_before, load_after),
        )

    # ------------------------------------------------------------ the judge

    def measure_judge(self) -> JudgeFigures:
        from django.db import close_old_connections
        from django.db.models import Max
        from django.utils import timezone

        from trajectories import queue
        from trajectories.judge_spec import JudgeSpec
        from trajectories.models import Judgment, Trajectory

        spec = JudgeSpec.from_settings(provider="anthropic", base_url=self.sim.url)
        ids = list(Trajectory.objects.filter(run__in=self.runs, status="finished").values_list("pk", flat=True))
        owed = len(ids) * self.args.items
        judged = Judgment.objects.filter(trajectory_id__in=ids).exclude(verdict="error")
        calls_before, load_before = len(self.sim.requests), load_average()
        self.sim.max_in_flight = 0
        started, sent_at = time.monotonic(), timezone.now()
        for pk in ids:
            queue.enqueue(queue.JUDGE_TRAJECTORY, pk, spec.as_dict())
        deadline = started + self.args.timeout
        while time.monotonic() < deadline:
            close_old_connections()
            if judged.count() >= owed:
                break
            time.sleep(0.3)
        last = judged.aggregate(m=Max("created_at"))["m"]
        seconds = (last - sent_at).total_seconds() if last else time.monotonic() - started
        calls = len(self.sim.requests) - calls_before
        count = judged.count()
        return JudgeFigures(
            trajectories=len(ids),
            judgments=count,
            judgments_owed=owed,
            calls=calls,
            seconds=seconds,
            calls_per_minute=calls / seconds * 60,
            judgments_per_minute=count / seconds * 60,
            most_in_flight=self.sim.max_in_flight,
            load=(load_before, load_average()),
        )

    # ------------------------------------------------------------ a lost host

    def held_by(self, host: str) -> dict[int, int]:
        """The running trajectories a host's slots hold, with the newest step each has, once one of them
        is past its second step (the fault lands mid-trajectory)."""
        from django.db.models import Max

        from trajectories.models import Step, VmSlot

        held = list(
            VmSlot.objects.filter(worker=host, trajectory__isnull=False).values_list("trajectory_id", flat=True)
        )
        newest = {pk: Step.objects.filter(trajectory_id=pk).aggregate(m=Max("pk"))["m"] or 0 for pk in held}
        deep = any(Step.objects.filter(trajectory_id=pk).count() >= 2 for pk in held)
        return newest if deep else {}

    def watch_victims(self, run, victims: dict[int, int], killed_at: float, figures: LostHostFigures) -> None:
        """Poll until the run is finished: when the victims were marked interrupted, wrote a step again
        (and on which host), and finished."""
        from django.db import close_old_connections

        from leaderboard.models import Run
        from trajectories.models import Step, Trajectory, VmSlot

        noticed: dict[int, float] = {}
        restarted: dict[int, float] = {}
        done: dict[int, float] = {}
        deadline = time.monotonic() + self.args.timeout
        while time.monotonic() < deadline:
            close_old_connections()
            now = time.monotonic() - killed_at
            statuses = dict(Trajectory.objects.filter(pk__in=victims).values_list("pk", "status"))
            for pk, newest in victims.items():
                if pk not in noticed and statuses[pk] != "running":
                    noticed[pk] = now
                if pk not in restarted and Step.objects.filter(trajectory_id=pk, pk__gt=newest).exists():
                    restarted[pk] = now
                    noticed.setdefault(pk, now)
                    host = VmSlot.objects.filter(trajectory_id=pk).values_list("worker", flat=True).first()
                    figures.restarted_on.append(host or "?")
                if pk not in done and statuses[pk] == "finished":
                    done[pk] = now
            if Run.objects.filter(pk=run.pk, status="finished").exists():
                break
            time.sleep(0.2)
        figures.noticed_after = max(noticed.values()) if len(noticed) == len(victims) else None
        figures.restarted_after = max(restarted.values()) if len(restarted) == len(victims) else None
        figures.finished_after = max(done.values()) if len(done) == len(victims) else None

    def count_lost(self, run, figures: LostHostFigures) -> None:
        from django.db.models import Count

        from trajectories.models import Step

        trajectories = run.trajectories.all()
        full = trajectories.filter(status="finished", n_steps=self.steps_expected).count()
        figures.lost = len(self.tasks) - full
        extra_rows = sum(n - 1 for n in trajectories.values("task", "attempt").annotate(n=Count("pk"))
                         .values_list("n", flat=True) if n > 1)  # fmt: skip
        steps = Step.objects.filter(trajectory__run=run).count()
        figures.duplicated = extra_rows + max(0, steps - len(self.tasks) * self.steps_expected)
        for task_id, status, error in trajectories.exclude(error="").values_list("task__task_id", "status", "error"):
            figures.notes.append(f"{task_id} {status}: {error[:120]}")

    def measure_lost_host(self) -> LostHostFigures:
        from django.db import close_old_connections

        slots = self.args.lost_host_slots
        figures = LostHostFigures(slots_per_host=slots)
        lost, kept = "vm-host-lost", "vm-host-kept"
        self.start_vm_host(lost, slots)
        self.start_vm_host(kept, slots)
        load_before = load_average()
        started = time.monotonic()
        run = self.launch("capacity, a host lost")
        victims: dict[int, int] = {}
        deadline = started + 120
        while not victims and time.monotonic() < deadline:
            close_old_connections()
            victims = self.held_by(lost)
            time.sleep(0.1)
        if not victims:
            figures.notes.append(f"FAIL: {lost} never held a trajectory two steps in")
            return figures
        killed_at = time.monotonic()
        os.killpg(self.topology.processes[lost].pid, signal.SIGKILL)  # the whole host's worker, never replaced
        self.topology.processes[lost].wait()
        figures.victims = len(victims)
        self.watch_victims(run, victims, killed_at, figures)
        figures.run_seconds = time.monotonic() - started
        figures.load = (load_before, load_average())
        close_old_connections()
        self.count_lost(run, figures)
        self.stop_process(kept)
        return figures


# ---------------------------------------------------------------- the table


def seconds_text(value: float | None) -> str:
    return f"{value:.1f} s" if value is not None else "never"


def print_report(args, slots: list[SlotFigures], judge: JudgeFigures | None, host: LostHostFigures | None) -> None:
    step = args.model_seconds + args.sleep_after
    print()
    print(f"workload: {args.tasks} tasks x {args.steps} steps, the Anthropic agent (real SDK) against a simulated "
          f"model answering in {args.model_seconds:g} s, {args.sleep_after:g} s before each screenshot (fake guest), "
          f"derivatives off; broker {args.broker}; {os.cpu_count()} CPUs")  # fmt: skip
    print("settings (shipped): " + ", ".join(f"{k}={v}" for k, v in topology_module.LEASE_SETTINGS.items()))
    print()
    print("| VM slots | trajectories finished | launch to last ended | s between steps (model + guest "
          f"{step:g}) | trajectories / hour / slot | arithmetic | measured / arithmetic | scaling vs 1 slot "
          "| load average (1 min) before / after |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    one = next((s.per_hour_per_slot * s.slots for s in slots if s.slots == 1), None)
    for s in slots:
        scaling = f"{s.per_hour_per_slot * s.slots / one:.2f}x (linear {s.slots}.00x)" if one else "-"
        print(f"| {s.slots} | {s.finished} of {s.trajectories} | {s.seconds:.1f} s | {s.step_seconds:.2f} s "
              f"| {s.per_hour_per_slot:.0f} | {s.arithmetic_per_hour_per_slot:.0f} "
              f"| {s.per_hour_per_slot / s.arithmetic_per_hour_per_slot:.2f} | {scaling} "
              f"| {s.load[0]:.1f} / {s.load[1]:.1f} |")  # fmt: skip
    if judge is not None:
        low, high = args.judge_seconds
        print()
        print(f"judge at its shipped defaults, {low:g}-{high:g} s per call, one judging worker (concurrency 1):")
        print(f"  {judge.trajectories} trajectories x {args.items} rubric items: {judge.judgments} of "
              f"{judge.judgments_owed} judgments in {judge.seconds:.1f} s, {judge.calls} calls")  # fmt: skip
        print(f"  judge calls per minute: {judge.calls_per_minute:.0f}; judgments per minute: "
              f"{judge.judgments_per_minute:.0f}; most calls in flight: {judge.most_in_flight}; "
              f"load average {judge.load[0]:.1f} / {judge.load[1]:.1f}")  # fmt: skip
    if host is not None:
        print()
        print(f"a lost host: two vm hosts of {host.slots_per_host} slots, kill -9 of one host's whole worker, "
              "not replaced:")  # fmt: skip
        print(f"  trajectories it held: {host.victims}; marked interrupted after {seconds_text(host.noticed_after)}; "
              f"a step written again after {seconds_text(host.restarted_after)} "
              f"(on {', '.join(sorted(set(host.restarted_on))) or '-'}); finished after "
              f"{seconds_text(host.finished_after)}")  # fmt: skip
        print(f"  run: {seconds_text(host.run_seconds)}; trajectories lost {host.lost}, duplicated {host.duplicated}; "
              f"load average {host.load[0]:.1f} / {host.load[1]:.1f}")  # fmt: skip
        for note in host.notes:
            print(f"  {note}")


def all_good(slots: list[SlotFigures], judge: JudgeFigures | None, host: LostHostFigures | None) -> bool:
    good = all(s.finished == s.trajectories for s in slots)
    if judge is not None:
        good = good and judge.judgments == judge.judgments_owed
    if host is not None:
        good = good and host.lost == 0 and host.duplicated == 0 and host.finished_after is not None
        good = good and not any(n.startswith("FAIL") for n in host.notes)
    return good


def parse_args(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--broker", choices=("redis", "rabbitmq"), default="redis")
    parser.add_argument("--slots", default="1,2,4", help="VM slots of the one vm host, one run each")
    parser.add_argument("--tasks", type=int, default=8, help="trajectories per run")
    parser.add_argument("--steps", type=int, default=6, help="steps per trajectory (clicks, then DONE)")
    parser.add_argument("--model-seconds", type=float, default=2.0, help="the simulated model's answer time")
    parser.add_argument("--sleep-after", type=float, default=0.5, help="seconds before each screenshot")
    parser.add_argument("--items", type=int, default=6, help="rubric items per task")
    parser.add_argument("--judge-seconds", default="1,2", help="the judge simulator's answer time, min,max")
    parser.add_argument("--lost-host-slots", type=int, default=2)
    parser.add_argument("--no-lost-host", action="store_true")
    parser.add_argument("--no-judge", action="store_true")
    parser.add_argument("--quick", action="store_true", help="1 and 2 slots, 2 tasks of 3 steps, no lost host")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (logs) afterwards")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.quick:
        args.slots, args.tasks, args.steps, args.model_seconds, args.items = "1,2", 2, 3, 0.5, 2
        args.judge_seconds, args.no_lost_host = "0.2,0.4", True
    args.judge_seconds = tuple(float(x) for x in args.judge_seconds.split(","))[:2]
    if len(args.judge_seconds) == 1:
        args.judge_seconds = (args.judge_seconds[0], args.judge_seconds[0])
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rig = CapacityRig(args)
    slots: list[SlotFigures] = []
    judge = host = None
    try:
        rig.up()
        print(f"topology up in {rig.base}", flush=True)
        for n in (int(x) for x in args.slots.split(",") if x):
            print(f"--- {n} VM slot(s)", flush=True)
            slots.append(rig.measure_slots(n))
            print(f"    {slots[-1]}", flush=True)
        if not args.no_judge:
            print("--- judge pass", flush=True)
            judge = rig.measure_judge()
            print(f"    {judge}", flush=True)
        if not args.no_lost_host:
            print("--- a lost host", flush=True)
            host = rig.measure_lost_host()
            print(f"    {host}", flush=True)
    finally:
        rig.down()
        if not args.keep:
            subprocess.run(["rm", "-rf", str(rig.base)])
    print_report(args, slots, judge, host)
    if args.json:
        figures = {
            "slots": [asdict(s) for s in slots],
            "judge": judge and asdict(judge),
            "lost_host": host and asdict(host),
        }
        args.json.write_text(json.dumps(figures, indent=1))
    return 0 if (slots or judge or host) and all_good(slots, judge, host) else 1


if __name__ == "__main__":
    sys.exit(main())
