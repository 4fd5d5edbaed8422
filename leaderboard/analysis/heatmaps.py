"""The heatmaps page: graded runs by behavioural type, apps-touched bin or app (cells link to the
trajectories behind them), and the published figures of reported runs beside them."""

from __future__ import annotations

import dataclasses
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from django.urls import reverse
from django.utils.http import urlencode

from leaderboard.analysis.queries import (
    BOOTSTRAP_B,
    DIMENSIONS,
    METRICS,
    HeatmapFilters,
    Scored,
    graded_runs,
    per_version,
    reported_scope,
    scored_runs,
)
from leaderboard.catalog.selectors import slice_label
from leaderboard.models import APPS_TOUCHED_BINS, App, BehaviouralType, ReportedFigure, Suite, Task
from leaderboard.scoring import bootstrap, metrics, outcomes
from leaderboard.scoring.filters import RunFilters

# -- heatmaps -------------------------------------------------------------------------------


@dataclass
class Cell:
    value: float | None  # percent
    n: int = 0
    low: float | None = None  # percent
    high: float | None = None
    incomplete: int = 0
    url: str = ""

    # display text, written here rather than with template filters: a heatmap table has hundreds
    @property
    def value_text(self) -> str:
        return "" if self.value is None else f"{self.value:.1f}"

    @property
    def interval_text(self) -> str:
        return "" if self.low is None or self.high is None else f"{self.low:.0f}–{self.high:.0f}"


@dataclass
class Heatmap:
    id: str
    title: str
    metric: str  # "rubric" or "perfect"
    row_labels: list[str]
    col_keys: list[str]
    col_labels: list[str]
    cells: list[list[Cell]]
    reported: bool = False
    source: str = ""
    note: str = ""
    # how charts.js builds a cell's link without a URL per cell: link_base?run=<row key>&<name>=
    # <value>..., a None value standing for the cell's column key
    row_keys: list[str] = field(default_factory=list)  # run slugs
    link_base: str = ""
    link_query: list[tuple[str, str | None]] = field(default_factory=list)

    @property
    def rows(self):
        return list(zip(self.row_labels, self.cells, strict=True))


def trajectory_list_base() -> str:
    """The trajectory list, which a heatmap cell opens filtered (?run=...&type=...&bin=...&app=...)."""
    return reverse("trajectories:trajectory_list")


def _columns(dimension: str, scored: list[Scored], task_slice: dict) -> list[tuple[str, str]]:
    """The columns of a map: every behavioural type or bin (the one filtered on, if any), or the
    apps of the scored tasks."""
    chosen = task_slice.get(dimension, "")
    if dimension == "type":
        return [(k, label) for k, label in BehaviouralType.choices if not chosen or k == chosen]
    if dimension == "bin":
        return [(b, slice_label("apps_touched", b)) for b in APPS_TOUCHED_BINS if not chosen or b == chosen]
    slugs = {slug for sc in scored for apps in sc.outcomes.task_apps for slug in apps}
    names = dict(App.objects.filter(slug__in=slugs).values_list("slug", "name")) if slugs else {}
    return sorted(((slug, names.get(slug, slug)) for slug in slugs), key=lambda kv: kv[1].lower())


def _mask(o: outcomes.RunOutcomes, dimension: str, key: str) -> np.ndarray:
    if dimension == "type":
        return o.task_mask(behavioural_type=key)
    if dimension == "bin":
        return o.task_mask(apps_touched_bin=key)
    return o.task_mask(app=key)


def graded_heatmap(scored: list[Scored], dimension: str, metric: str, task_slice: dict | None = None) -> Heatmap:
    """Runs x (behavioural type | apps-touched bin | app). A cell is the run's mean over the
    suite's tasks in that column under the scoring rules (missing and failed trajectories count
    0; incomplete grading is left out and counted). Intervals: Wilson for a single-attempt
    perfect rate, else a paired bootstrap over the column's tasks (then attempts). ``task_slice``
    (the filters' type, bin, app; the outcomes are already restricted to it) goes into each cell's
    link, so it opens exactly the trajectories behind the cell."""
    task_slice = task_slice or {}
    cols = _columns(dimension, scored, task_slice)
    base = trajectory_list_base()
    cells = heatmap_cells(
        scored,
        [key for key, _ in cols],
        metric,
        mask_of=lambda o, key: _mask(o, dimension, key),
        url_of=lambda run, key: f"{base}?{urlencode({'run': run.slug, **task_slice, dimension: key})}",
    )
    return Heatmap(
        id=f"graded-{dimension}-{metric}",
        title=f"{METRICS[metric]} by {DIMENSIONS[dimension]}",
        metric=metric,
        row_labels=[sc.run.name for sc in scored],
        col_keys=[k for k, _ in cols],
        col_labels=[label for _, label in cols],
        cells=cells,
        row_keys=[sc.run.slug for sc in scored],
        link_base=base,
        link_query=list({**task_slice, dimension: None}.items()),
    )


