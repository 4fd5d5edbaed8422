"""Selectors for the trajectory player and the comparison page: one trajectory as a JSON-ready
payload (steps with image URLs, placeholders and detected apps; rubric judgments per judge)."""

from __future__ import annotations

import re

from django.http import Http404
from django.urls import reverse

from harness.apps import APPS, WEB, app_key
from leaderboard.catalog.badges import SELF_REPORTED_NOTE
from leaderboard.catalog.selectors import visible_runs
from leaderboard.models import JudgeConfig
from leaderboard.scoring.one_trajectory import default_judge_id
from trajectories.models import Step, Trajectory
from trajectories.recording import selectors
from trajectories.recording.state_checks import state_check_summary, state_checks_by_item

# Seconds between polls of a running trajectory; small enough to feel live, large enough to be cheap.
LIVE_POLL_MS = 2000

NO_SCREENSHOT = "No screenshot was recorded for this step."

_PORTS = {app.port: app.name for app in APPS if app.port}
# localhost:3016, 127.0.0.1:3016/inbox, http://vm:3005 ... only the port decides the app.
_PORT_RE = re.compile(r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\b[\w.-]+):(30\d\d)\b")
_WEB_NAMES = sorted(
    ((alias, app.name) for app in APPS if app.kind == WEB for alias in (app.name, app.internal_name) if alias),
    key=lambda pair: -len(pair[0]),
)
_NAME_RE = re.compile(r"\b(" + "|".join(re.escape(alias) for alias, _ in _WEB_NAMES) + r")\b", re.IGNORECASE)
_NAME_BY_KEY = {app_key(alias): name for alias, name in _WEB_NAMES}


def step_app(step: Step, previous: str = "") -> str:
    """The app a step acts in, read from what the agent touched: a URL or port of one of the web apps
    in the action or the tool's output, a window title the source recorded, an app named in the action
    itself (a command, a launched program). Never from the model's prose: a step that touches nothing
    new stays in ``previous``, the app of the step before."""
    for text in (step.action_text, step.tool_output):
        match = _PORT_RE.search(text or "")
        if match and int(match.group(1)) in _PORTS:
            return _PORTS[int(match.group(1))]
    info = step.info if isinstance(step.info, dict) else {}
    for candidate in (info.get("window_title"), step.action_text):
        match = _NAME_RE.search(candidate or "") if isinstance(candidate, str) else None
        if match:
            return _NAME_BY_KEY.get(app_key(match.group(1)), "")
    return previous


def step_problem(step: Step) -> str:
    """Why a step has no picture to show, in words; empty when it has one."""
    missing = step.info.get("screenshot_missing") if isinstance(step.info, dict) else None
    if missing:
        return f"Screenshot missing from the imported folder: {missing}"
    if step.media_error:
        return f"Screenshot unavailable: {step.media_error}"
    if not step.screenshot:
        return NO_SCREENSHOT
    return ""


def _url(f) -> str:
    return f.url if f else ""


def step_payloads(steps) -> list[dict]:
    """Every step's payload, in order; each step's app carries over from the step before."""
    out, app = [], ""
    for step in steps:
        app = step_app(step, app)
        out.append(step_payload(step, app))
    return out


def step_payload(step: Step, app: str | None = None) -> dict:
    problem = step_problem(step)
    # A step whose original could not be decoded keeps its link to the original (for download)
    # but shows the placeholder, never a broken image.
    image = "" if problem else selectors.step_image_url(step)
    return {
        "index": step.index,
        "turn": step.turn,
        "tool": step.tool,
        "action": step.action or {},
        "action_text": step.action_text,
        "model_text": step.model_text,
        "tool_output": step.tool_output,
        "done": step.done,
        "time": step.timestamp.isoformat() if step.timestamp else "",
        "image": image,
        # the same picture as AVIF, offered first by the stage's <picture>; "" when not made (yet)
        "image_avif": "" if problem or not image else _url(step.display_avif),
        "thumb": "" if problem else _url(step.thumbnail) or image,
        "original": _url(step.screenshot),
        "width": step.screenshot_width,
        "height": step.screenshot_height,
        "problem": problem,
        "alt": selectors.step_alt_text(step),
        "app": step_app(step) if app is None else app,
    }


def judge_entry(judge: JudgeConfig, scoring_judge_id: int | None) -> dict:
    """Who gave a set of verdicts, as the player names it: the judge's name and kind, whether its
    verdicts score the run, and for an author's own judge the label "self-reported, not scored"."""
    self_reported = judge.origin == JudgeConfig.Origin.SELF_REPORTED
    return {
        "id": judge.pk,
        "name": judge.name,
        "origin": judge.origin,
        "origin_label": judge.get_origin_display(),
        "self_reported": self_reported,
        "scores_run": not self_reported and judge.pk == scoring_judge_id,
        "note": SELF_REPORTED_NOTE if self_reported else "",
        "items": [],
    }


