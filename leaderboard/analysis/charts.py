"""Figure builders for the analysis pages: each returns a plain JSON-ready dict that a page embeds
as a JSON data block (json_script) and static/js/charts.js draws with plotly.js; every chart also
has a table beside it, so the numbers are there without JavaScript.

The dicts are written out directly (plotly.js's figure format: ``data`` traces and a ``layout``)
rather than through plotly's Python figure classes, whose validation cost more than the rest of a
cold page. Numbers are rounded to what is shown (2 decimals, as in the API). A heatmap is sent
compactly (``kind: "heatmap"``): values, n and interval per cell as arrays, and how to build each
cell's link; charts.js turns that into the trace, its hover text and its click-through links."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leaderboard.analysis.heatmaps import Heatmap
from leaderboard.analysis.taxonomy import TaxonomyTable

# Colours are overridden by charts.js from the page's CSS variables (light and dark themes);
# these are the light-theme fallbacks.
SEQUENTIAL = [[0.0, "#f7fbff"], [0.5, "#6baed6"], [1.0, "#08306b"]]
DASHES = ["solid", "dash", "dot", "dashdot", "longdash"]
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x"]
SERIES = ["#1f5fbf", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]


def _layout(**extra) -> dict:
    base = {
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10, "pad": 4},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"size": 13},
        "hoverlabel": {"align": "left"},
    }
    base.update(extra)
    return base


def _round(v: float | None, places: int = 2) -> float | None:
    return None if v is None else round(float(v), places)


def _wrap(label: str, width: int = 14) -> str:
    """Break a long axis label over lines so neighbouring column labels do not overlap."""
    words, lines = label.split(), [""]
    for word in words:
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}".strip()
    return "<br>".join(lines)


WIDE_COLUMNS = 8  # more columns than this: labels slanted, the chart scrolls sideways
WIDE_COLUMN_PX = 52  # 17 apps plus row labels and the colour legend fit a 1280 px screen
NARROW_COLUMN_PX = 100  # a few columns: their labels, wrapped at 14 characters, never overlap


def _abbreviate(label: str, width: int = 16) -> str:
    return label if len(label) <= width else label[: width - 1].rstrip() + "…"


def _distinct(labels: list[str]) -> list[str]:
    """Plotly merges equal category labels into one column: number repeats (two long names cut
    to the same prefix)."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def heatmap(hm: Heatmap) -> dict:
    """Rows x columns coloured 0..100 %, each cell printing its value; charts.js writes the hover
    (n and the 95% interval, or "reported") and opens a cell's trajectories on click. Many
    columns (17 apps and more): labels slanted and abbreviated (full in the hover), and a fixed
    width per column that charts.js lets scroll sideways instead of squeezing the cells."""
    wide = len(hm.col_labels) > WIDE_COLUMNS
    grid = lambda attr, places=None: [  # noqa: E731
        [getattr(c, attr) if places is None else _round(getattr(c, attr), places) for c in row] for row in hm.cells
    ]
    figure: dict[str, Any] = {
        "kind": "heatmap",
        "x": _distinct([_abbreviate(label) if wide else _wrap(label) for label in hm.col_labels]),
        "labels": list(hm.col_labels),
        "y": list(hm.row_labels),
        "z": grid("value", 2),
        "reported": hm.reported,
        "layout": _layout(
            height=max(220, (130 if wide else 60) + 38 * len(hm.row_labels)),
            yaxis={"autorange": "reversed", "automargin": True},
            xaxis={"side": "top", "automargin": True, "tickangle": -45 if wide else 0, "type": "category"},
        ),
    }
    if not hm.reported:
        figure["n"] = grid("n")
        figure["low"] = grid("low", 1)
        figure["high"] = grid("high", 1)
        if any(c.incomplete for row in hm.cells for c in row):
            figure["incomplete"] = grid("incomplete")
        if hm.link_query and hm.row_keys:
            # cell (i, j) links to base?run=<rows[i]>&<name>=<value, or cols[j] where null>...
            figure["link"] = {
                "base": hm.link_base,
                "rows": list(hm.row_keys),
                "cols": list(hm.col_keys),
                "query": [[name, value] for name, value in hm.link_query],
            }
    # the row labels' margin plus a readable width per column; charts.js sets it as min-width, so
    # a phone scrolls the chart sideways in its box instead of squeezing the cells
    longest = max((len(label) for label in hm.row_labels), default=10)
    margin = 40 + 7 * min(longest, 28)
    if wide:
        figure["layout"]["width"] = int(margin + WIDE_COLUMN_PX * len(hm.col_labels))
    else:
        figure["min_width"] = int(margin + NARROW_COLUMN_PX * len(hm.col_labels))
    return figure


