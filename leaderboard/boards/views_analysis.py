"""Thin views of the analysis pages: heatmaps, failure taxonomy (and the judgments behind a
bar), scaling and shape, and the model page. Filters are the leaderboard's (scoring.filters.RunFilters,
each page offering those that make sense on it) and every filter state is the page's URL; data
from leaderboard.analysis (the same selectors as GET /api/analysis/*), figures from
leaderboard.analysis.charts; anonymous pages are cached whole per data version and query string by the
board's mechanism (page_cache.anonymous_page_cache)."""

from django.core.paginator import Paginator
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode

import leaderboard.analysis.heatmaps
import leaderboard.analysis.scaling
from leaderboard.analysis import charts, model_page, queries
from leaderboard.analysis.sessions import SessionFilters, session_analysis
from leaderboard.analysis.taxonomy import FailureFilters, failure_judgments, filter_label, taxonomy_tables
from leaderboard.scoring.filters import BoardFilters, run_filter_options
from mypcbench_site.page_cache import anonymous_page_cache

TABS = (
    ("heatmaps", "leaderboard:analysis_heatmaps", queries.HeatmapFilters),
    ("taxonomy", "leaderboard:analysis_taxonomy", queries.TaxonomyFilters),
    ("scaling", "leaderboard:analysis_scaling", queries.ScalingFilters),
    ("sessions", "leaderboard:analysis_sessions", SessionFilters),
)


def _href(url: str, query: dict) -> str:
    return url + ("?" + urlencode(query) if query else "")


def _filter_context(request, filters, api_path: str, api_query: dict | None = None) -> dict:
    """The filter form (only the filters this page offers), the tabs and the leaderboard link
    carrying the filters each of them offers, and the API link with the same query."""
    query = filters.as_query()
    options = run_filter_options()
    shown = {
        "suite": {slug: f"{name} {version}" for slug, name, version in options["suites"]},
        "surface": dict(options["surfaces"]),
        "provenance": dict(options["provenances"]),
        "type": dict(options["types"]),
        "bin": dict(options["bins"]),
        "app": dict(options["apps"]),
    }
    active = [
        (filter_label(name), shown.get(name, {}).get(value, value)) for name, value in query.items() if name != "metric"
    ]
    return {
        "filters": filters,
        "offered": set(filters.OFFERED),
        "options": options,
        "query": urlencode(query),
        "active_filters": active,
        "clear_href": _href(request.path, {k: v for k, v in query.items() if k == "metric"}),
        "tabs": {name: _href(reverse(url), filters.carried_to(cls)) for name, url, cls in TABS},
        "board_href": _href(reverse("leaderboard:board"), filters.carried_to(BoardFilters)),
        "api_href": _href(api_path, api_query if api_query is not None else query),
    }


def _chart(chart_id: str, figure: dict, label: str) -> dict:
    return {"id": f"chart-{chart_id}", "figure": figure, "label": label}


@anonymous_page_cache("analysis-page")
def heatmaps(request, version):
    filters = queries.HeatmapFilters.from_query(request.GET)
    metric = filters.metric
    other = next(k for k in queries.METRICS if k != metric)
    found = leaderboard.analysis.heatmaps.heatmaps(request.user, filters, version)
    maps = [{"map": hm, "chart": _chart(hm.id, charts.heatmap(hm), f"{hm.title} heatmap")} for hm in found]
    api_query = {"metric": metric, **filters.as_query()}  # the metric spelled out, default or not
    return render(
        request,
        "leaderboard/analysis/heatmaps.html",
        {
            **_filter_context(request, filters, "/api/analysis/heatmaps", api_query),
            "metric": metric,
            "metric_label": queries.METRICS[metric],
            "metric_links": [
                (key, label, _href(request.path, filters.as_query(metric=key)))
                for key, label in queries.METRICS.items()
            ],
            "maps": maps,
            "has_graded": any(not hm.reported for hm in found),
            "elsewhere": leaderboard.analysis.heatmaps.reported_elsewhere(filters, found),
            "other_metric": other,
            "other_metric_href": _href(request.path, filters.as_query(metric=other)),
        },
    )


@anonymous_page_cache("analysis-page")
def taxonomy(request, version):
    filters = queries.TaxonomyFilters.from_query(request.GET)
    tables = taxonomy_tables(request.user, filters, version)
    items = [
        {"table": t, "chart": _chart(f"taxonomy-{i}", charts.taxonomy_bars(t), f"{t.title} bar chart")}
        for i, t in enumerate(tables)
    ]
    return render(
        request,
        "leaderboard/analysis/taxonomy.html",
        {
            **_filter_context(request, filters, "/api/analysis/taxonomy"),
            "items": items,
            "has_graded": any(not t.reported for t in tables),
        },
    )


