"""Cost per task from recorded dollars or tokens x prices, and the Pareto frontier against a brute-force check."""

import numpy as np
import pytest

from leaderboard.scoring import cost


def brute_frontier(costs, scores):
    n = len(costs)
    return [
        not any(
            costs[j] <= costs[i] and scores[j] >= scores[i] and (costs[j] < costs[i] or scores[j] > scores[i])
            for j in range(n)
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("seed", range(40))
def test_the_frontier_matches_a_brute_force_check_on_random_points(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    # few distinct values, so ties in cost, in score and whole duplicates happen
    costs = [float(c) for c in rng.integers(0, 8, n)]
    scores = [float(s) for s in rng.integers(0, 8, n)]
    on = cost.pareto_frontier(costs, scores)
    assert on == brute_frontier(costs, scores)
    for i, gap in enumerate(cost.frontier_gaps(costs, scores)):
        if on[i]:
            assert gap is None
            continue
        # the rival is on the frontier, scores at least as well, and is the cheapest such
        assert on[gap.rival] and scores[gap.rival] >= scores[i] and gap.needed_cost == costs[gap.rival]
        assert gap.needed_cost == min(costs[j] for j in range(n) if on[j] and scores[j] >= scores[i])
        # moving the point just under the needed cost puts it on the frontier
        moved = list(costs)
        moved[i] = gap.needed_cost - 0.5
        assert cost.pareto_frontier(moved, scores)[i]


def test_a_hand_case():
    # A $1 40%, B $2 60%, C $3 50% (dominated by B), D $2 30% (dominated by A and B)
    costs, scores = [1, 2, 3, 2], [40, 60, 50, 30]
    assert cost.pareto_frontier(costs, scores) == [True, True, False, False]
    gaps = cost.frontier_gaps(costs, scores)
    assert gaps[2] == cost.FrontierGap(2, 1) and gaps[3] == cost.FrontierGap(1, 0)


def test_run_cost_prefers_recorded_dollars_then_prices_tokens(monkeypatch):
    monkeypatch.delenv("MYPCBENCH_JUDGE_PRICES", raising=False)
    assert cost.run_cost(1.75, 1000, 100, "gpt-5-mini") == (1.75, "recorded")
    # gpt-5-mini in the shipped (unverified) table: $0.25 in, $2.00 out per million tokens
    usd, basis = cost.run_cost(None, 2_000_000, 500_000, "gpt-5-mini")
    assert usd == pytest.approx(0.5 + 1.0) and basis == "estimated"
    assert cost.run_cost(None, 1000, 100, "no-such-model") == (None, "")
    assert cost.run_cost(None, None, None, "gpt-5-mini") == (None, "")


def test_prices_from_the_price_file_are_not_marked_estimated(monkeypatch, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text('{"my-agent": {"input": 1.0, "output": 4.0}}')
    monkeypatch.setenv("MYPCBENCH_JUDGE_PRICES", str(prices))
    assert cost.run_cost(None, 1_000_000, 1_000_000, "my-agent") == (5.0, "priced")
    prices.write_text("not json")
    assert cost.run_cost(None, 1_000_000, 1_000_000, "my-agent") == (None, "")


def test_per_task_and_per_perfect_task():
    assert cost.per(3.0, 12) == 0.25
    assert cost.per(3.0, 0) is None and cost.per(None, 4) is None
