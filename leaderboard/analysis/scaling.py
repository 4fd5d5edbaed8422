"""The scaling and shape page: perfect rate by apps touched and by apps count, step-budget curves,
performance profiles, action shapes from stored counts, and the published figures beside them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from django.db.models import IntegerField, Q, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from harness.actions import ACTION_KINDS
from leaderboard.analysis.heatmaps import Heatmap, graded_heatmap, heatmap_cells
from leaderboard.analysis.queries import (
    ScalingFilters,
    Scored,
    graded_runs,
    per_version,
    reported_scope,
    scored_runs,
    unknown_count,
)
from leaderboard.analysis.taxonomy import task_lookups
from leaderboard.catalog.selectors import slice_label
from leaderboard.models import APPS_TOUCHED_BINS, ReportedFigure, Run, Task
from leaderboard.scoring import metrics, outcomes
from leaderboard.scoring.filters import RunFilters
from trajectories.models import Trajectory

# -- scaling and shape ----------------------------------------------------------------------


@dataclass
class ActionShape:
    run: Run
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def shares(self) -> list[float]:
        total = self.total
        return [100 * self.counts.get(k, 0) / total if total else 0.0 for k in ACTION_KINDS]


def action_shapes(runs: list[Run], filters: RunFilters | None = None) -> list[ActionShape]:
    """Shares of click / type / key / scroll / drag / bash / editor actions per run over the
    filters' tasks (control steps such as wait and done are left out): the per-trajectory counts
    ingest stores (Trajectory.action_counts) summed in the database, one row per trajectory read
    whatever the number of steps (1 query)."""
    filters = filters or RunFilters()
    if not runs:
        return []
    sums = {f"n_{k}": Sum(Cast(KT(f"action_counts__{k}"), IntegerField())) for k in ACTION_KINDS}
    rows = (
        Trajectory.objects.filter(run_id__in=[r.pk for r in runs], **task_lookups(filters, "task__"))
        .values("run_id")
        .annotate(**sums)
        .order_by()
    )
    counts = {}
    for row in cast(Iterable[dict[str, Any]], rows):  # the keys are the n_<kind> annotations above
        found = {k: row[f"n_{k}"] for k in ACTION_KINDS if row[f"n_{k}"]}
        if found:
            counts[row["run_id"]] = found
    return [ActionShape(run=r, counts=counts[r.pk]) for r in runs if r.pk in counts]


def perfect_by_apps_touched(scored: list[Scored], task_slice: dict | None = None) -> Heatmap:
    """Perfect rate (%) per apps-touched bin per run, with intervals."""
    return graded_heatmap(scored, "bin", "perfect", task_slice)


def perfect_by_apps_count(scored: list[Scored]) -> Heatmap:
    """Perfect rate (%) per run against the exact number of apps a task touches (Task.apps_touched;
    tasks with no count recorded are left out), with n and intervals per cell (1 query)."""
    pks = {int(pk) for sc in scored for pk in sc.outcomes.task_pks}
    touched = dict(Task.objects.filter(pk__in=pks).values_list("pk", "apps_touched")) if pks else {}
    counts = sorted({c for c in touched.values() if c})
    keys = [str(c) for c in counts]

    def mask_of(o: outcomes.RunOutcomes, key: str) -> np.ndarray:
        return np.array([touched.get(int(pk)) == int(key) for pk in o.task_pks], dtype=bool)

    return Heatmap(
        id="graded-apps-count-perfect",
        title="Perfect rate % by number of apps touched",
        metric="perfect",
        row_labels=[sc.run.name for sc in scored],
        col_keys=keys,
        col_labels=keys,
        cells=heatmap_cells(scored, keys, "perfect", mask_of=mask_of, url_of=lambda run, key: ""),
    )


def step_budget_curve(o: outcomes.RunOutcomes, turn_budget: int) -> tuple[list[int], list[float]]:
    """Cumulative perfect rate (%) against steps used: the share of the suite's tasks whose first
    attempt was perfect within s steps, for s = 0 .. max(turn budget, largest step count)."""
    if not o.n_tasks:
        return [], []
    first_perfect = o.perfect[:, 0] == 1
    solved_at = o.steps[:, 0][first_perfect].astype(int)
    top = max(turn_budget, int(solved_at.max()) if solved_at.size else 0)
    hist = np.bincount(solved_at, minlength=top + 1)
    return list(range(top + 1)), [float(v) for v in np.cumsum(hist) * 100 / o.n_tasks]


PROFILE_TAUS = [round(float(x), 2) for x in np.linspace(0, 1, 21)]


def performance_profile(o: outcomes.RunOutcomes) -> list[float]:
    """Share (%) of tasks with a known outcome whose score (mean over attempts) is >= tau."""
    scores = o.task_scores()
    scores = scores[~np.isnan(scores)]
    if not scores.size:
        return [0.0 for _ in PROFILE_TAUS]
    return [float((scores >= tau - 1e-9).mean() * 100) for tau in PROFILE_TAUS]


@dataclass
class RunSummary:
    run: Run
    n_tasks: int
    counts: dict[str, int]
    unknown: int
    rubric: float | None  # percent over known cells
    perfect: float | None
    perfect_low: float | None
    perfect_high: float | None
    cost_usd: float | None
    judge_name: str
    attempts: int = 1  # most attempts of any task
    best_of_k: float | None = None  # percent; pass@k over the run's k attempts, only when k > 1
    input_tokens: int | None = None
    output_tokens: int | None = None

    @property
    def tokens(self) -> int | None:
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    @staticmethod
    def _count(n: int | None) -> str:
        return "—" if n is None else f"{n:,}"

    @property
    def tokens_text(self) -> str:
        return self._count(self.tokens)

    @property
    def input_tokens_text(self) -> str:
        return self._count(self.input_tokens)

    @property
    def output_tokens_text(self) -> str:
        return self._count(self.output_tokens)


def best_of_k(o: outcomes.RunOutcomes) -> float | None:
    """pass@k in percent for a run with k > 1 attempts: mean over tasks of 1 - (1 - p_i)^k, p_i =
    the task's share of perfect attempts (metrics.replay_expected_success). An upper bound, what
    a blind replay of the best attempt would score, never the headline; None for one attempt."""
    if o.attempts < 2:
        return None
    p = o.task_perfect()
    p = p[~np.isnan(p)]
    return 100 * metrics.replay_expected_success(p, o.attempts) if p.size else None


def run_summary(sc: Scored, usage: tuple | None = None) -> RunSummary:
    """The run's headline figures; ``usage`` = (input tokens, output tokens, cost) over a task
    slice, in place of the whole run's (RunOutcomes keeps those whole-run when sliced)."""
    o = sc.outcomes
    k, n = o.perfect_k_n()
    iv = metrics.wilson_interval(k, n) if o.attempts == 1 and n else None
    input_tokens, output_tokens, cost = usage or (o.input_tokens, o.output_tokens, o.cost_usd)
    return RunSummary(
        run=sc.run,
        n_tasks=o.n_tasks,
        counts=o.counts(),
        unknown=unknown_count(o),
        rubric=100 * o.mean_score() if n else None,
        perfect=100 * k / n if n else None,
        perfect_low=100 * iv[0] if iv else None,
        perfect_high=100 * iv[1] if iv else None,
        cost_usd=cost,
        judge_name=o.judge_name,
        attempts=o.attempts,
        best_of_k=best_of_k(o),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
    )


