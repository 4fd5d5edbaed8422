"""GET /api/analysis/heatmaps, /taxonomy and /scaling: the analysis pages' numbers as JSON, read
from the same selectors as the pages (leaderboard.analysis) with the same query parameters: the
leaderboard's run filters, parsed by the same classes (unknown values ignored, as on the pages)."""

from __future__ import annotations

from ninja import Query, Router, Schema

from leaderboard.analysis import heatmaps, queries, scaling, taxonomy
from leaderboard.analysis.sessions import SessionFilters, session_analysis
from leaderboard.boards.api_filters import RunFilterQuery, WeightedRunFilterQuery, query_values

router = Router(tags=["analysis"])


def _r(x: float | None, places: int = 2) -> float | None:
    return None if x is None else round(float(x), places)


FILTERS_DOC = (
    "Filters as on the page and on /leaderboard/: suite (slug; default every suite), surface (tool surface), "
    "judge (name; default each run's own judge), provenance, type (behavioural type), bin (apps touched: "
    "1, 2-3, 4-6, 7+), app (slug){extra}. Unknown values are ignored; `filters` in the answer echoes the "
    "ones applied. Published (reported) figures appear only where they answer the filters."
)


# -- heatmaps -------------------------------------------------------------------------------


class CellOut(Schema):
    value: float | None  # percent; None when no task of the column has a known outcome
    low: float | None  # 95% interval (Wilson for a single-attempt perfect rate, else bootstrap)
    high: float | None
    n: int  # tasks (attempts) with a known outcome; 0 for reported figures
    incomplete: int  # left out because grading is incomplete
    url: str  # the trajectories behind the cell ("" for reported figures)


class ColumnOut(Schema):
    key: str
    label: str


class HeatmapRowOut(Schema):
    label: str  # run name (graded) or model name (reported)
    cells: list[CellOut]


class HeatmapOut(Schema):
    id: str
    title: str
    metric: str
    dimension: str  # type, bin or app
    reported: bool  # published figures: no intervals, not computed by us
    source: str
    note: str
    columns: list[ColumnOut]
    rows: list[HeatmapRowOut]


class HeatmapsOut(Schema):
    metric: str
    filters: dict[str, str]  # the filters applied (non-default values)
    maps: list[HeatmapOut]


def _dimension(hm: heatmaps.Heatmap) -> str:
    if hm.reported:
        return "type" if "-task_type-" in hm.id else "bin"
    return hm.id.split("-")[1]


def heatmap_out(hm: heatmaps.Heatmap) -> dict:
    return {
        "id": hm.id,
        "title": hm.title,
        "metric": hm.metric,
        "dimension": _dimension(hm),
        "reported": hm.reported,
        "source": hm.source,
        "note": hm.note,
        "columns": [{"key": k, "label": label} for k, label in zip(hm.col_keys, hm.col_labels, strict=True)],
        "rows": [
            {
                "label": label,
                "cells": [
                    {
                        "value": _r(c.value),
                        "low": _r(c.low),
                        "high": _r(c.high),
                        "n": c.n,
                        "incomplete": c.incomplete,
                        "url": c.url,
                    }
                    for c in cells
                ],
            }
            for label, cells in hm.rows
        ],
    }


@router.get(
    "/analysis/heatmaps",
    response=HeatmapsOut,
    summary="Heatmaps: runs x behavioural type, apps-touched bin and app",
    description=(
        "The maps of /analysis/: metric (rubric|perfect, as on the page; default rubric) and, to pick "
        "maps, dimension (type|bin|app). Values are percentages with n, the 95% interval and the link to "
        "the trajectories behind each cell. Reported maps (published figures) follow the graded ones, "
        "labelled, without intervals. " + FILTERS_DOC.format(extra=", weighting (authored|equal rubric weights)")
    ),
)
def get_heatmaps(request, query: Query[WeightedRunFilterQuery], metric: str = "", dimension: str = ""):
    filters = queries.HeatmapFilters.from_query(query_values(query, metric=metric))
    maps = [heatmap_out(hm) for hm in heatmaps.heatmaps(request.user, filters)]
    if dimension:
        maps = [m for m in maps if m["dimension"] == dimension]
    return {"metric": filters.metric, "filters": filters.as_query(), "maps": maps}


