"""Runs over world variants: when a run's attempts span variants of the persona world, its single-attempt score
on each variant, and the variant-robust figure: the share of tasks solved on every variant tried.

On one fixed world an agent that replays a recorded success scores the success's pass@k, so best-of-k on a
single variant stays an upper bound. Across variants a replay lands on other records; a task counts as solved
here only when every attempt on every variant tried is perfect (with one attempt per variant, as
``--world-variant 0,3,7`` gives, that is "solved on each variant"), so extra attempts never raise the figure.

Cells count as in the rest of scoring: unknown outcomes (NaN) are left out, a missing or errored attempt is a
failure; an attempt with no trajectory has no variant and is left out here.
"""

from dataclasses import dataclass

import numpy as np

from leaderboard.scoring.outcomes import RunOutcomes

NO_VARIANT = -1  # an attempt with no trajectory


@dataclass(frozen=True)
class VariantScore:
    """One variant's single-attempt figures: means over the attempts that ran on it."""

    variant: int
    attempts: int  # known attempts on this variant
    tasks: int  # tasks with a known attempt on this variant
    perfect_pct: float | None  # share of attempts with every rubric item passed
    rubric_pct: float | None  # mean rubric score


@dataclass(frozen=True)
class VariantFigures:
    per_variant: list[VariantScore]
    robust_pct: float | None  # tasks solved on every variant tried, of the tasks with a known attempt
    robust_solved: int
    robust_tasks: int

    def as_dict(self) -> dict:
        return {
            "per_variant": [vars(v) for v in self.per_variant],
            "variant_robust_pct": self.robust_pct,
            "variant_robust_solved": self.robust_solved,
            "variant_robust_tasks": self.robust_tasks,
        }


def _pct(value: float) -> float:
    return round(100.0 * float(value), 1)


def variant_figures(perfect: np.ndarray, scores: np.ndarray, variants: np.ndarray) -> VariantFigures | None:
    """The figures of (N, R) arrays of perfect (1/0/NaN), rubric scores (0..1/NaN) and the variant of each
    attempt (``NO_VARIANT`` where none); None when the known attempts ran on fewer than two variants."""
    known = ~np.isnan(perfect) & (variants != NO_VARIANT)
    tried = sorted({int(v) for v in variants[known]})
    if len(tried) < 2:
        return None
    per_variant = []
    for variant in tried:
        on = known & (variants == variant)
        graded = scores[on][~np.isnan(scores[on])]
        per_variant.append(
            VariantScore(
                variant=variant,
                attempts=int(on.sum()),
                tasks=int(on.any(axis=1).sum()),
                perfect_pct=_pct(perfect[on].mean()),
                rubric_pct=_pct(graded.mean()) if graded.size else None,
            )
        )
    with_known = known.any(axis=1)
    solved = with_known & np.all(np.where(known, perfect == 1.0, True), axis=1)
    n = int(with_known.sum())
    return VariantFigures(
        per_variant=per_variant,
        robust_pct=_pct(solved.sum() / n) if n else None,
        robust_solved=int(solved.sum()),
        robust_tasks=n,
    )


def run_variant_figures(outcomes: RunOutcomes | None) -> VariantFigures | None:
    """A scored run's figures over world variants; None when its attempts ran on one variant (or none is scored)."""
    if outcomes is None or outcomes.world_variants is None:
        return None
    return variant_figures(outcomes.perfect, outcomes.scores, outcomes.world_variants)