def judges_payload(trajectory: Trajectory) -> list[dict]:
    """Judgments grouped by judge (ours first, authors' own last), each judge named with its kind
    (judge_entry) and each item with verdict, weight, explanation and the cited step indices that
    exist in this trajectory."""
    existing = {s.index for s in trajectory.steps.all()}
    checks = state_checks_by_item(trajectory)
    judges: dict[int, dict] = {}
    scoring_judge_id = default_judge_id(trajectory.run) if trajectory.judgments.all() else None
    for j in trajectory.judgments.all():
        entry = judges.get(j.judge_id)
        if entry is None:
            entry = judges[j.judge_id] = judge_entry(j.judge, scoring_judge_id)
        cited = sorted({int(n) for n in (j.cited_steps or []) if isinstance(n, int) and n in existing})
        entry["items"].append(
            {
                "rubric_id": j.rubric_item.rubric_id,
                "position": j.rubric_item.position,
                "version": j.rubric_item.version,
                "criterion": j.judged_criterion or j.rubric_item.criterion,  # the words the judge read
                "written_criterion": j.rubric_item.criterion if j.judged_criterion else "",
                "rubric_world_variant": j.world_variant,
                "weight": j.rubric_item.weight,
                "weight_pct": round(100 * (j.rubric_item.normalised_weight or 0), 1),
                "verdict": j.verdict,
                "verdict_label": j.get_verdict_display(),
                "explanation": j.explanation,
                "cited_steps": cited,
                "stale": j.is_stale,
                "failure_mode": j.get_failure_mode_display() if j.failure_mode else "",
                "state_check": state_check_summary(checks.get(j.rubric_item_id), bool(j.rubric_item.state_check)),
            }
        )
    order = {"ours": 0, "imported": 1, "self_reported": 2}
    return sorted(judges.values(), key=lambda judge: (order.get(judge["origin"], 9), judge["name"]))


def trajectory_payload(trajectory: Trajectory) -> dict:
    return {
        "id": trajectory.pk,
        "run": trajectory.run.name,
        "run_slug": trajectory.run.slug,
        "model": trajectory.run.model.name if trajectory.run.model_id else "",
        "task_id": trajectory.task.task_id,
        "instruction": trajectory.task.instruction,
        "attempt": trajectory.attempt,
        "world_variant": trajectory.world_variant,  # 0: the canonical world
        "status": trajectory.status,
        "status_label": trajectory.get_status_display(),
        "ended_by": trajectory.ended_by,
        "ended_by_label": trajectory.get_ended_by_display(),
        "final_answer": trajectory.final_answer,
        "error": trajectory.error,
        "detail_url": reverse("trajectories:trajectory_detail", args=[trajectory.pk]),
        "play_url": reverse("trajectories:trajectory_player", args=[trajectory.pk]),
    }


def player_payload(trajectory: Trajectory) -> dict:
    """Everything the player shows for one trajectory (from ``selectors.trajectory_detail``)."""
    pk = trajectory.pk
    live = trajectory.status in (Trajectory.Status.RUNNING, Trajectory.Status.QUEUED)
    return {
        "trajectory": trajectory_payload(trajectory),
        "steps": step_payloads(trajectory.steps.all()),
        "judges": judges_payload(trajectory),
        "live": {"url": reverse("api-1:player_steps_since", args=[pk]), "interval_ms": LIVE_POLL_MS} if live else None,
    }


def steps_since(user, pk: int, since: int) -> dict:
    """Steps after index ``since`` and the trajectory's state, for a player polling a live run."""
    trajectory = (
        Trajectory.objects.filter(pk=pk, run__in=visible_runs(user)).select_related("run", "run__model", "task").first()
    )
    if trajectory is None:
        raise Http404(f"No trajectory {pk}")
    steps = trajectory.steps.filter(index__gt=since).order_by("index")
    return {
        "status": trajectory.status,
        "ended_by": trajectory.ended_by,
        "ended_by_label": trajectory.get_ended_by_display(),
        "final_answer": trajectory.final_answer,
        "running": trajectory.status in (Trajectory.Status.RUNNING, Trajectory.Status.QUEUED),
        "steps": step_payloads(steps),
    }


def compare_payload(user, a: int, b: int) -> dict:
    """Two trajectories of the same task; 404 when either is not visible, ValueError when the tasks differ."""
    ta, tb = selectors.trajectory_detail(user, a), selectors.trajectory_detail(user, b)
    if ta.task_id != tb.task_id:
        raise ValueError(
            f"trajectory {a} is task {ta.task.task_id!r} of {ta.task.suite.slug!r} and trajectory {b} is task "
            f"{tb.task.task_id!r} of {tb.task.suite.slug!r}; compare two trajectories of the same task"
        )
    left, right = player_payload(ta), player_payload(tb)
    return {"task": ta.task, "a": left, "b": right, "differing": differing_items(left["judges"], right["judges"])}


def differing_items(judges_a: list[dict], judges_b: list[dict]) -> list[str]:
    """Rubric ids whose verdicts differ between the first judge of each side (judges choose
    the same way on both sides: ours first)."""
    if not judges_a or not judges_b:
        return []
    a = {(i["rubric_id"], i["version"]): i["verdict"] for i in judges_a[0]["items"]}
    b = {(i["rubric_id"], i["version"]): i["verdict"] for i in judges_b[0]["items"]}
    return sorted({key[0] for key in a.keys() & b.keys() if a[key] != b[key]})


def task_trajectory_choices(user, task_pk: int):
    """Visible trajectories of one task, for the compare picker."""
    return selectors.trajectory_list(user).filter(task_id=task_pk)
