"""Read-side queries for catalog and score pages and the API: suites with their counts, task
lists with filters, visible runs, the run filters shared by the leaderboard and the analysis
pages, and the reported leaderboard. Query counts stay constant."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar

from django.db.models import Case, Count, F, Prefetch, Q, QuerySet, Value, When
from django.http import Http404

from leaderboard import scoring
from leaderboard.models import (
    APPS_TOUCHED_BINS,
    App,
    BehaviouralType,
    Difficulty,
    JudgeConfig,
    ReportedFigure,
    RubricItem,
    Run,
    Suite,
    Task,
)
from trajectories.models import FailureMode, Judgment, Trajectory

TASKS_PER_PAGE = 25


# -- visibility ---------------------------------------------------------------------------


def sees_unpublished(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_staff)


def visible_runs(user) -> QuerySet[Run]:
    """Runs this user may see: published ones for everyone, all of them for staff."""
    runs = Run.objects.all()
    if not sees_unpublished(user):
        runs = runs.filter(publication=Run.Publication.PUBLISHED)
    return runs


# -- run filters: the leaderboard, the analysis pages and their API ------------------------

RANK_METRICS = ("perfect", "rubric")
SORT_KEYS = ("rank", "perfect", "rubric", "efficiency", "steps", "tokens", "cost", "graded", "name")


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
        defaults = {fl.name: fl.default for fl in fields(cls)}
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
        if self.weighting not in scoring.WEIGHTINGS:
            self.weighting = defaults["weighting"]
        if self.metric not in RANK_METRICS:
            self.metric = defaults["metric"]

    def as_query(self, **override) -> dict[str, str]:
        """Offered, non-default values only, so URLs stay short; ``override`` changes some on the way."""
        values = {**asdict(self), **override}
        defaults = {fl.name: fl.default for fl in fields(self)}
        return {k: values[k] for k in self.OFFERED if values[k] and values[k] != defaults[k]}

    def carried_to(self, other: type[RunFilters], **override) -> dict[str, str]:
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
    """Every filter and display choice of the leaderboard (rank by ``metric``, ``sort``, ``dir``)."""

    OFFERED: ClassVar[tuple[str, ...]] = (*RunFilters.OFFERED, "sort", "dir")

    sort: str = "rank"
    dir: str = ""  # "asc" / "desc"; "" = the natural direction of the sort key

    def clean(self, defaults: dict) -> None:
        super().clean(defaults)
        if self.sort not in SORT_KEYS:
            self.sort = "rank"
        if self.dir not in ("asc", "desc"):
            self.dir = ""


def run_filter_options() -> dict:
    """Choices of the run filter forms (3 queries)."""
    return {
        "suites": list(Suite.objects.order_by("is_demo", "name", "version").values_list("slug", "name", "version")),
        "surfaces": Run.ToolSurface.choices,
        "judges": list(JudgeConfig.objects.order_by("name").values_list("name", flat=True)),
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
) -> list[scoring.RunOutcomes]:
    """Graded ``runs`` scored under the filters' rubric weighting: one outcome per run by its
    default judge, or with ``every_judge`` one per (run, judge) that judged it; only the filters'
    judge when one is set (a run it did not judge drops out); each restricted to the tasks of the
    filters' slice (behavioural type, apps-touched bin, app). Constant queries, cached by scoring."""
    graded = [r for r in runs if not r.is_reported]
    if not graded:
        return []
    if every_judge or filters.judge:
        outcomes = scoring.judged_outcomes(graded, weighting=filters.weighting, version=version)
    else:
        found = scoring.run_outcomes(graded, weighting=filters.weighting, version=version)
        outcomes = [found[r.pk] for r in graded if r.pk in found]
    if filters.judge:
        outcomes = [o for o in outcomes if o.judge_name == filters.judge]
    if filters.slices_tasks:
        outcomes = [o.subset(o.task_mask(filters.type, filters.bin, filters.app)) for o in outcomes]
    return outcomes


# -- reported leaderboard -------------------------------------------------------------------


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


