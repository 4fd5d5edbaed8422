"""How each model did on one task: per visible graded run, its attempts at the task, how many were
graded, how many were perfect, and the mean rubric score, from the same scores the leaderboard uses."""

from dataclasses import dataclass, field

from leaderboard.catalog.selectors import task_trajectories
from leaderboard.scoring.metrics import PERFECT_THRESHOLD
from leaderboard.scoring.one_trajectory import trajectory_scores


@dataclass
class TaskRate:
    run: object
    trajectories: list = field(default_factory=list)  # (trajectory, score or None), by attempt
    graded: int = 0
    perfect: int = 0
    score_sum: float = 0.0

    @property
    def mean_rubric(self) -> float | None:
        return 100 * self.score_sum / self.graded if self.graded else None


def task_solve_rates(task, user) -> list[TaskRate]:
    """One row per visible run with trajectories on ``task`` (reported runs have none), best first:
    most perfect attempts, then the highest mean rubric score; runs with nothing graded last."""
    rows: dict[int, TaskRate] = {}
    trajectories = list(task_trajectories(task, user).select_related("task"))
    scores = trajectory_scores(trajectories)  # this task's trajectories only, not their whole runs
    for trajectory in trajectories:
        run = trajectory.run
        if run.pk not in rows:
            rows[run.pk] = TaskRate(run)
        score = scores.get(trajectory.pk)
        row = rows[run.pk]
        row.trajectories.append((trajectory, score))
        if score is not None:
            row.graded += 1
            row.score_sum += score
            row.perfect += score >= PERFECT_THRESHOLD
    return sorted(
        rows.values(),
        key=lambda r: (r.graded == 0, -(r.perfect / r.graded if r.graded else 0), -(r.mean_rubric or 0), r.run.name),
    )
