"""Read-side data for the analysis pages (heatmaps, failure taxonomy, scaling and shape, model
pages, per-run outcomes on a task): aggregated in the database, a constant number of queries."""

from __future__ import annotations

import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.core.cache import cache
from django.db.models import Count, F, Q, QuerySet
from django.db.models.fields.json import KT
from django.http import Http404
from django.urls import reverse
from django.utils.http import urlencode

from leaderboard import metrics, scoring
from leaderboard.models import APPS_TOUCHED_BINS, App, BehaviouralType, Model, ReportedFigure, Run, Task
from leaderboard.selectors import sees_unpublished, slice_label, visible_runs
from trajectories.models import FailureMode, Judgment, Step

BOOTSTRAP_B = 1000
TYPE_LABELS = dict(BehaviouralType.choices)
MODE_LABELS = {**dict(FailureMode.choices), "": "Not classified"}
METRICS = {"rubric": "Rubric score %", "perfect": "Perfect rate %"}
DIMENSIONS = {"type": "behavioural type", "bin": "apps touched", "app": "app"}
CACHE_SECONDS = 3600


def _per_version(name: str, user, version: str | None, build):
    """What a page and its API endpoint show, computed once per data version and audience (the
    bootstrap per cell is the costly part; staff pages are not cached whole, so this spares them)."""
    key = f"analysis:{name}:{version or scoring.data_version()}:{sees_unpublished(user)}"
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found, CACHE_SECONDS)
    return found


# -- per-run, per-task outcomes of graded runs ---------------------------------------------


def graded_runs(user) -> QuerySet[Run]:
    """Visible runs scored from judgments (everything except published figures)."""
    return (
        visible_runs(user)
        .exclude(provenance=Run.Provenance.REPORTED)
        .select_related("model", "suite", "judge_config")
        .order_by("model__name", "name")
    )


@dataclass
class Scored:
    """A graded run with its outcomes (leaderboard.scoring), scored by its default judge."""

    run: Run
    outcomes: scoring.RunOutcomes


def scored_runs(runs: list[Run]) -> list[Scored]:
    found = scoring.run_outcomes(runs)
    return [Scored(r, found[r.pk]) for r in runs if r.pk in found]


def _unknown(o: scoring.RunOutcomes) -> int:
    counts = o.counts()
    return sum(counts[s] for s in scoring.UNKNOWN_STATUSES)


# -- heatmaps -------------------------------------------------------------------------------


@dataclass
class Cell:
    value: float | None  # percent
    n: int = 0
    low: float | None = None  # percent
    high: float | None = None
    incomplete: int = 0
    url: str = ""


@dataclass
class Heatmap:
    id: str
    title: str
    metric: str  # "rubric" or "perfect"
    row_labels: list[str]
    col_keys: list[str]
    col_labels: list[str]
    cells: list[list[Cell]]
    reported: bool = False
    source: str = ""
    note: str = ""

    @property
    def rows(self):
        return list(zip(self.row_labels, self.cells, strict=True))


def trajectory_list_url(run: Run, **filters) -> str:
    return reverse("trajectories:trajectory_list") + "?" + urlencode({"run": run.slug, **filters})


def _columns(dimension: str, scored: list[Scored]) -> list[tuple[str, str]]:
    if dimension == "type":
        return list(BehaviouralType.choices)
    if dimension == "bin":
        return [(b, slice_label("apps_touched", b)) for b in APPS_TOUCHED_BINS]
    slugs = {slug for sc in scored for apps in sc.outcomes.task_apps for slug in apps}
    names = dict(App.objects.filter(slug__in=slugs).values_list("slug", "name")) if slugs else {}
    return sorted(((slug, names.get(slug, slug)) for slug in slugs), key=lambda kv: kv[1].lower())


def _mask(o: scoring.RunOutcomes, dimension: str, key: str) -> np.ndarray:
    if dimension == "type":
        return o.task_mask(behavioural_type=key)
    if dimension == "bin":
        return o.task_mask(apps_touched_bin=key)
    return o.task_mask(app=key)


