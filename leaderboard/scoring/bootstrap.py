"""Paired stratified bootstrap over runs' per-task outcomes (strata = behavioural type): the
replicates behind the leaderboard's and the heatmaps' intervals. Pure numpy over RunOutcomes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leaderboard.scoring.metrics import attempt_generator
from leaderboard.scoring.outcomes import RunOutcomes


def bootstrap_replicates(
    outcomes: Sequence[RunOutcomes], metric: str = "score", B: int = 1000, seed: int = 0
) -> np.ndarray:
    """(M, B) paired stratified-bootstrap replicates (strata = behavioural type; tasks, then attempts)
    of ``metric`` for runs over the same tasks: the draws of metrics.stratified_bootstrap (same
    seed, same replicates when every cell is known; the tests hold them equal).

    Every run shares the task draws (paired) and is resampled over its own attempts: a 1-attempt
    run's replicates are the same whether or not a 3-attempt run stands beside it. Unknown (NaN)
    cells are left out of every replicate's mean rather than counted: each replicate is (sum of
    the drawn known values) / (number of drawn known cells)."""
    return bootstrap_many(outcomes, (metric,), B=B, seed=seed)[metric]


def bootstrap_many(
    outcomes: Sequence[RunOutcomes], metric_names: Sequence[str], B: int = 1000, seed: int = 0
) -> dict[str, np.ndarray]:
    """:func:`bootstrap_replicates` for several metrics at once, with the same draws for all.

    Why not call metrics.stratified_bootstrap per metric: its gather of every drawn cell costs
    about 0.25 s per metric at 30 runs x 184 tasks x 3 attempts. The micro mean is linear in the
    cells, so each replicate is a weighted sum: the draws become a (B, N*R) matrix of how often
    each (task, attempt) was drawn, and every run and metric is one matrix product (one matrix per
    distinct number of attempts R)."""
    if not outcomes:
        return {m: np.zeros((0, B)) for m in metric_names}
    first = outcomes[0]
    for o in outcomes[1:]:
        if o.n_tasks != first.n_tasks or not np.array_equal(o.task_pks, first.task_pks):
            raise ValueError(f"runs {first.run_slug} and {o.run_slug} do not cover the same tasks")
    M, N = len(outcomes), first.n_tasks
    out = {name: np.full((M, B), np.nan) for name in metric_names}
    all_weights = _draw_weights(first.behavioural_types, N, sorted({o.attempts for o in outcomes}), B, seed)
    for R, weights in all_weights.items():  # weights: (B, N*R)
        members = [i for i, o in enumerate(outcomes) if o.attempts == R]
        known = np.stack([outcomes[i].known.reshape(N * R) for i in members]).astype(float)  # (m, N*R)
        counts = weights @ known.T  # (B, m)
        for name in metric_names:
            values = np.stack([np.nan_to_num(outcomes[i].values(name), nan=0.0).reshape(N * R) for i in members])
            sums = weights @ (values * known).T  # (B, m)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[name][members] = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan).T
    return out


def bootstrap_task_values(strata: np.ndarray, values: np.ndarray, B: int = 1000, seed: int = 0) -> np.ndarray:
    """(M, B) replicates of the mean over tasks of M rows of per-task values (shape (M, N), NaN where a
    task does not count), resampling tasks within strata with the same task draws as
    :func:`bootstrap_many` (paired with the board's other intervals). A replicate with no counted task
    drawn is NaN."""
    values = np.atleast_2d(np.asarray(values, dtype=float))
    M, N = values.shape
    if M == 0:
        return np.zeros((0, B))
    weights = _draw_weights(np.asarray(strata), N, [1], B, seed)[1]  # (B, N): one attempt per task
    known = (~np.isnan(values)).astype(float)
    counts = weights @ known.T  # (B, M)
    sums = weights @ np.nan_to_num(values, nan=0.0).T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan).T


def _draw_weights(strata: np.ndarray, N: int, attempts: Sequence[int], B: int, seed: int) -> dict[int, np.ndarray]:
    """{R: (B, N*R) times each (task, attempt) cell is drawn per replicate} for each number of
    attempts R, from the same random sequences as metrics.stratified_bootstrap (strata in np.unique
    order; task draws shared by every R, attempt draws from metrics.attempt_generator(seed, R))."""
    rng = np.random.default_rng(seed)
    attempt_rngs = {R: attempt_generator(seed, R) for R in attempts}
    strata = np.asarray(strata)
    drawn: dict[int, list[np.ndarray]] = {R: [] for R in attempts}
    for g in np.unique(strata):
        idx = np.flatnonzero(strata == g)
        n_g = idx.size
        tasks = idx[rng.integers(0, n_g, size=(B, n_g))]  # (B, n_g)
        for R in attempts:
            offsets = (np.arange(B) * (N * R))[:, None, None]  # replicate b's cells start at b * N * R
            picks = attempt_rngs[R].integers(0, R, size=(B, n_g, R))  # (B, n_g, R)
            drawn[R].append((offsets + tasks[:, :, None] * R + picks).ravel())
    # counting the draws with bincount: several times faster than np.add.at, same counts
    return {
        R: (
            np.bincount(np.concatenate(drawn[R]), minlength=B * N * R).reshape(B, N * R).astype(float)
            if drawn[R]
            else np.zeros((B, N * R))
        )
        for R in attempts
    }
