"""Metrics and statistics against hand-computed values and the vectors in
../shared/reference/statistics.md."""

import numpy as np
import pytest

from leaderboard.scoring import metrics

WILSON_ROWS = [
    (0, 1, 0.000000, 0.793451),
    (1, 1, 0.206549, 1.000000),
    (0, 3, 0.000000, 0.561497),
    (1, 3, 0.061492, 0.792340),
    (2, 3, 0.207660, 0.938508),
    (3, 3, 0.438503, 1.000000),
    (5, 10, 0.236593, 0.763407),
    (0, 20, 0.000000, 0.161125),
    (10, 20, 0.2993, 0.7007),
    (1, 22, 0.008069, 0.217980),
    (8, 22, 0.197332, 0.570483),
    (102, 184, 0.482149, 0.624324),
    (0, 184, 0.000000, 0.020451),
    (50, 100, 0.4038, 0.5962),
]


@pytest.mark.parametrize("k,n,low,high", WILSON_ROWS)
def test_wilson_interval_matches_reference_vectors(k, n, low, high):
    got = metrics.wilson_interval(k, n)
    tolerance = 5e-5 if len(str(low)) <= 6 else 1e-6
    assert got[0] == pytest.approx(low, abs=tolerance)
    assert got[1] == pytest.approx(high, abs=tolerance)


def test_wilson_interval_is_undefined_without_trials_and_rejects_bad_counts():
    assert metrics.wilson_interval(0, 0) is None
    with pytest.raises(ValueError, match="k <= n"):
        metrics.wilson_interval(5, 3)


def test_rubric_score_weighted_and_equal():
    passed = [True, False, True]
    assert metrics.rubric_score(passed, [0.5, 0.3, 0.2]) == pytest.approx(0.7)
    assert metrics.rubric_score(passed) == pytest.approx(2 / 3)
    # weights that do not sum to one are normalised (upstream sums drift by 1e-6)
    assert metrics.rubric_score(passed, [5, 3, 2]) == pytest.approx(0.7)
    assert metrics.is_perfect(metrics.rubric_score([True] * 4, [0.25, 0.25, 0.25, 0.249999]))
    with pytest.raises(ValueError, match="2 weights for 3"):
        metrics.rubric_score(passed, [0.5, 0.5])


def test_trajectory_efficiency_is_mean_of_score_per_step():
    # (1.0/20 + 0.5/10 + 0/0) / 3 * 100
    assert metrics.trajectory_efficiency([1.0, 0.5, 0.0], [20, 10, 0]) == pytest.approx((0.05 + 0.05 + 0) / 3 * 100)


def test_replay_expected_success_vector():
    assert metrics.replay_expected_success([0.5, 0.1, 0.0], 3) == pytest.approx((0.875 + 0.271 + 0) / 3, abs=1e-9)
    assert metrics.replay_expected_success([0.5, 0.1, 0.0], 1) == pytest.approx(0.2)


def test_bootstrap_two_tasks_one_stratum_gives_quarter_half_quarter():
    reps = metrics.stratified_bootstrap(np.array([[0.0, 1.0]]), ["a", "a"], B=20000, seed=1)[0]
    values, counts = np.unique(reps, return_counts=True)
    assert list(values) == [0.0, 0.5, 1.0]
    assert counts / counts.sum() == pytest.approx([0.25, 0.5, 0.25], abs=0.015)
    assert list(metrics.percentile_interval(reps)[0]) == [0.0, 1.0]


def test_bootstrap_identical_tasks_collapse_and_seed_is_reproducible():
    reps = metrics.stratified_bootstrap(np.full((1, 10), 0.4), ["x"] * 5 + ["y"] * 5, B=200, seed=3)
    assert metrics.percentile_interval(reps)[0] == pytest.approx([0.4, 0.4])
    rng = np.random.default_rng(0)
    scores = rng.random((2, 30))
    strata = ["a"] * 10 + ["b"] * 20
    a = metrics.stratified_bootstrap(scores, strata, B=100, seed=7)
    b = metrics.stratified_bootstrap(scores, strata, B=100, seed=7)
    assert np.array_equal(a, b)


def test_bootstrap_sd_matches_analytic_stratified_value():
    rng = np.random.default_rng(42)
    sizes = [64, 48, 25, 23, 13, 11]
    strata = np.repeat(np.arange(6), sizes)
    scores = (rng.random(184) < 0.5).astype(float)
    reps = metrics.stratified_bootstrap(scores[None, :], strata, B=4000, seed=0)[0]
    analytic = np.sqrt(sum((n / 184) ** 2 * scores[strata == h].var() / n for h, n in enumerate(sizes)))
    assert reps.std() == pytest.approx(analytic, rel=0.05)
    assert reps.mean() == pytest.approx(scores.mean(), abs=0.003)


