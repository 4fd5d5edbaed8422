"""Read-side data for the analysis pages (heatmaps, failure taxonomy, scaling and shape, model
pages, per-run outcomes on a task): aggregated in the database, a constant number of queries.
The heatmap, taxonomy and scaling pages take the leaderboard's run filters (selectors.RunFilters:
suite, tool surface, judge, provenance, behavioural type, apps-touched bin, app, weighting), each
page only those that make sense on it, and select runs and tasks through the same selectors."""

from __future__ import annotations

import dataclasses
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from django.core.cache import cache
from django.db.models import Count, F, IntegerField, Q, QuerySet, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.http import Http404
from django.urls import reverse
from django.utils.http import urlencode

from harness.actions import ACTION_KINDS
from leaderboard import domains, metrics, scoring
from leaderboard.models import APPS_TOUCHED_BINS, App, BehaviouralType, Model, ReportedFigure, Run, Task
from leaderboard.selectors import (
    RunFilters,
    filtered_runs,
    scored_slice,
    sees_unpublished,
    slice_label,
    visible_runs,
)
from trajectories.models import FailureMode, Judgment, Trajectory

BOOTSTRAP_B = 1000
TYPE_LABELS = dict(BehaviouralType.choices)
MODE_LABELS = {**dict(FailureMode.choices), "": "Not classified"}
METRICS = {"rubric": "Rubric score %", "perfect": "Perfect rate %"}
DIMENSIONS = {"type": "behavioural type", "bin": "apps touched", "app": "app"}
CACHE_SECONDS = 3600
SLICE_FILTERS = ("suite", "surface", "judge", "provenance", "type", "bin", "app")


# -- filters: the leaderboard's, each page offering those that make sense on it -------------


@dataclass
class HeatmapFilters(RunFilters):
    """/analysis/: which runs and tasks, the rubric weighting, and the metric the cells show."""

    OFFERED: ClassVar[tuple[str, ...]] = (*SLICE_FILTERS, "weighting", "metric")
    metric: str = "rubric"


@dataclass
class TaxonomyFilters(RunFilters):
    """/analysis/failures/: which runs and tasks (failed items are counted: no weighting, no metric)."""

    OFFERED: ClassVar[tuple[str, ...]] = SLICE_FILTERS


@dataclass
class ScalingFilters(RunFilters):
    """/analysis/scaling/: which runs and tasks and the rubric weighting (each chart has its metric)."""

    OFFERED: ClassVar[tuple[str, ...]] = (*SLICE_FILTERS, "weighting")


def _per_version(name: str, user, version: str | None, filters: RunFilters, build):
    """What a page and its API endpoint show, computed once per data version, audience and filter
    state (the bootstrap per cell is the costly part; staff pages are not cached whole, so this
    spares them)."""
    state = urlencode(sorted(filters.as_query().items()))
    key = f"analysis:{name}:{version or scoring.data_version()}:{sees_unpublished(user)}:{state}"
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found, CACHE_SECONDS)
    return found


# -- per-run, per-task outcomes of graded runs ---------------------------------------------


def graded_runs(user, filters: RunFilters | None = None) -> QuerySet[Run]:
    """Visible runs scored from judgments (everything except published figures), narrowed by the
    filters' suite ("" = every suite), tool surface and provenance."""
    filters = filters or RunFilters()
    runs = filtered_runs(user, filters, None).exclude(provenance=Run.Provenance.REPORTED)
    if filters.suite:
        runs = runs.filter(suite__slug=filters.suite)
    return runs.select_related("model", "suite", "judge_config").order_by("model__name", "name")


@dataclass
class Scored:
    """A graded run with its outcomes (leaderboard.scoring), scored by its default judge or the
    filters' judge, restricted to the filters' tasks."""

    run: Run
    outcomes: scoring.RunOutcomes


def scored_runs(runs: list[Run], filters: RunFilters | None = None, version: str | None = None) -> list[Scored]:
    """The runs scored through the leaderboard's selector (selectors.scored_slice), in ``runs``
    order; a run the filters' judge did not judge drops out."""
    by_pk = {r.pk: r for r in runs}
    order = {r.pk: i for i, r in enumerate(runs)}
    outcomes = scored_slice(runs, filters or RunFilters(), version)
    return [Scored(by_pk[o.run_id], o) for o in sorted(outcomes, key=lambda o: order[o.run_id])]


