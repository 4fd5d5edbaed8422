"""Some trajectories' scores as the leaderboard counts them, without scoring their whole runs: what the
player, the task page's solve rates and the trajectory list show, rebuilt often while a run is being
judged. Same rules as leaderboard/scoring/outcomes.py (each run's default judge, its declared attempts,
the task's current rubric), read in a few small queries over the trajectories asked about instead of
every judgment of their runs; tests/leaderboard/scoring/test_one_trajectory_score.py holds the two equal."""

import time
from collections import Counter, defaultdict

from django.conf import settings
from django.db import connection
from django.db.models import Count, Sum

from leaderboard.models import JudgeConfig, RubricItem, Run, Task
from leaderboard.scoring.data_version import catalog_version
from leaderboard.scoring.outcomes import GRADED, score_cell, verdict_counts
from trajectories.models import Judgment, Step, Trajectory

SELF = JudgeConfig.Origin.SELF_REPORTED


def default_judge_id(run, self_reported: set[int] | None = None) -> int | None:
    """The judge a run is scored by (as outcomes._compute chooses it): its judge configuration when that
    judged anything in the run, else the judge with the most judged trajectories (ties: the oldest
    judge); authors' own verdicts never count. None when nothing can score it."""
    if self_reported is None:
        self_reported = set(JudgeConfig.objects.filter(origin=SELF).values_list("pk", flat=True))
    configured = run.judge_config_id
    if configured and configured not in self_reported:
        imported = Trajectory.objects.filter(run=run, imported_score__isnull=False, imported_score_judge_id=configured)
        if Judgment.objects.filter(trajectory__run=run, judge_id=configured).exists() or imported.exists():
            return configured
    pairs = set(Judgment.objects.filter(trajectory__run=run).values_list("judge_id", "trajectory_id").distinct())
    pairs |= set(
        Trajectory.objects.filter(
            run=run, imported_score__isnull=False, imported_score_judge_id__isnull=False
        ).values_list("imported_score_judge_id", "pk")
    )
    counts = Counter(judge for judge, _ in pairs if judge not in self_reported)
    if not counts:
        return configured
    return max(counts, key=lambda j: (counts[j], -j))


def _scored_attempts(run) -> set[int]:
    """The attempt numbers a run's grid holds: all of them, or its first ``attempts_per_task`` when
    declared (attempts beyond are not scored)."""
    numbers = sorted(
        set(Trajectory.objects.filter(run=run, task__suite_id=run.suite_id).values_list("attempt", flat=True))
    )
    return set(numbers[: run.attempts_per_task])


def trajectory_scores(trajectories) -> dict[int, float]:
    """{trajectory id: score} of those of ``trajectories`` (with ``run`` and ``task`` loaded) that
    ``outcomes.graded_scores(run)`` holds as graded; the others (unjudged, partly judged, errored,
    unfinished, outside the run's suite, an attempt beyond the declared number, a reported run) are
    left out."""
    wanted = [t for t in trajectories if not t.run.is_reported and t.task.suite_id == t.run.suite_id]
    if not wanted:
        return {}
    self_reported = set(JudgeConfig.objects.filter(origin=SELF).values_list("pk", flat=True))
    runs = {t.run_id: t.run for t in wanted}
    judge_of = {pk: default_judge_id(run, self_reported) for pk, run in runs.items()}
    attempts = {pk: _scored_attempts(run) for pk, run in runs.items() if run.attempts_per_task}
    wanted = [
        t
        for t in wanted
        if judge_of[t.run_id] is not None
        and judge_of[t.run_id] not in self_reported
        and (t.run_id not in attempts or t.attempt in attempts[t.run_id])
    ]
    if not wanted:
        return {}
    rubric = {
        row["task_id"]: (row["n"], row["w"] or 0.0)
        for row in RubricItem.objects.filter(task_id__in={t.task_id for t in wanted}, is_current=True)
        .values("task_id")
        .annotate(n=Count("id"), w=Sum("normalised_weight"))
        .order_by()
    }
    agg: dict[tuple[int, int], dict[bool, dict]] = defaultdict(dict)
    judgments = Judgment.objects.filter(trajectory__in=[t.pk for t in wanted], judge_id__in=set(judge_of.values()))
    for row in verdict_counts(judgments):
        agg[(row["trajectory_id"], row["judge_id"])][row["rubric_item__is_current"]] = row
    scores = {}
    for t in wanted:
        fields = {
            "pk": t.pk,
            "task_id": t.task_id,
            "status": t.status,
            "n_steps": t.n_steps,
            "error": t.error,
            "imported_score": t.imported_score,
            "imported_score_judge_id": t.imported_score_judge_id,
        }
        status, score, _, _ = score_cell(fields, judge_of[t.run_id], rubric, agg, "authored", False)
        if status == GRADED:
            scores[t.pk] = float(score)
    return scores