def heatmap_cells(scored: list[Scored], keys: list[str], metric: str, mask_of, url_of) -> list[list[Cell]]:
    """One Cell per (run, column): ``mask_of(outcomes, key)`` picks the column's tasks,
    ``url_of(run, key)`` links the trajectories behind it ("" for none). The bootstrap runs only
    for the runs that need it (not for a single-attempt perfect rate, which has Wilson's)."""
    cells = [[Cell(value=None) for _ in keys] for _ in scored]
    by_suite: dict[int, list[int]] = defaultdict(list)
    for i, sc in enumerate(scored):
        by_suite[sc.outcomes.suite_id].append(i)
    values = "perfect" if metric == "perfect" else "score"
    for j, key in enumerate(keys):
        for idxs in by_suite.values():
            mask = mask_of(scored[idxs[0]].outcomes, key)
            if not mask.any():
                continue
            subsets = [scored[i].outcomes.subset(mask) for i in idxs]
            wilson = [metric == "perfect" and sub.attempts == 1 for sub in subsets]
            # the paired draws depend on the column's tasks and the most attempts, not on which
            # runs are resampled: leaving out the Wilson rows changes no other row's interval
            boot = [row for row, w in enumerate(wilson) if not w]
            ivs = {}
            if boot:
                reps = bootstrap.bootstrap_replicates([subsets[row] for row in boot], values, B=BOOTSTRAP_B)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: nothing known
                    ivs = dict(zip(boot, np.nanquantile(reps, [0.025, 0.975], axis=1).T, strict=True))
            for row, (i, sub) in enumerate(zip(idxs, subsets, strict=True)):
                cell = cells[i][j]
                k, n = sub.perfect_k_n()
                cell.n = n
                cell.incomplete = int(np.isnan(sub.scores).sum())  # the unknown statuses' cells
                cell.url = url_of(scored[i].run, key)
                if not n:
                    continue
                if metric == "perfect":
                    cell.value = 100 * k / n
                    if wilson[row]:
                        low, high = cast(tuple[float, float], metrics.wilson_interval(k, n))  # n > 0 here
                        cell.low, cell.high = 100 * low, 100 * high
                        continue
                else:
                    cell.value = 100 * sub.mean_score()
                if not np.isnan(ivs[row]).any():
                    cell.low, cell.high = float(ivs[row][0] * 100), float(ivs[row][1] * 100)
    return cells


def heatmaps(user, filters: HeatmapFilters, version: str | None = None) -> list[Heatmap]:
    """Every heatmap of the heatmaps page and GET /api/analysis/heatmaps for these filters:
    graded runs by behavioural type, apps-touched bin and app, then the published per-slice
    figures that answer the filters."""

    def build():
        scored = scored_runs(list(graded_runs(user, filters)), filters, version)
        graded = [graded_heatmap(scored, dim, filters.metric, filters.task_slice) for dim in DIMENSIONS]
        graded += domain_heatmaps(scored, filters.metric)  # OSWorld suites: runs x domain
        return [hm for hm in [*graded, *reported_heatmaps(filters)] if hm.row_labels and hm.col_labels]

    return per_version("heatmaps", user, version, filters, build)


