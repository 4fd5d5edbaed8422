"""Plotly figure builders for the analysis pages: each returns plain JSON-ready dicts that a
page embeds as a JSON data block (json_script) and static/js/charts.js draws; every chart also
has a table beside it, so the numbers are there without JavaScript."""

from __future__ import annotations

import json
from collections.abc import Sequence

import plotly.graph_objects as go

from leaderboard.analysis import Heatmap, TaxonomyTable

# Colours are overridden by charts.js from the page's CSS variables (light and dark themes);
# these are the light-theme fallbacks.
SEQUENTIAL = [[0.0, "#f7fbff"], [0.5, "#6baed6"], [1.0, "#08306b"]]
SERIES = ["#1f5fbf", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]


def _layout(**extra) -> dict:
    base = {
        "template": "none",
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10, "pad": 4},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"size": 13},
        "hoverlabel": {"align": "left"},
    }
    base.update(extra)
    return base


def _plain(fig: go.Figure) -> dict:
    """The figure as JSON-ready dicts (plotly's encoder turns numpy and special floats into JSON)."""
    return json.loads(fig.to_json())


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1f}%"


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
WIDE_COLUMN_PX = 64


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
    """Rows x columns coloured 0..100 %; hover says n and the 95% interval (or "reported");
    clicking a cell opens its ``url`` (the trajectories behind it). Many columns (17 apps and
    more): labels slanted and abbreviated (full in the hover), and a fixed width per column that
    charts.js lets scroll sideways instead of squeezing the cells."""
    wide = len(hm.col_labels) > WIDE_COLUMNS
    z = [[c.value for c in row] for row in hm.cells]
    hover = []
    for label, row in hm.rows:
        line = []
        for col, c in zip(hm.col_labels, row, strict=True):
            text = f"<b>{label}</b><br>{col}: {_pct(c.value)}"
            if hm.reported:
                text += "<br>reported figure (no interval)"
            else:
                text += f"<br>n = {c.n} tasks"
                if c.low is not None:
                    text += f"<br>95% interval {c.low:.1f}–{c.high:.1f}%"
                if c.incomplete:
                    text += f"<br>{c.incomplete} incomplete (left out)"
                if c.url:
                    text += "<br><i>click to open the trajectories</i>"
            line.append(text)
        hover.append(line)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=_distinct([_abbreviate(label) if wide else _wrap(label) for label in hm.col_labels]),
            y=hm.row_labels,
            zmin=0,
            zmax=100,
            colorscale=SEQUENTIAL,
            text=[["" if v is None else f"{v:.0f}" for v in row] for row in z],
            texttemplate="%{text}",
            hovertext=hover,
            hoverinfo="text",
            customdata=[[c.url for c in row] for row in hm.cells],
            xgap=2,
            ygap=2,
            showscale=False,  # every cell prints its value
        )
    )
    fig.update_layout(
        _layout(
            height=max(220, (130 if wide else 60) + 38 * len(hm.row_labels)),
            yaxis={"autorange": "reversed", "automargin": True},
            xaxis={"side": "top", "automargin": True, "tickangle": -45 if wide else 0, "type": "category"},
        )
    )
    if wide:
        # the row labels' margin plus a readable width per column; charts.js sets it as min-width
        longest = max((len(label) for label in hm.row_labels), default=10)
        fig.update_layout(width=int(40 + 7 * longest + WIDE_COLUMN_PX * len(hm.col_labels)))
    return _plain(fig)


def taxonomy_bars(table: TaxonomyTable) -> dict:
    """Failed rubric items by mode: one bar group per row (model or family); a bar's click
    opens the judgments behind it when the table has links."""
    traces = []
    urls = table.urls or [["" for _ in table.modes] for _ in table.row_labels]
    for i, (label, counts, row_urls) in enumerate(zip(table.row_labels, table.counts, urls, strict=True)):
        traces.append(
            go.Bar(
                name=label,
                x=table.mode_labels,
                y=counts,
                customdata=row_urls,
                marker={"color": SERIES[i % len(SERIES)]},
                hovertemplate=f"<b>{label}</b><br>%{{x}}: %{{y}} failed items<extra></extra>",
            )
        )
    fig = go.Figure(traces)
    fig.update_layout(
        _layout(
            barmode="group",
            height=340,
            showlegend=len(traces) > 1,
            legend={"orientation": "h", "y": -0.2},
            yaxis={"title": {"text": "failed rubric items"}, "rangemode": "tozero", "automargin": True},
            xaxis={"automargin": True},
        )
    )
    return _plain(fig)


def lines(
    series: Sequence[tuple[str, Sequence, Sequence]],
    x_title: str,
    y_title: str,
    *,
    x_categorical: bool = False,
    markers: bool = False,
    integer_x: bool = False,
) -> dict:
    """One line per run; ``series`` is (name, xs, ys); ``integer_x`` ticks whole numbers only."""
    fig = go.Figure(
        [
            go.Scatter(
                name=name,
                x=list(xs),
                y=list(ys),
                mode="lines+markers" if markers else "lines",
                line={"color": SERIES[i % len(SERIES)], "shape": "linear" if markers else "hv"},
                hovertemplate=f"<b>{name}</b><br>{x_title}: %{{x}}<br>{y_title}: %{{y:.1f}}<extra></extra>",
            )
            for i, (name, xs, ys) in enumerate(series)
        ]
    )
    fig.update_layout(
        _layout(
            height=340,
            legend={"orientation": "h", "y": -0.25},
            xaxis={
                "title": {"text": x_title},
                "type": "category" if x_categorical else "linear",
                "automargin": True,
                **({"dtick": 1} if integer_x else {}),
            },
            yaxis={"title": {"text": y_title}, "range": [0, 100], "automargin": True},
        )
    )
    return _plain(fig)


def stacked_shares(rows: Sequence[tuple[str, Sequence[float]]], kinds: Sequence[str]) -> dict:
    """Horizontal 100 % bars: each row's share of each action kind."""
    fig = go.Figure(
        [
            go.Bar(
                name=kind,
                y=[name for name, _ in rows],
                x=[shares[k] for _, shares in rows],
                orientation="h",
                marker={"color": SERIES[k % len(SERIES)]},
                hovertemplate=f"<b>%{{y}}</b><br>{kind}: %{{x:.1f}}%<extra></extra>",
            )
            for k, kind in enumerate(kinds)
        ]
    )
    fig.update_layout(
        _layout(
            barmode="stack",
            height=max(200, 90 + 36 * len(rows)),
            legend={"orientation": "h", "y": -0.2},
            xaxis={"title": {"text": "share of actions %"}, "range": [0, 100]},
            yaxis={"autorange": "reversed", "automargin": True},
        )
    )
    return _plain(fig)


def scatter(points: Sequence[tuple[str, float, float]], x_title: str, y_title: str) -> dict:
    """One labelled point per run, e.g. rubric score against cost."""
    fig = go.Figure(
        go.Scatter(
            x=[p[1] for p in points],
            y=[p[2] for p in points],
            text=[p[0] for p in points],
            mode="markers+text",
            textposition="top center",
            marker={"size": 10, "color": SERIES[0]},
            hovertemplate=f"<b>%{{text}}</b><br>{x_title}: %{{x}}<br>{y_title}: %{{y:.1f}}<extra></extra>",
        )
    )
    fig.update_layout(
        _layout(
            height=340,
            xaxis={"title": {"text": x_title}, "rangemode": "tozero", "automargin": True},
            yaxis={"title": {"text": y_title}, "range": [0, 100], "automargin": True},
        )
    )
    return _plain(fig)