@anonymous_page_cache("analysis-page")
def failures(request, version):
    filters = FailureFilters.from_query(request.GET)
    judgments = failure_judgments(request.user, filters, version)
    page = Paginator(judgments, 25).get_page(request.GET.get("page"))
    others = {k: v for k, v in filters.as_query().items() if k != "mode"}
    mode_links = [  # the same list narrowed to one failure mode, other filters kept
        (label, "?" + urlencode({**others, **({"mode": value or "none"} if value is not None else {})}), current)
        for value, label, current in [(None, "Every mode", not filters.mode)]
        + [(v, lbl, filters.mode == (v or "none")) for v, lbl in queries.MODE_LABELS.items()]
    ]
    return render(
        request,
        "leaderboard/analysis/failures.html",
        {
            "page": page,
            "mode_links": mode_links,
            "filters": filters,
            "query": urlencode(filters.as_query()),
            "taxonomy_href": _href(
                reverse("leaderboard:analysis_taxonomy"), filters.carried_to(queries.TaxonomyFilters)
            ),
        },
    )


@anonymous_page_cache("analysis-page")
def scaling(request, version):
    filters = queries.ScalingFilters.from_query(request.GET)
    ctx = leaderboard.analysis.scaling.scaling(request.user, filters, version)
    chart_list = []
    if ctx["by_count"]:
        chart_list.append(
            _chart(
                "apps-count",
                charts.lines(ctx["by_count"], "apps touched (exact)", "perfect rate %", markers=True, integer_x=True),
                "Perfect rate against the number of apps touched",
            )
        )
    if ctx["by_bin"]:
        chart_list.append(
            _chart(
                "apps-touched",
                charts.lines(ctx["by_bin"], "apps touched", "perfect rate %", x_categorical=True, markers=True),
                "Perfect rate against apps touched",
            )
        )
    if ctx["budget"]:
        chart_list.append(
            _chart("step-budget", charts.lines(ctx["budget"], "steps used", "cumulative perfect rate %"), "Step budget")
        )
    if ctx["profile"]:
        chart_list.append(
            _chart(
                "profile",
                charts.lines(ctx["profile"], "tau (score threshold)", "tasks with score ≥ tau %", markers=True),
                "Performance profile",
            )
        )
    if ctx["shapes"]:
        chart_list.append(
            _chart(
                "action-shape",
                charts.stacked_shares(
                    [(s.run.name, s.shares) for s in ctx["shapes"]], leaderboard.analysis.scaling.ACTION_KINDS
                ),
                "Action shape",
            )
        )
    if ctx["cost_points"]:
        chart_list.append(
            _chart("cost", charts.scatter(ctx["cost_points"], "cost (USD)", "rubric score %"), "Score against cost")
        )
    if ctx["token_points"]:
        chart_list.append(
            _chart(
                "tokens",
                charts.scatter(ctx["token_points"], "tokens (input + output, whole run)", "rubric score %"),
                "Score against tokens",
            )
        )
    if ctx["reported_by_bin"]:
        chart_list.append(
            _chart(
                "reported-apps-touched",
                charts.lines(
                    ctx["reported_by_bin"], "apps touched", "perfect % (reported)", x_categorical=True, markers=True
                ),
                "Reported perfect rate against apps touched",
            )
        )
    return render(
        request,
        "leaderboard/analysis/scaling.html",
        {
            **ctx,
            **_filter_context(request, filters, "/api/analysis/scaling"),
            "charts": {c["id"].removeprefix("chart-").replace("-", "_"): c for c in chart_list},
            "kinds": leaderboard.analysis.scaling.ACTION_KINDS,
        },
    )


@anonymous_page_cache("analysis-page")
def sessions(request, version):
    """Proactivity against Completeness per run, and how the hidden intents ended per category."""
    filters = SessionFilters.from_query(request.GET)
    ctx = session_analysis(request.user, filters, version)
    chart_list = []
    plotted = [p for p in ctx["points"] if p.proactivity is not None and p.completeness is not None]
    if plotted:
        chart_list.append(
            _chart(
                "proc-comp",
                charts.proc_comp([(p.run, p.completeness, p.proactivity) for p in plotted]),
                "Proactivity against Completeness per run",
            )
        )
    if ctx["categories"]:
        chart_list.append(
            _chart(
                "statuses",
                charts.stacked_shares(
                    [(f"{c.run}<br>{c.category}", c.shares) for c in ctx["categories"]],
                    ctx["statuses"],
                    x_title="share of intents %",
                ),
                "How the hidden intents ended, per category",
            )
        )
    return render(
        request,
        "leaderboard/analysis/sessions.html",
        {
            **ctx,
            **_filter_context(request, filters, "/api/analysis/sessions"),
            "charts": {c["id"].removeprefix("chart-").replace("-", "_"): c for c in chart_list},
        },
    )


@anonymous_page_cache("analysis-page")
def model_detail(request, version, slug):
    return render(request, "leaderboard/analysis/model_detail.html", model_page.model_detail(request.user, slug))
