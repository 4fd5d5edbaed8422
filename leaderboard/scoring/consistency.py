"""Consistency over repeated attempts: pass^k (every one of k attempts perfect) and best-of-k (at least
one of k perfect) for every k up to a run's attempts, with intervals from the board's stratified
bootstrap, and per task how many of its attempts were perfect (so flaky tasks can be found).

Estimators (tau-bench, arXiv 2406.12045, section 5; HumanEval, arXiv 2107.03374, section 2.1): a task
with c perfect attempts out of n known ones has pass^k = C(c, k) / C(n, k) and best-of-k (pass@k) =
1 - C(n - c, k) / C(n, k), both unbiased when the attempts are independent tries. A run's figure is
their mean over tasks, with the Perfect % rule for the denominator: unknown attempts (not judged,
unfinished, our machinery's errors) are left out, missing and errored attempts count as failures, and
a task with fewer than k known attempts is left out of pass^k and best-of-k at that k.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from leaderboard.models import BehaviouralType
from leaderboard.scoring import bootstrap
from leaderboard.scoring.outcomes import RunOutcomes


def pass_hat_k(c: int, n: int, k: int) -> float:
    """C(c, k) / C(n, k): the chance that k attempts drawn without replacement from n, c of them
    perfect, are all perfect."""
    _check(c, n, k)
    return comb(c, k) / comb(n, k)


def best_of_k(c: int, n: int, k: int) -> float:
    """1 - C(n - c, k) / C(n, k): the chance that at least one of k attempts drawn from n is perfect."""
    _check(c, n, k)
    return 1 - comb(n - c, k) / comb(n, k)


def _check(c: int, n: int, k: int) -> None:
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= perfect attempts <= attempts, got {c} of {n}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the {n} attempts, got {k}")


def task_counts(perfect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(c, n) per task of an (N, R) perfect array (1.0 / 0.0 / NaN unknown): perfect and known attempts."""
    known = ~np.isnan(perfect)
    c = np.where(known, perfect, 0).sum(axis=1).astype(int)
    return c, known.sum(axis=1).astype(int)


def task_values(perfect: np.ndarray, k: int, estimator: str = "pass_hat") -> np.ndarray:
    """(N,) per-task pass^k (``estimator="pass_hat"``) or best-of-k (``"best_of"``); NaN for a task
    with fewer than k known attempts."""
    one = {"pass_hat": pass_hat_k, "best_of": best_of_k}[estimator]
    c, n = task_counts(perfect)
    return np.array([one(int(ci), int(ni), k) if ni >= k else np.nan for ci, ni in zip(c, n, strict=True)])


@dataclass(frozen=True)
class KFigure:
    """One k of a run: pass^k and best-of-k in percent, each with its 95% bootstrap interval, and the
    number of tasks counted (those with at least k known attempts)."""

    k: int
    pass_hat: float | None
    pass_hat_low: float | None
    pass_hat_high: float | None
    best_of: float | None
    best_of_low: float | None
    best_of_high: float | None
    tasks: int

    def as_dict(self) -> dict:
        r = lambda x: None if x is None else round(x, 1)  # noqa: E731
        return {
            "k": self.k,
            "pass_hat_k_pct": r(self.pass_hat),
            "pass_hat_k_low": r(self.pass_hat_low),
            "pass_hat_k_high": r(self.pass_hat_high),
            "best_of_k_pct": r(self.best_of),
            "best_of_k_low": r(self.best_of_low),
            "best_of_k_high": r(self.best_of_high),
            "tasks": self.tasks,
        }


def curves(outcomes: list[RunOutcomes], B: int = 1000, seed: int = 0, every_k: bool = True) -> list[list[KFigure]]:
    """Per run, one :class:`KFigure` for each k from 1 to its attempts (``every_k``), or only for k =
    its attempts (what the leaderboard shows). Intervals: the board's paired
    stratified bootstrap over tasks (the same task draws as its other intervals; strata = behavioural
    type), each replicate the mean of the drawn tasks' estimates. Runs must cover the same tasks."""
    if not outcomes:
        return []
    strata = outcomes[0].behavioural_types
    columns: list[tuple[int, int, str]] = []  # (run index, k, estimator) per row of the values matrix
    values = []
    for i, o in enumerate(outcomes):
        for k in range(1 if every_k else o.attempts, o.attempts + 1):
            for est in ("pass_hat", "best_of"):
                columns.append((i, k, est))
                values.append(task_values(o.perfect, k, est))
    reps = bootstrap.bootstrap_task_values(strata, np.array(values), B=B, seed=seed)  # (rows, B)
    figures: dict[tuple[int, int, str], tuple[float | None, float | None, float | None, int]] = {}
    for row, key in enumerate(columns):
        v = values[row]
        known = ~np.isnan(v)
        point = float(v[known].mean()) * 100 if known.any() else None
        drawn = reps[row][~np.isnan(reps[row])]
        low, high = (float(q) * 100 for q in np.quantile(drawn, [0.025, 0.975])) if drawn.size else (None, None)
        figures[key] = (point, low, high, int(known.sum()))
    out = []
    for i, o in enumerate(outcomes):
        run = []
        for k in range(1 if every_k else o.attempts, o.attempts + 1):
            p, b = figures[(i, k, "pass_hat")], figures[(i, k, "best_of")]
            run.append(KFigure(k, p[0], p[1], p[2], b[0], b[1], b[2], p[3]))
        out.append(run)
    return out


@dataclass(frozen=True)
class TaskConsistency:
    """One task of a run: perfect attempts out of known ones, of the run's attempts."""

    task_id: str
    behavioural_type: str
    perfect: int
    known: int
    attempts: int

    @property
    def kind(self) -> str:
        """ "consistent" (every known attempt perfect), "flaky" (some), "never" (none), "unknown"."""
        if self.known == 0:
            return "unknown"
        if self.perfect == self.known:
            return "consistent"
        return "flaky" if self.perfect else "never"

    @property
    def type_label(self) -> str:
        return dict(BehaviouralType.choices).get(self.behavioural_type, self.behavioural_type)

    @property
    def rate(self) -> float | None:
        return None if self.known == 0 else self.perfect / self.known

    def as_dict(self) -> dict:
        return {
            "task": self.task_id,
            "behavioural_type": self.behavioural_type,
            "perfect_attempts": self.perfect,
            "known_attempts": self.known,
            "attempts": self.attempts,
            "consistency": self.kind,
        }


def per_task(o: RunOutcomes) -> list[TaskConsistency]:
    """Every task of the run, in suite order, with its perfect and known attempts."""
    c, n = task_counts(o.perfect)
    return [
        TaskConsistency(o.task_ids[i], str(o.behavioural_types[i]), int(c[i]), int(n[i]), o.attempts)
        for i in range(o.n_tasks)
    ]
