"""Thin views of the scored leaderboard (with CSV/JSON export of exactly what is shown) and the
two-run comparison; everything is computed by leaderboard/boards/board.py."""

import csv
import functools
import gzip
import io
import re

from django.core.cache import cache
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.http import urlencode

from leaderboard.boards import board as leaderboard
from leaderboard.boards import board_display
from leaderboard.boards.board import BoardFilters
from leaderboard.scoring import outcomes as scoring

SORTABLE = (
    ("rank", "Rank"),
    ("perfect", "Perfect %"),
    ("rubric", "Rubric %"),
    ("efficiency", "Efficiency"),
    ("steps", "Avg steps"),
    ("tokens", "Tokens"),
    ("cost", "Cost"),
    ("graded", "Tasks"),
)


PAGE_CACHE_SECONDS = 3600
GZIP_MIN_BYTES = 1024
_ACCEPTS_GZIP = re.compile(r"\bgzip\b")


def anonymous_page_cache(prefix: str):
    """Cache a page's finished bytes for anonymous visitors per data version and query string
    (nothing in them depends on who asks); staff pages, which show drafts and carry a CSRF token
    in the header, are rendered each time. The view is called as ``view(request, version, ...)``
    so it scores with the version the key was built from. Any judgment, trajectory, task, rubric,
    run, figure, judge or model change moves scoring.data_version() and so misses every key.

    Anonymous pages are also kept gzipped, compressed once, and sent so to browsers that accept
    it (an analysis page shrinks about 7x). Compression is safe here against BREACH-style attacks
    because these pages hold no secret: no CSRF token, no session data, nothing per visitor. Staff
    pages, which do carry a CSRF token, are never compressed (and there is no site-wide
    GZipMiddleware for that reason)."""

    def wrap(view):
        @functools.wraps(view)
        def cached(request, *args, **kwargs):
            version = scoring.data_version()
            page_key = None
            if not request.user.is_authenticated:
                page_key = f"{prefix}:{version}:{request.path}:{urlencode(sorted(request.GET.items()))}"
                found = cache.get(page_key)
                if found is not None:
                    return _anonymous_response(request, *found)
            response = view(request, version, *args, **kwargs)
            if page_key is not None and response.status_code == 200:
                headers = {k: v for k, v in response.items() if k in ("Content-Type", "Content-Disposition")}
                content = response.content
                compressed = gzip.compress(content, mtime=0) if len(content) >= GZIP_MIN_BYTES else None
                cache.set(page_key, (content, compressed, headers), PAGE_CACHE_SECONDS)
                return _anonymous_response(request, content, compressed, headers)
            return response

        return cached

    return wrap


def _anonymous_response(request, content: bytes, compressed: bytes | None, headers: dict) -> HttpResponse:
    if compressed is None:
        return HttpResponse(content, headers=headers)
    # a fresh response: Vary set directly (patch_vary_headers parses it, a cost on every hit)
    if _ACCEPTS_GZIP.search(request.headers.get("Accept-Encoding", "")):
        return HttpResponse(compressed, headers={**headers, "Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
    return HttpResponse(content, headers={**headers, "Vary": "Accept-Encoding"})


@anonymous_page_cache("board-page")
def board(request, version):
    """The board page and its exports (cached whole for anonymous visitors)."""
    return _board(request, version)


def _board(request, version):
    filters = BoardFilters.from_query(request.GET)
    b = leaderboard.board(request.user, filters, version=version)
    fmt = request.GET.get("format", "")
    if fmt == "csv":
        return _csv(b)
    if fmt == "json":
        return _json(b)
    query = filters.as_query()
    headers = []
    for key, label in SORTABLE:
        active = filters.sort == key
        natural = "asc" if key in leaderboard.ASCENDING_FIRST else "desc"
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
            "query": urlencode(query),
            "csv_href": "?" + urlencode({**query, "format": "csv"}),
            "json_href": "?" + urlencode({**query, "format": "json"}),
            "api_href": "/api/leaderboard?" + urlencode(query),
        },
    )


def _filename(b, ext: str) -> str:
    return f"mypcbench-leaderboard-{b.suite.slug if b.suite else 'empty'}.{ext}"


def _csv(b) -> HttpResponse:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=leaderboard.EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in leaderboard.export_rows(b):
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
        "rows": leaderboard.export_rows(b),
    }
    response = JsonResponse(payload, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{_filename(b, "json")}"'
    return response


def compare(request):
    a, b = request.GET.get("a", "").strip(), request.GET.get("b", "").strip()
    weighting = request.GET.get("weighting", "authored")
    runs = leaderboard.comparable_runs(request.user)
    c = leaderboard.comparison(request.user, a, b, weighting=weighting) if a and b else None
    return render(request, "leaderboard/compare.html", {"c": c, "weighting": weighting, "runs": runs, "a": a, "b": b})
