"""Bench: stratified bootstrap CIs (B = 1000) for 30 runs x 184 tasks x 3 attempts, our vectorised
implementation against a straightforward per-replicate loop, measured side by side.

Run: .venv/bin/python bench/bench_statistics.py
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from leaderboard.scoring.metrics import percentile_interval, rank_intervals, stratified_bootstrap  # noqa: E402

SIZES = [64, 48, 25, 23, 13, 11]  # tasks per behavioural type in the 184-task suite


def loop_bootstrap(scores, strata, B, seed):
    """Baseline: one replicate at a time, one stratum at a time."""
    M, N, R = scores.shape
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(strata == g) for g in np.unique(strata)]
    out = np.empty((M, B))
    for b in range(B):
        parts = []
        for idx in groups:
            t = rng.choice(idx, len(idx), replace=True)
            r = rng.integers(0, R, (len(idx), R))
            parts.append(scores[:, t[:, None], r].mean(axis=2))
        out[:, b] = np.concatenate(parts, axis=1).mean(axis=1)
    return out


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    rng = np.random.default_rng(0)
    runs, attempts, B = 30, 3, 1000
    strata = np.repeat(np.arange(len(SIZES)), SIZES)
    skill = rng.uniform(0.05, 0.6, size=(runs, 1, 1))
    scores = (rng.random((runs, strata.size, attempts)) < skill).astype(float)

    ours = best_of(lambda: percentile_interval(stratified_bootstrap(scores, strata, B=B, seed=1)))
    with_ranks = best_of(lambda: rank_intervals(stratified_bootstrap(scores, strata, B=B, seed=1)))
    baseline = best_of(lambda: percentile_interval(loop_bootstrap(scores, strata, B=B, seed=1)), repeat=1)

    print(f"{runs} runs x {strata.size} tasks x {attempts} attempts, B = {B}")
    print(f"  vectorised bootstrap + CIs     {ours * 1000:8.1f} ms")
    print(f"  vectorised bootstrap + ranks   {with_ranks * 1000:8.1f} ms")
    print(f"  per-replicate loop (baseline)  {baseline * 1000:8.1f} ms")
    print(f"  speed-up vs loop               {baseline / ours:8.1f}x")
    print(f"  share of a 1 s budget used     {ours:8.2f}")


if __name__ == "__main__":
    main()