def graded_heatmap(scored: list[Scored], dimension: str, metric: str) -> Heatmap:
    """Runs x (behavioural type | apps-touched bin | app). A cell is the run's mean over the
    suite's tasks in that column under the scoring rules (missing and failed trajectories count
    0; incomplete grading is left out and counted). Intervals: Wilson for a single-attempt
    perfect rate, else a paired bootstrap over the column's tasks (then attempts)."""
    cols = _columns(dimension, scored)
    cells = _cells(
        scored,
        [key for key, _ in cols],
        metric,
        mask_of=lambda o, key: _mask(o, dimension, key),
        url_of=lambda run, key: trajectory_list_url(run, **{dimension: key}),
    )
    return Heatmap(
        id=f"graded-{dimension}-{metric}",
        title=f"{METRICS[metric]} by {DIMENSIONS[dimension]}",
        metric=metric,
        row_labels=[sc.run.name for sc in scored],
        col_keys=[k for k, _ in cols],
        col_labels=[label for _, label in cols],
        cells=cells,
    )


def _cells(scored: list[Scored], keys: list[str], metric: str, mask_of, url_of) -> list[list[Cell]]:
    """One Cell per (run, column): ``mask_of(outcomes, key)`` picks the column's tasks,
    ``url_of(run, key)`` links the trajectories behind it ("" for none)."""
    cells = [[Cell(value=None) for _ in keys] for _ in scored]
    by_suite: dict[int, list[int]] = defaultdict(list)
    for i, sc in enumerate(scored):
        by_suite[sc.outcomes.suite_id].append(i)
    values = "perfect" if metric == "perfect" else "score"
    for j, key in enumerate(keys):
        for idxs in by_suite.values():
            mask = mask_of(scored[idxs[0]].outcomes, key)
            if not mask.any():
                continue
            subsets = [scored[i].outcomes.subset(mask) for i in idxs]
            reps = scoring.bootstrap_replicates(subsets, values, B=BOOTSTRAP_B)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: nothing known
                ivs = np.nanquantile(reps, [0.025, 0.975], axis=1).T
            for row, (i, sub) in enumerate(zip(idxs, subsets, strict=True)):
                cell = cells[i][j]
                k, n = sub.perfect_k_n()
                cell.n = n
                cell.incomplete = _unknown(sub)
                cell.url = url_of(scored[i].run, key)
                if not n:
                    continue
                if metric == "perfect":
                    cell.value = 100 * k / n
                    if sub.attempts == 1:
                        low, high = metrics.wilson_interval(k, n)
                        cell.low, cell.high = 100 * low, 100 * high
                        continue
                else:
                    cell.value = 100 * sub.mean_score()
                if not np.isnan(ivs[row]).any():
                    cell.low, cell.high = float(ivs[row][0] * 100), float(ivs[row][1] * 100)
    return cells


def heatmaps(user, metric: str, version: str | None = None) -> list[Heatmap]:
    """Every heatmap of the heatmaps page and GET /api/analysis/heatmaps: graded runs by
    behavioural type, apps-touched bin and app, then the published per-slice figures."""

    def build():
        scored = scored_runs(list(graded_runs(user)))
        graded = [graded_heatmap(scored, dim, metric) for dim in DIMENSIONS] if scored else []
        return [hm for hm in [*graded, *reported_heatmaps(metric)] if hm.row_labels and hm.col_labels]

    return _per_version(f"heatmaps:{metric}", user, version, build)


def reported_heatmaps(metric: str) -> list[Heatmap]:
    """Published per-slice figures (by behavioural type, by apps-touched bin) as heatmaps, one
    per result set and slice, labelled as reported and without intervals (1 query)."""
    figures = (
        ReportedFigure.objects.filter(
            run__provenance=Run.Provenance.REPORTED,
            run__publication=Run.Publication.PUBLISHED,
            metric=metric,
            slice_kind__in=["task_type", "apps_touched"],
        )
        .select_related("run", "run__model")
        .order_by("run__name")
    )
    groups: dict[tuple[str, str], list[ReportedFigure]] = defaultdict(list)
    for fig in figures:
        groups[(fig.run.metadata.get("result_set", fig.run.source), fig.slice_kind)].append(fig)
    maps = []
    for (set_id, kind), figs in groups.items():
        meta = figs[0].run.metadata
        keys = BehaviouralType.values if kind == "task_type" else list(APPS_TOUCHED_BINS)
        present = {f.slice_value for f in figs}
        keys = [k for k in keys if k in present]
        runs = sorted({f.run for f in figs}, key=lambda r: (r.metadata.get("model_position", 99), r.model.name))
        value = {(f.run_id, f.slice_value): f.value for f in figs}
        maps.append(
            Heatmap(
                id=f"reported-{set_id}-{kind}-{metric}",
                title=f"{METRICS[metric]} by {'behavioural type' if kind == 'task_type' else 'apps touched'}",
                metric=metric,
                row_labels=[r.model.name for r in runs],
                col_keys=keys,
                col_labels=[slice_label(kind, k) for k in keys],
                cells=[[Cell(value=value.get((r.pk, k))) for k in keys] for r in runs],
                reported=True,
                source=figs[0].source,
                note=meta.get("result_set_label", set_id),
            )
        )
    order = {"task_type": 0, "apps_touched": 1}
    return sorted(maps, key=lambda m: (m.note, order.get(m.id.split("-")[-2], 9)))


