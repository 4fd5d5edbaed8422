"""What a run cost, per task and per perfect task, and the cost-accuracy Pareto frontier.

A run's cost is the dollars its trajectories recorded when any did ("recorded"); else, when they
recorded tokens and the agent's model (``Model.api_model``) is in the price table of
harness/judge/prices.py, tokens x prices: "estimated" when the prices are the shipped, unverified
ones, "priced" when they come from the price file named by MYPCBENCH_JUDGE_PRICES. Otherwise it is
unknown (None), never zero.

The frontier (as HAL, the Holistic Agent Leaderboard, draws it): a run is on it when no other run
costs no more per task and scores at least as well, better on one of the two. A run off it would need
to cost less than the cheapest frontier run that scores at least as well to join it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.judge.prices import PriceFileError, price_status, price_table

RECORDED = "recorded"
ESTIMATED = "estimated"
PRICED = "priced"


def run_cost(
    recorded_usd: float | None, input_tokens: int | None, output_tokens: int | None, api_model: str
) -> tuple[float | None, str]:
    """(total USD, basis: "recorded", "estimated", "priced" or "" when unknown)."""
    if recorded_usd is not None:
        return float(recorded_usd), RECORDED
    if input_tokens is None and output_tokens is None:
        return None, ""
    try:
        table, configured = price_table()
    except PriceFileError:
        return None, ""  # the judge's command names the bad file; a page never fails on it
    prices = table.get(api_model)
    if not api_model or not prices:
        return None, ""
    usd = ((input_tokens or 0) * prices["input"] + (output_tokens or 0) * prices["output"]) / 1_000_000
    return usd, PRICED if price_status(api_model, configured) == "configured" else ESTIMATED


def per(total: float | None, count: int) -> float | None:
    """``total`` / ``count``, None when either is unknown or the count is 0."""
    return None if total is None or count <= 0 else total / count


def pareto_frontier(costs: Sequence[float], scores: Sequence[float]) -> list[bool]:
    """Per point, whether it is on the frontier (lower cost and higher score are better): no other
    point has cost <= and score >= with one of them strict. Equal points are both on it."""
    order = sorted(range(len(costs)), key=lambda i: (costs[i], -scores[i]))
    on = [False] * len(costs)
    best = float("-inf")
    i = 0
    while i < len(order):
        # points of one cost: only those with the highest score there can be on the frontier
        j = i
        while j < len(order) and costs[order[j]] == costs[order[i]]:
            j += 1
        top = scores[order[i]]
        if top > best:
            for k in order[i:j]:
                on[k] = scores[k] == top
            best = top
        i = j
    return on


@dataclass(frozen=True)
class FrontierGap:
    """For a point off the frontier: the cost it would need to stay under to join it, set by the
    cheapest frontier point (``rival``, its index) that scores at least as well."""

    needed_cost: float
    rival: int


def frontier_gaps(costs: Sequence[float], scores: Sequence[float]) -> list[FrontierGap | None]:
    """Per point, None when on the frontier, else its :class:`FrontierGap`."""
    on = pareto_frontier(costs, scores)
    frontier = [i for i, f in enumerate(on) if f]
    out: list[FrontierGap | None] = []
    for i in range(len(costs)):
        if on[i]:
            out.append(None)
            continue
        better = [j for j in frontier if scores[j] >= scores[i]]
        rival = min(better, key=lambda j: (costs[j], -scores[j]))
        out.append(FrontierGap(costs[rival], rival))
    return out
