"""Thin views of the analysis pages: heatmaps, failure taxonomy (and the judgments behind a
bar), scaling and shape, and the model page. Data from leaderboard.analysis (the same selectors
as GET /api/analysis/*), figures from leaderboard.charts; anonymous pages are cached whole per
data version by the board's mechanism (views_board.anonymous_page_cache)."""

from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils.http import urlencode

from leaderboard import analysis, charts
from leaderboard.views_board import anonymous_page_cache


def _metric(request) -> str:
    metric = request.GET.get("metric", "rubric")
    return metric if metric in analysis.METRICS else "rubric"


def _chart(chart_id: str, figure: dict, label: str) -> dict:
    return {"id": f"chart-{chart_id}", "figure": figure, "label": label}


@anonymous_page_cache("analysis-page")
def heatmaps(request, version):
    metric = _metric(request)
    found = analysis.heatmaps(request.user, metric, version)
    maps = [{"map": hm, "chart": _chart(hm.id, charts.heatmap(hm), f"{hm.title} heatmap")} for hm in found]
    return render(
        request,
        "leaderboard/analysis/heatmaps.html",
        {
            "metric": metric,
            "metric_label": analysis.METRICS[metric],
            "metrics": analysis.METRICS,
            "maps": maps,
            "has_graded": any(not hm.reported for hm in found),
            "elsewhere": analysis.reported_elsewhere(metric, found),
            "other_metric": next(k for k in analysis.METRICS if k != metric),
            "api_href": "/api/analysis/heatmaps?" + urlencode({"metric": metric}),
        },
    )


@anonymous_page_cache("analysis-page")
def taxonomy(request, version):
    tables = analysis.taxonomy_tables(request.user, version)
    items = [
        {"table": t, "chart": _chart(f"taxonomy-{i}", charts.taxonomy_bars(t), f"{t.title} bar chart")}
        for i, t in enumerate(tables)
    ]
    return render(
        request,
        "leaderboard/analysis/taxonomy.html",
        {"items": items, "has_graded": any(not t.reported for t in tables), "api_href": "/api/analysis/taxonomy"},
    )


@anonymous_page_cache("analysis-page")
def failures(request, version):
    filters = analysis.FailureFilters.from_query(request.GET)
    judgments = analysis.failure_judgments(request.user, filters)
    page = Paginator(judgments, 50).get_page(request.GET.get("page"))
    query = {k: v for k, v in vars(filters).items() if v}
    return render(
        request,
        "leaderboard/analysis/failures.html",
        {"page": page, "filters": filters, "query": urlencode(query)},
    )


@anonymous_page_cache("analysis-page")
def scaling(request, version):
    ctx = analysis.scaling(request.user, version)
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
                charts.stacked_shares([(s.run.name, s.shares) for s in ctx["shapes"]], analysis.ACTION_KINDS),
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
            "charts": {c["id"].removeprefix("chart-").replace("-", "_"): c for c in chart_list},
            "kinds": analysis.ACTION_KINDS,
            "api_href": "/api/analysis/scaling",
        },
    )


@anonymous_page_cache("analysis-page")
def model_detail(request, version, slug):
    return render(request, "leaderboard/analysis/model_detail.html", analysis.model_detail(request.user, slug))