def reported_elsewhere(metric: str, shown: list[Heatmap]) -> list[Heatmap]:
    """Reported maps published only under the other metric, so the metric switch can say where
    a map went instead of dropping it silently (1 query)."""
    other = "perfect" if metric == "rubric" else "rubric"
    ids = {hm.id for hm in shown}
    return [hm for hm in reported_heatmaps(other) if hm.id.removesuffix(f"-{other}") + f"-{metric}" not in ids]


# -- failure taxonomy -----------------------------------------------------------------------


@dataclass
class TaxonomyTable:
    """Failed rubric items counted by failure mode for each row (a model or a family)."""

    title: str
    row_labels: list[str]
    row_keys: list[str]
    modes: list[str]
    counts: list[list[int]]
    urls: list[list[str]] = field(default_factory=list)
    reported: bool = False
    source: str = ""
    note: str = ""

    @property
    def mode_labels(self) -> list[str]:
        return [MODE_LABELS.get(m, m) for m in self.modes]

    @property
    def rows(self):
        urls = self.urls or [[""] * len(self.modes) for _ in self.row_labels]
        return [
            (label, [(c, u) for c, u in zip(counts, row_urls, strict=True)], sum(counts))
            for label, counts, row_urls in zip(self.row_labels, self.counts, urls, strict=True)
        ]


def failed_judgments(user, scored: list[Scored] | None = None) -> QuerySet[Judgment]:
    """Failed verdicts on current rubric items of visible graded runs, each run counted under
    the judge that scores it (leaderboard.scoring's default judge)."""
    if scored is None:
        scored = scored_runs(list(graded_runs(user)))
    by_judge = Q(pk__in=[])
    for sc in scored:
        if sc.outcomes.judge_id is not None:
            by_judge |= Q(trajectory__run_id=sc.run.pk, judge_id=sc.outcomes.judge_id)
    return Judgment.objects.filter(by_judge, verdict=Judgment.Verdict.FAILURE, rubric_item__is_current=True)


def graded_taxonomy(user, scored: list[Scored] | None = None) -> list[TaxonomyTable]:
    """Per model and per family (1 query once runs are scored)."""
    rows = (
        failed_judgments(user, scored)
        .values("trajectory__run__model__slug", "trajectory__run__model__name", "trajectory__run__model__family")
        .annotate(mode=F("failure_mode"), n=Count("id"))
        .order_by()
    )
    by_model: dict[tuple[str, str], Counter] = defaultdict(Counter)
    by_family: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        key = (r["trajectory__run__model__slug"], r["trajectory__run__model__name"])
        by_model[key][r["mode"]] += r["n"]
        by_family[r["trajectory__run__model__family"] or "(no family)"][r["mode"]] += r["n"]
    if not by_model:
        return []
    modes = [m for m in [*FailureMode.values, ""] if any(c[m] for c in by_model.values())]
    base = reverse("leaderboard:analysis_failures")

    def table(title, items, param):
        items = sorted(items, key=lambda kv: -sum(kv[1].values()))
        return TaxonomyTable(
            title=title,
            row_keys=[k[0] if isinstance(k, tuple) else k for k, _ in items],
            row_labels=[k[1] if isinstance(k, tuple) else k for k, _ in items],
            modes=modes,
            counts=[[c[m] for m in modes] for _, c in items],
            urls=[
                [
                    base + "?" + urlencode({param: k[0] if isinstance(k, tuple) else k, "mode": m or "none"})
                    for m in modes
                ]
                for k, _ in items
            ],
        )

    return [table("Per model", by_model.items(), "model"), table("Per family", by_family.items(), "family")]


