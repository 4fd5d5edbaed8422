"""Evaluations run by our harness on the workers: launch a run (one queued task per task and attempt
on queue "vm"), execute one trajectory in a leased VM slot, rerun as a new run, cancel, and progress."""

import logging
import uuid
from dataclasses import dataclass, field
from typing import cast

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from harness.agents import AGENTS
from harness.backends import BackendUnavailable
from harness.control import ControlError
from harness.judge.state_checks import run_state_checks
from harness.results import CANONICAL_WORLD, WORLD_VARIANT_KEY, attempt_world_variant
from harness.run import HARNESS_VERSION, LoopConfig, Recorder, run_task
from harness.tasks import RubricSpec, TaskSpec
from leaderboard.catalog.slugs import free_slug
from leaderboard.models import Model, RubricItem, Run, Suite, Task
from mypcbench_site.outages import SERVICE_UNAVAILABLE
from trajectories import queue
from trajectories.evaluations import run_table, slots
from trajectories.evaluations.agent_backend import (
    agent_choices,
    agent_problems,
    backend_problems,
    build_agent,
    make_backend,
    world_variant_problems,
)
from trajectories.evaluations.owed import owed_text, owed_work
from trajectories.judge_spec import JudgeSpec
from trajectories.judging.our_judge import JudgingError, build_judge, judge_config_for, with_protocol_for
from trajectories.models import Trajectory
from trajectories.recording import live_ingest
from trajectories.recording.after_finish import judge_on_finish
from trajectories.recording.state_checks import store_state_checks

logger = logging.getLogger(__name__)

NO_SLOT = "no-slot"
LEASE_HELD = "lease-held"
GUEST_ERRORS = ("environment not ready", "guest stopped answering", "guest failed")
ENDED = (Trajectory.Status.FINISHED, Trajectory.Status.ERROR)


