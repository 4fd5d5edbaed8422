"""Read-side queries of the catalog for pages and the API: which runs a user may see, suites with
their counts, task lists with filters, runs and their trajectories, labels of reported figures'
slices. Query counts stay constant."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db.models import Case, Count, F, Prefetch, Q, QuerySet, Value, When
from django.http import Http404

from leaderboard.models import (
    APPS_TOUCHED_BINS,
    App,
    BehaviouralType,
    Difficulty,
    JudgeConfig,
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


def slice_label(kind: str, value: str) -> str:
    """Human label of a figure's slice value (a behavioural type, a failure mode, a bin)."""
    if kind == "task_type":
        return dict(BehaviouralType.choices).get(value, value)
    if kind.startswith("failure_mode"):
        return dict(FailureMode.choices).get(value, value)
    if kind == "apps_touched":
        return f"{value} app" + ("" if value == "1" else "s")
    return value


# -- suites ---------------------------------------------------------------------------------


@dataclass
class SuiteStats:
    suite: Suite
    task_count: int
    rubric_item_count: int
    by_type: dict[str, int]
    by_apps_touched_bin: dict[str, int]
    by_domain: dict[str, int] | None = None  # OSWorld suites: tasks per domain, which stand in for types

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
    for bin_row in Task.objects.filter(suite_id__in=ids).values("suite_id", "apps_touched_bin").annotate(n=Count("id")):
        by_bin[bin_row["suite_id"]][bin_row["apps_touched_bin"] or "unknown"] = bin_row["n"]
    by_domain: dict[int, dict[str, int]] = {s.id: {} for s in suites if s.kind == Suite.Kind.OSWORLD}
    if by_domain:
        rows = Task.objects.filter(suite_id__in=list(by_domain)).values("suite_id", "category").annotate(n=Count("id"))
        for domain_row in rows.order_by("-n", "category"):
            by_domain[domain_row["suite_id"]][domain_row["category"]] = domain_row["n"]
    return [
        SuiteStats(
            suite=s,
            task_count=s.task_count,  # type: ignore[attr-defined]  # annotated by _suites_annotated
            rubric_item_count=s.rubric_item_count,  # type: ignore[attr-defined]  # annotated by _suites_annotated
            by_type={k: v for k, v in by_type[s.id].items()},
            by_apps_touched_bin=by_bin[s.id],
            by_domain=by_domain.get(s.id),
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
    domain: str = ""  # an OSWorld task's domain (its category)

    @classmethod
    def from_query(cls, params) -> TaskFilters:
        """Unknown values are ignored rather than failing, so stale shared links still open."""
        f = cls(
            suite=(params.get("suite") or "").strip(),
            type=(params.get("type") or "").strip(),
            app=(params.get("app") or "").strip(),
            difficulty=(params.get("difficulty") or "").strip(),
            domain=(params.get("domain") or "").strip()[:50],
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
    if filters.domain:
        tasks = tasks.filter(suite__kind=Suite.Kind.OSWORLD, category=filters.domain)
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


# What an OSWorld task file holds besides its instruction, as kept for reference on import.
OSWORLD_REFERENCE = (
    ("evaluator", "Evaluator", "How OSWorld's evaluator scores the task (its result.txt is the score)."),
    ("config", "Setup", "What OSWorld runs on the machine before the agent starts."),
)


def osworld_reference(task: Task) -> list[dict] | None:
    """An OSWorld task's evaluator and setup configs as indented JSON, for its task page; None for
    tasks of other suites."""
    if task.suite.kind != Suite.Kind.OSWORLD:
        return None
    blocks = []
    for key, title, about in OSWORLD_REFERENCE:
        if task.extra.get(key) not in (None, "", [], {}):
            blocks.append({"key": key, "title": title, "about": about, "json": json.dumps(task.extra[key], indent=2)})
    return blocks


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
    # attributes for the task page's template and the API only (not model fields); current_items is the
    # Prefetch(to_attr=) above
    task.instruction_display = task.instruction.strip()  # type: ignore[attr-defined]
    for item in task.current_items:  # type: ignore[attr-defined]
        item.weight_pct = item.normalised_weight * 100  # type: ignore[attr-defined]
    # versions a run brought (rubric drift) count once that run is published: an unreviewed upload's
    # rubric is the author's text and stays off the shared task's page
    task.older_versions = (  # type: ignore[attr-defined]
        RubricItem.objects.filter(task=task, is_current=False)
        .filter(Q(source_run__isnull=True) | Q(source_run__publication=Run.Publication.PUBLISHED))
        .values("version")
        .distinct()
        .count()
    )
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