def taxonomy_bars(table: TaxonomyTable) -> dict:
    """Failed rubric items by mode: one bar group per row (model or family); a bar's click
    opens the judgments behind it when the table has links."""
    urls = table.urls or [["" for _ in table.modes] for _ in table.row_labels]
    labels = table.mode_labels
    traces = [
        {
            "type": "bar",
            "name": label,
            "x": labels,
            "y": list(counts),
            "customdata": list(row_urls),
            "marker": {"color": SERIES[i % len(SERIES)]},
            "hovertemplate": f"<b>{label}</b><br>%{{x}}: %{{y}} failed items<extra></extra>",
        }
        for i, (label, counts, row_urls) in enumerate(zip(table.row_labels, table.counts, urls, strict=True))
    ]
    layout = _layout(
        barmode="group",
        height=340,
        showlegend=len(traces) > 1,
        legend={"orientation": "h", "y": -0.2},
        yaxis={"title": {"text": "failed rubric items"}, "rangemode": "tozero", "automargin": True},
        xaxis={"automargin": True},
    )
    return {"data": traces, "layout": layout}


def lines(
    series: Sequence[tuple[str, Sequence, Sequence]],
    x_title: str,
    y_title: str,
    *,
    x_categorical: bool = False,
    markers: bool = False,
    integer_x: bool = False,
) -> dict:
    """One line per run; ``series`` is (name, xs, ys); ``integer_x`` ticks whole numbers only.
    Without markers the line is a step function ("hv"), drawn from the points where it changes
    (and its ends): a step-budget curve is sent as its few steps, not one point per step count."""
    if not markers:
        series = [(name, [x for x, _ in pts], [y for _, y in pts]) for name, pts in _step_points(series)]
    else:
        series = _with_gaps(series)
    traces = [
        {
            "type": "scatter",
            "name": name,
            "x": list(xs),
            "y": [_round(y) for y in ys],
            "mode": "lines+markers" if markers else "lines",
            # two runs with the same values must both stay visible: each its own dash and symbol
            "line": {
                "color": SERIES[i % len(SERIES)],
                "shape": "linear" if markers else "hv",
                "dash": DASHES[i % len(DASHES)],
                "width": 2.5 if i == 0 else 2,
            },
            "marker": {"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 8},
            "connectgaps": False,  # no line across x values where the run has no data
            "hovertemplate": f"<b>{name}</b><br>{x_title}: %{{x}}<br>{y_title}: %{{y:.1f}}<extra></extra>",
        }
        for i, (name, xs, ys) in enumerate(series)
    ]
    layout = _layout(
        height=360,
        # above the plot, clear of the x-axis title
        legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        xaxis={
            "title": {"text": x_title},
            "type": "category" if x_categorical else "linear",
            "automargin": True,
            **({"dtick": 1} if integer_x else {}),
        },
        yaxis={"title": {"text": y_title}, "range": [0, 100], "automargin": True},
    )
    return {"data": traces, "layout": layout}


def _with_gaps(series: Sequence[tuple[str, Sequence, Sequence]]) -> list[tuple[str, list, list]]:
    """Every line over the union of the x values, None where a run has no point, so plotly breaks
    the line there instead of joining its neighbours across the gap."""
    order = []
    for _name, xs, _ys in series:
        order += [x for x in xs if x not in order]
    if all(isinstance(x, int | float) for x in order):
        order.sort()
    out = []
    for name, xs, ys in series:
        by_x = dict(zip(xs, ys, strict=True))
        out.append((name, order, [by_x.get(x) for x in order]))
    return out


def _step_points(series: Sequence[tuple[str, Sequence, Sequence]]):
    """Per line, the (x, y) points of a step function where y changes, plus the first and last."""
    for name, xs, ys in series:
        ys = [_round(y) for y in ys]
        last = len(ys) - 1
        yield name, [(x, y) for i, (x, y) in enumerate(zip(xs, ys, strict=True)) if i in (0, last) or y != ys[i - 1]]


def stacked_shares(
    rows: Sequence[tuple[str, Sequence[float]]], kinds: Sequence[str], x_title: str = "share of actions %"
) -> dict:
    """Horizontal 100 % bars: each row's share of each kind (action kinds, intent statuses). Long row names
    are broken over lines, so on a phone the labels leave room for the bars instead of running off the left."""
    labels = ["<br>".join(_wrap(part, 24) for part in name.split("<br>")) for name, _ in rows]
    traces = [
        {
            "type": "bar",
            "name": kind,
            "y": labels,
            "x": [_round(shares[k]) for _, shares in rows],
            "orientation": "h",
            "marker": {"color": SERIES[k % len(SERIES)]},
            "hovertemplate": f"<b>%{{y}}</b><br>{kind}: %{{x:.1f}}%<extra></extra>",
        }
        for k, kind in enumerate(kinds)
    ]
    layout = _layout(
        barmode="stack",
        height=max(200, 110 + 18 * sum(label.count("<br>") + 2 for label in labels)),
        # above the bars, in the table's order (plotly would list stacked traces reversed)
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom", "traceorder": "normal"},
        xaxis={"title": {"text": x_title}, "range": [0, 100]},
        yaxis={"autorange": "reversed", "automargin": True},
    )
    return {"data": traces, "layout": layout}


def frontier_scatter(
    points: Sequence[tuple[str, float, float]], on_frontier: Sequence[bool], x_title: str, y_title: str
) -> dict:
    """:func:`scatter` with the Pareto frontier drawn through its points (cheapest first) and named."""
    figure = scatter(points, x_title, y_title)
    front = sorted((p for p, on in zip(points, on_frontier, strict=True) if on), key=lambda p: (p[1], p[2]))
    figure["data"][0]["name"] = "runs"
    # names on hover only: runs at the same cost and score would print their names over each other
    figure["data"][0]["mode"] = "markers"
    figure["data"].append(
        {
            "type": "scatter",
            "name": "cost frontier (no run is both cheaper and better)",
            "x": [p[1] for p in front],
            "y": [_round(p[2]) for p in front],
            "mode": "lines",
            "line": {"color": SERIES[1], "shape": "hv", "dash": "dash", "width": 2},
            "hoverinfo": "skip",
        }
    )
    figure["layout"]["legend"] = {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"}
    figure["layout"]["showlegend"] = True
    return figure


def scatter(points: Sequence[tuple[str, float, float]], x_title: str, y_title: str) -> dict:
    """One labelled point per run, e.g. rubric score against cost."""
    trace = {
        "type": "scatter",
        "x": [p[1] for p in points],
        "y": [_round(p[2]) for p in points],
        "text": [p[0] for p in points],
        "mode": "markers+text",
        "textposition": "top center",
        "marker": {"size": 10, "color": SERIES[0]},
        "hovertemplate": f"<b>%{{text}}</b><br>{x_title}: %{{x}}<br>{y_title}: %{{y:.1f}}<extra></extra>",
    }
    layout = _layout(
        height=340,
        xaxis={"title": {"text": x_title}, "rangemode": "tozero", "automargin": True},
        yaxis={"title": {"text": y_title}, "range": [0, 100], "automargin": True},
    )
    return {"data": [trace], "layout": layout}


def _label_side(x: float, y: float) -> str:
    """Where a point's label goes on a 0-100 by 0-100 chart: below it unless the point is near the
    bottom, and toward the middle when the point is near the left or right edge."""
    vertical = "top" if y < 20 else "bottom"
    horizontal = "left" if x > 75 else "right" if x < 25 else "center"
    return f"{vertical} {horizontal}"


def proc_comp(points: Sequence[tuple[str, float, float]]) -> dict:
    """Each run's Proactivity (y) against its Completeness (x), both 0-100, with the diagonal where the two
    are equal: a run far below it got things right only once the user spelled them out."""
    diagonal = {
        "type": "scatter",
        "x": [0, 100],
        "y": [0, 100],
        "mode": "lines",
        "name": "Proactivity = Completeness",
        "line": {"dash": "dot", "color": SERIES[-1], "width": 1},
        "hoverinfo": "skip",
    }
    runs = {
        "type": "scatter",
        "x": [_round(p[1], 1) for p in points],
        "y": [_round(p[2], 1) for p in points],
        "text": [_wrap(p[0], 18) for p in points],
        "mode": "markers+text",
        # each label on the side of its point that faces into the chart, so none is cut at an edge
        "textposition": [_label_side(p[1], p[2]) for p in points],
        "cliponaxis": False,
        "name": "runs",
        "marker": {"size": 11, "color": SERIES[0]},
        "hovertemplate": "<b>%{text}</b><br>Completeness: %{x:.1f}%<br>Proactivity: %{y:.1f}%<extra></extra>",
    }
    layout = _layout(
        height=360,
        showlegend=False,
        xaxis={"title": {"text": "Completeness %"}, "range": [-3, 103], "automargin": True},
        yaxis={"title": {"text": "Proactivity %"}, "range": [-3, 103], "automargin": True},
    )
    return {"data": [diagonal, runs], "layout": layout}
