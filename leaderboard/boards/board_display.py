"""How the one leaderboard is laid out for a visitor: graded and reported rows in one list, best
first, each labelled by where its figures come from and how they were judged; the headline chart's
geometry; the page's "last updated" date and citation. Scoring itself stays in leaderboard.py."""

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Max, Q

from leaderboard.analysis import charts
from leaderboard.boards.board import Board, BoardRow, board
from leaderboard.models import Run, Suite
from leaderboard.scoring.filters import BoardFilters

PAPER_FILE = Path(__file__).resolve().parent.parent / "data" / "paper_results.json"


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
    """Graded and reported rows in one list, in the current sort, each with its position (built by
    leaderboard/boards/board.py, so the page and its exports show the same rows in the same order)."""
    return board.shown


OPTIONAL_COLUMNS = ("pass_hat_k", "efficiency", "steps", "tokens", "cost", "graded", "compare")


def shown_columns(rows: list[BoardRow]) -> dict[str, bool]:
    """Which of the board's optional columns have a value on at least one shown row; a column that is
    unknown for every row (tokens, cost and task counts are never published) is left out, not a
    column of dashes."""
    known = {
        "pass_hat_k": lambda r: not r.reported and r.attempts > 1 and r.pass_hat_k.known,
        "efficiency": lambda r: r.efficiency.value is not None,
        "steps": lambda r: r.avg_steps is not None,
        "tokens": lambda r: r.tokens is not None,
        "cost": lambda r: r.cost_total is not None,
        "graded": lambda r: not r.reported,
        "compare": lambda r: not r.reported,
    }
    return {col: any(known[col](r) for r in rows) for col in OPTIONAL_COLUMNS}


def missing_columns_text(columns: dict[str, bool]) -> str:
    """The one sentence naming the tokens, cost and task columns left out ("" when all are shown)."""
    names = [
        name for key, name in (("tokens", "Tokens"), ("cost", "cost"), ("graded", "task counts")) if not columns[key]
    ]
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return listed[0].upper() + listed[1:]


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


def cost_chart(rows: list[BoardRow]) -> dict | None:
    """The cost-accuracy chart (cost per task against Perfect %) with the frontier drawn, for the rows
    placed on it (leaderboard/boards/board.py's place_on_cost_frontier); None for fewer than two, or when
    they all cost the same per task (the points would stand in one column: cost_note says why instead)."""
    placed = [r for r in rows if r.on_frontier is not None]
    if len(placed) < 2 or len({round(r.cost_per_task or 0.0, 4) for r in placed}) < 2:
        return None
    points = [
        (
            f"{r.run_name}{' (estimated)' if r.cost_basis == 'estimated' else ''}",
            round(r.cost_per_task or 0.0, 4),
            r.perfect.value or 0.0,
        )
        for r in placed
    ]
    figure = charts.frontier_scatter(points, [bool(r.on_frontier) for r in placed], "cost per task (USD)", "Perfect %")
    return {
        "id": "chart-cost-frontier",
        "figure": figure,
        "label": "Perfect % against cost per task, with the cost frontier",
    }


def cost_note(rows: list[BoardRow]) -> str:
    """Why there is no cost chart although several runs have a known cost: they all cost the same per task."""
    placed = [r for r in rows if r.on_frontier is not None]
    costs = {round(r.cost_per_task or 0.0, 4) for r in placed}
    if len(placed) < 2 or len(costs) != 1:
        return ""
    each = f"${next(iter(costs)):.3f}"
    return (
        f"No cost-accuracy chart: all {len(placed)} runs with a known cost cost the same per task ({each}), "
        "so cost tells them apart nowhere and the best-scoring of them make the cost frontier."
    )


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
    many models have reported figures (one row each by default, from the paper's newest version), so a
    visitor sees where each kind of row lives."""
    graded = ~Q(runs__provenance=Run.Provenance.REPORTED)
    suites = Suite.objects.annotate(
        n_graded=Count("runs", filter=Q(runs__publication="published") & graded, distinct=True),
        n_reported=Count(
            "runs__model",
            filter=Q(runs__publication="published", runs__provenance=Run.Provenance.REPORTED),
            distinct=True,
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
    b = board(user, BoardFilters.from_query({"suite": run.suite.slug, "versions": "all"}))
    return [r for r in b.shown if r.run_slug == run.slug]
