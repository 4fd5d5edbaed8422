"""Metrics and statistics as pure functions over plain arrays (numpy): task scores, Wilson
intervals, the stratified and paired bootstrap, rank intervals and tied groups, and the replay
(pass@k) expectation. No Django here, so the API, pages, exports and benches share one tested core.

Formulas: "Computer Use at the Edge of the Statistical Precipice" (arXiv 2605.08261): the Wilson score
interval (section 4.2, Eq. 1), the hierarchical bootstrap (section 4.3, App. 12), paired comparisons
(section 6.2) and pass@k against replay (section 2.1-2.2, App. 9-10).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
PERFECT_THRESHOLD = 0.999  # upstream scores.json counts a task perfect at score >= 0.999


def rubric_score(passed: Sequence[bool] | np.ndarray, weights: Sequence[float] | np.ndarray | None = None) -> float:
    """Weighted share of rubric items passed (weights normalised here; None = equal weights)."""
    passed = np.asarray(passed, dtype=float)
    if passed.size == 0:
        raise ValueError("a task needs at least one rubric item to be scored")
    w = np.ones_like(passed) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != passed.shape:
        raise ValueError(f"{w.size} weights for {passed.size} rubric items")
    if np.any(w <= 0):
        raise ValueError("rubric weights must be positive")
    return float(np.dot(passed, w) / w.sum())


def is_perfect(score: float) -> bool:
    return score >= PERFECT_THRESHOLD


def trajectory_efficiency(scores: np.ndarray, steps: np.ndarray) -> float:
    """Mean over tasks of score / steps, x100 (mean of ratios; tasks with 0 steps count 0)."""
    scores = np.asarray(scores, dtype=float)
    steps = np.asarray(steps, dtype=float)
    ratios = np.divide(scores, steps, out=np.zeros_like(scores), where=steps > 0)
    return float(ratios.mean() * 100) if ratios.size else float("nan")


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for k successes out of n; None when n is 0 (show "n/a")."""
    if n == 0:
        return None
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def attempt_generator(seed: int, attempts: int) -> np.random.Generator:
    """The random source of the attempt draws: it depends on the seed and the number of attempts
    only, while task draws come from ``default_rng(seed)`` alone. So runs with different numbers of
    attempts share their task draws (paired) and each is resampled over its own attempts."""
    return np.random.default_rng([seed, attempts])


def stratified_bootstrap(
    scores: np.ndarray, strata: Sequence, B: int = 1000, seed: int = 0, stat: str = "micro"
) -> np.ndarray:
    """Bootstrap replicates of the suite mean for M runs over the same N tasks.

    ``scores`` has shape (M, N) or (M, N, R) (R attempts per task). Strata (e.g. behavioural
    type) are fixed; within each stratum tasks are resampled with replacement, the same draw for
    every run (so replicates are paired), then attempts within each task (:func:`attempt_generator`).
    ``stat`` is "micro"
    (mean over tasks, the official headline) or "macro" (equal weight per stratum).
    Returns an (M, B) array.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim == 2:
        scores = scores[:, :, None]
    if scores.ndim != 3:
        raise ValueError("scores must have shape (runs, tasks) or (runs, tasks, attempts)")
    M, N, R = scores.shape
    labels = np.asarray(strata)
    if labels.shape != (N,):
        raise ValueError(f"{labels.size} strata labels for {N} tasks")
    if stat not in {"micro", "macro"}:
        raise ValueError(f"stat must be 'micro' or 'macro', not {stat!r}")
    rng = np.random.default_rng(seed)
    attempt_rng = attempt_generator(seed, R)
    groups = [np.flatnonzero(labels == g) for g in np.unique(labels)]
    total = np.zeros((M, B))
    for idx in groups:
        n_g = idx.size
        tasks = idx[rng.integers(0, n_g, size=(B, n_g))]  # (B, n_g)
        attempts = attempt_rng.integers(0, R, size=(B, n_g, R))  # (B, n_g, R)
        drawn = scores[:, tasks[:, :, None], attempts]  # (M, B, n_g, R)
        group_sum = drawn.mean(axis=3).sum(axis=2)  # (M, B)
        total += group_sum / N if stat == "micro" else group_sum / n_g / len(groups)
    return total


def percentile_interval(replicates: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Percentile interval per row of an (M, B) array -> (M, 2)."""
    alpha = (1 - level) / 2
    return np.quantile(np.atleast_2d(replicates), [alpha, 1 - alpha], axis=1).T


@dataclass(frozen=True)
class PairedDifference:
    difference: float  # point estimate of B - A
    low: float
    high: float
    p_b_greater: float  # share of replicates where B > A


def paired_difference(scores_a: np.ndarray, scores_b: np.ndarray, strata: Sequence, B: int = 1000, seed: int = 0):
    """Paired stratified bootstrap of mean(B) - mean(A) for two runs over the same tasks."""
    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape[0] != b.shape[0]:
        raise ValueError("both runs must cover the same tasks")
    reps = stratified_bootstrap(np.stack([a, b]), strata, B=B, seed=seed)
    diff = reps[1] - reps[0]
    low, high = np.quantile(diff, [0.025, 0.975])
    point = float(np.mean(b) - np.mean(a))  # every task has the same number of attempts: mean of means
    return PairedDifference(point, float(low), float(high), float(np.mean(diff > 0)))


def rank_intervals(replicates: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Per run, the interval of its rank (1 = best) over paired bootstrap replicates -> (M, 2)."""
    reps = np.atleast_2d(replicates)
    # rank 1 for the highest score in each replicate; ties share the better rank
    ranks = (reps[None, :, :] > reps[:, None, :]).sum(axis=1) + 1  # (M, B)
    alpha = (1 - level) / 2
    return np.quantile(ranks, [alpha, 1 - alpha], axis=1, method="nearest").T.astype(int)


def tied_groups(intervals: np.ndarray) -> list[int]:
    """Tier per run, counting from 1 in descending order of the interval midpoint. A tier is led by
    its best run and holds every run whose upper bound reaches that leader's lower bound; the first
    run clearly below the leader starts the next tier. (Not chained through members: two runs whose
    intervals are far apart never share a tier just because runs in between overlap both.)"""
    iv = np.asarray(intervals, dtype=float)
    order = np.argsort(-(iv[:, 0] + iv[:, 1]) / 2, kind="stable")
    labels = [0] * len(iv)
    group = 0
    leader_low = None
    for i in order:
        low, high = iv[i]
        if leader_low is None or high < leader_low:
            group += 1
            leader_low = low
        labels[i] = group
    return labels


def replay_expected_success(p: Sequence[float], k: int) -> float:
    """Expected success of a blind replay of k rollouts = pass@k = mean(1 - (1 - p_i)^k)."""
    rates = np.asarray(p, dtype=float)
    return float(np.mean(1 - (1 - rates) ** k))