def _reported_scope(filters: RunFilters) -> Q | None:
    """Which published figures answer the filters, or None when none can: published figures are
    over every task for the source's judge, so a judge or app filter, or a graded provenance,
    leaves them out (as on the leaderboard); the behavioural type and the apps-touched bin are
    handled per slice by the callers."""
    if filters.judge or filters.app or filters.provenance not in ("", Run.Provenance.REPORTED):
        return None
    q = Q(run__provenance=Run.Provenance.REPORTED, run__publication=Run.Publication.PUBLISHED)
    if filters.suite:
        q &= Q(run__suite__slug=filters.suite)
    if filters.surface:
        q &= Q(run__tool_surface=filters.surface)
    return q


def _unknown(o: scoring.RunOutcomes) -> int:
    counts = o.counts()
    return sum(counts[s] for s in scoring.UNKNOWN_STATUSES)


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


def _mask(o: scoring.RunOutcomes, dimension: str, key: str) -> np.ndarray:
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
    cells = _cells(
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


def _cells(scored: list[Scored], keys: list[str], metric: str, mask_of, url_of) -> list[list[Cell]]:
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
                reps = scoring.bootstrap_replicates([subsets[row] for row in boot], values, B=BOOTSTRAP_B)
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
                        low, high = metrics.wilson_interval(k, n)
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
        graded += domains.domain_heatmaps(scored, filters.metric)  # OSWorld suites: runs x domain
        return [hm for hm in [*graded, *reported_heatmaps(filters)] if hm.row_labels and hm.col_labels]

    return _per_version("heatmaps", user, version, filters, build)


def reported_heatmaps(filters: RunFilters) -> list[Heatmap]:
    """Published per-slice figures (by behavioural type, by apps-touched bin) as heatmaps, one
    per result set and slice, labelled as reported and without intervals (1 query; none when the
    filters ask what they cannot answer). A type filter keeps the by-type map's column and drops
    the by-bin map (published over every type); a bin filter likewise."""
    scope = _reported_scope(filters)
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


# -- failure taxonomy -----------------------------------------------------------------------


@dataclass
class TaxonomyTable:
    """Failed rubric items counted by failure mode for each row (a model or a family)."""

    title: str
    row_labels: list[str]
    row_keys: list[str]
    modes: list[str]
    counts: list[list[int]]
    urls: list[list[str]] = field(default_factory=list)
    rows_are_models: bool = False  # row keys are model slugs: labels link to the model pages
    reported: bool = False
    source: str = ""
    note: str = ""

    @property
    def mode_labels(self) -> list[str]:
        return [MODE_LABELS.get(m, m) for m in self.modes]

    @property
    def rows(self):
        """(label, [(count, url)], total, model page or "") per row."""
        urls = self.urls or [[""] * len(self.modes) for _ in self.row_labels]
        return [
            (
                label,
                [(c, u) for c, u in zip(counts, row_urls, strict=True)],
                sum(counts),
                reverse("leaderboard:model_detail", args=[key]) if self.rows_are_models else "",
            )
            for key, label, counts, row_urls in zip(self.row_keys, self.row_labels, self.counts, urls, strict=True)
        ]


def failed_judgments(scored: list[Scored], filters: RunFilters) -> QuerySet[Judgment]:
    """Failed verdicts on current rubric items of the scored runs, each run counted under the
    judge that scores it (its default judge, or the filters' judge), on the filters' tasks."""
    runs_of: dict[int, list[int]] = defaultdict(list)
    for sc in scored:
        if sc.outcomes.judge_id is not None:
            runs_of[sc.outcomes.judge_id].append(sc.run.pk)
    # one condition per judge, not per run: SQLite then uses its indexes (10x at 30 runs)
    by_judge = Q(pk__in=[])
    for judge_id, run_ids in runs_of.items():
        by_judge |= Q(judge_id=judge_id, trajectory__run_id__in=run_ids)
    qs = Judgment.objects.filter(by_judge, verdict=Judgment.Verdict.FAILURE, rubric_item__is_current=True)
    return qs.filter(**_task_lookups(filters, "trajectory__task__"))


def _task_lookups(filters: RunFilters, prefix: str) -> dict:
    """ORM lookups of the filters' task slice, from a model related to Task through ``prefix``."""
    lookups = {}
    if filters.type:
        lookups[prefix + "behavioural_type"] = filters.type
    if filters.bin:
        lookups[prefix + "apps_touched_bin"] = filters.bin
    if filters.app:
        lookups[prefix + "apps__slug"] = filters.app
    return lookups


def graded_taxonomy(scored: list[Scored], filters: RunFilters) -> list[TaxonomyTable]:
    """Per model and per family (1 query once runs are scored); each count links to the
    judgments behind it under the same filters."""
    rows = (
        failed_judgments(scored, filters)
        .values("trajectory__run__model__slug", "trajectory__run__model__name", "trajectory__run__model__family")
        .annotate(mode=F("failure_mode"), n=Count("id"))
        .order_by()
    )
    by_model: dict[tuple[str, str], Counter] = defaultdict(Counter)
    by_family: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        key = (r["trajectory__run__model__slug"], r["trajectory__run__model__name"])
        by_model[key][r["mode"]] += r["n"]
        by_family[r["trajectory__run__model__family"] or "(no family)"][r["mode"]] += r["n"]
    if not by_model:
        return []
    modes = [m for m in [*FailureMode.values, ""] if any(c[m] for c in by_model.values())]
    base = reverse("leaderboard:analysis_failures")
    carried = filters.as_query()

    def table(title, items, param):
        items = sorted(items, key=lambda kv: -sum(kv[1].values()))
        return TaxonomyTable(
            title=title,
            row_keys=[k[0] if isinstance(k, tuple) else k for k, _ in items],
            row_labels=[k[1] if isinstance(k, tuple) else k for k, _ in items],
            modes=modes,
            counts=[[c[m] for m in modes] for _, c in items],
            urls=[
                [
                    base + "?" + urlencode({param: k[0] if isinstance(k, tuple) else k, "mode": m or "none", **carried})
                    for m in modes
                ]
                for k, _ in items
            ],
            rows_are_models=param == "model",
        )

    return [table("Per model", by_model.items(), "model"), table("Per family", by_family.items(), "family")]


def reported_taxonomy(filters: RunFilters) -> list[TaxonomyTable]:
    """Published failure-mode counts: the result set's total over all its models, and the
    per-model counts the source gives (often only some modes), each with its source (1 query;
    none under a task filter or another thing they cannot answer: they count every task)."""
    scope = _reported_scope(filters)
    if scope is None or filters.slices_tasks:
        return []
    figures = (
        ReportedFigure.objects.filter(scope, slice_kind__in=["failure_mode", "failure_mode_all_models"])
        .select_related("run", "run__model")
        .order_by("run__name")
    )
    sets: dict[str, dict] = {}
    for fig in figures:
        meta = fig.run.metadata
        s = sets.setdefault(
            meta.get("result_set", fig.run.source),
            {
                "label": meta.get("result_set_label", ""),
                "pos": meta.get("result_set_position", 99),
                "all": {},
                "by": {},
            },
        )
        if fig.slice_kind == "failure_mode_all_models":
            s["all"][fig.slice_value] = fig.value
            s["source"] = fig.source
        else:
            s["by"].setdefault((meta.get("model_position", 99), fig.run.model.name), {})[fig.slice_value] = fig.value
            s["by_source"] = fig.source
    tables = []
    for set_id, s in sorted(sets.items(), key=lambda kv: kv[1]["pos"]):
        modes = [m for m in FailureMode.values if m in s["all"]]
        if modes:
            tables.append(
                TaxonomyTable(
                    title="All models of the result set",
                    row_keys=[set_id],
                    row_labels=["All models"],
                    modes=modes,
                    counts=[[int(s["all"][m]) for m in modes]],
                    reported=True,
                    source=s.get("source", ""),
                    note=s["label"],
                )
            )
        if s["by"]:
            by_modes = [m for m in FailureMode.values if any(m in v for v in s["by"].values())]
            rows = sorted(s["by"].items())
            tables.append(
                TaxonomyTable(
                    title="Per model (only the counts the source gives)",
                    row_keys=[name for (_, name), _ in rows],
                    row_labels=[name for (_, name), _ in rows],
                    modes=by_modes,
                    counts=[[int(v.get(m, 0)) for m in by_modes] for _, v in rows],
                    reported=True,
                    source=s.get("by_source", ""),
                    note=s["label"],
                )
            )
    return tables


def taxonomy_tables(user, filters: TaxonomyFilters, version: str | None = None) -> list[TaxonomyTable]:
    """Every table of the taxonomy page and GET /api/analysis/taxonomy for these filters: graded
    counts per model and per family, then the published counts with their source."""

    def build():
        scored = scored_runs(list(graded_runs(user, filters)), filters, version)
        return [*graded_taxonomy(scored, filters), *reported_taxonomy(filters)]

    return _per_version("taxonomy", user, version, filters, build)


@dataclass
class FailureFilters(TaxonomyFilters):
    """The judgments behind one taxonomy bar: the taxonomy's filters, then model or family and mode."""

    OFFERED: ClassVar[tuple[str, ...]] = ("model", "family", "mode", *SLICE_FILTERS)
    model: str = ""
    family: str = ""
    mode: str = ""  # a FailureMode value, or "none" for not classified

    def clean(self, defaults: dict) -> None:
        super().clean(defaults)
        if self.mode and self.mode != "none" and self.mode not in FailureMode.values:
            self.mode = ""

    @property
    def description(self) -> str:
        parts = []
        if self.mode:
            parts.append(MODE_LABELS["" if self.mode == "none" else self.mode])
        if self.model:
            parts.append(f"model {self.model}")
        if self.family:
            parts.append(f"family {self.family}")
        shown = {"type": TYPE_LABELS, "bin": {b: slice_label("apps_touched", b) for b in APPS_TOUCHED_BINS}}
        parts += [
            f"{filter_label(name)} {shown.get(name, {}).get(value, value)}"
            for name, value in self.as_query().items()
            if name in SLICE_FILTERS
        ]
        return ", ".join(parts) or "all failed rubric items"


FILTER_LABELS = {
    "suite": "suite",
    "surface": "tool surface",
    "judge": "judge",
    "provenance": "provenance",
    "type": "behavioural type",
    "bin": "apps touched",
    "app": "app",
    "weighting": "rubric weights",
    "metric": "metric",
}


def filter_label(name: str) -> str:
    return FILTER_LABELS.get(name, name)


def failure_judgments(user, filters: FailureFilters, version: str | None = None) -> QuerySet[Judgment]:
    """The failed judgments behind one taxonomy bar, with what the list shows (one query per page)."""
    scored = scored_runs(list(graded_runs(user, filters)), filters, version)
    qs = failed_judgments(scored, filters).select_related(
        "trajectory", "trajectory__run", "trajectory__run__model", "trajectory__task", "rubric_item"
    )
    if filters.model:
        qs = qs.filter(trajectory__run__model__slug=filters.model)
    if filters.family:
        qs = qs.filter(trajectory__run__model__family="" if filters.family == "(no family)" else filters.family)
    if filters.mode:
        qs = qs.filter(failure_mode="" if filters.mode == "none" else filters.mode)
    return qs.order_by("trajectory__run__name", "trajectory__task__position", "trajectory_id", "rubric_item__position")


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
        Trajectory.objects.filter(run_id__in=[r.pk for r in runs], **_task_lookups(filters, "task__"))
        .values("run_id")
        .annotate(**sums)
        .order_by()
    )
    counts = {}
    for row in rows:
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

    def mask_of(o: scoring.RunOutcomes, key: str) -> np.ndarray:
        return np.array([touched.get(int(pk)) == int(key) for pk in o.task_pks], dtype=bool)

    return Heatmap(
        id="graded-apps-count-perfect",
        title="Perfect rate % by number of apps touched",
        metric="perfect",
        row_labels=[sc.run.name for sc in scored],
        col_keys=keys,
        col_labels=keys,
        cells=_cells(scored, keys, "perfect", mask_of=mask_of, url_of=lambda run, key: ""),
    )


