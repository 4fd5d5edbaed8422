"""The run filters shared by the leaderboard, the analysis pages and their API: which runs and
tasks a scored page shows, parsed from and written to query strings, and the scored slice they pick."""

from __future__ import annotations

import builtins
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from django.db.models import QuerySet

from leaderboard.catalog.selectors import visible_runs
from leaderboard.models import APPS_TOUCHED_BINS, App, BehaviouralType, JudgeConfig, Run, Suite
from leaderboard.scoring.outcomes import WEIGHTINGS, RunOutcomes, judged_outcomes, run_outcomes
from trajectories.models import Judgment

RANK_METRICS = ("perfect", "rubric")
VERSIONS = ("", "all")  # the board: "" = the newest published version of each model's figures; "all" = every one
SORT_KEYS = ("rank", "perfect", "pass_hat_k", "rubric", "efficiency", "steps", "tokens", "cost", "graded", "name")


@dataclass
class RunFilters:
    """Which runs and tasks a scored page shows, read from and written to a query string so every
    state is a shareable URL. The leaderboard, the analysis pages and GET /api/leaderboard and
    /api/analysis/* all parse with this class; a page's subclass lists in ``OFFERED`` the filters
    that make sense on it (the others are neither read nor written) and may change a default.
    Unknown values are dropped, so a stale link still opens."""

    OFFERED: ClassVar[tuple[str, ...]] = (
        "suite", "surface", "judge", "provenance", "type", "bin", "app", "weighting", "metric",
    )  # fmt: skip

    suite: str = ""  # Suite slug; "" = the page's default (the board: its default suite)
    surface: str = ""  # Run.tool_surface
    judge: str = ""  # JudgeConfig name
    provenance: str = ""  # Run.provenance
    type: str = ""  # behavioural type
    bin: str = ""  # apps-touched bin
    app: str = ""  # App slug
    weighting: str = "authored"  # or "equal"
    metric: str = "perfect"  # "perfect" or "rubric" (the board ranks by it, a heatmap colours by it)

    @classmethod
    def from_query(cls, params):
        defaults: dict[str, Any] = {fl.name: fl.default for fl in fields(cls)}
        f = cls(**{name: (params.get(name) or "").strip() or defaults[name] for name in cls.OFFERED})
        f.clean(defaults)
        return f

    def clean(self, defaults: dict) -> None:
        """Drop what is not a known value (subclasses add their own fields' checks)."""
        if self.surface not in Run.ToolSurface.values:
            self.surface = ""
        if self.provenance not in Run.Provenance.values:
            self.provenance = ""
        if self.type not in BehaviouralType.values:
            self.type = ""
        if self.bin not in APPS_TOUCHED_BINS:
            self.bin = ""
        if self.weighting not in WEIGHTINGS:
            self.weighting = defaults["weighting"]
        if self.metric not in RANK_METRICS:
            self.metric = defaults["metric"]

    def as_query(self, **override) -> dict[str, str]:
        """Offered, non-default values only, so URLs stay short; ``override`` changes some on the way."""
        values = {**asdict(self), **override}
        defaults = {fl.name: fl.default for fl in fields(self)}
        return {k: values[k] for k in self.OFFERED if values[k] and values[k] != defaults[k]}

    def carried_to(self, other: builtins.type[RunFilters], **override) -> dict[str, str]:
        """This state as a query string of another page: only the filters that page offers."""
        return other.from_query(self.as_query(**override)).as_query()

    @property
    def slices_tasks(self) -> bool:
        return bool(self.type or self.bin or self.app)

    @property
    def task_slice(self) -> dict[str, str]:
        """The task filters that are set, by query name (type, bin, app)."""
        return {k: v for k, v in (("type", self.type), ("bin", self.bin), ("app", self.app)) if v}