def reported_taxonomy() -> list[TaxonomyTable]:
    """Published failure-mode counts: the result set's total over all its models, and the
    per-model counts the source gives (often only some modes), each with its source (1 query)."""
    figures = (
        ReportedFigure.objects.filter(
            run__provenance=Run.Provenance.REPORTED,
            run__publication=Run.Publication.PUBLISHED,
            slice_kind__in=["failure_mode", "failure_mode_all_models"],
        )
        .select_related("run", "run__model")
        .order_by("run__name")
    )
    sets: dict[str, dict] = {}
    for fig in figures:
        meta = fig.run.metadata
        s = sets.setdefault(
            meta.get("result_set", fig.run.source),
            {
                "label": meta.get("result_set_label", ""),
                "pos": meta.get("result_set_position", 99),
                "all": {},
                "by": {},
            },
        )
        if fig.slice_kind == "failure_mode_all_models":
            s["all"][fig.slice_value] = fig.value
            s["source"] = fig.source
        else:
            s["by"].setdefault((meta.get("model_position", 99), fig.run.model.name), {})[fig.slice_value] = fig.value
            s["by_source"] = fig.source
    tables = []
    for set_id, s in sorted(sets.items(), key=lambda kv: kv[1]["pos"]):
        modes = [m for m in FailureMode.values if m in s["all"]]
        if modes:
            tables.append(
                TaxonomyTable(
                    title="All models of the result set",
                    row_keys=[set_id],
                    row_labels=["All models"],
                    modes=modes,
                    counts=[[int(s["all"][m]) for m in modes]],
                    reported=True,
                    source=s.get("source", ""),
                    note=s["label"],
                )
            )
        if s["by"]:
            by_modes = [m for m in FailureMode.values if any(m in v for v in s["by"].values())]
            rows = sorted(s["by"].items())
            tables.append(
                TaxonomyTable(
                    title="Per model (only the counts the source gives)",
                    row_keys=[name for (_, name), _ in rows],
                    row_labels=[name for (_, name), _ in rows],
                    modes=by_modes,
                    counts=[[int(v.get(m, 0)) for m in by_modes] for _, v in rows],
                    reported=True,
                    source=s.get("by_source", ""),
                    note=s["label"],
                )
            )
    return tables


def taxonomy_tables(user, version: str | None = None) -> list[TaxonomyTable]:
    """Every table of the taxonomy page and GET /api/analysis/taxonomy: graded counts per model
    and per family, then the published counts with their source."""

    def build():
        scored = scored_runs(list(graded_runs(user)))
        return [*graded_taxonomy(user, scored), *reported_taxonomy()]

    return _per_version("taxonomy", user, version, build)


@dataclass
class FailureFilters:
    model: str = ""
    family: str = ""
    mode: str = ""  # a FailureMode value, or "none" for not classified

    @classmethod
    def from_query(cls, params) -> FailureFilters:
        f = cls(**{k: (params.get(k) or "").strip() for k in ("model", "family", "mode")})
        if f.mode and f.mode != "none" and f.mode not in FailureMode.values:
            f.mode = ""
        return f

    @property
    def description(self) -> str:
        parts = []
        if self.mode:
            parts.append(MODE_LABELS["" if self.mode == "none" else self.mode])
        if self.model:
            parts.append(f"model {self.model}")
        if self.family:
            parts.append(f"family {self.family}")
        return ", ".join(parts) or "all failed rubric items"


def failure_judgments(user, filters: FailureFilters) -> QuerySet[Judgment]:
    """The failed judgments behind one taxonomy bar, with what the list shows (one query per page)."""
    qs = failed_judgments(user).select_related(
        "trajectory", "trajectory__run", "trajectory__run__model", "trajectory__task", "rubric_item"
    )
    if filters.model:
        qs = qs.filter(trajectory__run__model__slug=filters.model)
    if filters.family:
        qs = qs.filter(trajectory__run__model__family="" if filters.family == "(no family)" else filters.family)
    if filters.mode:
        qs = qs.filter(failure_mode="" if filters.mode == "none" else filters.mode)
    return qs.order_by("trajectory__run__name", "trajectory__task__position", "trajectory_id", "rubric_item__position")


# -- scaling and shape ----------------------------------------------------------------------

ACTION_KINDS = ("click", "type", "key", "scroll", "drag", "bash", "editor", "other")
_ACTION_KIND = {
    "click": "click",
    "double_click": "click",
    "right_click": "click",
    "triple_click": "click",
    "type": "type",
    "key": "key",
    "hotkey": "key",
    "scroll": "scroll",
    "drag": "drag",
}