def sliced_usage(scored: list[Scored], filters: RunFilters) -> dict[int, tuple]:
    """(input tokens, output tokens, cost) per run over the trajectories of the filters' tasks,
    None where no trajectory recorded them (1 query)."""
    rows = (
        Trajectory.objects.filter(run_id__in=[sc.run.pk for sc in scored], **task_lookups(filters, "task__"))
        .values("run_id")
        .annotate(i=Sum("input_tokens"), o=Sum("output_tokens"), c=Sum("cost_usd"))
        .order_by()
    )
    usage: dict[int, tuple] = {sc.run.pk: (None, None, None) for sc in scored}
    for r in rows:
        usage[r["run_id"]] = (r["i"], r["o"], None if r["c"] is None else float(r["c"]))
    return usage


def reported_scaling(
    filters: RunFilters | None = None,
) -> tuple[list[tuple[str, list[str], list[float | None]]], list[tuple[str, float, str]]]:
    """Published perfect rate by apps-touched bin (one line per reported run; under a bin filter,
    that bin) and published bash shares of actions, each with its source (1 query; none of what
    the filters ask and the figures cannot answer: a behavioural type, an app, a judge)."""
    filters = filters or RunFilters()
    scope = reported_scope(filters)
    if scope is None or filters.type:
        return [], []
    wanted = Q(metric="perfect", slice_kind="apps_touched")
    if filters.bin:
        wanted = Q(metric="perfect", slice_kind="apps_touched", slice_value=filters.bin)
    else:
        wanted |= Q(metric="bash_share", slice_kind="overall")
    figures = (
        ReportedFigure.objects.filter(scope).filter(wanted).select_related("run", "run__model").order_by("run__name")
    )
    by_bin: dict[Run, dict[str, float]] = defaultdict(dict)
    bash = []
    for fig in figures:
        if fig.metric == "perfect":
            by_bin[fig.run][fig.slice_value] = fig.value
        else:
            bash.append((fig.run.name, fig.value, fig.source))
    keys = [b for b in APPS_TOUCHED_BINS if not filters.bin or b == filters.bin]
    bins = [slice_label("apps_touched", b) for b in keys]
    lines = [(run.name, bins, [vals.get(b) for b in keys]) for run, vals in by_bin.items()]
    return lines, bash


