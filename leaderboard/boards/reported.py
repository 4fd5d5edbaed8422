"""The reported leaderboard: published reported runs grouped by result set, the published figures of
suites with no tasks loaded (shown as "published figures only" on home and the suite pages), and a
reported run's figures grouped for its run page."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Prefetch

from leaderboard.catalog.selectors import slice_label
from leaderboard.models import ReportedFigure, Run, Suite


@dataclass
class ReportedRow:
    run: Run
    perfect: float | None = None
    rubric: float | None = None
    avg_steps: float | None = None
    traj_eff: float | None = None


@dataclass
class ReportedSet:
    id: str
    label: str
    source: str
    tool_surface: str
    note: str
    rows: list[ReportedRow] = field(default_factory=list)
    failure_modes: list[tuple[str, float]] = field(default_factory=list)
    failure_source: str = ""


def reported_leaderboard() -> list[ReportedSet]:
    """Published reported runs grouped by result set, best perfect score first (2 queries)."""
    runs = (
        Run.objects.filter(provenance=Run.Provenance.REPORTED, publication=Run.Publication.PUBLISHED)
        .select_related("model")
        .prefetch_related(
            Prefetch(
                "reported_figures",
                queryset=ReportedFigure.objects.filter(slice_kind__in=["overall", "failure_mode_all_models"]),
                to_attr="headline_figures",
            )
        )
    )
    sets: dict[str, ReportedSet] = {}
    order: dict[str, int] = {}
    for run in runs:
        meta = run.metadata or {}
        set_id = meta.get("result_set") or run.source
        if set_id not in sets:
            sets[set_id] = ReportedSet(
                id=set_id,
                label=meta.get("result_set_label", set_id),
                source=run.source,
                tool_surface=meta.get("tool_surface_note") or run.get_tool_surface_display(),
                note=run.notes,
            )
            order[set_id] = meta.get("result_set_position", 99)
        row = ReportedRow(run=run)
        for fig in run.headline_figures:
            if fig.slice_kind == "overall" and fig.metric in ("perfect", "rubric", "avg_steps", "traj_eff"):
                setattr(row, fig.metric, fig.value)
        sets[set_id].rows.append(row)
        if not sets[set_id].failure_modes:
            modes = [f for f in run.headline_figures if f.slice_kind == "failure_mode_all_models"]
            if modes:
                sets[set_id].failure_modes = sorted(
                    ((slice_label(f.slice_kind, f.slice_value), f.value) for f in modes), key=lambda mv: -mv[1]
                )
                sets[set_id].failure_source = modes[0].source
    for s in sets.values():
        s.rows.sort(key=lambda r: (-(r.perfect if r.perfect is not None else -1), r.run.model.name))
    return sorted(sets.values(), key=lambda s: (order[s.id], s.id))


@dataclass
class PublishedOnly:
    """What a suite with no tasks loaded has: its published reported runs, newest version first."""

    rows: list[ReportedRow]
    versions: list[str]  # the published versions (result sets) they come from, newest first

    @property
    def models(self) -> int:
        return len({r.run.model_id for r in self.rows})


def published_only(suites: list[Suite]) -> dict[int, PublishedOnly]:
    """For each given suite, by id, its published reported runs with their overall figures, newest
    published version first (the result set's place in the figures file), best perfect score first
    within one (2 queries). Suites without any are left out."""
    runs = (
        Run.objects.filter(suite__in=suites, provenance=Run.Provenance.REPORTED, publication=Run.Publication.PUBLISHED)
        .select_related("model")
        .prefetch_related(
            Prefetch(
                "reported_figures", queryset=ReportedFigure.objects.filter(slice_kind="overall"), to_attr="overall"
            )
        )
    )
    by_suite: dict[int, list[ReportedRow]] = defaultdict(list)
    for run in runs:
        row = ReportedRow(run=run)
        for fig in run.overall:
            if fig.metric in ("perfect", "rubric", "avg_steps", "traj_eff"):
                setattr(row, fig.metric, fig.value)
        by_suite[run.suite_id].append(row)

    def version(r: ReportedRow) -> str:
        return (r.run.metadata or {}).get("result_set_label") or r.run.source

    def order(r: ReportedRow):
        position = (r.run.metadata or {}).get("result_set_position")
        return (position if isinstance(position, int) else 99, -(r.perfect or 0), r.run.model.name)

    out = {}
    for suite_id, rows in by_suite.items():
        rows.sort(key=order)
        out[suite_id] = PublishedOnly(rows=rows, versions=list(dict.fromkeys(version(r) for r in rows)))
    return out


def reported_figure_groups(run: Run) -> list[tuple[str, list[ReportedFigure]]]:
    """A reported run's figures grouped by slice kind, for its run page."""
    titles = {
        "overall": "Overall",
        "task_type": "By behavioural type",
        "apps_touched": "By apps touched",
        "failure_mode": "Failed rubric items by failure mode (this model)",
        "failure_mode_all_models": "Failed rubric items by failure mode (all models of the result set)",
        "zero_score_tasks": "On tasks scored zero",
    }
    groups: dict[str, list[ReportedFigure]] = defaultdict(list)
    for fig in run.reported_figures.all():
        # attributes for the run page's template only (not model fields)
        fig.slice_label = slice_label(fig.slice_kind, fig.slice_value)  # type: ignore[attr-defined]
        fig.display = f"{fig.value:g}"  # type: ignore[attr-defined]  # as published: 41.2 stays 41.2, 532 stays 532
        groups[fig.slice_kind].append(fig)
    return [(titles.get(kind, kind), groups[kind]) for kind in titles if kind in groups] + [
        (kind, figs) for kind, figs in groups.items() if kind not in titles
    ]