def action_kind(tool: str, action_type: str | None) -> str | None:
    """The action-shape bucket of a step; None for control steps (wait / done / fail)."""
    if tool in ("bash", "editor"):
        return tool
    if tool == Step.Tool.CONTROL or action_type in ("wait", "done", "fail"):
        return None
    return _ACTION_KIND.get(action_type or "", "other")


@dataclass
class ActionShape:
    run: Run
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def shares(self) -> list[float]:
        total = self.total
        return [100 * self.counts.get(k, 0) / total if total else 0.0 for k in ACTION_KINDS]


def action_shapes(runs: list[Run]) -> list[ActionShape]:
    """Shares of click / type / key / scroll / drag / bash / editor actions per run, counted in
    the database (1 query; control steps such as wait and done are left out)."""
    counts: dict[int, Counter] = defaultdict(Counter)
    rows = (
        Step.objects.filter(trajectory__run__in=[r.pk for r in runs])
        .values("trajectory__run_id", "tool", atype=KT("action__type"))
        .annotate(n=Count("id"))
        .order_by()
    )
    for r in rows:
        kind = action_kind(r["tool"], r["atype"])
        if kind:
            counts[r["trajectory__run_id"]][kind] += r["n"]
    return [ActionShape(run=r, counts=dict(counts[r.pk])) for r in runs if counts[r.pk]]


def perfect_by_apps_touched(scored: list[Scored]) -> Heatmap:
    """Perfect rate (%) per apps-touched bin per run, with intervals."""
    return graded_heatmap(scored, "bin", "perfect")


def perfect_by_apps_count(scored: list[Scored]) -> Heatmap:
    """Perfect rate (%) per run against the exact number of apps a task touches (Task.apps_touched;
    tasks with no count recorded are left out), with n and intervals per cell (1 query)."""
    pks = {int(pk) for sc in scored for pk in sc.outcomes.task_pks}
    touched = dict(Task.objects.filter(pk__in=pks).values_list("pk", "apps_touched")) if pks else {}
    counts = sorted({c for c in touched.values() if c})
    keys = [str(c) for c in counts]

    def mask_of(o: scoring.RunOutcomes, key: str) -> np.ndarray:
        return np.array([touched.get(int(pk)) == int(key) for pk in o.task_pks], dtype=bool)

    return Heatmap(
        id="graded-apps-count-perfect",
        title="Perfect rate % by number of apps touched",
        metric="perfect",
        row_labels=[sc.run.name for sc in scored],
        col_keys=keys,
        col_labels=keys,
        cells=_cells(scored, keys, "perfect", mask_of=mask_of, url_of=lambda run, key: ""),
    )


def step_budget_curve(o: scoring.RunOutcomes, turn_budget: int) -> tuple[list[int], list[float]]:
    """Cumulative perfect rate (%) against steps used: the share of the suite's tasks whose first
    attempt was perfect within s steps, for s = 0 .. max(turn budget, largest step count)."""
    if not o.n_tasks:
        return [], []
    first_perfect = o.perfect[:, 0] == 1
    solved_at = o.steps[:, 0][first_perfect].astype(int)
    top = max(turn_budget, int(solved_at.max()) if solved_at.size else 0)
    hist = np.bincount(solved_at, minlength=top + 1)
    return list(range(top + 1)), [float(v) for v in np.cumsum(hist) * 100 / o.n_tasks]


PROFILE_TAUS = [round(float(x), 2) for x in np.linspace(0, 1, 21)]


def performance_profile(o: scoring.RunOutcomes) -> list[float]:
    """Share (%) of tasks with a known outcome whose score (mean over attempts) is >= tau."""
    scores = o.task_scores()
    scores = scores[~np.isnan(scores)]
    if not scores.size:
        return [0.0 for _ in PROFILE_TAUS]
    return [float((scores >= tau - 1e-9).mean() * 100) for tau in PROFILE_TAUS]


@dataclass
class RunSummary:
    run: Run
    n_tasks: int
    counts: dict[str, int]
    unknown: int
    rubric: float | None  # percent over known cells
    perfect: float | None
    perfect_low: float | None
    perfect_high: float | None
    cost_usd: float | None
    judge_name: str
    attempts: int = 1  # most attempts of any task
    best_of_k: float | None = None  # percent; pass@k over the run's k attempts, only when k > 1
    input_tokens: int | None = None
    output_tokens: int | None = None

    @property
    def tokens(self) -> int | None:
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    @staticmethod
    def _count(n: int | None) -> str:
        return "—" if n is None else f"{n:,}"

    @property
    def tokens_text(self) -> str:
        return self._count(self.tokens)

    @property
    def input_tokens_text(self) -> str:
        return self._count(self.input_tokens)

    @property
    def output_tokens_text(self) -> str:
        return self._count(self.output_tokens)


