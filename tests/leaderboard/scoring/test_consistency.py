"""pass^k and best-of-k against hand-computed cases, per-task consistency, and their bootstrap intervals.

The hand-made run has 4 tasks x 4 attempts (perfect: 1, 0, ? unknown):

    t0 [1, 1, 1, 1]   c=4 n=4   pass^2 = 1        best-of-2 = 1
    t1 [1, 1, 0, 0]   c=2 n=4   pass^2 = 1/6      best-of-2 = 1 - 1/6 = 5/6
    t2 [0, 0, 0, 0]   c=0 n=4   pass^2 = 0        best-of-2 = 0
    t3 [1, ?, ?, 0]   c=1 n=2   pass^2 = 0        best-of-2 = 1;  left out at k=3 and k=4
"""

import itertools

import numpy as np
import pytest

from leaderboard.scoring import bootstrap, consistency, outcomes

nan = float("nan")

PERFECT = [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0], [1, nan, nan, 0]]


def _run(perfect, types=None) -> outcomes.RunOutcomes:
    perfect = np.array(perfect, dtype=float)
    n = perfect.shape[0]
    return outcomes.RunOutcomes(
        run_id=1, run_slug="hand", suite_id=1, judge_id=None, judge_name="", judge_origin="",
        weighting="authored", include_stale=False, task_pks=np.arange(n), task_ids=[f"t{i}" for i in range(n)],
        behavioural_types=np.array(types or ["personal_lookup"] * n, dtype=object),
        apps_touched_bins=np.full(n, "1", dtype=object), task_apps=[frozenset()] * n,
        scores=perfect.copy(), perfect=perfect,
        status=np.full(perfect.shape, outcomes.GRADED, dtype=object),
        steps=np.ones(perfect.shape), trajectory_ids=np.arange(perfect.size).reshape(perfect.shape) + 1,
    )  # fmt: skip


def test_pass_hat_k_of_two_perfect_out_of_four_at_two_is_one_sixth():
    assert consistency.pass_hat_k(2, 4, 2) == pytest.approx(1 / 6)
    assert consistency.best_of_k(2, 4, 2) == pytest.approx(5 / 6)
    assert consistency.pass_hat_k(3, 5, 3) == pytest.approx(1 / 10)
    assert consistency.pass_hat_k(2, 4, 1) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("n", "c", "k"), [(n, c, k) for n in range(1, 6) for c in range(n + 1) for k in range(1, n + 1)]
)
def test_the_estimators_equal_the_share_of_k_subsets_by_enumeration(n, c, k):
    attempts = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(attempts, k))
    assert consistency.pass_hat_k(c, n, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))
    assert consistency.best_of_k(c, n, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))


def test_bad_counts_are_refused_with_what_was_wrong():
    with pytest.raises(ValueError, match="k must be between 1 and the 4 attempts"):
        consistency.pass_hat_k(2, 4, 5)
    with pytest.raises(ValueError, match="3 of 2"):
        consistency.best_of_k(3, 2, 1)


def test_task_values_leave_out_tasks_with_fewer_known_attempts_than_k():
    perfect = np.array(PERFECT, dtype=float)
    np.testing.assert_allclose(consistency.task_values(perfect, 2), [1, 1 / 6, 0, 0])
    np.testing.assert_allclose(consistency.task_values(perfect, 2, "best_of"), [1, 5 / 6, 0, 1])
    np.testing.assert_allclose(consistency.task_values(perfect, 3), [1, 0, 0, nan])


def test_the_run_curve_is_the_mean_over_counted_tasks_in_percent():
    (curve,) = consistency.curves([_run(PERFECT)], B=200)
    assert [f.k for f in curve] == [1, 2, 3, 4]
    # k=1: per-task perfect shares 1, 1/2, 0, 1/2 -> 50 %
    assert curve[0].pass_hat == pytest.approx(50.0)
    assert curve[0].best_of == pytest.approx(50.0)
    assert curve[1].pass_hat == pytest.approx((1 + 1 / 6 + 0 + 0) / 4 * 100)
    assert curve[1].best_of == pytest.approx((1 + 5 / 6 + 0 + 1) / 4 * 100)
    assert curve[3].pass_hat == pytest.approx(100 / 3)  # t3 left out: 1, 0, 0 over 3 tasks
    assert curve[3].best_of == pytest.approx(200 / 3)
    assert [f.tasks for f in curve] == [4, 4, 3, 3]
    for f in curve:
        assert f.pass_hat_low <= f.pass_hat <= f.pass_hat_high
        assert f.best_of_low <= f.best_of <= f.best_of_high


def test_pass_hat_never_exceeds_best_of_and_falls_with_k():
    rng = np.random.default_rng(3)
    perfect = (rng.random((30, 5)) < 0.6).astype(float)
    (curve,) = consistency.curves([_run(perfect)], B=100)
    hats = [f.pass_hat for f in curve]
    assert hats == sorted(hats, reverse=True)
    assert all(f.pass_hat <= f.best_of for f in curve)
    bests = [f.best_of for f in curve]
    assert bests == sorted(bests)


def test_the_intervals_use_the_boards_task_draws():
    """Per-task values with one attempt each: the same replicates as the board's bootstrap of that column."""
    rng = np.random.default_rng(7)
    perfect = (rng.random((12, 1)) < 0.5).astype(float)
    run = _run(perfect, types=["a", "b", "c"] * 4)
    board = bootstrap.bootstrap_many([run], ("perfect",), B=300, seed=0)["perfect"]
    ours = bootstrap.bootstrap_task_values(run.behavioural_types, perfect[:, 0][None, :], B=300, seed=0)
    np.testing.assert_allclose(ours, board)


def test_an_interval_is_wide_when_tasks_disagree_and_closed_when_they_do_not():
    same = consistency.curves([_run([[1, 1]] * 6)], B=200)[0][1]
    assert (same.pass_hat_low, same.pass_hat_high) == (100.0, 100.0)
    mixed = consistency.curves([_run([[1, 1]] * 3 + [[0, 0]] * 3)], B=200)[0][1]
    assert mixed.pass_hat_low < 50 < mixed.pass_hat_high


def test_per_task_counts_and_kinds():
    rows = consistency.per_task(_run(PERFECT))
    assert [(r.perfect, r.known, r.attempts) for r in rows] == [(4, 4, 4), (2, 4, 4), (0, 4, 4), (1, 2, 4)]
    assert [r.kind for r in rows] == ["consistent", "flaky", "never", "flaky"]
    assert consistency.per_task(_run([[nan, nan]]))[0].kind == "unknown"
