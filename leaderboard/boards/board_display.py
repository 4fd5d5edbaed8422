"""How the one leaderboard is laid out for a visitor: graded and reported rows in one list, best
first, each labelled by where its figures come from and how they were judged; the headline chart's
geometry; the page's "last updated" date and citation. Scoring itself stays in leaderboard.py."""

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Max, Q

from leaderboard.boards.board import ASCENDING_FIRST, Board, BoardRow, board, sort_value
from leaderboard.models import Run, Suite
from leaderboard.scoring.filters import BoardFilters

PAPER_FILE = Path(__file__).resolve().parent / "data" / "paper_results.json"


@functools.cache
def paper_facts() -> dict:
    """What the published figures say about themselves: the judge model and each result set's
    short label (for row labels). Empty when the file is absent."""
    try:
        data = json.loads(PAPER_FILE.read_text())
    except (OSError, ValueError):
        return {}
    return {
        "judge_model": data.get("judge_model", ""),
        "sets": {s["id"]: s.get("short_label") or s.get("label", "") for s in data.get("result_sets", [])},
    }


def protocol_label(row: BoardRow, run_metadata: dict | None = None) -> str:
    """Plain words for how a row's figures were judged: our judge, the source's, or the paper's."""
    if row.reported:
        judge = paper_facts().get("judge_model")
        return f"paper's judge ({judge})" if judge else "paper's judge"
    if not row.judge_name:
        return "not judged yet"
    origin = {"imported": "source's judge", "self_reported": "author's own judge"}.get(row.judge_origin, "our judge")
    return f"{origin}: {row.judge_name}"


def merged_rows(board: Board) -> list[BoardRow]:
    """Graded and reported rows in one list. With the default sort, best first on the rank metric
    (rows without a value last); with a column sort, by that column, reported rows placed by their
    value like any other. Graded rows keep their rank interval; reported ones have none."""
    f = board.filters
    key = f.sort
    value = lambda r: sort_value(r, key)  # noqa: E731
    if key == "rank":
        key = "rubric" if f.metric == "rubric" else "perfect"
        desc = f.dir != "asc"
        # graded rows by what they are ranked on (the lower bound; none when nothing was judged)
        value = lambda r: sort_value(r, key) if r.reported else r.rank_value  # noqa: E731
    else:
        desc = (f.dir or ("asc" if key in ASCENDING_FIRST else "desc")) == "desc"
    rows = [*board.rows, *board.reported_rows]
    known = [r for r in rows if value(r) is not None]
    unknown = [r for r in rows if value(r) is None]
    known.sort(key=lambda r: (r.reported, r.run_name.lower()))  # stable ties: graded first, then by name
    known.sort(key=value, reverse=desc)
    return known + unknown


@dataclass
class ChartBar:
    label: str
    detail: str
    reported: bool
    value: float
    text: str
    point: float  # percent of the track
    left: float | None = None
    width: float | None = None
    href: str = ""


def headline_chart(rows: list[BoardRow], metric: str = "perfect") -> list[ChartBar]:
    """One bar per row with a value on the rank metric: the point, and the 95% interval for graded
    rows (reported figures have none), on a 0-100% track, in the order given."""
    bars = []
    for r in rows:
        iv = r.rubric if metric == "rubric" else r.perfect
        if iv.value is None:
            continue
        bar = iv.bar() or {}
        bars.append(
            ChartBar(
                label=r.run_name,
                detail="reported" if r.reported else protocol_label(r),  # the caption names the paper's judge
                reported=r.reported,
                value=iv.value,
                text=f"{iv.value:.1f}%"
                + (f" (95% interval {iv.low:.1f}–{iv.high:.1f})" if iv.has_interval else " (reported, no interval)"),
                point=round(max(0.0, min(100.0, iv.value)), 1),
                left=bar.get("left"),
                width=bar.get("width"),
                href=r.run_slug,
            )
        )
    return bars


def last_updated():
    """When the data behind the leaderboard last changed: the newest run's finish or creation."""
    found = Run.objects.filter(publication="published").aggregate(f=Max("finished_at"), c=Max("created_at"))
    dates = [d for d in found.values() if d is not None]
    return max(dates) if dates else None


def project_links() -> list[tuple[str, str]]:
    """(label, URL) of the paper, the code and the data, as configured (settings.MYPCBENCH_LINKS)."""
    return [(label, url) for label, url in getattr(settings, "MYPCBENCH_LINKS", ()) if url]


def citation() -> str:
    """The BibTeX entry visitors are asked to cite (settings.MYPCBENCH_CITATION)."""
    return getattr(settings, "MYPCBENCH_CITATION", "")


def suite_tabs(user) -> list[dict]:
    """Every suite with published runs, with how many are graded (trajectories we scored) and how
    many reported (published figures), so a visitor sees where each kind of row lives."""
    graded = ~Q(runs__provenance=Run.Provenance.REPORTED)
    suites = Suite.objects.annotate(
        n_graded=Count("runs", filter=Q(runs__publication="published") & graded, distinct=True),
        n_reported=Count(
            "runs", filter=Q(runs__publication="published", runs__provenance=Run.Provenance.REPORTED), distinct=True
        ),
        n_tasks=Count("tasks", distinct=True),
    ).order_by("is_demo", "name", "-version")
    return [
        {
            "slug": s.slug,
            "name": f"{s.name} {s.version}",
            "graded": s.n_graded,
            "reported": s.n_reported,
            "tasks": s.n_tasks,
            "demo": s.is_demo,
        }
        for s in suites
        if s.n_graded or s.n_reported
    ]


def run_rows(user, run) -> list:
    """The run's leaderboard rows (one per judge; a reported run's published figures), or []: the score a
    visitor looks for first at the top of a run page, counted the way the leaderboard counts it."""
    b = board(user, BoardFilters.from_query({"suite": run.suite.slug}))
    return [r for r in [*b.rows, *b.reported_rows] if r.run_slug == run.slug]