def step_budget_curve(o: scoring.RunOutcomes, turn_budget: int) -> tuple[list[int], list[float]]:
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


def performance_profile(o: scoring.RunOutcomes) -> list[float]:
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


def best_of_k(o: scoring.RunOutcomes) -> float | None:
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
        unknown=_unknown(o),
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
        Trajectory.objects.filter(run_id__in=[sc.run.pk for sc in scored], **_task_lookups(filters, "task__"))
        .values("run_id")
        .annotate(i=Sum("input_tokens"), o=Sum("output_tokens"), c=Sum("cost_usd"))
        .order_by()
    )
    usage = {sc.run.pk: (None, None, None) for sc in scored}
    for r in rows:
        usage[r["run_id"]] = (r["i"], r["o"], None if r["c"] is None else float(r["c"]))
    return usage


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
            if status == scoring.MISSING and a > 0:
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


def reported_scaling(
    filters: RunFilters | None = None,
) -> tuple[list[tuple[str, list[str], list[float | None]]], list[tuple[str, float, str]]]:
    """Published perfect rate by apps-touched bin (one line per reported run; under a bin filter,
    that bin) and published bash shares of actions, each with its source (1 query; none of what
    the filters ask and the figures cannot answer: a behavioural type, an app, a judge)."""
    filters = filters or RunFilters()
    scope = _reported_scope(filters)
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

    return _per_version("scaling", user, version, filters, build)
