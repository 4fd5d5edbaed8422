"""The two-run comparison: two graded runs of the same suite, task by task, with the paired
bootstrap of A - B, and the runs a visitor may choose between. Rows and statistics as on the
leaderboard (leaderboard/boards/board.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.http import Http404

from leaderboard.boards.board import SEED, TYPE_LABELS, B, BoardRow, base_row, percent, run_statistics
from leaderboard.catalog.selectors import visible_runs
from leaderboard.models import Run, Suite
from leaderboard.scoring import metrics
from leaderboard.scoring.outcomes import WEIGHTINGS, RunOutcomes, run_outcomes


@dataclass
class CompareTask:
    task_id: str
    behavioural_type: str
    a_score: float | None
    b_score: float | None
    a_status: str
    b_status: str
    a_perfect: bool
    b_perfect: bool
    a_trajectory: int | None
    b_trajectory: int | None


@dataclass
class Comparison:
    suite: Suite
    a: BoardRow
    b: BoardRow
    tasks: list[CompareTask]
    only_a: list[CompareTask]
    only_b: list[CompareTask]
    paired_n: int  # tasks known in both runs (the paired statistics are over these)
    rubric_diff: metrics.PairedDifference | None
    perfect_diff: metrics.PairedDifference | None
    B: int = B


def comparison(user, slug_a: str, slug_b: str, weighting: str = "authored") -> Comparison:
    """Two graded runs of the same suite, task by task, with the paired bootstrap of A - B."""
    if not slug_a or not slug_b:
        raise Http404("choose two runs: ?a=<run slug>&b=<run slug>")
    runs = {r.slug: r for r in visible_runs(user).filter(slug__in=[slug_a, slug_b]).select_related("model", "suite")}
    for slug in (slug_a, slug_b):
        if slug not in runs:
            raise Http404(f"No run {slug!r}")
        if runs[slug].is_reported:
            raise Http404(f"{slug!r} is a reported run: its per-task outcomes are not known")
    run_a, run_b = runs[slug_a], runs[slug_b]
    if run_a.suite_id != run_b.suite_id:
        raise Http404(f"{slug_a!r} and {slug_b!r} ran different suites ({run_a.suite} and {run_b.suite})")
    if weighting not in WEIGHTINGS:
        weighting = "authored"
    outcomes = run_outcomes([run_a, run_b], weighting=weighting)
    oa, ob = outcomes[run_a.pk], outcomes[run_b.pk]
    stats = run_statistics([oa, ob], "perfect")
    rows = []
    for run, o, s in ((run_a, oa, stats[0]), (run_b, ob, stats[1])):
        row = base_row(run, reported=False)
        row.judge_name, row.judge_origin, row.judge_protocol = o.judge_name, o.judge_origin, o.judge_protocol
        for name, value in s.items():
            setattr(row, name, value)
        row.counts = o.counts()
        rows.append(row)

    sa, sb = oa.task_scores(), ob.task_scores()
    pa, pb = oa.task_perfect(), ob.task_perfect()
    tasks = [
        CompareTask(
            task_id=oa.task_ids[i],
            behavioural_type=TYPE_LABELS.get(oa.behavioural_types[i], str(oa.behavioural_types[i])),
            a_score=percent(sa[i]),
            b_score=percent(sb[i]),
            a_status=_task_status(oa, i),
            b_status=_task_status(ob, i),
            a_perfect=bool(pa[i] == 1),
            b_perfect=bool(pb[i] == 1),
            a_trajectory=int(oa.trajectory_ids[i, 0]) or None,
            b_trajectory=int(ob.trajectory_ids[i, 0]) or None,
        )
        for i in range(oa.n_tasks)
    ]
    both = ~np.isnan(sa) & ~np.isnan(sb)
    rubric_diff = perfect_diff = None
    if both.any():
        strata = oa.behavioural_types[both]
        # metrics.paired_difference gives (second - first) and P(second > first): pass (B, A)
        rubric_diff = _scaled(metrics.paired_difference(sb[both], sa[both], strata, B=B, seed=SEED))
        perfect_diff = _scaled(metrics.paired_difference(pb[both], pa[both], strata, B=B, seed=SEED))
    return Comparison(
        suite=run_a.suite,
        a=rows[0],
        b=rows[1],
        tasks=tasks,
        only_a=[t for t in tasks if t.a_perfect and not t.b_perfect],
        only_b=[t for t in tasks if t.b_perfect and not t.a_perfect],
        paired_n=int(both.sum()),
        rubric_diff=rubric_diff,
        perfect_diff=perfect_diff,
    )


def comparable_runs(user) -> list[tuple[str, str, str]]:
    """(slug, name, suite) of the graded runs this user may see, for the comparison chooser."""
    return [
        (r.slug, r.name, str(r.suite))
        for r in visible_runs(user).exclude(provenance=Run.Provenance.REPORTED).select_related("suite").order_by("name")
    ]


def _scaled(d: metrics.PairedDifference) -> metrics.PairedDifference:
    return metrics.PairedDifference(d.difference * 100, d.low * 100, d.high * 100, d.p_b_greater)


def _task_status(o: RunOutcomes, i: int) -> str:
    statuses = sorted(set(o.status[i]))
    return statuses[0] if len(statuses) == 1 else ", ".join(statuses)