# -- failure taxonomy -----------------------------------------------------------------------


class TaxonomyRowOut(Schema):
    key: str  # model slug, family, or the result set for reported totals
    label: str
    counts: dict[str, int]  # failure mode -> failed rubric items
    total: int
    urls: dict[str, str]  # failure mode -> the judgments behind the bar ("" for reported)


class TaxonomyTableOut(Schema):
    title: str
    reported: bool
    source: str
    note: str
    modes: list[ColumnOut]
    rows: list[TaxonomyRowOut]


class TaxonomyOut(Schema):
    filters: dict[str, str]
    tables: list[TaxonomyTableOut]


def taxonomy_out(t: taxonomy.TaxonomyTable) -> dict:
    urls = t.urls or [["" for _ in t.modes] for _ in t.row_labels]
    return {
        "title": t.title,
        "reported": t.reported,
        "source": t.source,
        "note": t.note,
        "modes": [{"key": m or "none", "label": label} for m, label in zip(t.modes, t.mode_labels, strict=True)],
        "rows": [
            {
                "key": key,
                "label": label,
                "counts": {m or "none": c for m, c in zip(t.modes, counts, strict=True)},
                "total": sum(counts),
                "urls": {m or "none": u for m, u in zip(t.modes, row_urls, strict=True)},
            }
            for key, label, counts, row_urls in zip(t.row_keys, t.row_labels, t.counts, urls, strict=True)
        ],
    }


@router.get(
    "/analysis/taxonomy",
    response=TaxonomyOut,
    summary="Failure taxonomy: failed rubric items by failure mode",
    description=(
        "The tables of /analysis/failures/: failed rubric items of graded runs (each under the judge that "
        "scores it) per model and per family, with the link to the judgments behind each count; then the "
        "published counts with their source (reported: true). " + FILTERS_DOC.format(extra="")
    ),
)
def get_taxonomy(request, query: Query[RunFilterQuery]):
    filters = queries.TaxonomyFilters.from_query(query_values(query))
    tables = taxonomy.taxonomy_tables(request.user, filters)
    return {"filters": filters.as_query(), "tables": [taxonomy_out(t) for t in tables]}


# -- scaling and shape ----------------------------------------------------------------------


class PercentOut(Schema):
    value: float | None
    low: float | None
    high: float | None


class SeriesOut(Schema):
    x: list[float]
    y: list[float]


class ScalingRunOut(Schema):
    run: str
    run_name: str
    model: str
    judge: str
    attempts: int
    single_attempt_success_pct: PercentOut  # the headline (Wilson interval for one attempt)
    best_of_k_upper_bound_pct: float | None  # pass@k with k = attempts: an upper bound, only when k > 1
    rubric_pct: float | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    perfect_by_apps_touched_bin: dict[str, CellOut]
    perfect_by_apps_touched: dict[str, CellOut]  # exact number of apps touched
    step_budget: SeriesOut | None  # steps used -> cumulative perfect %
    performance_profile: SeriesOut  # tau -> share of tasks with score >= tau, %
    action_shape: dict[str, float] | None  # kind -> share of actions %


class ReportedLineOut(Schema):
    run_name: str
    perfect_by_apps_touched_bin: dict[str, float | None]


class ReportedShareOut(Schema):
    run_name: str
    bash_share_pct: float
    source: str


class ScalingOut(Schema):
    filters: dict[str, str]
    runs: list[ScalingRunOut]
    reported_perfect_by_apps_touched_bin: list[ReportedLineOut]
    reported_bash_share: list[ReportedShareOut]


def _cells_by_key(hm: heatmaps.Heatmap | None, i: int) -> dict:
    if hm is None or not hm.col_keys:
        return {}
    return {
        key: {
            "value": _r(c.value),
            "low": _r(c.low),
            "high": _r(c.high),
            "n": c.n,
            "incomplete": c.incomplete,
            "url": c.url,
        }
        for key, c in zip(hm.col_keys, hm.cells[i], strict=True)
    }


