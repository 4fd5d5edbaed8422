"""The failure taxonomy page and its judgment list: failed rubric items by failure mode, graded
(from our judgments) and reported (as published), with their filters and labels."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import ClassVar

from django.db.models import Count, F, Q, QuerySet
from django.urls import reverse
from django.utils.http import urlencode

from leaderboard.analysis.queries import (
    MODE_LABELS,
    SLICE_FILTERS,
    TYPE_LABELS,
    Scored,
    TaxonomyFilters,
    graded_runs,
    per_version,
    reported_scope,
    scored_runs,
)
from leaderboard.catalog.selectors import slice_label
from leaderboard.models import APPS_TOUCHED_BINS, ReportedFigure
from leaderboard.scoring.filters import RunFilters
from trajectories.models import FailureMode, Judgment

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
    rows_are_models: bool = False  # row keys are model slugs: labels link to the model pages
    reported: bool = False
    source: str = ""
    note: str = ""

    @property
    def mode_labels(self) -> list[str]:
        return [MODE_LABELS.get(m, m) for m in self.modes]

    @property
    def rows(self):
        """(label, [(count, url)], total, model page or "") per row."""
        urls = self.urls or [[""] * len(self.modes) for _ in self.row_labels]
        return [
            (
                label,
                [(c, u) for c, u in zip(counts, row_urls, strict=True)],
                sum(counts),
                reverse("leaderboard:model_detail", args=[key]) if self.rows_are_models else "",
            )
            for key, label, counts, row_urls in zip(self.row_keys, self.row_labels, self.counts, urls, strict=True)
        ]


def failed_judgments(scored: list[Scored], filters: RunFilters) -> QuerySet[Judgment]:
    """Failed verdicts on current rubric items of the scored runs, each run counted under the
    judge that scores it (its default judge, or the filters' judge), on the filters' tasks."""
    runs_of: dict[int, list[int]] = defaultdict(list)
    for sc in scored:
        if sc.outcomes.judge_id is not None:
            runs_of[sc.outcomes.judge_id].append(sc.run.pk)
    # one condition per judge, not per run: SQLite then uses its indexes (10x at 30 runs)
    by_judge = Q(pk__in=[])
    for judge_id, run_ids in runs_of.items():
        by_judge |= Q(judge_id=judge_id, trajectory__run_id__in=run_ids)
    qs = Judgment.objects.filter(by_judge, verdict=Judgment.Verdict.FAILURE, rubric_item__is_current=True)
    return qs.filter(**task_lookups(filters, "trajectory__task__"))


def task_lookups(filters: RunFilters, prefix: str) -> dict:
    """ORM lookups of the filters' task slice, from a model related to Task through ``prefix``."""
    lookups = {}
    if filters.type:
        lookups[prefix + "behavioural_type"] = filters.type
    if filters.bin:
        lookups[prefix + "apps_touched_bin"] = filters.bin
    if filters.app:
        lookups[prefix + "apps__slug"] = filters.app
    return lookups


def graded_taxonomy(scored: list[Scored], filters: RunFilters) -> list[TaxonomyTable]:
    """Per model and per family (1 query once runs are scored); each count links to the
    judgments behind it under the same filters."""
    rows = (
        failed_judgments(scored, filters)
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
    carried = filters.as_query()

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
                    base + "?" + urlencode({param: k[0] if isinstance(k, tuple) else k, "mode": m or "none", **carried})
                    for m in modes
                ]
                for k, _ in items
            ],
            rows_are_models=param == "model",
        )

    return [table("Per model", by_model.items(), "model"), table("Per family", by_family.items(), "family")]


def reported_taxonomy(filters: RunFilters) -> list[TaxonomyTable]:
    """Published failure-mode counts: the result set's total over all its models, and the
    per-model counts the source gives (often only some modes), each with its source (1 query;
    none under a task filter or another thing they cannot answer: they count every task)."""
    scope = reported_scope(filters)
    if scope is None or filters.slices_tasks:
        return []
    figures = (
        ReportedFigure.objects.filter(scope, slice_kind__in=["failure_mode", "failure_mode_all_models"])
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


def taxonomy_tables(user, filters: TaxonomyFilters, version: str | None = None) -> list[TaxonomyTable]:
    """Every table of the taxonomy page and GET /api/analysis/taxonomy for these filters: graded
    counts per model and per family, then the published counts with their source."""

    def build():
        scored = scored_runs(list(graded_runs(user, filters)), filters, version)
        return [*graded_taxonomy(scored, filters), *reported_taxonomy(filters)]

    return per_version("taxonomy", user, version, filters, build)


@dataclass
class FailureFilters(TaxonomyFilters):
    """The judgments behind one taxonomy bar: the taxonomy's filters, then model or family and mode."""

    OFFERED: ClassVar[tuple[str, ...]] = ("model", "family", "mode", *SLICE_FILTERS)
    model: str = ""
    family: str = ""
    mode: str = ""  # a FailureMode value, or "none" for not classified

    def clean(self, defaults: dict) -> None:
        super().clean(defaults)
        if self.mode and self.mode != "none" and self.mode not in FailureMode.values:
            self.mode = ""

    @property
    def description(self) -> str:
        parts = []
        if self.mode:
            parts.append(MODE_LABELS["" if self.mode == "none" else self.mode])
        if self.model:
            parts.append(f"model {self.model}")
        if self.family:
            parts.append(f"family {self.family}")
        shown = {"type": TYPE_LABELS, "bin": {b: slice_label("apps_touched", b) for b in APPS_TOUCHED_BINS}}
        parts += [
            f"{filter_label(name)} {shown.get(name, {}).get(value, value)}"
            for name, value in self.as_query().items()
            if name in SLICE_FILTERS
        ]
        return ", ".join(parts) or "all failed rubric items"


FILTER_LABELS = {
    "suite": "suite",
    "surface": "tool surface",
    "judge": "judge",
    "provenance": "provenance",
    "type": "behavioural type",
    "bin": "apps touched",
    "app": "app",
    "weighting": "rubric weights",
    "metric": "metric",
}


def filter_label(name: str) -> str:
    return FILTER_LABELS.get(name, name)


def failure_judgments(user, filters: FailureFilters, version: str | None = None) -> QuerySet[Judgment]:
    """The failed judgments behind one taxonomy bar, with what the list shows (one query per page)."""
    scored = scored_runs(list(graded_runs(user, filters)), filters, version)
    qs = failed_judgments(scored, filters).select_related(
        "trajectory", "trajectory__run", "trajectory__run__model", "trajectory__task", "rubric_item"
    )
    if filters.model:
        qs = qs.filter(trajectory__run__model__slug=filters.model)
    if filters.family:
        qs = qs.filter(trajectory__run__model__family="" if filters.family == "(no family)" else filters.family)
    if filters.mode:
        qs = qs.filter(failure_mode="" if filters.mode == "none" else filters.mode)
    return qs.order_by("trajectory__run__name", "trajectory__task__position", "trajectory_id", "rubric_item__position")