def test_macro_weights_each_stratum_equally():
    scores = np.array([[1.0] * 9 + [0.0]])  # stratum a: nine 1s; stratum b: one 0
    reps = metrics.stratified_bootstrap(scores, ["a"] * 9 + ["b"], B=50, seed=0, stat="macro")
    assert reps[0] == pytest.approx(np.full(50, 0.5))


def test_attempts_are_resampled_within_task():
    # one task, two attempts 0 and 1: replicates are 0, 0.5 or 1
    reps = metrics.stratified_bootstrap(np.array([[[0.0, 1.0]]]), ["a"], B=4000, seed=2)[0]
    assert set(np.unique(reps)) == {0.0, 0.5, 1.0}


def test_paired_bootstrap_separates_what_overlapping_intervals_cannot():
    rng = np.random.default_rng(5)
    strata = np.repeat(np.arange(6), [64, 48, 25, 23, 13, 11])
    a = np.zeros(184)
    a[rng.choice(184, 102, replace=False)] = 1
    b = a.copy()
    b[rng.choice(np.flatnonzero(a == 0), 5, replace=False)] = 1  # B = A plus five extra successes
    reps = metrics.stratified_bootstrap(np.stack([a, b]), strata, B=1000, seed=0)
    (a_lo, a_hi), (b_lo, b_hi) = metrics.percentile_interval(reps)
    assert b_lo < a_hi  # the separate intervals overlap heavily
    diff = metrics.paired_difference(a, b, strata, B=1000, seed=0)
    assert diff.difference == pytest.approx(5 / 184)
    assert 0 < diff.low < diff.difference < diff.high
    assert diff.p_b_greater > 0.95


def test_the_bootstrap_defaults_are_the_published_ones_and_shapes_are_checked():
    """B = 1000 replicates and seed 0 unless asked otherwise (the figures a reader reproduces)."""
    scores = np.random.default_rng(1).random((2, 12))
    strata = ["a"] * 6 + ["b"] * 6
    default = metrics.stratified_bootstrap(scores, strata)
    assert default.shape == (2, 1000)
    assert np.array_equal(default, metrics.stratified_bootstrap(scores, strata, B=1000, seed=0))
    assert not np.array_equal(default, metrics.stratified_bootstrap(scores, strata, B=1000, seed=1))
    with pytest.raises(ValueError, match=r"^scores must have shape \(runs, tasks\) or \(runs, tasks, attempts\)$"):
        metrics.stratified_bootstrap(np.zeros(5), ["a"] * 5)
    with pytest.raises(ValueError, match=r"^4 strata labels for 5 tasks$"):
        metrics.stratified_bootstrap(np.zeros((1, 5)), ["a"] * 4)


def test_the_paired_difference_draws_as_many_replicates_as_asked():
    rng = np.random.default_rng(4)
    a, b = rng.random(20), rng.random(20)
    for replicates in (3, 7):
        share = metrics.paired_difference(a, b, ["s"] * 20, B=replicates, seed=0).p_b_greater
        assert share * replicates == pytest.approx(round(share * replicates))  # a share of that many
    assert metrics.paired_difference(a, b, ["s"] * 20) == metrics.paired_difference(a, b, ["s"] * 20, B=1000, seed=0)


def test_rank_intervals_and_tied_groups():
    rng = np.random.default_rng(9)
    strata = ["t"] * 100
    strong = (rng.random(100) < 0.9).astype(float)
    close = strong.copy()
    close[np.flatnonzero(strong == 1)[:2]] = 0  # two fewer successes than strong
    weak = (rng.random(100) < 0.2).astype(float)
    reps = metrics.stratified_bootstrap(np.stack([strong, close, weak]), strata, B=1000, seed=1)
    ranks = metrics.rank_intervals(reps)
    assert ranks[2].tolist() == [3, 3]
    assert ranks[0][0] == 1 and ranks[1][1] == 2
    groups = metrics.tied_groups(metrics.percentile_interval(reps))
    assert groups[0] == groups[1] == 1
    assert groups[2] == 2


def test_tiers_do_not_chain_through_overlapping_neighbours():
    # each neighbour overlaps the next, but the first and the last are far apart
    intervals = [(0.50, 0.65), (0.40, 0.55), (0.30, 0.45), (0.20, 0.35), (0.027, 0.162)]
    assert metrics.tied_groups(intervals) == [1, 1, 2, 2, 3]
