"""Scores over world variants, computed by hand: each variant's single-attempt figures over the attempts that
ran on it, and the variant-robust share of tasks solved on every variant tried (unknown attempts left out,
extra attempts never raising it); a run on one variant has no such figures."""

import numpy as np

from leaderboard.scoring.variants import NO_VARIANT, VariantScore, variant_figures

nan = np.nan


def test_per_variant_and_robust_figures_by_hand():
    perfect = np.array([[1, 1], [1, 0], [0, nan]], dtype=float)
    scores = np.array([[1.0, 1.0], [1.0, 0.5], [0.25, nan]])
    variants = np.array([[0, 3], [0, 3], [0, 3]])
    found = variant_figures(perfect, scores, variants)
    # variant 0: 2 of 3 attempts perfect, rubric (1 + 1 + 0.25) / 3; variant 3: task 3's attempt is unknown
    assert found.per_variant == [
        VariantScore(variant=0, attempts=3, tasks=3, perfect_pct=66.7, rubric_pct=75.0),
        VariantScore(variant=3, attempts=2, tasks=2, perfect_pct=50.0, rubric_pct=75.0),
    ]
    # task 1 solved on both; task 2 fails on 3; task 3 fails on 0 (its variant-3 attempt is unknown)
    assert (found.robust_solved, found.robust_tasks, found.robust_pct) == (1, 3, 33.3)
    assert found.as_dict()["variant_robust_pct"] == 33.3


def test_two_attempts_on_one_variant_must_both_be_perfect():
    perfect = np.array([[1, 0, 1], [1, 1, 1]], dtype=float)
    variants = np.array([[0, 0, 5], [0, 0, 5]])
    found = variant_figures(perfect, perfect.copy(), variants)
    assert (found.robust_solved, found.robust_tasks) == (1, 2)  # best-of-2 on variant 0 would count task 1
    assert [v.perfect_pct for v in found.per_variant] == [75.0, 100.0]


def test_one_variant_or_no_trajectories_give_no_figures():
    perfect = np.array([[1, 0]], dtype=float)
    assert variant_figures(perfect, perfect, np.array([[3, 3]])) is None
    assert variant_figures(perfect, perfect, np.array([[3, NO_VARIANT]])) is None
    assert variant_figures(np.array([[nan, 1.0]]), np.array([[nan, 1.0]]), np.array([[0, 2]])) is None
