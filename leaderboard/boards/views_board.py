"""Thin views of the scored leaderboard (with CSV/JSON export of exactly what is shown) and the
two-run comparison; everything is computed by leaderboard/boards/board.py and comparison.py."""

import csv
import io

from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.http import urlencode

import leaderboard.boards.board
from leaderboard.boards import board_display, session_figures
from leaderboard.boards.comparison import comparable_runs, comparison
from leaderboard.scoring.filters import BoardFilters
from mypcbench_site.page_cache import anonymous_page_cache

SORTABLE = (
    ("rank", "Position"),
    ("perfect", "Perfect %"),
    ("pass_hat_k", "All k perfect"),
    ("rubric", "Rubric %"),
    ("efficiency", "Efficiency"),
    ("steps", "Avg steps"),
    ("tokens", "Tokens"),
    ("cost", "Cost"),
    ("graded", "Tasks"),
)


@anonymous_page_cache("board-page")
def board(request, version):
    """The board page and its exports (cached whole for anonymous visitors)."""
    return _board(request, version)


def _board(request, version):
    filters = BoardFilters.from_query(request.GET)
    b = leaderboard.boards.board.board(request.user, filters, version=version)
    fmt = request.GET.get("format", "")
    if fmt == "csv":
        return _csv(b)
    if fmt == "json":
        return _json(b)
    query = filters.as_query()
    headers = []
    for key, label in SORTABLE:
        active = filters.sort == key
        natural = "asc" if key in leaderboard.boards.board.ASCENDING_FIRST else "desc"
        current = filters.dir or natural
        flip = ("asc" if current == "desc" else "desc") if active else ""
        headers.append(
            {
                "key": key,
                "label": label,
                "active": active,
                "dir": current if active else "",
                "href": "?" + urlencode(filters.as_query(sort=key, dir=flip if flip != natural else "")),
            }
        )
    rows = board_display.merged_rows(b)
    columns = board_display.shown_columns(rows)
    sessions = session_figures.board_figures(rows)  # runs that recorded sessions: Proc, Comp, turns
    for row in rows:
        row.sessions = sessions.get(row.run_slug)
    columns["sessions"] = bool(sessions)
    return render(
        request,
        "leaderboard/board.html",
        {
            "board": b,
            "rows": rows,
            "chart": board_display.headline_chart(rows, "rubric" if filters.metric == "rubric" else "perfect"),
            "suite_tabs": board_display.suite_tabs(request.user),
            "last_updated": board_display.last_updated(),
            "links": board_display.project_links(),
            "citation": board_display.citation(),
            "filters": filters,
            "options": b.options,
            "headers": {h["key"]: h for h in headers},
            "columns": columns,
            "cost_chart": board_display.cost_chart(rows),
            "cost_note": board_display.cost_note(rows),
            "missing_columns": board_display.missing_columns_text(columns),
            # the newest published version of each model's figures, or every version: one click apart
            "versions_href": "?" + urlencode(filters.as_query(versions="" if filters.all_versions else "all")),
            "query": urlencode(query),
            "filters_set": any(
                k not in ("suite", "versions") for k in query
            ),  # the suite is chosen by its chip, not a filter
            "csv_href": "?" + urlencode({**query, "format": "csv"}),
            "json_href": "?" + urlencode({**query, "format": "json"}),
            "api_href": "/api/leaderboard?" + urlencode(query),
        },
    )


def _filename(b, ext: str) -> str:
    return f"mypcbench-leaderboard-{b.suite.slug if b.suite else 'empty'}.{ext}"


def _csv(b) -> HttpResponse:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=leaderboard.boards.board.EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in leaderboard.boards.board.export_rows(b):
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    response = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_filename(b, "csv")}"'
    return response


def _json(b) -> JsonResponse:
    payload = {
        "suite": b.suite.slug if b.suite else None,
        "filters": b.filters.as_query(),
        "tasks": b.task_count,
        "bootstrap_replicates": b.B,
        "older_versions": b.older_versions,  # reported rows of older published versions (shown with versions=all)
        "rows": leaderboard.boards.board.export_rows(b),
    }
    response = JsonResponse(payload, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{_filename(b, "json")}"'
    return response


def compare(request):
    a, b = request.GET.get("a", "").strip(), request.GET.get("b", "").strip()
    weighting = request.GET.get("weighting", "authored")
    runs = comparable_runs(request.user)
    c = comparison(request.user, a, b, weighting=weighting) if a and b else None
    return render(request, "leaderboard/compare.html", {"c": c, "weighting": weighting, "runs": runs, "a": a, "b": b})
