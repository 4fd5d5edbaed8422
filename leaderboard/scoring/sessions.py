"""Session scores (after pi-Bench, arXiv 2605.14678, App. C): from a session record (its user turns, each hidden
intent's terminal status, the checklist verdicts) to Proactivity, Completeness, turn count and the
terminal-status distribution, per session and per run with the board's stratified bootstrap intervals.

Plain functions over plain data, no Django: the pages, exports and tests share this core. Definitions:

- Proactivity (Proc): the share of a session's intents the agent *completed* (acted on unasked) or
  *inferred* (asked a focused question the user answered), of all its intents. *Provided* intents (the
  user had to supply them) and intents left *open* at the turn limit count against it.
- Completeness (Comp): the share of the session's checklist items satisfied over the whole interaction,
  unweighted; items with no verdict are left out (a session with none judged has no Comp).
- Turns: the user turns the session took (the cost side).

A run's figure is the mean over its sessions (tasks), attempts averaged within a task, as the board's
score is; intervals resample sessions within strata (``metrics.stratified_bootstrap``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from leaderboard.scoring.metrics import percentile_interval, stratified_bootstrap

TERMINAL = ("completed", "inferred", "provided")
OPEN = "open"  # not terminal when the session hit its turn limit
STATUSES = (*TERMINAL, OPEN)
PROACTIVE = ("completed", "inferred")
ENDINGS = ("final_response", "turn_limit")


class SessionRecordError(ValueError):
    """A session record that cannot be scored; ``problems`` names every bad field."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        more = f" [and {len(problems) - 1} more]" if len(problems) > 1 else ""
        super().__init__(problems[0] + more)


@dataclass(frozen=True)
class SessionRecord:
    """What scoring needs of one recorded session."""

    task_id: str
    turns: int  # user turns taken
    intents: dict[str, str]  # intent id -> completed | inferred | provided | open
    checklist: dict[str, bool | None]  # checklist item id -> satisfied (None: no verdict)
    ended_by: str = "final_response"
    attempt: int = 1


@dataclass(frozen=True)
class SessionScores:
    proactivity: float  # NaN for a session without intents
    completeness: float  # NaN when no checklist item has a verdict
    turns: int
    statuses: Counter = field(hash=False)


def read_session_record(raw: Mapping) -> SessionRecord:
    """A session record from its JSON form (docs/sessions.md), naming every bad field."""
    problems: list[str] = []
    if not isinstance(raw, Mapping):
        raise SessionRecordError(["the session record is not a JSON object"])
    task_id = raw.get("task_id")
    if not isinstance(task_id, str) or not task_id.strip():
        problems.append("task_id: missing or empty (expected the session's task id)")
    turns = raw.get("turns")
    if isinstance(turns, list):  # the recorded turns themselves: count them
        turns = len(turns)
    if not isinstance(turns, int) or isinstance(turns, bool) or turns < 0:
        problems.append(f"turns: {turns!r} is not a turn count (expected a whole number >= 0 or a list of turns)")
    ended_by = raw.get("ended_by", "final_response")
    if ended_by not in ENDINGS:
        problems.append(f"ended_by: {ended_by!r} is not allowed (expected final_response or turn_limit)")
    attempt = raw.get("attempt", 1)
    if not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 1:
        problems.append(f"attempt: {attempt!r} is not an attempt number (expected 1, 2, ...)")
    intents = raw.get("intents")
    if not isinstance(intents, Mapping) or not intents:
        problems.append("intents: missing or empty (expected {intent id: terminal status})")
        intents = {}
    for intent_id, status in intents.items():
        if isinstance(status, Mapping):  # the recorded form {status, turn, step}
            status = status.get("status")
        allowed = STATUSES if ended_by == "turn_limit" else TERMINAL
        if status not in allowed:
            problems.append(
                f"intents.{intent_id}: {status!r} is not a status here (expected {', '.join(allowed)}"
                + ("; open only when the session ended at its turn limit)" if status == OPEN else ")")
            )
    checklist = raw.get("checklist", {})
    if not isinstance(checklist, Mapping):
        problems.append("checklist: not an object (expected {item id: true | false | null})")
        checklist = {}
    for item_id, verdict in checklist.items():
        if verdict is not None and not isinstance(verdict, bool):
            problems.append(f"checklist.{item_id}: {verdict!r} is not a verdict (expected true, false or null)")
    if problems:
        raise SessionRecordError(problems)
    statuses = {str(k): str(v.get("status") if isinstance(v, Mapping) else v) for k, v in intents.items()}
    return SessionRecord(
        task_id=task_id,  # type: ignore[arg-type]  # checked above
        turns=turns,  # type: ignore[arg-type]
        intents=statuses,
        checklist=dict(checklist),
        ended_by=ended_by,
        attempt=attempt,
    )


