"""Scoring arithmetic pinned where a silent change would move published numbers (found by mutation
testing of leaderboard/scoring): the rubric score's refusals, the Wilson bounds' clamps, the rank
interval's level, the tier order by interval midpoint, and the paired difference's defaults and ties.
Expected values are worked out by hand in the comments."""

import numpy as np
import pytest

from leaderboard.scoring import metrics


def test_a_one_item_rubric_scores_and_an_empty_or_zero_weight_one_is_refused():
    assert metrics.rubric_score([True]) == 1.0
    assert metrics.rubric_score([False], [2.0]) == 0.0
    with pytest.raises(ValueError, match="^a task needs at least one rubric item to be scored$"):
        metrics.rubric_score([])
    with pytest.raises(ValueError, match="^rubric weights must be positive$"):
        metrics.rubric_score([True, False], [1.0, 0.0])  # zero is not positive


def test_wilson_bounds_stay_within_0_and_1_where_rounding_would_cross_them():
    # 16 of 16: centre + half is 1 + 2e-16 in floating point; 0 of 27: centre - half is -7e-18
    assert metrics.wilson_interval(16, 16)[1] == 1.0
    assert metrics.wilson_interval(0, 27)[0] == 0.0


def test_rank_intervals_take_the_nearest_ranks_at_the_level():
    # run 0 ahead in 7 of 10 replicates: its ranks sorted are 1 x7, 2 x3; at level 0.8 the 10% and
    # 90% quantiles sit at positions 0.9 and 8.1 of 0..9, nearest 1 and 8: ranks 1 and 2
    reps = np.array([[1] * 7 + [0] * 3, [0] * 7 + [1] * 3], dtype=float)
    assert metrics.rank_intervals(reps, level=0.8).tolist() == [[1, 2], [1, 2]]
    # ahead in 19 of 20: at level 0.9 the 95% quantile sits at 18.05 of 0..19, nearest 18: rank 1
    reps = np.array([[1] * 19 + [0], [0] * 19 + [1]], dtype=float)
    assert metrics.rank_intervals(reps, level=0.9).tolist() == [[1, 1], [2, 2]]


def test_tiers_follow_the_interval_midpoint_not_the_upper_bound():
    # midpoints 0.65, 0.70, 0.50: the leader is the second run (low 0.60); the first reaches it
    # (0.90), the third does not (0.55). Ordered by upper bound the first would lead and hold all three.
    assert metrics.tied_groups([(0.40, 0.90), (0.60, 0.80), (0.45, 0.55)]) == [1, 1, 2]


def test_the_paired_difference_defaults_ties_and_refusal():
    a = np.array([1, 0, 1, 0, 1, 1, 0, 0], dtype=float)
    b = np.array([1, 1, 1, 0, 1, 1, 0, 1], dtype=float)
    strata = ["x", "x", "x", "x", "y", "y", "y", "y"]
    # the defaults are 1000 replicates from seed 0
    assert metrics.paired_difference(a, b, strata) == metrics.paired_difference(a, b, strata, B=1000, seed=0)
    assert metrics.paired_difference(a, b, strata, seed=1) != metrics.paired_difference(a, b, strata, seed=0)
    assert metrics.paired_difference(a, b, strata).difference == pytest.approx(2 / 8)
    same = metrics.paired_difference(a, a.copy(), strata)
    assert (same.difference, same.low, same.high, same.p_b_greater) == (0.0, 0.0, 0.0, 0.0)  # a tie is not ahead
    with pytest.raises(ValueError, match="^both runs must cover the same tasks$"):
        metrics.paired_difference(a, b[:-1], strata)


def test_efficiency_counts_one_step_tasks_and_zero_step_ones_as_zero():
    # (1.0 / 1 + 0.5 / 2 + 1.0 / 0 -> 0) / 3 x 100 = 41.67
    assert metrics.trajectory_efficiency([1.0, 0.5, 1.0], [1, 2, 0]) == pytest.approx(125 / 3)
    assert np.isnan(metrics.trajectory_efficiency([], []))
