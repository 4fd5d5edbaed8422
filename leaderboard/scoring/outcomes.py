"""Stored judgments turned into per-run, per-task outcomes: numpy arrays aligned to the suite's task
order, so the pure functions of leaderboard/scoring/metrics.py apply directly. Pages, exports and the API
all score runs through here.

Rules:

* The grid is the suite's tasks x the run's declared attempts per task (``Run.attempts_per_task``;
  when empty, the number of distinct attempt numbers used). Attempt numbers are mapped in order onto
  that grid, so trajectories numbered 1..3 are the run's three attempts (a note says so).
* A cell with no trajectory ("missing") or whose trajectory the agent ended in error after acting
  ("errored") counts as a failure: score 0, shown as such.
* Unknown cells (score NaN), never silently failures: a judgment with verdict ``error`` or a current
  rubric only partly judged ("incomplete"), "stale" (judged only on an older rubric version),
  "unjudged", a trajectory queued, running or interrupted ("unfinished"), and one that errored
  before its first step or through our own machinery, e.g. its VM never started or the worker
  failed ("infrastructure"): not the agent's failure.
* Point estimates are over the known cells; :meth:`RunOutcomes.figures` (the shared rule of
  harness/results/scoring.py, also behind the offline judge's scores.json) adds the bounds with every
  unknown cell as a failure / as a success. Boards rank on the lower bound.
* Rubric score: authored weights normalised per task (``RubricItem.normalised_weight``) or equal
  weights (``weighting="equal"``). Only judgments of current rubric items count unless
  ``include_stale`` is set.
* A run is scored by one judge at a time; a run judged by several judges yields one
  :class:`RunOutcomes` per judge (:func:`judged_outcomes`). A trajectory imported with only a task
  score from the source's judge (``Trajectory.imported_score``) is graded with that score.
* Reported runs are never scored here (their figures are ReportedFigure rows).

Cost: a constant number of SQL queries whatever the number of steps or judgments (judgments are
aggregated in the database), and results are cached per data version (leaderboard/scoring/data_version.py).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Q, Sum

from harness.results import Figures, run_figures
from leaderboard.models import JudgeConfig, RubricItem, Run, Task
from leaderboard.scoring import data_version, metrics
from trajectories.models import Judgment, Trajectory

WEIGHTINGS = ("authored", "equal")

GRADED = "graded"
INCOMPLETE = "incomplete"  # a judgment with verdict error, or the current rubric only partly judged
STALE = "stale"  # judged only on an older rubric version
UNJUDGED = "unjudged"  # finished, not judged by this judge
MISSING = "missing"  # no trajectory for this task (attempt)
UNFINISHED = "unfinished"  # trajectory queued, running or interrupted: not the agent's failure
ERRORED = "errored"  # trajectory ended in error after the agent acted
INFRASTRUCTURE = "infrastructure"  # ended in error before its first step (e.g. the VM never started)
STATUSES = (GRADED, INCOMPLETE, STALE, UNJUDGED, MISSING, UNFINISHED, ERRORED, INFRASTRUCTURE)
#: statuses counted as a failure (score 0) in the denominator
FAILURE_STATUSES = (MISSING, ERRORED)
#: statuses whose score is unknown (NaN): left out of point estimates, counted, shown and bounded
UNKNOWN_STATUSES = (INCOMPLETE, STALE, UNJUDGED, UNFINISHED, INFRASTRUCTURE)

#: how our evaluation code words an ending that is not the agent's doing (trajectories/evaluations/
#: lifecycle.py): the guest never started on any try, or the worker itself failed mid-run
INFRASTRUCTURE_ERRORS = ("gave up after ", "the worker failed: ")

_UNFINISHED_TRAJECTORY = {
    Trajectory.Status.QUEUED,
    Trajectory.Status.RUNNING,
    Trajectory.Status.INTERRUPTED,
}

CACHE_PREFIX = "scoring"


@dataclass
class RunOutcomes:
    """One run scored by one judge. Arrays have shape (N,) per task or (N, R) per task and attempt,
    in the suite's task order (``Task.position``); R is the run's number of attempts (>= 1)."""

    run_id: int
    run_slug: str
    suite_id: int
    judge_id: int | None
    judge_name: str  # "" when nothing was judged
    judge_origin: str  # JudgeConfig.Origin value, "" when nothing was judged
    weighting: str
    include_stale: bool
    task_pks: np.ndarray  # (N,) Task primary keys
    task_ids: list[str]  # (N,) upstream ids, e.g. "retrieval-f016"
    behavioural_types: np.ndarray  # (N,) str
    apps_touched_bins: np.ndarray  # (N,) str ("" when unknown)
    task_apps: list[frozenset[str]]  # (N,) app slugs per task
    scores: np.ndarray  # (N, R) rubric score 0..1; NaN where unknown (see UNKNOWN_STATUSES)
    perfect: np.ndarray  # (N, R) 1.0 / 0.0 / NaN, every rubric item passed
    status: np.ndarray  # (N, R) one of STATUSES
    steps: np.ndarray  # (N, R) steps taken (0 where no trajectory)
    trajectory_ids: np.ndarray  # (N, R) Trajectory pk, 0 where none
    input_tokens: int | None = None  # sums over trajectories that report them; None when none do
    output_tokens: int | None = None
    cost_usd: float | None = None
    from_imported_score: int = 0  # cells scored from Trajectory.imported_score (no per-item verdicts)
    notes: list[str] = field(default_factory=list)
    judge_protocol: str = ""  # JudgeConfig.prompt_version (e.g. "paper-v1"), "" when not recorded
    world_variants: np.ndarray | None = None  # (N, R) the world variant each attempt ran on, -1 where none

    # -- shape ---------------------------------------------------------------------------

    @property
    def n_tasks(self) -> int:
        return len(self.task_ids)

    @property
    def attempts(self) -> int:
        return self.scores.shape[1]

    @property
    def known(self) -> np.ndarray:
        """(N, R) bool: the outcome is known (graded, or a failure counted as 0)."""
        return ~np.isnan(self.scores)

    def counts(self) -> dict[str, int]:
        """Number of (task, attempt) cells per status, every status present (0 when none)."""
        found = dict(zip(*np.unique(self.status, return_counts=True), strict=True)) if self.status.size else {}
        return {s: int(found.get(s, 0)) for s in STATUSES}

    # -- slicing -------------------------------------------------------------------------

    def subset(self, mask: Sequence[bool] | np.ndarray) -> RunOutcomes:
        """The same run restricted to the tasks where ``mask`` is True (e.g. one behavioural type)."""
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (self.n_tasks,):
            raise ValueError(f"mask has {mask.size} entries for {self.n_tasks} tasks")
        idx = np.flatnonzero(mask)
        return RunOutcomes(
            run_id=self.run_id,
            run_slug=self.run_slug,
            suite_id=self.suite_id,
            judge_id=self.judge_id,
            judge_name=self.judge_name,
            judge_origin=self.judge_origin,
            weighting=self.weighting,
            include_stale=self.include_stale,
            task_pks=self.task_pks[idx],
            task_ids=[self.task_ids[i] for i in idx],
            behavioural_types=self.behavioural_types[idx],
            apps_touched_bins=self.apps_touched_bins[idx],
            task_apps=[self.task_apps[i] for i in idx],
            scores=self.scores[idx],
            perfect=self.perfect[idx],
            status=self.status[idx],
            steps=self.steps[idx],
            trajectory_ids=self.trajectory_ids[idx],
            # tokens and cost stay whole-run figures: they are not per task in the DB aggregate
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.cost_usd,
            from_imported_score=self.from_imported_score,
            notes=list(self.notes),
            judge_protocol=self.judge_protocol,
        )

    def task_mask(self, behavioural_type: str = "", apps_touched_bin: str = "", app: str = "") -> np.ndarray:
        """(N,) bool mask of the tasks matching every non-empty filter."""
        mask = np.ones(self.n_tasks, dtype=bool)
        if behavioural_type:
            mask &= self.behavioural_types == behavioural_type
        if apps_touched_bin:
            mask &= self.apps_touched_bins == apps_touched_bin
        if app:
            mask &= np.array([app in apps for apps in self.task_apps], dtype=bool)
        return mask

    # -- point estimates (headline rule: over known cells) --------------------------------

    def figures(self) -> Figures:
        """The shared rule (harness.results.run_figures) over every cell: point estimates over the
        known cells and bounds with the unknown ones as failures / successes."""
        return run_figures(
            self.scores.ravel().tolist(),
            perfect=self.perfect.ravel().tolist(),
            graded=(self.status.ravel() == GRADED).tolist(),
        )

    @property
    def graded_count(self) -> int:
        return int((self.status == GRADED).sum())

    def perfect_k_n(self) -> tuple[int, int]:
        """(perfect cells, known cells): the Wilson counts of the single-attempt perfect rate."""
        f = self.figures()
        return f.perfect, f.known

    def mean_score(self) -> float:
        """Mean rubric score over known cells (0..1), NaN when nothing is known."""
        mean = self.figures().mean_score
        return float("nan") if mean is None else mean

    def pessimistic(self) -> RunOutcomes:
        """The same run with every unknown cell counted as a failure (score 0, not perfect): what
        the board ranks on, so unknowns never lift a run."""
        copy = self.subset(np.ones(self.n_tasks, dtype=bool))
        copy.scores = np.nan_to_num(self.scores, nan=0.0)
        copy.perfect = np.nan_to_num(self.perfect, nan=0.0)
        return copy

    def efficiency(self) -> float:
        """Trajectory efficiency (metrics.trajectory_efficiency) over known cells, x100."""
        known = self.known
        if not known.any():
            return float("nan")
        return metrics.trajectory_efficiency(self.scores[known], self.steps[known])

    def avg_steps(self) -> float:
        """Mean steps over cells that have a trajectory, NaN when none has."""
        has = self.trajectory_ids > 0
        return float(self.steps[has].mean()) if has.any() else float("nan")

    def task_scores(self) -> np.ndarray:
        """(N,) mean score over the known attempts of each task (NaN where none is known)."""
        with np.errstate(invalid="ignore"):
            s = np.where(self.known, self.scores, 0).sum(axis=1)
            n = self.known.sum(axis=1)
            return np.where(n > 0, s / np.maximum(n, 1), np.nan)

    def task_perfect(self) -> np.ndarray:
        """(N,) share of known attempts that were perfect (NaN where none is known)."""
        with np.errstate(invalid="ignore"):
            s = np.where(self.known, self.perfect, 0).sum(axis=1)
            n = self.known.sum(axis=1)
            return np.where(n > 0, s / np.maximum(n, 1), np.nan)

    def values(self, metric: str) -> np.ndarray:
        """(N, R) per-cell values of ``metric``: "score", "perfect" or "efficiency" (score/steps x100);
        NaN where unknown. These are what :func:`leaderboard.scoring.bootstrap.bootstrap_replicates` resamples."""
        if metric == "score":
            return self.scores
        if metric == "perfect":
            return self.perfect
        if metric == "efficiency":
            ratio = np.divide(self.scores, self.steps, out=np.zeros_like(self.scores), where=self.steps > 0)
            return np.where(self.known, ratio * 100, np.nan)
        raise ValueError(f"metric must be 'score', 'perfect' or 'efficiency', not {metric!r}")


# ------------------------------------------------------------------------------ scoring


def _judge_key(judge) -> int | None:
    if judge is None:
        return None
    if isinstance(judge, JudgeConfig):
        return judge.pk
    if isinstance(judge, int):
        return judge
    found = JudgeConfig.objects.filter(name=judge).values_list("pk", flat=True).first()
    if found is None:
        raise ValueError(f"no judge configuration named {judge!r}")
    return found


def verdict_counts(judgments, *more_fields: str):
    """Judgments counted per (trajectory, judge, current rubric item or not), as :func:`score_cell`
    reads them: n, ok (successes), err (judge errors), w_ok and w (normalised weights)."""
    success = Q(verdict=Judgment.Verdict.SUCCESS)
    return (
        judgments.values("trajectory_id", "judge_id", "rubric_item__is_current", *more_fields)
        .annotate(
            n=Count("id"),
            ok=Count("id", filter=success),
            err=Count("id", filter=Q(verdict=Judgment.Verdict.ERROR)),
            w_ok=Sum("rubric_item__normalised_weight", filter=success),
            w=Sum("rubric_item__normalised_weight"),
        )
        .order_by()
    )


def _run_rows(runs) -> list[dict]:
    ids = [r.pk if isinstance(r, Run) else int(r) for r in runs]
    # the values() rows are used as plain dicts here (django-stubs types them as TypedDicts)
    rows = cast(
        list[dict],
        list(
            Run.objects.filter(pk__in=ids)
            .values("pk", "slug", "suite_id", "judge_config_id", "provenance", "attempts_per_task")
            .order_by("pk")
        ),
    )
    return [r for r in rows if r["provenance"] != Run.Provenance.REPORTED]


def run_outcomes(
    runs: Iterable[Run | int],
    judge=None,
    weighting: str = "authored",
    include_stale: bool = False,
    version: str | None = None,
) -> dict[int, RunOutcomes]:
    """One :class:`RunOutcomes` per run (keyed by run pk), scored by ``judge`` (a JudgeConfig, its pk
    or its name) or, when None, by the run's default judge: ``Run.judge_config`` when it judged
    anything, else the judge with the most judged trajectories in the run. Reported runs are
    skipped. Constant query count; cached per data version (pass ``version`` from
    :func:`data_version.data_version` when the caller already has it, to save its queries)."""
    key = _judge_key(judge)
    mode = "default" if key is None else f"judge{key}"
    return {o.run_id: o for o in _outcomes(runs, mode, weighting, include_stale, version)}


def judged_outcomes(
    runs: Iterable[Run | int], weighting: str = "authored", include_stale: bool = False, version: str | None = None
) -> list[RunOutcomes]:
    """One :class:`RunOutcomes` per (run, judge) pair that has judgments, so a run judged by two
    judges gives two separately labelled rows; a run nobody judged yet gives one row labelled with
    its configured judge, if any (its finished tasks "unjudged"). Ordered by run pk, then judge
    name. Reported runs are skipped."""
    return _outcomes(runs, "all", weighting, include_stale, version)


def _outcomes(runs, mode: str, weighting: str, include_stale: bool, version: str | None) -> list[RunOutcomes]:
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}, not {weighting!r}")
    run_rows = _run_rows(runs)
    if not run_rows:
        return []
    ids = ",".join(str(r["pk"]) for r in run_rows)
    version = version or data_version.cache_version()
    cache_key = f"{CACHE_PREFIX}:{version}:{mode}:{weighting}:{int(include_stale)}:{ids}"
    found = cache.get(cache_key)
    if found is None:
        found = _compute(run_rows, mode, weighting, include_stale)
        cache.set(cache_key, found, 3600)
    return found


def _compute(run_rows: list[dict], mode: str, weighting: str, include_stale: bool) -> list[RunOutcomes]:
    run_ids = [r["pk"] for r in run_rows]
    suite_ids = sorted({r["suite_id"] for r in run_rows})

    # 1. the suites' tasks in order, 2. their apps, 3. current rubric size per task
    tasks_by_suite: dict[int, list[dict]] = defaultdict(list)
    for t in cast(
        Iterable[dict],
        Task.objects.filter(suite_id__in=suite_ids)
        .values("pk", "suite_id", "task_id", "behavioural_type", "apps_touched_bin")
        .order_by("suite_id", "position", "task_id"),
    ):
        tasks_by_suite[t["suite_id"]].append(t)
    apps: dict[int, set[str]] = defaultdict(set)
    for task_pk, slug in Task.apps.through.objects.filter(task__suite_id__in=suite_ids).values_list(
        "task_id", "app__slug"
    ):
        apps[task_pk].add(slug)
    rubric: dict[int, tuple[int, float]] = {
        row["task_id"]: (row["n"], row["w"] or 0.0)
        for row in RubricItem.objects.filter(task__suite_id__in=suite_ids, is_current=True)
        .values("task_id")
        .annotate(n=Count("id"), w=Sum("normalised_weight"))
    }

    # 4. trajectories (one row each, no steps)
    trajs: dict[int, list[dict]] = defaultdict(list)
    for t in cast(
        Iterable[dict],
        Trajectory.objects.filter(run_id__in=run_ids).values(
            "pk",
            "run_id",
            "task_id",
            "attempt",
            "status",
            "n_steps",
            "input_tokens",
            "output_tokens",
            "cost_usd",
            "imported_score",
            "imported_score_judge_id",
            "error",
            "world_variant",
        ),
    ):
        trajs[t["run_id"]].append(t)

    # 5. judgments aggregated per (trajectory, judge, current or not) in the database
    agg: dict[tuple[int, int], dict[bool, dict]] = defaultdict(dict)
    judges_per_run: dict[int, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for row in verdict_counts(Judgment.objects.filter(trajectory__run_id__in=run_ids), "trajectory__run_id"):
        agg[(row["trajectory_id"], row["judge_id"])][row["rubric_item__is_current"]] = row
        judges_per_run[row["trajectory__run_id"]][row["judge_id"]].add(row["trajectory_id"])
    for run_id, rows in trajs.items():
        for t in rows:
            if t["imported_score"] is not None and t["imported_score_judge_id"]:
                judges_per_run[run_id][t["imported_score_judge_id"]].add(t["pk"])

    # 6. the judges' labels
    judge_ids = {j for per in judges_per_run.values() for j in per}
    judge_ids |= {r["judge_config_id"] for r in run_rows if r["judge_config_id"]}
    if mode.startswith("judge"):
        judge_ids.add(int(mode[5:]))
    labels = {
        j["pk"]: (j["name"], j["origin"], j["prompt_version"])
        for j in JudgeConfig.objects.filter(pk__in=judge_ids).values("pk", "name", "origin", "prompt_version")
    }

    # An author's own verdicts are shown as self-reported on their pages, never used in scores.
    self_reported = {j for j, label in labels.items() if label[1] == JudgeConfig.Origin.SELF_REPORTED}
    result = []
    for run in run_rows:
        per_judge = {j: t for j, t in judges_per_run.get(run["pk"], {}).items() if j not in self_reported}
        if mode == "all":
            chosen = sorted(per_judge, key=lambda j: labels[j][0]) or [run["judge_config_id"]]
        elif mode == "default":
            default = run["judge_config_id"]
            if default not in per_judge:
                default = max(per_judge, key=lambda j: (len(per_judge[j]), -j)) if per_judge else default
            chosen = [default]
        else:
            chosen = [int(mode[5:])]
        for judge_id in chosen:
            if judge_id in self_reported:
                continue
            result.append(
                _score_run(
                    run,
                    judge_id,
                    labels.get(judge_id, ("", "", "")),
                    tasks_by_suite[run["suite_id"]],
                    apps,
                    rubric,
                    trajs.get(run["pk"], []),
                    agg,
                    weighting,
                    include_stale,
                )
            )
    return result


def _score_run(run, judge_id, label, tasks, apps, rubric, trajs, agg, weighting, include_stale) -> RunOutcomes:
    n = len(tasks)
    index = {t["pk"]: i for i, t in enumerate(tasks)}
    notes = []
    numbers = sorted({t["attempt"] for t in trajs if t["task_id"] in index})
    declared = run.get("attempts_per_task")
    R = declared or max(len(numbers), 1)
    column = {a: i for i, a in enumerate(numbers)}
    if numbers != list(range(len(numbers))):
        notes.append(
            f"attempt numbers {_numbers_text(numbers)} are not numbered from 0 without gaps: "
            f"scored in order as attempts 1 to {len(numbers)}"
        )
    beyond = sum(1 for t in trajs if t["task_id"] in index and column[t["attempt"]] >= R)
    if beyond:
        notes.append(f"{beyond} trajectories are attempts beyond the {R} declared per task and were not scored")
    scores = np.zeros((n, R))
    perfect = np.zeros((n, R))
    status = np.full((n, R), MISSING, dtype=object)
    steps = np.zeros((n, R))
    tids = np.zeros((n, R), dtype=np.int64)
    variants = np.full((n, R), -1, dtype=np.int64)
    in_tok = out_tok = cost = None
    from_imported = 0
    outside = 0
    for t in trajs:
        i = index.get(t["task_id"])
        if i is None:
            outside += 1
            continue
        a = column[t["attempt"]]
        if a >= R:
            continue
        tids[i, a] = t["pk"]
        variants[i, a] = t["world_variant"]
        steps[i, a] = t["n_steps"]
        if t["input_tokens"] is not None:
            in_tok = (in_tok or 0) + t["input_tokens"]
        if t["output_tokens"] is not None:
            out_tok = (out_tok or 0) + t["output_tokens"]
        if t["cost_usd"] is not None:
            cost = (cost or 0.0) + float(t["cost_usd"])
        cell_status, score, is_perfect, imported = score_cell(t, judge_id, rubric, agg, weighting, include_stale)
        status[i, a] = cell_status
        scores[i, a] = score
        perfect[i, a] = is_perfect
        from_imported += imported
    if outside:
        notes.append(f"{outside} trajectories are of tasks outside the run's suite and were not scored")
    return RunOutcomes(
        run_id=run["pk"],
        run_slug=run["slug"],
        suite_id=run["suite_id"],
        judge_id=judge_id,
        judge_name=label[0],
        judge_origin=label[1],
        judge_protocol=label[2],
        weighting=weighting,
        include_stale=include_stale,
        task_pks=np.array([t["pk"] for t in tasks], dtype=np.int64),
        task_ids=[t["task_id"] for t in tasks],
        behavioural_types=np.array([t["behavioural_type"] for t in tasks], dtype=object),
        apps_touched_bins=np.array([t["apps_touched_bin"] or "" for t in tasks], dtype=object),
        task_apps=[frozenset(apps.get(t["pk"], ())) for t in tasks],
        scores=scores,
        perfect=perfect,
        status=status,
        steps=steps,
        trajectory_ids=tids,
        input_tokens=in_tok,
        output_tokens=out_tok,
        cost_usd=cost,
        from_imported_score=from_imported,
        notes=notes,
        world_variants=variants,
    )


def _numbers_text(numbers: list[int]) -> str:
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}–{numbers[-1]}"
    shown = ", ".join(str(a) for a in numbers[:6])
    return shown + (", …" if len(numbers) > 6 else "")


def score_cell(t, judge_id, rubric, agg, weighting, include_stale) -> tuple[str, float, float, int]:
    """(status, score, perfect, 1 if scored from imported_score) of one trajectory under one judge."""
    nan = float("nan")
    if t["status"] == Trajectory.Status.ERROR:
        # no step recorded (the agent never acted), or our own machinery ended it: not the agent's failure
        if not t["n_steps"] or (t["error"] or "").startswith(INFRASTRUCTURE_ERRORS):
            return INFRASTRUCTURE, nan, nan, 0
        return ERRORED, 0.0, 0.0, 0
    if t["status"] in _UNFINISHED_TRAJECTORY:
        return UNFINISHED, nan, nan, 0
    rows = agg.get((t["pk"], judge_id), {})
    current = rows.get(True)
    stale = rows.get(False)
    n_items, w_items = rubric.get(t["task_id"], (0, 0.0))
    if current is not None:
        if current["err"]:
            return INCOMPLETE, nan, nan, 0
        if current["n"] < n_items or n_items == 0:
            return INCOMPLETE, nan, nan, 0
        if weighting == "equal":
            score = current["ok"] / n_items
        else:
            score = (current["w_ok"] or 0.0) / w_items if w_items > 0 else current["ok"] / n_items
        return GRADED, score, float(current["ok"] == n_items), 0
    if stale is not None:
        if not include_stale or stale["err"]:
            return STALE, nan, nan, 0
        if weighting == "equal" or not stale["w"]:
            score = stale["ok"] / stale["n"]
        else:
            score = (stale["w_ok"] or 0.0) / stale["w"]
        return GRADED, score, float(stale["ok"] == stale["n"]), 0
    if t["imported_score"] is not None and t["imported_score_judge_id"] == judge_id and judge_id is not None:
        score = float(t["imported_score"])
        return GRADED, score, float(metrics.is_perfect(score)), 1
    return UNJUDGED, nan, nan, 0


def _graded(outcomes: RunOutcomes) -> dict[int, float]:
    graded = {}
    cells = zip(outcomes.trajectory_ids.ravel(), outcomes.status.ravel(), outcomes.scores.ravel(), strict=True)
    for tid, status, score in cells:
        if tid and status == GRADED and not math.isnan(score):
            graded[int(tid)] = float(score)
    return graded


def graded_scores(run: Run) -> tuple[int | None, dict[int, float]]:
    """(the judge the leaderboard scores this run by, {trajectory id: score} of its graded trajectories)."""
    outcomes = None if run.is_reported else run_outcomes([run]).get(run.pk)
    if outcomes is None:
        return run.judge_config_id, {}
    return outcomes.judge_id, _graded(outcomes)