def best_of_k(o: scoring.RunOutcomes) -> float | None:
    """pass@k in percent for a run with k > 1 attempts: mean over tasks of 1 - (1 - p_i)^k, p_i =
    the task's share of perfect attempts (metrics.replay_expected_success). An upper bound, what
    a blind replay of the best attempt would score, never the headline; None for one attempt."""
    if o.attempts < 2:
        return None
    p = o.task_perfect()
    p = p[~np.isnan(p)]
    return 100 * metrics.replay_expected_success(p, o.attempts) if p.size else None


def run_summary(sc: Scored) -> RunSummary:
    o = sc.outcomes
    k, n = o.perfect_k_n()
    iv = metrics.wilson_interval(k, n) if o.attempts == 1 and n else None
    return RunSummary(
        run=sc.run,
        n_tasks=o.n_tasks,
        counts=o.counts(),
        unknown=_unknown(o),
        rubric=100 * o.mean_score() if n else None,
        perfect=100 * k / n if n else None,
        perfect_low=100 * iv[0] if iv else None,
        perfect_high=100 * iv[1] if iv else None,
        cost_usd=o.cost_usd,
        judge_name=o.judge_name,
        attempts=o.attempts,
        best_of_k=best_of_k(o),
        input_tokens=o.input_tokens,
        output_tokens=o.output_tokens,
    )


# -- model page and task outcomes -----------------------------------------------------------


def model_detail(user, slug: str) -> dict:
    """The model, its visible runs (graded and reported) with headline and per-type figures
    (reported runs as published, never mixed with graded ones)."""
    model = Model.objects.filter(slug=slug).first()
    if model is None:
        raise Http404(f"No model {slug!r}")
    runs = list(
        visible_runs(user).filter(model=model).select_related("model", "suite", "judge_config").order_by("name")
    )
    reported = [r for r in runs if r.is_reported]
    scored = scored_runs([r for r in runs if not r.is_reported])
    figures: dict[int, dict] = defaultdict(dict)
    if reported:
        for fig in ReportedFigure.objects.filter(run__in=reported, slice_kind__in=["overall", "task_type"]):
            figures[fig.run_id][(fig.metric, fig.slice_kind, fig.slice_value)] = fig.value
    type_rows = []
    for key, label in BehaviouralType.choices:
        graded = []
        for sc in scored:
            sub = sc.outcomes.subset(sc.outcomes.task_mask(behavioural_type=key))
            _k, n = sub.perfect_k_n()
            graded.append({"rubric": 100 * sub.mean_score() if n else None, "n": n})
        type_rows.append(
            {
                "label": label,
                "graded": graded,
                "reported": [figures[r.pk].get(("rubric", "task_type", key)) for r in reported],
            }
        )
    return {
        "model": model,
        "summaries": [run_summary(sc) for sc in scored],
        "reported_rows": [
            {
                "run": r,
                "perfect": figures[r.pk].get(("perfect", "overall", "")),
                "rubric": figures[r.pk].get(("rubric", "overall", "")),
            }
            for r in reported
        ],
        "type_rows": type_rows,
        "scored": scored,
        "reported_runs": reported,
    }


@dataclass
class TaskOutcome:
    run: Run
    attempt: int
    trajectory_id: int  # 0 when the run has no trajectory for this task
    status: str  # a leaderboard.scoring status
    score: float | None  # percent; None while grading is incomplete
    perfect: bool
    steps: int
    judge_name: str


