"""The model page and per-run outcomes on a task: a model's visible runs with headline and
per-type figures, reported runs as published, never mixed with graded ones."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.http import Http404

from leaderboard.analysis.queries import graded_runs, scored_runs
from leaderboard.analysis.scaling import run_summary
from leaderboard.catalog.selectors import visible_runs
from leaderboard.models import BehaviouralType, Model, ReportedFigure, Run, Task
from leaderboard.scoring import outcomes

# -- model page and task outcomes -----------------------------------------------------------


def model_detail(user, slug: str) -> dict:
    """The model, its visible runs (graded and reported) with headline and per-type figures
    (reported runs as published, never mixed with graded ones)."""
    model = Model.objects.filter(slug=slug).first()
    if model is None:
        raise Http404(f"No model {slug!r}")
    runs = list(
        visible_runs(user).filter(model=model).select_related("model", "suite", "judge_config").order_by("name")
    )
    if not runs and Run.objects.filter(model=model).exists():
        # only unpublished runs (an upload awaiting review): the model has no public page yet
        raise Http404(f"No model {slug!r}")
    reported = [r for r in runs if r.is_reported]
    scored = scored_runs([r for r in runs if not r.is_reported])
    figures: dict[int, dict] = defaultdict(dict)
    if reported:
        for fig in ReportedFigure.objects.filter(run__in=reported, slice_kind__in=["overall", "task_type"]):
            figures[fig.run_id][(fig.metric, fig.slice_kind, fig.slice_value)] = fig.value
    type_rows = []
    for key, label in BehaviouralType.choices:
        graded = []
        for sc in scored:
            sub = sc.outcomes.subset(sc.outcomes.task_mask(behavioural_type=key))
            _k, n = sub.perfect_k_n()
            graded.append({"rubric": 100 * sub.mean_score() if n else None, "n": n})
        type_rows.append(
            {
                "label": label,
                "graded": graded,
                "reported": [figures[r.pk].get(("rubric", "task_type", key)) for r in reported],
            }
        )
    return {
        "model": model,
        "summaries": [run_summary(sc) for sc in scored],
        "reported_rows": [
            {
                "run": r,
                "perfect": figures[r.pk].get(("perfect", "overall", "")),
                "rubric": figures[r.pk].get(("rubric", "overall", "")),
            }
            for r in reported
        ],
        "type_rows": type_rows,
        "scored": scored,
        "reported_runs": reported,
    }


@dataclass
class TaskOutcome:
    run: Run
    attempt: int
    trajectory_id: int  # 0 when the run has no trajectory for this task
    status: str  # a leaderboard.scoring status
    score: float | None  # percent; None while grading is incomplete
    perfect: bool
    steps: int
    judge_name: str


def task_outcomes(task: Task, user) -> list[TaskOutcome]:
    """Every visible graded run of the task's suite with its outcome on this task, scored as on
    the leaderboard (leaderboard.scoring; a run without a trajectory shows as missing)."""
    runs = list(graded_runs(user).filter(suite_id=task.suite_id))
    out = []
    for sc in scored_runs(runs):
        o = sc.outcomes
        where = np.flatnonzero(o.task_pks == task.pk)
        if not where.size:
            continue
        i = int(where[0])
        for a in range(o.attempts):
            status = str(o.status[i, a])
            if status == outcomes.MISSING and a > 0:
                continue  # fewer attempts on this task than the run's most
            score = o.scores[i, a]
            out.append(
                TaskOutcome(
                    run=sc.run,
                    attempt=a,
                    trajectory_id=int(o.trajectory_ids[i, a]),
                    status=status,
                    score=None if np.isnan(score) else float(score * 100),
                    perfect=bool(o.perfect[i, a] == 1),
                    steps=int(o.steps[i, a]),
                    judge_name=o.judge_name,
                )
            )
    return out