@dataclass
class BoardFilters(RunFilters):
    """Every filter and display choice of the leaderboard (rank by ``metric``, ``sort``, ``dir``, and
    ``versions``: by default a model's published figures show once, from the paper's newest version
    that has them; ``versions=all`` shows every published version's row)."""

    OFFERED: ClassVar[tuple[str, ...]] = (*RunFilters.OFFERED, "sort", "dir", "versions")

    sort: str = "rank"
    dir: str = ""  # "asc" / "desc"; "" = the natural direction of the sort key
    versions: str = ""  # "" (newest published version per model) or "all"

    def clean(self, defaults: dict) -> None:
        super().clean(defaults)
        if self.sort not in SORT_KEYS:
            self.sort = "rank"
        if self.dir not in ("asc", "desc"):
            self.dir = ""
        if self.versions not in VERSIONS:
            self.versions = ""

    @property
    def all_versions(self) -> bool:
        return self.versions == "all"


def filterable_judges() -> list[str]:
    """Judge names offered by the public filters: every judge of ours or imported with published
    figures, but an author's self-reported judge only once a run it judged is published (its name
    carries the author's username and model, which an unreviewed upload must not make public)."""
    self_reported = JudgeConfig.Origin.SELF_REPORTED
    shown = JudgeConfig.objects.exclude(origin=self_reported) | JudgeConfig.objects.filter(
        origin=self_reported,
        pk__in=Judgment.objects.filter(
            judge__origin=self_reported, trajectory__run__publication=Run.Publication.PUBLISHED
        ).values("judge_id"),
    )
    return list(shown.order_by("name").values_list("name", flat=True).distinct())


def run_filter_options() -> dict:
    """Choices of the run filter forms (3 queries)."""
    return {
        "suites": list(Suite.objects.order_by("is_demo", "name", "version").values_list("slug", "name", "version")),
        "surfaces": Run.ToolSurface.choices,
        "judges": filterable_judges(),
        "provenances": Run.Provenance.choices,
        "types": BehaviouralType.choices,
        "bins": [(b, f"{b} app" + ("" if b == "1" else "s")) for b in APPS_TOUCHED_BINS],
        "apps": list(App.objects.filter(tasks__isnull=False).distinct().order_by("name").values_list("slug", "name")),
        "weightings": [("authored", "authored weights"), ("equal", "equal weights")],
        "metrics": [("perfect", "perfect rate"), ("rubric", "rubric score")],
    }


def filtered_runs(user, filters: RunFilters, suite: Suite | None) -> QuerySet[Run]:
    """Runs the user may see, of ``suite`` (every suite when None), narrowed by the filters' tool
    surface and provenance (graded and reported alike)."""
    runs = visible_runs(user)
    if suite is not None:
        runs = runs.filter(suite=suite)
    if filters.surface:
        runs = runs.filter(tool_surface=filters.surface)
    if filters.provenance:
        runs = runs.filter(provenance=filters.provenance)
    return runs


def scored_slice(
    runs: list[Run], filters: RunFilters, version: str | None = None, every_judge: bool = False
) -> list[RunOutcomes]:
    """Graded ``runs`` scored under the filters' rubric weighting: one outcome per run by its
    default judge, or with ``every_judge`` one per (run, judge) that judged it; only the filters'
    judge when one is set (a run it did not judge drops out); each restricted to the tasks of the
    filters' slice (behavioural type, apps-touched bin, app). Constant queries, cached by scoring."""
    graded = [r for r in runs if not r.is_reported]
    if not graded:
        return []
    if every_judge or filters.judge:
        outcomes = judged_outcomes(graded, weighting=filters.weighting, version=version)
    else:
        found = run_outcomes(graded, weighting=filters.weighting, version=version)
        outcomes = [found[r.pk] for r in graded if r.pk in found]
    if filters.judge:
        outcomes = [o for o in outcomes if o.judge_name == filters.judge]
    if filters.slices_tasks:
        outcomes = [o.subset(o.task_mask(filters.type, filters.bin, filters.app)) for o in outcomes]
    return outcomes
