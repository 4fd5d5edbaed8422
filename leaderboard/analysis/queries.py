"""What the analysis pages share (heatmaps.py, taxonomy.py, scaling.py, model_page.py): their filters,
the graded runs they score and the scored slice of each, aggregated in the database in a constant
number of queries.
The heatmap, taxonomy and scaling pages take the leaderboard's run filters (scoring.filters.RunFilters:
suite, tool surface, judge, provenance, behavioural type, apps-touched bin, app, weighting), each
page only those that make sense on it, and select runs and tasks through the same selectors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from django.core.cache import cache
from django.db.models import Q, QuerySet
from django.utils.http import urlencode

from leaderboard.catalog.selectors import sees_unpublished
from leaderboard.models import BehaviouralType, Run
from leaderboard.scoring.data_version import cache_version
from leaderboard.scoring.filters import RunFilters, filtered_runs, scored_slice
from leaderboard.scoring.outcomes import UNKNOWN_STATUSES, RunOutcomes
from trajectories.models import FailureMode

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


def per_version(name: str, user, version: str | None, filters: RunFilters, build):
    """What a page and its API endpoint show, computed once per data version, audience and filter
    state (the bootstrap per cell is the costly part; staff pages are not cached whole, so this
    spares them)."""
    state = urlencode(sorted(filters.as_query().items()))
    key = f"analysis:{name}:{version or cache_version()}:{sees_unpublished(user)}:{state}"
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
    outcomes: RunOutcomes


def scored_runs(runs: list[Run], filters: RunFilters | None = None, version: str | None = None) -> list[Scored]:
    """The runs scored through the leaderboard's selector (scoring.filters.scored_slice), in ``runs``
    order; a run the filters' judge did not judge drops out."""
    by_pk = {r.pk: r for r in runs}
    order = {r.pk: i for i, r in enumerate(runs)}
    outcomes = scored_slice(runs, filters or RunFilters(), version)
    return [Scored(by_pk[o.run_id], o) for o in sorted(outcomes, key=lambda o: order[o.run_id])]


def reported_scope(filters: RunFilters) -> Q | None:
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


def unknown_count(o: RunOutcomes) -> int:
    counts = o.counts()
    return sum(counts[s] for s in UNKNOWN_STATUSES)
