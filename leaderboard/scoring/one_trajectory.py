"""One trajectory's score as the leaderboard counts it, without scoring its whole run: what the player
page shows, rebuilt often while a run is being judged. Same rules as leaderboard/scoring/outcomes.py
(the run's default judge, its declared attempts, the task's current rubric), read in a few small queries
instead of every judgment of the run; tests/test_one_trajectory_score.py holds the two equal."""

from collections import Counter

from django.db.models import Count, Q, Sum

from leaderboard.models import JudgeConfig, RubricItem
from leaderboard.scoring.outcomes import GRADED, score_cell
from trajectories.models import Judgment, Trajectory

SELF = JudgeConfig.Origin.SELF_REPORTED


def default_judge_id(run) -> int | None:
    """The judge a run is scored by (as outcomes._compute chooses it): its judge configuration when that
    judged anything in the run, else the judge with the most judged trajectories (ties: the oldest
    judge); authors' own verdicts never count. None when nothing can score it."""
    self_reported = set(JudgeConfig.objects.filter(origin=SELF).values_list("pk", flat=True))
    configured = run.judge_config_id
    if configured and configured not in self_reported:
        imported = Trajectory.objects.filter(run=run, imported_score__isnull=False, imported_score_judge_id=configured)
        judged = Judgment.objects.filter(trajectory__run=run, judge_id=configured).exists() or imported.exists()
        if judged:
            return configured
    pairs = set(Judgment.objects.filter(trajectory__run=run).values_list("judge_id", "trajectory_id").distinct())
    pairs |= set(
        Trajectory.objects.filter(
            run=run, imported_score__isnull=False, imported_score_judge_id__isnull=False
        ).values_list("imported_score_judge_id", "pk")
    )
    counts = Counter(judge for judge, _ in pairs if judge not in self_reported)
    if not counts:
        return None if configured in self_reported else configured
    return max(counts, key=lambda j: (counts[j], -j))


def trajectory_score(trajectory) -> float | None:
    """The score ``outcomes.graded_scores(trajectory.run)`` gives this trajectory, or None when it is not
    graded (unjudged, partly judged, errored, unfinished, outside the run's suite, an attempt beyond the
    run's declared number, a reported run)."""
    run = trajectory.run
    if run.is_reported or trajectory.task.suite_id != run.suite_id:
        return None
    if run.attempts_per_task:
        numbers = sorted(
            set(Trajectory.objects.filter(run=run, task__suite_id=run.suite_id).values_list("attempt", flat=True))
        )
        if numbers.index(trajectory.attempt) >= run.attempts_per_task:
            return None
    judge_id = default_judge_id(run)
    if judge_id is None or JudgeConfig.objects.filter(pk=judge_id, origin=SELF).exists():
        return None
    current = RubricItem.objects.filter(task_id=trajectory.task_id, is_current=True).aggregate(
        n=Count("id"), w=Sum("normalised_weight")
    )
    rubric = {trajectory.task_id: (current["n"], current["w"] or 0.0)}
    success = Q(verdict=Judgment.Verdict.SUCCESS)
    agg = {(trajectory.pk, judge_id): {}}
    for row in (
        Judgment.objects.filter(trajectory=trajectory, judge_id=judge_id)
        .values("rubric_item__is_current")
        .annotate(
            n=Count("id"),
            ok=Count("id", filter=success),
            err=Count("id", filter=Q(verdict=Judgment.Verdict.ERROR)),
            w_ok=Sum("rubric_item__normalised_weight", filter=success),
            w=Sum("rubric_item__normalised_weight"),
        )
        .order_by()
    ):
        agg[(trajectory.pk, judge_id)][row["rubric_item__is_current"]] = row
    t = {
        "pk": trajectory.pk,
        "task_id": trajectory.task_id,
        "status": trajectory.status,
        "n_steps": trajectory.n_steps,
        "error": trajectory.error,
        "imported_score": trajectory.imported_score,
        "imported_score_judge_id": trajectory.imported_score_judge_id,
    }
    status, score, _, _ = score_cell(t, judge_id, rubric, agg, "authored", False)
    return float(score) if status == GRADED else None