def slice_label(kind: str, value: str) -> str:
    """Human label of a figure's slice value (a behavioural type, a failure mode, a bin)."""
    if kind == "task_type":
        return dict(BehaviouralType.choices).get(value, value)
    if kind.startswith("failure_mode"):
        return dict(FailureMode.choices).get(value, value)
    if kind == "apps_touched":
        return f"{value} app" + ("" if value == "1" else "s")
    return value


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
        fig.slice_label = slice_label(fig.slice_kind, fig.slice_value)
        fig.display = f"{fig.value:g}"  # as published: 41.2 stays 41.2, 532 stays 532
        groups[fig.slice_kind].append(fig)
    return [(titles.get(kind, kind), groups[kind]) for kind in titles if kind in groups] + [
        (kind, figs) for kind, figs in groups.items() if kind not in titles
    ]


# -- suites ---------------------------------------------------------------------------------


@dataclass
class SuiteStats:
    suite: Suite
    task_count: int
    rubric_item_count: int
    by_type: dict[str, int]
    by_apps_touched_bin: dict[str, int]

    @property
    def by_type_labelled(self) -> list[tuple[str, str, int]]:
        labels = dict(BehaviouralType.choices)
        return [(key, labels.get(key, key), n) for key, n in self.by_type.items()]


def _suite_stats(suites: list[Suite]) -> list[SuiteStats]:
    ids = [s.id for s in suites]
    by_type: dict[int, dict[str, int]] = {i: {t: 0 for t in BehaviouralType.values} for i in ids}
    by_bin: dict[int, dict[str, int]] = {i: {b: 0 for b in APPS_TOUCHED_BINS} for i in ids}
    for row in Task.objects.filter(suite_id__in=ids).values("suite_id", "behavioural_type").annotate(n=Count("id")):
        by_type[row["suite_id"]][row["behavioural_type"]] = row["n"]
    for row in Task.objects.filter(suite_id__in=ids).values("suite_id", "apps_touched_bin").annotate(n=Count("id")):
        by_bin[row["suite_id"]][row["apps_touched_bin"] or "unknown"] = row["n"]
    return [
        SuiteStats(
            suite=s,
            task_count=s.task_count,
            rubric_item_count=s.rubric_item_count,
            by_type={k: v for k, v in by_type[s.id].items()},
            by_apps_touched_bin=by_bin[s.id],
        )
        for s in suites
    ]


def _suites_annotated() -> QuerySet[Suite]:
    return Suite.objects.annotate(
        task_count=Count("tasks", distinct=True),
        rubric_item_count=Count("tasks__rubric_items", filter=Q(tasks__rubric_items__is_current=True)),
    ).order_by("is_demo", "name", "version")


def suite_list() -> list[SuiteStats]:
    """Every suite with task count, current rubric item count, and counts per type and bin (3 queries)."""
    return _suite_stats(list(_suites_annotated()))


def suite_detail(slug: str) -> SuiteStats:
    suite = _suites_annotated().filter(slug=slug).first()
    if suite is None:
        raise Http404(f"No suite {slug!r}")
    return _suite_stats([suite])[0]


# -- tasks ----------------------------------------------------------------------------------


@dataclass
class TaskFilters:
    suite: str = ""
    type: str = ""
    app: str = ""
    difficulty: str = ""

    @classmethod
    def from_query(cls, params) -> TaskFilters:
        """Unknown values are ignored rather than failing, so stale shared links still open."""
        f = cls(
            suite=(params.get("suite") or "").strip(),
            type=(params.get("type") or "").strip(),
            app=(params.get("app") or "").strip(),
            difficulty=(params.get("difficulty") or "").strip(),
        )
        if f.type and f.type not in BehaviouralType.values:
            f.type = ""
        if f.difficulty and f.difficulty not in Difficulty.values:
            f.difficulty = ""
        return f

    def as_query(self) -> dict[str, str]:
        return {k: v for k, v in vars(self).items() if v}

    @property
    def active(self) -> bool:
        return bool(self.as_query())


