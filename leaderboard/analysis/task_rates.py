"""How each model did on one task: per visible graded run, its attempts at the task, how many were
graded, how many were perfect, and the mean rubric score, from the same scores the leaderboard uses,
with the judge whose verdicts they count."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db.models import Count

from leaderboard.catalog.selectors import task_trajectories
from leaderboard.models import JudgeConfig
from leaderboard.scoring.metrics import PERFECT_THRESHOLD
from leaderboard.scoring.one_trajectory import default_judge_id, trajectory_scores
from trajectories.models import Judgment

if TYPE_CHECKING:
    from leaderboard.models import Run


@dataclass
class TaskRate:
    run: "Run"
    trajectories: list = field(default_factory=list)  # (trajectory, score or None), by attempt
    graded: int = 0
    perfect: int = 0
    score_sum: float = 0.0
    judge: str = ""  # the judge whose verdicts grade the attempts (the run's default judge), named on the page
    self_reported: int = 0  # verdicts of the author's own judge on these attempts: shown as such, never scored

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
    judge_ids = {pk: default_judge_id(row.run) for pk, row in rows.items() if row.graded}
    names: dict[int | None, str] = dict(
        JudgeConfig.objects.filter(pk__in=set(judge_ids.values()))
        .exclude(origin=JudgeConfig.Origin.SELF_REPORTED)
        .values_list("pk", "name")
    )
    for pk, judge_id in judge_ids.items():
        rows[pk].judge = names.get(judge_id, "")
    self_reported = JudgeConfig.Origin.SELF_REPORTED
    own = (
        Judgment.objects.filter(trajectory__in=[t.pk for t in trajectories], judge__origin=self_reported)
        .values_list("trajectory__run_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    for run_id, n in own:
        rows[run_id].self_reported = n
    return sorted(
        rows.values(),
        key=lambda r: (r.graded == 0, -(r.perfect / r.graded if r.graded else 0), -(r.mean_rubric or 0), r.run.name),
    )
