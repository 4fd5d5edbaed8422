"""A run's sessions as the pages show them: each recorded session read from its stored rows (the intent
statuses, the user turns, the checklist verdicts of the run's scoring judge over the whole session, else
the verdicts the session carried) into the plain records of ``sessions``, and the run's Proactivity,
Completeness and turns with their bootstrap intervals, cached per data version."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.core.cache import cache

from leaderboard.models import RubricItem, Run
from leaderboard.scoring.data_version import cache_version
from leaderboard.scoring.one_trajectory import default_judge_id
from leaderboard.scoring.sessions import RunSessionSummary, SessionRecord, run_summary, status_distribution
from trajectories.models import IntentStatus, Judgment, Trajectory, UserTurn

VERDICTS: dict[str, bool | None] = {"success": True, "failure": False, "error": None}  # Judgment.Verdict


@dataclass(frozen=True)
class RunSessions:
    """A run's session figures and who played the user (each distinct simulator, as recorded)."""

    summary: RunSessionSummary
    user_simulators: list[dict]
    by_category: dict[str, dict[str, int]]
    note: str = ""  # why some sessions were left out, if any

    def simulator_words(self) -> str:
        return "; ".join(simulator_label(s) for s in self.user_simulators) or "not recorded"


def simulator_label(simulator: dict) -> str:
    """'rules (prompt mypc-user-rules-1)', 'anthropic claude-haiku-4-5 (prompt mypc-user-1)'."""
    who = " ".join(filter(None, [simulator.get("kind") or simulator.get("provider"), simulator.get("model")]))
    version = simulator.get("prompt_version")
    return f"{who or 'unknown user'}" + (f" (prompt {version})" if version else "")


def session_records(run: Run) -> tuple[list[SessionRecord], list[dict], dict[str, str]]:
    """The run's recorded sessions (finished trajectories of its suite with intent statuses), the user
    simulators that played them, and each session's category."""
    trajectories = list(
        Trajectory.objects.filter(run=run, task__suite_id=run.suite_id, status=Trajectory.Status.FINISHED)
        .filter(intent_statuses__isnull=False)
        .distinct()
        .select_related("task")
        .order_by("task__position", "attempt")
    )
    if not trajectories:
        return [], [], {}
    ids = [t.pk for t in trajectories]
    intents: dict[int, dict[str, str]] = defaultdict(dict)
    for tid, intent_id, status in IntentStatus.objects.filter(trajectory_id__in=ids).values_list(
        "trajectory_id", "intent_id", "status"
    ):
        intents[tid][intent_id] = status
    turns: dict[int, int] = defaultdict(int)
    for tid in UserTurn.objects.filter(trajectory_id__in=ids).values_list("trajectory_id", flat=True):
        turns[tid] += 1
    items: dict[int, list[RubricItem]] = defaultdict(list)
    for item in RubricItem.objects.filter(task_id__in={t.task_id for t in trajectories}, is_current=True):
        items[item.task_id].append(item)
    judge = default_judge_id(run)
    verdicts = {
        (tid, item): VERDICTS.get(verdict)
        for tid, item, verdict in Judgment.objects.filter(trajectory_id__in=ids, judge_id=judge).values_list(
            "trajectory_id", "rubric_item_id", "verdict"
        )
    }
    records, simulators = [], []
    for t in trajectories:
        carried = (t.session or {}).get("checklist") or {}
        checklist = {
            item.rubric_id: verdicts[(t.pk, item.pk)] if (t.pk, item.pk) in verdicts else carried.get(item.rubric_id)
            for item in sorted(items[t.task_id], key=lambda i: i.position)
        }
        ended_by = (t.session or {}).get("ended_by") or "final_response"
        records.append(SessionRecord(t.task.task_id, turns[t.pk], intents[t.pk], checklist, ended_by, t.attempt + 1))
        simulator = (t.session or {}).get("user_simulator") or {}
        if simulator and simulator not in simulators:
            simulators.append(simulator)
    return records, simulators, {t.task.task_id: t.task.category for t in trajectories}


def run_sessions(run: Run) -> RunSessions | None:
    """The run's session figures, None when it recorded no session."""
    key = f"run-sessions:{run.pk}:{cache_version()}"
    cached = cache.get(key)
    if cached is not None:
        return cached or None
    records, simulators, categories = session_records(run)
    result: RunSessions | None = None
    if records:
        note = ""
        by_task: dict[str, list[SessionRecord]] = defaultdict(list)
        for record in records:
            by_task[record.task_id].append(record)
        fewest = min(len(rs) for rs in by_task.values())
        if any(len(rs) != fewest for rs in by_task.values()):
            note = f"only the first {fewest} attempt(s) of each session counted: sessions have different numbers"
            records = [r for rs in by_task.values() for r in sorted(rs, key=lambda r: r.attempt)[:fewest]]
        result = RunSessions(
            summary=run_summary(records, categories),
            user_simulators=simulators,
            by_category=status_distribution(records, categories),
            note=note,
        )
    cache.set(key, result or False, 3600)
    return result