def task_list(filters: TaskFilters | None = None) -> QuerySet[Task]:
    """Tasks matching the filters, with suite, primary app, apps and current rubric size."""
    filters = filters or TaskFilters()
    tasks = (
        Task.objects.select_related("suite", "primary_app")
        .prefetch_related(Prefetch("apps", queryset=App.objects.order_by("name")))
        .annotate(rubric_item_count=Count("rubric_items", filter=Q(rubric_items__is_current=True)))
        .order_by("suite__is_demo", "suite__name", "suite__version", "position", "task_id")
    )
    if filters.suite:
        tasks = tasks.filter(suite__slug=filters.suite)
    if filters.type:
        tasks = tasks.filter(behavioural_type=filters.type)
    if filters.difficulty:
        tasks = tasks.filter(difficulty=filters.difficulty)
    if filters.app:
        tasks = tasks.filter(apps__slug=filters.app)
    return tasks


def task_filter_options() -> dict:
    """Choices for the task filter form (2 queries)."""
    return {
        "suites": list(Suite.objects.order_by("is_demo", "name", "version").values_list("slug", "name", "version")),
        "types": BehaviouralType.choices,
        "apps": list(App.objects.filter(tasks__isnull=False).distinct().order_by("name").values_list("slug", "name")),
        "difficulties": Difficulty.choices,
    }


def task_detail(suite_slug: str, task_id: str) -> Task:
    task = (
        Task.objects.select_related("suite", "primary_app")
        .prefetch_related(
            Prefetch("apps", queryset=App.objects.order_by("name")),
            Prefetch(
                "rubric_items",
                queryset=RubricItem.objects.filter(is_current=True).order_by("position"),
                to_attr="current_items",
            ),
        )
        .filter(suite__slug=suite_slug, task_id=task_id)
        .first()
    )
    if task is None:
        raise Http404(f"No task {task_id!r} in suite {suite_slug!r}")
    task.instruction_display = task.instruction.strip()
    for item in task.current_items:
        item.weight_pct = item.normalised_weight * 100
    task.older_versions = RubricItem.objects.filter(task=task, is_current=False).values("version").distinct().count()
    return task


def task_trajectories(task: Task, user):
    """Trajectories of this task in runs the user may see."""
    return (
        Trajectory.objects.filter(task=task, run__in=visible_runs(user))
        .select_related("run", "run__model")
        .order_by("run__name", "attempt")
    )


# -- runs -----------------------------------------------------------------------------------


def run_list(user) -> QuerySet[Run]:
    return (
        visible_runs(user)
        .select_related("model", "suite", "judge_config")
        .annotate(
            trajectory_count=Count("trajectories", distinct=True),
            # Graded runs first, newest first; reported runs after them, by name (model first).
            reported_last=Case(When(provenance=Run.Provenance.REPORTED, then=1), default=0),
            reported_name=Case(When(provenance=Run.Provenance.REPORTED, then=F("name")), default=Value("")),
        )
        .order_by("reported_last", "reported_name", "-created_at", "name")
    )


def run_detail(user, slug: str) -> Run:
    run = visible_runs(user).select_related("model", "suite", "judge_config", "launched_by").filter(slug=slug).first()
    if run is None:
        raise Http404(f"No run {slug!r}")
    return run


def run_trajectories(run: Run):
    """The run's trajectories with judgments passed/judged/errors on current rubric items,
    counted for the run's judge when it has one (constant queries)."""
    jq = Q(judgments__rubric_item__is_current=True) & ~Q(judgments__judge__origin=JudgeConfig.Origin.SELF_REPORTED)
    if run.judge_config_id:
        jq &= Q(judgments__judge_id=run.judge_config_id)
    return (
        Trajectory.objects.filter(run=run)
        .select_related("task", "task__suite")
        .annotate(
            judged=Count("judgments", filter=jq),
            passed=Count("judgments", filter=jq & Q(judgments__verdict=Judgment.Verdict.SUCCESS)),
            judge_errors=Count("judgments", filter=jq & Q(judgments__verdict=Judgment.Verdict.ERROR)),
        )
        .order_by("task__position", "task__task_id", "attempt")
    )