def session_scores(record: SessionRecord) -> SessionScores:
    """Proc, Comp, turns and the status counts of one session."""
    statuses = Counter(record.intents.values())
    n = len(record.intents)
    proactive = sum(statuses[s] for s in PROACTIVE)
    judged = [v for v in record.checklist.values() if v is not None]
    return SessionScores(
        proactivity=proactive / n if n else math.nan,
        completeness=sum(judged) / len(judged) if judged else math.nan,
        turns=record.turns,
        statuses=statuses,
    )


@dataclass(frozen=True)
class Figure:
    """A run's mean with its 95% bootstrap interval (NaN bounds when there is nothing to resample)."""

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class RunSessionSummary:
    sessions: int  # tasks scored
    attempts: int  # per task
    proactivity: Figure
    completeness: Figure
    turns: Figure
    statuses: dict[str, int]  # over every intent of every session and attempt
    status_shares: dict[str, float]
    turn_limit_sessions: int


def run_summary(
    records: Sequence[SessionRecord], strata: Mapping[str, str] | None = None, B: int = 1000, seed: int = 0
) -> RunSessionSummary:
    """A run's Proc, Comp and turns (mean over sessions of the mean over attempts) with percentile
    intervals from the board's stratified bootstrap (strata: task id -> e.g. category; one stratum when
    not given), and the terminal-status distribution. Every task needs the same number of attempts."""
    if not records:
        raise ValueError("no session records to summarise")
    by_task: dict[str, list[SessionRecord]] = {}
    for record in records:
        by_task.setdefault(record.task_id, []).append(record)
    counts = {task: len(rs) for task, rs in by_task.items()}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{t} {n}" for t, n in sorted(counts.items()))
        raise ValueError(f"sessions have different numbers of attempts ({shown}); every task needs the same")
    tasks = sorted(by_task)
    R = counts[tasks[0]]
    scores = {
        t: [session_scores(r) for r in sorted(by_task[t], key=lambda r: r.attempt)] for t in tasks
    }  # attempts in order
    labels = [(strata or {}).get(t, "") for t in tasks]

    def figure(values: np.ndarray) -> Figure:  # values: (N, R), NaN where a session has no figure
        known = ~np.isnan(values).all(axis=1)
        if not known.any():
            return Figure(math.nan, math.nan, math.nan)
        kept = values[known]
        per_task = np.nanmean(kept, axis=1)  # no all-NaN rows left
        cells = np.where(np.isnan(kept), per_task[:, None], kept)  # a figure-less attempt counts as its task's mean
        kept_labels = [label for label, k in zip(labels, known, strict=True) if k]
        replicates = stratified_bootstrap(cells[None, :, :], kept_labels, B=B, seed=seed)
        low, high = percentile_interval(replicates)[0]
        return Figure(float(per_task.mean()), float(low), float(high))

    def grid(pick) -> np.ndarray:
        return np.array([[pick(s) for s in scores[t]] for t in tasks], dtype=float)

    statuses: Counter = Counter()
    for t in tasks:
        for s in scores[t]:
            statuses.update(s.statuses)
    total = sum(statuses.values())
    return RunSessionSummary(
        sessions=len(tasks),
        attempts=R,
        proactivity=figure(grid(lambda s: s.proactivity)),
        completeness=figure(grid(lambda s: s.completeness)),
        turns=figure(grid(lambda s: s.turns)),
        statuses={s: statuses[s] for s in STATUSES},
        status_shares={s: statuses[s] / total if total else math.nan for s in STATUSES},
        turn_limit_sessions=sum(1 for r in records if r.ended_by == "turn_limit"),
    )


def status_distribution(records: Sequence[SessionRecord], categories: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """How many intents ended in each status, per category (task id -> category; tasks without one are
    under ""), categories in sorted order: the analysis view of where agents wait to be told."""
    out: dict[str, Counter] = {}
    for record in records:
        out.setdefault(categories.get(record.task_id, ""), Counter()).update(record.intents.values())
    return {category: {s: out[category][s] for s in STATUSES} for category in sorted(out)}
