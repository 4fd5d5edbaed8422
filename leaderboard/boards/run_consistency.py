"""A run's consistency over its repeated attempts, for its page and GET /api/runs/{slug}/consistency:
pass^k and best-of-k for every k up to its attempts (with their bootstrap intervals, and the curve's
chart), and per task how many attempts were perfect, filtered and sorted so flaky tasks are found.
Scored by the run's default judge, as the leaderboard scores it (leaderboard/scoring/consistency.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from leaderboard.analysis import charts
from leaderboard.boards.rows import B
from leaderboard.models import Run
from leaderboard.scoring import consistency
from leaderboard.scoring.outcomes import run_outcomes

SEED = 0
#: the per-task filter (``?tasks=``): which tasks the table lists
TASK_FILTERS = {
    "": "every task",
    "flaky": "flaky: some attempts perfect, some not",
    "never": "never perfect",
    "consistent": "perfect on every attempt",
    "unknown": "no known attempt",
}
#: the per-task order (``?order=``)
TASK_ORDERS = {
    "": "suite order",
    "rate": "least often perfect first",
    "-rate": "most often perfect first",
}


@dataclass
class RunConsistency:
    run_slug: str
    judge_name: str
    attempts: int
    curve: list[consistency.KFigure]
    tasks: list[consistency.TaskConsistency]  # filtered and ordered as asked
    counts: dict[str, int]  # tasks per kind, over every task
    task_filter: str = ""
    order: str = ""
    errors: list[str] = field(default_factory=list)  # bad query values, named
    chart: dict | None = None

    def as_dict(self) -> dict:
        return {
            "run": self.run_slug,
            "judge": self.judge_name,
            "attempts": self.attempts,
            "by_k": [f.as_dict() for f in self.curve],
            "task_counts": self.counts,
            "tasks": [t.as_dict() for t in self.tasks],
        }


def run_consistency(run: Run, task_filter: str = "", order: str = "", *, with_chart: bool = True):
    """The run's consistency, or None for a reported run or one with nothing scored. A run with one
    attempt per task has a curve of one point (k = 1) and its per-task table; the page shows the curve
    only from two attempts on. Unknown ``task_filter`` or ``order`` values are named in ``errors``
    and ignored."""
    if run.is_reported:
        return None
    o = run_outcomes([run]).get(run.pk)
    if o is None or o.n_tasks == 0:
        return None
    errors = []
    if task_filter not in TASK_FILTERS:
        errors.append(
            f"tasks={task_filter!r} is not a filter (expected one of: {', '.join(k for k in TASK_FILTERS if k)})"
        )
        task_filter = ""
    if order not in TASK_ORDERS:
        errors.append(f"order={order!r} is not an order (expected one of: {', '.join(k for k in TASK_ORDERS if k)})")
        order = ""
    (curve,) = consistency.curves([o], B=B, seed=SEED)
    rows = consistency.per_task(o)
    counts = {kind: sum(1 for r in rows if r.kind == kind) for kind in TASK_FILTERS if kind}
    shown = [r for r in rows if not task_filter or r.kind == task_filter]
    if order:
        # tasks with no known attempt last whatever the direction, then by task id for equal rates
        shown.sort(key=lambda r: r.task_id)
        known = [r for r in shown if r.rate is not None]
        known.sort(key=lambda r: r.rate or 0.0, reverse=order == "-rate")
        shown = known + [r for r in shown if r.rate is None]
    result = RunConsistency(
        run_slug=run.slug,
        judge_name=o.judge_name,
        attempts=o.attempts,
        curve=curve,
        tasks=shown,
        counts=counts,
        task_filter=task_filter,
        order=order,
        errors=errors,
    )
    if with_chart and o.attempts > 1:
        result.chart = {
            "id": "chart-consistency",
            "figure": curve_chart(curve),
            "label": "pass^k and best of k against k, in percent of tasks",
        }
    return result


def curve_chart(curve: list[consistency.KFigure]) -> dict:
    """pass^k and best-of-k against k, one line each (plotly, drawn by static/js/charts.js)."""
    ks = [f.k for f in curve]
    return charts.lines(
        [
            ("best of k: at least one of k attempts perfect", ks, [f.best_of for f in curve]),
            ("pass^k: all k attempts perfect", ks, [f.pass_hat for f in curve]),
        ],
        "k (attempts)",
        "% of tasks",
        markers=True,
        integer_x=True,
    )