def scaling_and_shape(scored: list[Scored], filters: RunFilters | None = None) -> dict:
    """Everything the scaling-and-shape page shows for the filters: perfect rate by apps-touched
    bin, the step-budget curve, the performance profile, action shapes, score against cost and
    tokens (over the filters' tasks), single-attempt success beside best-of-k, and the published
    counterparts (a constant number of queries)."""
    filters = filters or ScalingFilters()
    by_bin_map = perfect_by_apps_touched(scored, filters.task_slice) if scored else None
    by_count_map = perfect_by_apps_count(scored) if scored else None
    by_bin = (
        [(label, by_bin_map.col_labels, [c.value for c in row]) for label, row in by_bin_map.rows] if by_bin_map else []
    )
    by_count = (
        [(label, [int(k) for k in by_count_map.col_keys], [c.value for c in row]) for label, row in by_count_map.rows]
        if by_count_map and by_count_map.col_keys
        else []
    )
    budget, profile, cost_points, token_points = [], [], [], []
    usage = sliced_usage(scored, filters) if filters.slices_tasks and scored else {}
    summaries = [run_summary(sc, usage.get(sc.run.pk)) for sc in scored]
    for sc, summary in zip(scored, summaries, strict=True):
        xs, ys = step_budget_curve(sc.outcomes, sc.run.turn_budget)
        if xs:
            budget.append((sc.run.name, xs, ys))
        profile.append((sc.run.name, PROFILE_TAUS, performance_profile(sc.outcomes)))
        if summary.cost_usd is not None and summary.rubric is not None:
            cost_points.append((sc.run.name, summary.cost_usd, summary.rubric))
        if summary.tokens is not None and summary.rubric is not None:
            token_points.append((sc.run.name, summary.tokens, summary.rubric))
    reported_by_bin, reported_bash = reported_scaling(filters)
    runs = list({sc.run.pk: sc.run for sc in scored}.values())
    return {
        "by_bin": by_bin,
        "by_bin_map": by_bin_map,
        "by_count": by_count,
        "by_count_map": by_count_map if by_count else None,
        "budget": budget,
        "budget_marks": [(name, [ys[min(s, len(ys) - 1)] for s in (10, 25, 50, 100)]) for name, xs, ys in budget],
        "profile": profile,
        "profile_marks": [(name, [ys[i] for i in (5, 10, 15, 20)]) for name, _, ys in profile],
        "shapes": action_shapes(runs, filters),
        "cost_points": cost_points,
        "token_points": token_points,
        "reported_by_bin": reported_by_bin,
        "reported_bash": reported_bash,
        "summaries": summaries,
        "several_attempts": any(s.attempts > 1 for s in summaries),
    }


def scaling(user, filters: ScalingFilters, version: str | None = None) -> dict:
    """What the scaling-and-shape page and GET /api/analysis/scaling show (one selector for both)."""

    def build():
        return scaling_and_shape(scored_runs(list(graded_runs(user, filters)), filters, version), filters)

    return per_version("scaling", user, version, filters, build)