class LaunchRefused(ValueError):
    """The run cannot start; ``problems`` names each reason (backend, API key, judge, input)."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("cannot launch: " + "; ".join(problems))


@dataclass
class LaunchSpec:
    suite: Suite
    model: Model
    agent_type: str = "scripted"
    tool_surface: str = Run.ToolSurface.COMPUTER_BASH
    turn_budget: int = 100
    screenshot_window: int = 20
    backend: str = "fake"
    url: str = ""
    image: str = ""
    judge: JudgeSpec | None = None  # None: judging follows MYPCBENCH_JUDGE_ON_FINISH
    tasks: list[Task] = field(default_factory=list)  # empty: every task of the suite
    attempts: int = 1
    plan: dict | None = None  # scripted agent: one plan, or {"plans": {task id or "*": plan}}
    name: str = ""
    sleep_after: float | None = None  # seconds between an action and its screenshot; None: 0 on fake, else 1
    agent_base_url: str = ""  # provider agents: another endpoint (vLLM for openai_compatible)
    coordinate_type: str = ""  # openai_compatible: "relative" (Qwen3-VL, the default) or "absolute" (Qwen2.5-VL)
    # provider agents: harness settings (COMMON_SETTINGS, AGENT_SETTINGS); absent or None = the agent's default
    agent_settings: dict = field(default_factory=dict)
    setup: str = ""  # post-boot setup: all, none or a comma list of parts; "" = all on qemu/docker, none elsewhere
    snapshot_reset: bool = False  # qemu: reset by loading a memory snapshot instead of a cold boot
    # the persona world's variant: one for every attempt, or one per attempt; [0] is the canonical world
    world_variants: list[int] = field(default_factory=lambda: [CANONICAL_WORLD])


def preflight(spec: LaunchSpec) -> list[str]:
    """Every reason the launch would fail, found before anything is queued."""
    problems = []
    if spec.agent_type not in AGENTS:
        problems.append(f"agent {spec.agent_type!r} is unknown (expected one of {', '.join(agent_choices())})")
    elif spec.plan and spec.agent_type != "scripted":
        problems.append(f"a plan is only played by the scripted agent (got agent {spec.agent_type!r})")
    else:
        problems += agent_problems(spec)
    if spec.turn_budget < 1:
        problems.append(f"turn budget {spec.turn_budget} (expected at least 1)")
    if spec.screenshot_window < 1:
        problems.append(f"screenshot window {spec.screenshot_window} (expected at least 1)")
    if spec.sleep_after is not None and not 0 <= spec.sleep_after <= 60:
        problems.append(f"seconds before each screenshot {spec.sleep_after:g} (expected 0 to 60)")
    if spec.attempts < 1:
        problems.append(f"attempts per task {spec.attempts} (expected at least 1)")
    problems += world_variant_problems(spec.backend, spec.world_variants, spec.attempts)
    foreign = [t.task_id for t in spec.tasks if t.suite_id != spec.suite.pk]
    if foreign:
        problems.append(f"tasks {', '.join(foreign)} are not in suite {spec.suite.slug!r}")
    if not spec.tasks and not spec.suite.tasks.exists():
        problems.append(f"suite {spec.suite.slug!r} has no tasks")
    problems += backend_problems(spec.backend, spec.url, spec.image, setup=spec.setup,
                                 snapshot_reset=spec.snapshot_reset)  # fmt: skip
    if spec.judge is not None:
        try:
            build_judge(spec.judge)
        except JudgingError as exc:
            problems.append(f"judge: {exc}")
    return problems


# ---------------------------------------------------------------- launch


def _create_run(spec: LaunchSpec, user, *, parent: Run | None, pairs: list[tuple[Task, int]]) -> Run:
    # the run's default judge as it will judge (the paper's protocol beside published figures)
    judge = with_protocol_for(spec.judge, spec.suite.pk) if spec.judge is not None else None
    judge_config = judge_config_for(build_judge(judge)) if judge is not None else None
    stamp = timezone.localtime().strftime("%Y-%m-%d %H:%M")
    name = spec.name or f"{spec.model.name} · {spec.agent_type} · {stamp}"
    launch = {
        "backend": spec.backend,
        "url": spec.url,
        "image": spec.image,
        "judge": spec.judge.as_dict() if spec.judge is not None else None,
        "plan": spec.plan,
        "attempts": spec.attempts,
        "api_model": spec.model.api_model,
        "sleep_after": spec.sleep_after,
        "agent_base_url": spec.agent_base_url,
        "coordinate_type": spec.coordinate_type,
        "agent_settings": {k: v for k, v in spec.agent_settings.items() if v is not None},
        "setup": spec.setup,
        "snapshot_reset": spec.snapshot_reset,
        "world_variants": spec.world_variants,
    }
    with transaction.atomic():
        run = Run.objects.create(
            name=name[:200],
            slug=free_slug(Run, name, "run"),
            suite=spec.suite,
            model=spec.model,
            agent_type=spec.agent_type,
            tool_surface=spec.tool_surface,
            turn_budget=spec.turn_budget,
            attempts_per_task=spec.attempts,
            screenshot_window=spec.screenshot_window,
            image_tag=spec.image if spec.backend == "docker" else "",
            harness_version=HARNESS_VERSION,
            judge_config=judge_config,
            provenance=Run.Provenance.HARNESS,
            status=Run.Status.QUEUED,
            parent=parent,
            launched_by=user if getattr(user, "pk", None) else None,
            metadata={"launch": launch},
        )
        Trajectory.objects.bulk_create(
            Trajectory(
                run=run,
                task=task,
                attempt=attempt,
                world_variant=attempt_world_variant(spec.world_variants, attempt),
                status=Trajectory.Status.QUEUED,
            )
            for task, attempt in pairs
        )
    return run


def _queue(run: Run) -> None:
    """One message per queued trajectory on queue "vm"; the Celery ids are kept for cancelling."""
    ids = {}
    for pk in run.trajectories.filter(status=Trajectory.Status.QUEUED).values_list("pk", flat=True):
        task_id = str(uuid.uuid4())
        ids[str(pk)] = task_id
    run.metadata["celery_ids"] = ids
    run.save(update_fields=["metadata"])
    try:
        for key, task_id in ids.items():
            queue.enqueue(queue.RUN_TRAJECTORY, int(key), task_id=task_id)
    except Exception as exc:  # the run and its queued trajectories stay, marked, for a later rerun
        run.status = Run.Status.ERROR
        run.notes = (run.notes + "\n" if run.notes else "") + f"could not queue its trajectories: {exc}"
        run.save(update_fields=["status", "notes"])
        raise LaunchRefused([f"the task queue (broker) refused the work: {exc}"]) from exc


def launch_run(spec: LaunchSpec, user=None, *, parent: Run | None = None) -> Run:
    """Check everything, create a queued harness Run with one queued trajectory per (task, attempt),
    and queue them; raises LaunchRefused (nothing created) when it cannot start."""
    problems = preflight(spec)
    if problems:
        raise LaunchRefused(problems)
    tasks = spec.tasks or list(spec.suite.tasks.order_by("position"))
    pairs = [(task, attempt) for task in tasks for attempt in range(spec.attempts)]
    run = _create_run(spec, user, parent=parent, pairs=pairs)
    _queue(run)
    return run


# ---------------------------------------------------------------- rerun and cancel

RERUN_CHOICES = {
    "all": "the whole run",
    "failed": "failed or errored trajectories",
    "task": "one task",
}


def rerun_pairs(run: Run, which: str, task: Task | None = None) -> list[tuple[Task, int]]:
    trajectories = run.trajectories.select_related("task").order_by("task__position", "attempt")
    if which == "failed":
        trajectories = trajectories.filter(
            ~Q(status=Trajectory.Status.FINISHED) | Q(ended_by__in=["fail", "budget", "timeout", "error"])
        ).exclude(status__in=[Trajectory.Status.RUNNING, Trajectory.Status.QUEUED])
    elif which == "task":
        if task is None:
            raise ValueError("rerun of one task: no task given")
        trajectories = trajectories.filter(task=task)
    elif which != "all":
        raise ValueError(f"rerun {which!r} (expected one of {', '.join(RERUN_CHOICES)})")
    return [(t.task, t.attempt) for t in trajectories]


def spec_from_run(run: Run) -> LaunchSpec:
    launch = run.metadata.get("launch") or {}
    judge = launch.get("judge")
    return LaunchSpec(
        suite=run.suite,
        model=run.model,
        agent_type=run.agent_type,
        tool_surface=run.tool_surface,
        turn_budget=run.turn_budget,
        screenshot_window=run.screenshot_window,
        backend=launch.get("backend", "fake"),
        url=launch.get("url", ""),
        image=launch.get("image", ""),
        judge=JudgeSpec(**judge) if judge else None,
        attempts=launch.get("attempts", 1),
        plan=launch.get("plan"),
        sleep_after=launch.get("sleep_after"),
        agent_base_url=launch.get("agent_base_url", ""),
        coordinate_type=launch.get("coordinate_type", ""),
        agent_settings=dict(launch.get("agent_settings") or {}),
        setup=launch.get("setup", ""),
        snapshot_reset=bool(launch.get("snapshot_reset")),
        world_variants=list(launch.get("world_variants") or [CANONICAL_WORLD]),
    )


def rerun(run: Run, which: str = "all", *, task: Task | None = None, user=None, reruns_seen: int | None = None) -> Run:
    """A new Run (parent = ``run``) over the chosen trajectories, same configuration; ``run`` is untouched.
    ``reruns_seen``: how many reruns the run had when the maintainer confirmed (the confirmation pages
    send it); a rerun queued since (a second click, another maintainer) refuses this one."""
    if run.provenance != Run.Provenance.HARNESS:
        raise LaunchRefused([f"run {run.slug!r} was not run by our harness ({run.get_provenance_display()})"])
    pairs = rerun_pairs(run, which, task)
    if not pairs:
        raise LaunchRefused([f"run {run.slug!r} has no {RERUN_CHOICES.get(which, which)} to rerun"])
    spec = spec_from_run(run)
    problems = preflight(spec)
    if problems:
        raise LaunchRefused(problems)
    with transaction.atomic():
        Run.objects.select_for_update().filter(pk=run.pk).first()  # one confirmed rerun at a time
        earlier = Run.objects.filter(parent=run)
        if reruns_seen is not None and earlier.count() > reruns_seen:
            latest = cast(Run, earlier.order_by("-created_at", "-pk").first())  # count() found one
            raise LaunchRefused(
                [
                    f"a rerun of {run.name} was queued since you confirmed ({latest.name}); nothing was queued "
                    "again (rerun from the run page once more if you want another)"
                ]
            )
        generation = earlier.count() + 1
        spec.name = f"{run.name} · rerun {generation} ({RERUN_CHOICES[which]})"
        new = _create_run(spec, user, parent=run, pairs=pairs)
    _queue(new)
    return new


def cancel(run: Run, user=None) -> int:
    """Mark the run cancelled, revoke its queued tasks and mark their trajectories interrupted;
    running trajectories stop after their next step. Returns how many queued ones were cancelled."""
    if run.status not in (Run.Status.QUEUED, Run.Status.RUNNING):
        raise LaunchRefused([f"run {run.slug!r} is {run.get_status_display().lower()}, not queued or running"])
    queued = list(run.trajectories.filter(status=Trajectory.Status.QUEUED).values_list("pk", flat=True))
    with transaction.atomic():
        run.status = Run.Status.CANCELLED
        run.finished_at = timezone.now()
        who = getattr(user, "get_username", lambda: "")() or "a maintainer"
        run.metadata["cancelled"] = {"by": who, "at": run.finished_at.isoformat(timespec="seconds")}
        run.save(update_fields=["status", "finished_at", "metadata"])
        Trajectory.objects.filter(pk__in=queued).update(
            status=Trajectory.Status.INTERRUPTED, error=f"run cancelled by {who} before this trajectory started"
        )
    ids = [run.metadata.get("celery_ids", {}).get(str(pk)) for pk in queued]
    ids = [i for i in ids if i]
    if ids:
        try:
            queue.revoke(ids)
        except Exception as exc:  # workers also skip trajectories of a cancelled run when they get them
            logger.warning("run %s: could not revoke %d queued tasks: %s", run.slug, len(ids), exc)
    return len(queued)


# ---------------------------------------------------------------- executing one trajectory


def task_spec(task: Task) -> TaskSpec:
    rubric = [
        RubricSpec(**RubricItem.spec_fields(item), state_check=item.state_check or None)
        for item in task.rubric_items.filter(is_current=True).order_by("position")
    ]
    return TaskSpec(
        id=task.task_id,
        position=task.position,
        category=task.category,
        instruction=task.instruction,
        bucket=task.bucket,
        apps_involved=list(task.apps_involved or []),
        difficulty=task.difficulty,
        rubric_rule=task.rubric_rule,
        extra=dict(task.extra or {}),
        rubric=rubric,
        content_hash=task.content_hash,
    )


def guest_attempts() -> int:
    return max(1, int(getattr(settings, "MYPCBENCH_VM_GUEST_ATTEMPTS", 3)))


def _is_guest_error(error: str) -> bool:
    return any(marker in error for marker in GUEST_ERRORS)


def _stop_reason(run_id: int, heartbeat) -> str:
    if heartbeat is not None and heartbeat.lost.is_set():
        return "interrupted: this worker lost its VM slot lease"
    status = Run.objects.filter(pk=run_id).values_list("status", flat=True).first()
    if status == Run.Status.CANCELLED:
        return "run cancelled while this trajectory was running"
    return ""


def execute_trajectory(trajectory_id: int, *, worker: str | None = None) -> str:
    """Run one queued trajectory in a leased VM slot, streaming its steps into the database.
    Safe to call again for the same trajectory (a redelivered message): an ended one is left alone,
    an interrupted one restarts from a clean reset, and so does one whose lease holder on this host
    died (a killed worker); one running under a live lease elsewhere answers LEASE_HELD, and the
    caller asks again once that lease could have lapsed (retry_after), so a message redelivered
    while its first worker still ran, or after it vanished with its host, is never dropped.
    Returns what happened; NO_SLOT when every slot of this worker is busy (the caller retries later).
    The database or the object store not answering (SERVICE_UNAVAILABLE) is raised with the
    trajectory left as it was, for the caller to retry: it restarts then from a clean reset."""
    trajectory = Trajectory.objects.select_related("run__model", "task").filter(pk=trajectory_id).first()
    if trajectory is None:
        return "gone"
    run = trajectory.run
    if trajectory.status in ENDED:
        return "already ended"
    if run.status == Run.Status.CANCELLED:
        Trajectory.objects.filter(pk=trajectory.pk, status=Trajectory.Status.QUEUED).update(
            status=Trajectory.Status.INTERRUPTED, error="run cancelled before this trajectory started"
        )
        return "cancelled"
    slots.reap_gone_holders()
    if slots.holds_live_lease(trajectory):
        return LEASE_HELD
    lease = slots.acquire(trajectory, worker=worker)
    if lease is None:
        return LEASE_HELD if slots.holds_live_lease(trajectory) else NO_SLOT
    try:
        restarted = trajectory.status != Trajectory.Status.QUEUED
        trajectory.status, trajectory.error = Trajectory.Status.RUNNING, ""
        trajectory.started_at = timezone.now()
        trajectory.save(update_fields=["status", "error", "started_at", "updated_at"])
        Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
            status=Run.Status.RUNNING, started_at=timezone.now()
        )
        if restarted:
            # A run the lease reaper had closed meanwhile is open again while this one reruns.
            Run.objects.filter(pk=run.pk, status=Run.Status.FINISHED).update(
                status=Run.Status.RUNNING, finished_at=None
            )
            logger.warning("trajectory %s restarts from a clean reset (it was interrupted)", trajectory.pk)
        with slots.heartbeat(lease) as heartbeat:
            outcome = _run_in_slot(trajectory, lease.slot, heartbeat)
    except SERVICE_UNAVAILABLE:
        # The database or the store is not answering: leave the trajectory running (its lease
        # given back below if the database allows), for the retried message to restart it.
        raise
    except Exception as exc:
        # Our own failure: end the trajectory with the reason rather than leave it running; the
        # message is not retried, a rerun is the maintainer's call.
        Trajectory.objects.filter(pk=trajectory.pk, status=Trajectory.Status.RUNNING).update(
            status=Trajectory.Status.ERROR, ended_by="error", error=f"the worker failed: {type(exc).__name__}: {exc}"
        )
        raise
    finally:
        try:
            slots.release(lease)
            _judge_if_asked(trajectory)  # owed before the run's status is worked out, so it counts
            refresh_run_status(run.pk)
        except SERVICE_UNAVAILABLE as exc:  # a lease not given back is taken back: this holder no longer uses it
            logger.warning("trajectory %s: lease not given back (%s); it is reclaimed on retry", trajectory.pk, exc)
    return outcome


def still_owed(trajectory_id: int) -> bool:
    """True when the trajectory has not ended and its run is not cancelled: its work must be done
    again (an interrupted trajectory restarts from a clean reset)."""
    return (
        Trajectory.objects.filter(
            pk=trajectory_id,
            status__in=[Trajectory.Status.QUEUED, Trajectory.Status.RUNNING, Trajectory.Status.INTERRUPTED],
        )
        .exclude(run__status=Run.Status.CANCELLED)
        .exists()
    )


def retry_after(trajectory_id: int) -> float:
    """Seconds to wait before asking again for a trajectory whose lease is held elsewhere: until
    that lease could lapse (it is renewed while its holder lives), at least one second."""
    return max(1.0, slots.seconds_left(trajectory_id) + 1.0)


def _run_in_slot(trajectory: Trajectory, slot: int, heartbeat) -> str:
    run = trajectory.run
    launch = run.metadata.get("launch") or {}
    spec = task_spec(trajectory.task)
    backend = launch.get("backend", "fake")
    config = LoopConfig(
        max_turns=run.turn_budget,
        screenshot_window=run.screenshot_window,
        sleep_after=launch["sleep_after"]
        if launch.get("sleep_after") is not None
        else (0.0 if backend == "fake" else 1.0),
        settle_seconds=0.0 if backend in ("fake", "local") else 5.0,
    )
    agent = build_agent(run.agent_type, launch.get("api_model", ""), launch.get("plan"),
                        base_url=launch.get("agent_base_url", ""), screenshot_window=run.screenshot_window,
                        coordinate_type=launch.get("coordinate_type", ""),
                        settings=launch.get("agent_settings"))  # fmt: skip
    meta = {"agent": agent.name, "model": run.model.name, "backend": backend, "run": run.slug,
            "max_turns": run.turn_budget, "screenshot_window": run.screenshot_window,
            WORLD_VARIANT_KEY: trajectory.world_variant}  # fmt: skip
    if getattr(agent, "coordinate_type", None):
        meta["coordinate_type"] = agent.coordinate_type
    if hasattr(agent, "protocol"):
        meta["agent_protocol"] = agent.protocol()  # as the CLI's bundle.json: budget, effort, sampling, display
    _record_run_protocol(run, {"agent_protocol": meta["agent_protocol"]} if "agent_protocol" in meta else {})
    reason = ""
    attempts = guest_attempts()
    for attempt in range(1, attempts + 1):
        env = make_backend(launch, slot)
        env.use_world_variant(trajectory.world_variant)  # refused at launch when the backend cannot serve it
        sink = live_ingest.LiveIngestSink(trajectory, should_stop=lambda: _stop_reason(run.pk, heartbeat))
        try:
            try:
                env.start()
            except (BackendUnavailable, ControlError, OSError) as exc:
                reason = f"the {backend} guest did not start (attempt {attempt} of {attempts}): {exc}"
                logger.warning("trajectory %s: %s", trajectory.pk, reason)
                continue
            backend_protocol = env.protocol()  # the guest's real screen size, the post-boot setup, the reset
            meta.update(backend_protocol)
            _record_run_protocol(run, {"backend_protocol": backend_protocol})
            if hasattr(agent, "attach"):
                agent.attach(env)  # provider agents run their shell and editor tools through the guest
            result = run_task(spec, env, agent, Recorder(spec, [sink], meta), config)
            # Rubric items' state checks run on the guest as the trajectory left it, before it stops.
            checks = run_state_checks(env.execute, spec.rubric) if result.status == "finished" else []
        except live_ingest.StopRequested as stop:
            live_ingest.close(trajectory, steps=sink.written, ended_by="unknown", status="interrupted", error=str(stop))
            return "interrupted"
        finally:
            env.stop()
        if result.status == "errored" and _is_guest_error(result.error) and attempt < attempts:
            reason = result.error
            logger.warning("trajectory %s: %s; restarting from a clean reset (%d of %d)", trajectory.pk, reason,
                           attempt, attempts)  # fmt: skip
            continue
        summary = sink.summary or {}
        live_ingest.close(
            trajectory,
            steps=sink.written,
            ended_by=result.ended_by,
            status=Trajectory.Status.FINISHED if result.status == "finished" else Trajectory.Status.ERROR,
            final_answer=result.final_answer,
            error=result.error,
            usage=summary.get("usage"),
        )
        store_state_checks(trajectory, checks)
        return result.ended_by
    live_ingest.close(
        trajectory, steps=0, ended_by="error", status=Trajectory.Status.ERROR, error=f"gave up after {attempts} "
        f"attempts: {reason}"
    )  # fmt: skip
    return "error"


def _record_run_protocol(run: Run, protocol: dict) -> None:
    """Keep what the agent and guest report about their protocol in the run's metadata (as the CLI's
    bundle.json does); the first trajectory to report writes it, later ones leave it."""
    with transaction.atomic():
        locked = Run.objects.select_for_update().filter(pk=run.pk).first()
        if locked is None:
            return
        missing = {k: v for k, v in protocol.items() if k not in locked.metadata}
        if missing:
            locked.metadata.update(missing)
            locked.save(update_fields=["metadata"])


def _judge_if_asked(trajectory: Trajectory) -> None:
    """The run's own judge choice; without one, ingest already follows MYPCBENCH_JUDGE_ON_FINISH."""
    trajectory.refresh_from_db(fields=["status"])
    judge = (trajectory.run.metadata.get("launch") or {}).get("judge")
    if not judge or trajectory.status != Trajectory.Status.FINISHED:
        return
    if judge_on_finish() and judge == JudgeSpec.from_settings().as_dict():
        return  # ingest queued exactly this judge already
    try:
        queue.enqueue(queue.JUDGE_TRAJECTORY, trajectory.pk, judge)
    except Exception as exc:
        logger.error("could not queue judging of trajectory %s: %s", trajectory.pk, exc)