def reported_heatmaps(filters: RunFilters) -> list[Heatmap]:
    """Published per-slice figures (by behavioural type, by apps-touched bin) as heatmaps, one
    per result set and slice, labelled as reported and without intervals (1 query; none when the
    filters ask what they cannot answer). A type filter keeps the by-type map's column and drops
    the by-bin map (published over every type); a bin filter likewise."""
    scope = reported_scope(filters)
    kinds = [k for k, other in (("task_type", filters.bin), ("apps_touched", filters.type)) if not other]
    if scope is None or not kinds:
        return []
    metric = filters.metric
    figures = (
        ReportedFigure.objects.filter(scope, metric=metric, slice_kind__in=kinds)
        .select_related("run", "run__model")
        .order_by("run__name")
    )
    groups: dict[tuple[str, str], list[ReportedFigure]] = defaultdict(list)
    for fig in figures:
        groups[(fig.run.metadata.get("result_set", fig.run.source), fig.slice_kind)].append(fig)
    maps = []
    for (set_id, kind), figs in groups.items():
        meta = figs[0].run.metadata
        keys = BehaviouralType.values if kind == "task_type" else list(APPS_TOUCHED_BINS)
        chosen = filters.type if kind == "task_type" else filters.bin
        keys = [k for k in keys if not chosen or k == chosen]
        present = {f.slice_value for f in figs}
        keys = [k for k in keys if k in present]
        runs = sorted({f.run for f in figs}, key=lambda r: (r.metadata.get("model_position", 99), r.model.name))
        value = {(f.run_id, f.slice_value): f.value for f in figs}
        maps.append(
            Heatmap(
                id=f"reported-{set_id}-{kind}-{metric}",
                title=f"{METRICS[metric]} by {'behavioural type' if kind == 'task_type' else 'apps touched'}",
                metric=metric,
                row_labels=[r.model.name for r in runs],
                col_keys=keys,
                col_labels=[slice_label(kind, k) for k in keys],
                cells=[[Cell(value=value.get((r.pk, k))) for k in keys] for r in runs],
                reported=True,
                source=figs[0].source,
                note=meta.get("result_set_label", set_id),
            )
        )
    order = {"task_type": 0, "apps_touched": 1}
    return sorted(maps, key=lambda m: (m.note, order.get(m.id.split("-")[-2], 9)))


def reported_elsewhere(filters: HeatmapFilters, shown: list[Heatmap]) -> list[Heatmap]:
    """Reported maps published only under the other metric, so the metric switch can say where
    a map went instead of dropping it silently (1 query)."""
    metric = filters.metric
    other = "perfect" if metric == "rubric" else "rubric"
    ids = {hm.id for hm in shown}
    found = reported_heatmaps(dataclasses.replace(filters, metric=other))
    return [hm for hm in found if hm.row_labels and hm.id.removesuffix(f"-{other}") + f"-{metric}" not in ids]


# The OSWorld suites' own heatmap: runs x domain (chrome, gimp, os, multi_apps, ...), a cell being the
# run's mean evaluator score over the domain's tasks of the suite, under the same scoring rules and
# intervals as the MyPCBench maps (missing tasks count 0). MyPCBench suites have no domain map: their
# categories are not the paper's slices.
def domain_heatmaps(scored: list, metric: str) -> list:
    """One heatmap of the scored runs on OSWorld suites by domain, or none. A cell links to the run's
    trajectories in that domain (?run=...&domain=...)."""
    suite_ids = {sc.outcomes.suite_id for sc in scored}
    osworld = set(Suite.objects.filter(pk__in=suite_ids, kind=Suite.Kind.OSWORLD).values_list("pk", flat=True))
    rows = [sc for sc in scored if sc.outcomes.suite_id in osworld]
    if not rows:
        return []
    domain_of = dict(Task.objects.filter(suite_id__in=osworld).values_list("pk", "category"))
    keys = sorted(set(domain_of.values()))
    base = trajectory_list_base()
    cells = heatmap_cells(
        rows,
        keys,
        metric,
        mask_of=lambda o, key: np.array([domain_of.get(pk) == key for pk in o.task_pks], dtype=bool),
        url_of=lambda run, key: f"{base}?{urlencode({'run': run.slug, 'domain': key})}",
    )
    return [
        Heatmap(
            id=f"graded-domain-{metric}",
            title=f"{METRICS[metric]} by OSWorld domain",
            metric=metric,
            row_labels=[sc.run.name for sc in rows],
            col_keys=keys,
            col_labels=keys,
            cells=cells,
            row_keys=[sc.run.slug for sc in rows],
            link_base=base,
            link_query=[("domain", None)],
        )
    ]