def trajectory_score(trajectory) -> float | None:
    """The score ``outcomes.graded_scores(trajectory.run)`` gives this one trajectory, or None."""
    return trajectory_scores([trajectory]).get(trajectory.pk)


# ------------------------------------------------------------------------------ one trajectory's page version

_run_memo: dict[int, tuple[float, str]] = {}


def _run_scoring_state(run_id: int) -> str:
    """What of a run decides how its trajectories are scored (its default judge, the attempts it
    scores), read at most once per refresh window per process (0: every time): within the window a
    page may show the last complete figures anyway."""
    window = settings.MYPCBENCH_PAGE_REFRESH_SECONDS
    now = time.monotonic()
    memo = _run_memo.get(run_id)
    if window > 0 and memo is not None and now - memo[0] < window:
        return memo[1]
    run = Run.objects.filter(pk=run_id).only("pk", "judge_config_id", "suite_id", "attempts_per_task").first()
    if run is None:
        return "no run"
    attempts = sorted(_scored_attempts(run)) if run.attempts_per_task else []
    state = f"{default_judge_id(run)}:{attempts}"
    _run_memo[run_id] = (now, state)
    return state


def trajectory_page_version(pk: int) -> str:
    """A key that moves whenever what one trajectory's page shows may change: its own row, steps and
    judgments (count and latest write; every save and bulk update moves ``updated_at``), its task and
    current rubric, the catalog counter (runs, models, judges, tasks), and how its run is scored. A
    judgment of another trajectory leaves it alone, so pages of trajectories nobody is judging stay
    cached while a run is judged. One query, plus the run's scoring state once per refresh window."""
    t, j, s, k, r = (m._meta.db_table for m in (Trajectory, Judgment, Step, Task, RubricItem))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT t.updated_at, t.run_id,"
            f" (SELECT COUNT(*) FROM {j} WHERE trajectory_id = t.id),"
            # GROUP BY keeps PostgreSQL on the trajectory_id index: a bare MAX(updated_at) walks the
            # whole updated_at index backwards to the first row of this trajectory (6 ms, not 0.3 ms)
            f" (SELECT MAX(updated_at) FROM {j} WHERE trajectory_id = t.id GROUP BY trajectory_id),"
            f" (SELECT COUNT(*) FROM {s} WHERE trajectory_id = t.id),"
            f" (SELECT MAX(updated_at) FROM {s} WHERE trajectory_id = t.id GROUP BY trajectory_id),"
            f" (SELECT updated_at FROM {k} WHERE id = t.task_id),"
            f" (SELECT COUNT(*) FROM {r} WHERE task_id = t.task_id AND is_current),"
            f" (SELECT MAX(id) FROM {r} WHERE task_id = t.task_id)"
            f" FROM {t} t WHERE t.id = %s",
            [pk],
        )
        row = cursor.fetchone()
    if row is None:
        return "missing"
    parts = [*row, catalog_version(), _run_scoring_state(row[1])]
    return "-".join(str(p).replace(" ", "_") for p in parts)  # no spaces: a cache key on every backend