def scaling_out(ctx: dict) -> dict:
    budget = {name: (xs, ys) for name, xs, ys in ctx["budget"]}
    profile = {name: (xs, ys) for name, xs, ys in ctx["profile"]}
    shapes = {s.run.pk: s for s in ctx["shapes"]}
    runs = []
    for i, s in enumerate(ctx["summaries"]):
        name = s.run.name
        shape = shapes.get(s.run.pk)
        runs.append(
            {
                "run": s.run.slug,
                "run_name": name,
                "model": s.run.model.name,
                "judge": s.judge_name,
                "attempts": s.attempts,
                "single_attempt_success_pct": {
                    "value": _r(s.perfect),
                    "low": _r(s.perfect_low),
                    "high": _r(s.perfect_high),
                },
                "best_of_k_upper_bound_pct": _r(s.best_of_k),
                "rubric_pct": _r(s.rubric),
                "input_tokens": s.input_tokens,
                "output_tokens": s.output_tokens,
                "cost_usd": _r(s.cost_usd, 4),
                "perfect_by_apps_touched_bin": _cells_by_key(ctx["by_bin_map"], i),
                "perfect_by_apps_touched": _cells_by_key(ctx["by_count_map"], i),
                "step_budget": {"x": budget[name][0], "y": [_r(y) for y in budget[name][1]]}
                if name in budget
                else None,
                "performance_profile": {"x": profile[name][0], "y": [_r(y) for y in profile[name][1]]},
                "action_shape": (
                    {k: _r(v) for k, v in zip(scaling.ACTION_KINDS, shape.shares, strict=True)} if shape else None
                ),
            }
        )
    return {
        "runs": runs,
        "reported_perfect_by_apps_touched_bin": [
            {"run_name": name, "perfect_by_apps_touched_bin": dict(zip(bins, vals, strict=True))}
            for name, bins, vals in ctx["reported_by_bin"]
        ],
        "reported_bash_share": [
            {"run_name": name, "bash_share_pct": value, "source": source}
            for name, value, source in ctx["reported_bash"]
        ],
    }


@router.get(
    "/analysis/scaling",
    response=ScalingOut,
    summary="Scaling and shape per graded run",
    description=(
        "The numbers of /analysis/scaling/, per graded run: single-attempt success (the headline) and, "
        "only for runs with several attempts per task, best-of-k (pass@k) labelled as the replay-equivalent "
        "upper bound; perfect rate by apps-touched bin and by the exact number of apps touched (with n and "
        "intervals); the step-budget curve; the performance profile; action shares; tokens and cost. "
        "Published figures follow, labelled reported. "
        + FILTERS_DOC.format(extra=", weighting (authored|equal rubric weights)")
        + " Under a task filter, tokens and cost are summed over the filtered tasks' trajectories."
    ),
)
def get_scaling(request, query: Query[WeightedRunFilterQuery]):
    filters = queries.ScalingFilters.from_query(query_values(query))
    return {"filters": filters.as_query(), **scaling_out(scaling.scaling(request.user, filters))}


class SessionRunOut(Schema):
    run_name: str
    run_slug: str
    proactivity_pct: float | None
    completeness_pct: float | None
    turns: float | None
    sessions: int
    user_simulator: str


class SessionCategoryOut(Schema):
    run_name: str
    category: str
    counts: dict[str, int]


class SessionsOut(Schema):
    filters: dict
    runs: list[SessionRunOut]
    statuses_by_category: list[SessionCategoryOut]


@router.get(
    "/analysis/sessions",
    response=SessionsOut,
    summary="Proactivity against Completeness per run with sessions",
    description=(
        "The numbers of /analysis/sessions/: per run that recorded sessions, its Proactivity and Completeness "
        "(percent), mean user turns, sessions and who played the user; and how the hidden intents ended "
        "(completed, inferred, provided, open) per run and category. Filters: suite, surface, provenance."
    ),
)
def get_session_analysis(request, query: Query[RunFilterQuery]):
    filters = SessionFilters.from_query(query_values(query))
    ctx = session_analysis(request.user, filters)
    return {
        "filters": filters.as_query(),
        "runs": [
            {
                "run_name": p.run,
                "run_slug": p.slug,
                "proactivity_pct": p.proactivity,
                "completeness_pct": p.completeness,
                "turns": p.turns,
                "sessions": p.sessions,
                "user_simulator": p.user_simulator,
            }  # fmt: skip
            for p in ctx["points"]
        ],
        "statuses_by_category": [
            {"run_name": c.run, "category": c.category, "counts": c.counts} for c in ctx["categories"]
        ],
    }
