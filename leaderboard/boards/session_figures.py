"""Session figures as the run page and the leaderboard show them: Proactivity and Completeness in percent
and turns, each with its 95% bootstrap interval (leaderboard.scoring.session_runs), the status counts,
and who played the user beside them."""

import math
from dataclasses import dataclass

from leaderboard.boards.rows import Interval
from leaderboard.models import Run
from leaderboard.scoring.session_runs import run_sessions
from leaderboard.scoring.sessions import Figure
from trajectories.models import Trajectory


@dataclass
class SessionFigures:
    proactivity: Interval  # percent
    completeness: Interval  # percent
    turns: Interval
    sessions: int
    attempts: int
    statuses: dict[str, int]
    turn_limit_sessions: int
    user_simulator: str
    by_category: dict[str, dict[str, int]]
    note: str = ""

    @property
    def gap(self) -> float | None:
        """Completeness minus Proactivity, in points: what the agent got only once told."""
        if self.proactivity.value is None or self.completeness.value is None:
            return None
        return round(self.completeness.value - self.proactivity.value, 1)


def _interval(figure: Figure, scale: float, places: int) -> Interval:
    if math.isnan(figure.value):
        return Interval(None, places=places)
    low = None if math.isnan(figure.low) else figure.low * scale
    high = None if math.isnan(figure.high) else figure.high * scale
    return Interval(figure.value * scale, low, high, places=places)


def run_figures(run: Run) -> SessionFigures | None:
    """The run's session figures, None when it recorded no session."""
    found = run_sessions(run)
    if found is None:
        return None
    s = found.summary
    return SessionFigures(
        proactivity=_interval(s.proactivity, 100, 1),
        completeness=_interval(s.completeness, 100, 1),
        turns=_interval(s.turns, 1, 1),
        sessions=s.sessions,
        attempts=s.attempts,
        statuses=s.statuses,
        turn_limit_sessions=s.turn_limit_sessions,
        user_simulator=found.simulator_words(),
        by_category=found.by_category,
        note=found.note,
    )


def runs_with_sessions(slugs) -> set[str]:
    """Which of the runs named recorded sessions (one query)."""
    return set(
        Trajectory.objects.filter(run__slug__in=list(slugs), intent_statuses__isnull=False)
        .values_list("run__slug", flat=True)
        .distinct()
    )


def board_figures(rows) -> dict[str, SessionFigures]:
    """Session figures of the board's graded rows that have sessions, by run slug."""
    slugs = runs_with_sessions(r.run_slug for r in rows if not r.reported)
    figures = {}
    for run in Run.objects.filter(slug__in=slugs):
        found = run_figures(run)
        if found is not None:
            figures[run.slug] = found
    return figures
