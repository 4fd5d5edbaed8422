"""The analysis of sessions: each run that recorded sessions with its Proactivity against its Completeness
(the gap is what the agent got right only once told), and how the hidden intents ended per category
(completed, inferred, provided, open), from leaderboard.scoring.session_runs."""

from dataclasses import dataclass, field
from typing import ClassVar

from leaderboard.analysis.queries import graded_runs, per_version
from leaderboard.models import Run
from leaderboard.scoring.filters import RunFilters
from leaderboard.scoring.session_runs import RunSessions, run_sessions
from leaderboard.scoring.sessions import STATUSES
from trajectories.models import Trajectory


@dataclass
class SessionFilters(RunFilters):
    """/analysis/sessions/: which runs (their suite, tool surface, provenance)."""

    OFFERED: ClassVar[tuple[str, ...]] = ("suite", "surface", "provenance")


@dataclass
class RunPoint:
    run: str
    slug: str
    proactivity: float | None  # percent
    completeness: float | None  # percent
    turns: float | None
    sessions: int
    user_simulator: str

    @property
    def gap(self) -> float | None:
        """Completeness minus Proactivity, in points."""
        if self.proactivity is None or self.completeness is None:
            return None
        return round(self.completeness - self.proactivity, 1)


@dataclass
class CategoryShares:
    run: str
    category: str
    counts: dict[str, int]
    shares: list[float] = field(default_factory=list)  # percent, in STATUSES order


def _pct(value: float) -> float | None:
    return None if value != value else round(100 * value, 1)  # NaN: no figure


def _analysis(runs: list[Run]) -> dict:
    with_sessions = set(
        Trajectory.objects.filter(run__in=runs, intent_statuses__isnull=False).values_list("run_id", flat=True)
    )
    points, categories = [], []
    for run in runs:
        if run.pk not in with_sessions:
            continue
        found: RunSessions | None = run_sessions(run)
        if found is None:
            continue
        s = found.summary
        turns = s.turns.value
        points.append(
            RunPoint(
                run.name,
                run.slug,
                _pct(s.proactivity.value),
                _pct(s.completeness.value),
                None if turns != turns else round(turns, 2),
                s.sessions,
                found.simulator_words(),
            )  # fmt: skip
        )
        for category, counts in found.by_category.items():
            total = sum(counts.values())
            shares = [round(100 * counts[k] / total, 1) if total else 0.0 for k in STATUSES]
            categories.append(CategoryShares(run.name, category or "no category", counts, shares))
    return {"points": points, "categories": categories, "statuses": list(STATUSES)}


def session_analysis(user, filters: SessionFilters, version: str | None = None) -> dict:
    """Proc against Comp per run and the status distribution per category, cached per data version."""
    runs = list(graded_runs(user, filters))
    return per_version("sessions", user, version, filters, lambda: _analysis(runs))