def task_outcomes(task: Task, user) -> list[TaskOutcome]:
    """Every visible graded run of the task's suite with its outcome on this task, scored as on
    the leaderboard (leaderboard.scoring; a run without a trajectory shows as missing)."""
    runs = list(graded_runs(user).filter(suite_id=task.suite_id))
    out = []
    for sc in scored_runs(runs):
        o = sc.outcomes
        where = np.flatnonzero(o.task_pks == task.pk)
        if not where.size:
            continue
        i = int(where[0])
        for a in range(o.attempts):
            status = str(o.status[i, a])
            if status == scoring.MISSING and a > 0:
                continue  # fewer attempts on this task than the run's most
            score = o.scores[i, a]
            out.append(
                TaskOutcome(
                    run=sc.run,
                    attempt=a,
                    trajectory_id=int(o.trajectory_ids[i, a]),
                    status=status,
                    score=None if np.isnan(score) else float(score * 100),
                    perfect=bool(o.perfect[i, a] == 1),
                    steps=int(o.steps[i, a]),
                    judge_name=o.judge_name,
                )
            )
    return out


def reported_scaling() -> tuple[list[tuple[str, list[str], list[float | None]]], list[tuple[str, float, str]]]:
    """Published perfect rate by apps-touched bin (one line per reported run) and published bash
    shares of actions, each with its source (1 query)."""
    figures = (
        ReportedFigure.objects.filter(
            run__provenance=Run.Provenance.REPORTED, run__publication=Run.Publication.PUBLISHED
        )
        .filter(Q(metric="perfect", slice_kind="apps_touched") | Q(metric="bash_share", slice_kind="overall"))
        .select_related("run", "run__model")
        .order_by("run__name")
    )
    by_bin: dict[Run, dict[str, float]] = defaultdict(dict)
    bash = []
    for fig in figures:
        if fig.metric == "perfect":
            by_bin[fig.run][fig.slice_value] = fig.value
        else:
            bash.append((fig.run.name, fig.value, fig.source))
    bins = [slice_label("apps_touched", b) for b in APPS_TOUCHED_BINS]
    lines = [(run.name, bins, [vals.get(b) for b in APPS_TOUCHED_BINS]) for run, vals in by_bin.items()]
    return lines, bash


def scaling_and_shape(scored: list[Scored], runs: list[Run]) -> dict:
    """Everything the scaling-and-shape page shows: perfect rate by apps-touched bin, the
    step-budget curve, the performance profile, action shapes, score against cost and tokens,
    single-attempt success beside best-of-k, and the published counterparts (a constant number
    of queries)."""
    by_bin_map = perfect_by_apps_touched(scored) if scored else None
    by_count_map = perfect_by_apps_count(scored) if scored else None
    by_bin = (
        [(label, by_bin_map.col_labels, [c.value for c in row]) for label, row in by_bin_map.rows] if by_bin_map else []
    )
    by_count = (
        [(label, [int(k) for k in by_count_map.col_keys], [c.value for c in row]) for label, row in by_count_map.rows]
        if by_count_map and by_count_map.col_keys
        else []
    )
    budget, profile, cost_points, token_points = [], [], [], []
    summaries = [run_summary(sc) for sc in scored]
    for sc, summary in zip(scored, summaries, strict=True):
        xs, ys = step_budget_curve(sc.outcomes, sc.run.turn_budget)
        if xs:
            budget.append((sc.run.name, xs, ys))
        profile.append((sc.run.name, PROFILE_TAUS, performance_profile(sc.outcomes)))
        if summary.cost_usd is not None and summary.rubric is not None:
            cost_points.append((sc.run.name, summary.cost_usd, summary.rubric))
        if summary.tokens is not None and summary.rubric is not None:
            token_points.append((sc.run.name, summary.tokens, summary.rubric))
    reported_by_bin, reported_bash = reported_scaling()
    return {
        "by_bin": by_bin,
        "by_bin_map": by_bin_map,
        "by_count": by_count,
        "by_count_map": by_count_map if by_count else None,
        "budget": budget,
        "budget_marks": [(name, [ys[min(s, len(ys) - 1)] for s in (10, 25, 50, 100)]) for name, xs, ys in budget],
        "profile": profile,
        "profile_marks": [(name, [ys[i] for i in (5, 10, 15, 20)]) for name, _, ys in profile],
        "shapes": action_shapes(runs),
        "cost_points": cost_points,
        "token_points": token_points,
        "reported_by_bin": reported_by_bin,
        "reported_bash": reported_bash,
        "summaries": summaries,
        "several_attempts": any(s.attempts > 1 for s in summaries),
    }


def scaling(user, version: str | None = None) -> dict:
    """What the scaling-and-shape page and GET /api/analysis/scaling show (one selector for both)."""

    def build():
        runs = list(graded_runs(user))
        return scaling_and_shape(scored_runs(runs), runs)

    return _per_version("scaling", user, version, build)
