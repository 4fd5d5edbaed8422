"""The score a visitor looks for first, at the top of a run page and of the player, computed the way
the leaderboard counts it (so the numbers agree across pages)."""

from leaderboard import leaderboard
from leaderboard.leaderboard import BoardFilters
from trajectories import run_table


def run_rows(user, run) -> list:
    """The run's leaderboard rows (one per judge; a reported run's published figures), or []."""
    b = leaderboard.board(user, BoardFilters.from_query({"suite": run.suite.slug}))
    return [r for r in [*b.rows, *b.reported_rows] if r.run_slug == run.slug]


def trajectory_score(trajectory) -> float | None:
    """The trajectory's rubric score (0-1) by the judge its run is scored by; None until graded."""
    _judge, scores = run_table._scores(trajectory.run)
    return scores.get(trajectory.pk)