def refresh_run_status(run_id: int) -> None:
    """A run is finished when all its trajectories have ended and no work is owed for any of them (a
    trajectory to run again, a judge pass: see owed_work); a cancelled one stays cancelled."""
    open_ = Trajectory.objects.filter(run_id=run_id, status__in=[Trajectory.Status.QUEUED, Trajectory.Status.RUNNING])
    if not open_.exists() and not owed_work(run_id):
        Run.objects.filter(pk=run_id, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
            status=Run.Status.FINISHED, finished_at=timezone.now()
        )


def refresh_trajectory_run(trajectory_id: int) -> None:
    """Work out again the status of a launched run the trajectory belongs to (after a judge pass)."""
    run_id = (
        Trajectory.objects.filter(pk=trajectory_id, run__provenance=Run.Provenance.HARNESS)
        .values_list("run_id", flat=True)
        .first()
    )
    if run_id is not None:
        refresh_run_status(run_id)


# ---------------------------------------------------------------- progress


def progress(run: Run) -> dict:
    """What the run page polls: counts by state (queued, running, done, errored, interrupted, judged,
    steps so far) and every trajectory's table row (trajectories/evaluations/run_table.py), in a constant number
    of queries. Lapsed leases are reaped first, so a dead worker's trajectory shows as interrupted.
    ``live`` stays true while a trajectory still runs, also in a run cancelled meanwhile (a running
    trajectory stops after its next step); ``cancellable`` says whether the run can still be cancelled."""
    open_statuses = (Run.Status.QUEUED, Run.Status.RUNNING)
    if run.provenance == Run.Provenance.HARNESS and run.status in (*open_statuses, Run.Status.CANCELLED):
        slots.reap_expired()
        refresh_run_status(run.pk)
        run.refresh_from_db(fields=["status", "finished_at"])
    rows = run_table.trajectory_rows(run)
    counts = run_table.summary(rows)
    owed = owed_work(run.pk) if run.provenance == Run.Provenance.HARNESS else []
    return {
        "owed": owed,  # what the run still owes (to run, to judge) and since when: it is not finished until none
        "owed_text": owed_text(owed),
        "run": run.slug,
        "status": run.status,
        "status_display": run.get_status_display(),
        "live": run.status in open_statuses or counts["running"] > 0,
        "cancellable": run.provenance == Run.Provenance.HARNESS and run.status in open_statuses,
        "judge_stopped": run.metadata.get("judge_stopped") or {},  # judge configuration -> why it stopped
        **counts,
        "trajectories": rows,
    }
