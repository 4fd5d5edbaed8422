"""The one rule that turns a run's cells (task x attempt) into its headline figures, shared by the
site's leaderboard and the offline judge's scores.json. Django-free, no numpy.

A cell is graded (a score 0..1), a counted failure (score 0: no trajectory for it) or unknown
(None: the judge erred, it is not judged yet, the trajectory never ran or is still running). The
point estimate is over the known cells; the bounds count every unknown cell as a failure (lower)
or as a success (upper), so an unknown never flatters a run: boards rank on the lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

PERFECT_THRESHOLD = 0.999  # upstream scores.json counts a task perfect at score >= 0.999


def is_perfect(score: float) -> bool:
    return score >= PERFECT_THRESHOLD


@dataclass(frozen=True)
class Figures:
    """Sums over a run's cells; every rate is derived from them."""

    cells: int  # every declared cell (tasks x attempts)
    known: int  # graded cells plus counted failures
    graded: int  # cells a judge scored
    perfect: int  # known cells with every rubric item passed
    score_sum: float  # sum of the known cells' scores

    @property
    def unknown(self) -> int:
        return self.cells - self.known

    @property
    def complete(self) -> bool:
        return self.unknown == 0

    def _rate(self, total: float, n: int) -> float | None:
        return total / n if n else None

    @property
    def mean_score(self) -> float | None:
        """Mean score over the known cells (None when nothing is known)."""
        return self._rate(self.score_sum, self.known)

    @property
    def perfect_rate(self) -> float | None:
        return self._rate(self.perfect, self.known)

    @property
    def score_bounds(self) -> tuple[float, float] | None:
        """(unknown cells as failures, as successes) of the mean score; None when there are no cells."""
        if not self.cells:
            return None
        return self.score_sum / self.cells, (self.score_sum + self.unknown) / self.cells

    @property
    def perfect_bounds(self) -> tuple[float, float] | None:
        if not self.cells:
            return None
        return self.perfect / self.cells, (self.perfect + self.unknown) / self.cells

    def as_dict(self) -> dict:
        sb, pb = self.score_bounds, self.perfect_bounds
        return {
            "cells": self.cells,
            "known": self.known,
            "graded": self.graded,
            "unknown": self.unknown,
            "perfect": self.perfect,
            "avg_score": self.mean_score,
            "avg_score_lower": sb and sb[0],
            "avg_score_upper": sb and sb[1],
            "perfect_rate": self.perfect_rate,
            "perfect_rate_lower": pb and pb[0],
            "perfect_rate_upper": pb and pb[1],
        }


ROUNDING = 1e-9  # how far outside 0..1 a cell score may fall by floating-point rounding alone


def _unknown(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def run_figures(
    scores: Iterable[float | None],
    perfect: Iterable[bool | float | None] | None = None,
    graded: Iterable[bool] | None = None,
) -> Figures:
    """Figures of a run from its cells' scores (None or NaN = unknown; a counted failure is 0.0).
    ``perfect`` gives each cell's "every item passed" flag (default: score >= 0.999); ``graded``
    tells graded cells from counted failures (default: every known cell is graded)."""
    scores = list(scores)
    flags = [None] * len(scores) if perfect is None else list(perfect)
    judged = [True] * len(scores) if graded is None else list(graded)
    if not len(flags) == len(judged) == len(scores):
        raise ValueError(f"{len(scores)} scores, {len(flags)} perfect flags and {len(judged)} graded flags")
    known = n_graded = n_perfect = 0
    total = 0.0
    for score, flag, was_graded in zip(scores, flags, judged, strict=True):
        if _unknown(score):
            continue
        score = float(cast(float, score))  # not None: _unknown passed it
        if not -ROUNDING <= score <= 1.0 + ROUNDING:
            raise ValueError(f"a cell score must be within 0..1, not {score}")
        score = min(max(score, 0.0), 1.0)  # a weighted sum's last bit of rounding (1.0000000000000002) is 1
        known += 1
        total += score
        n_graded += bool(was_graded)
        n_perfect += bool(is_perfect(score) if _unknown(flag) else flag)
    return Figures(cells=len(scores), known=known, graded=n_graded, perfect=n_perfect, score_sum=total)
