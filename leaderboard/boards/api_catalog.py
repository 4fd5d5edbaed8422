"""The public read-only API of the catalog, runs and trajectories (a django-ninja router, mounted by
mypcbench_site.api). Anonymous callers see published runs only; staff (session) see all. Endpoints
are thin callers of the selectors."""

from datetime import datetime

from django.urls import reverse
from ninja import Router, Schema, Status
from ninja.pagination import PageNumberPagination, paginate

from leaderboard.boards import run_consistency
from leaderboard.catalog import errata, selectors, sessions
from leaderboard.models import BehaviouralType, Difficulty, Run, Suite, Task
from trajectories.recording import contamination
from trajectories.recording.selectors import trajectory_detail
from world.records.task_world import rubric_variation

router = Router()


# -- schemas --------------------------------------------------------------------------------


class ErratumItemOut(Schema):
    rubric_id: str
    change: str  # added, removed, reworded or reweighted
    criterion_before: str | None
    criterion_after: str | None
    weight_before: float | None
    weight_after: float | None


class ErratumOut(Schema):
    task: str
    version: int
    date: datetime
    reason: str
    source_url: str
    items: list[ErratumItemOut]


class SuiteOut(Schema):
    slug: str
    name: str
    version: str
    description: str
    is_demo: bool
    task_count: int
    rubric_item_count: int
    by_type: dict[str, int]
    by_apps_touched_bin: dict[str, int]


class TaskOut(Schema):
    suite: str
    task_id: str
    category: str
    behavioural_type: str
    type_source: str
    difficulty: str
    primary_app: str | None
    apps: list[str]
    apps_touched: int
    apps_touched_bin: str
    rubric_version: int
    rubric_item_count: int
    instruction: str

    @staticmethod
    def resolve_suite(task: Task) -> str:
        return task.suite.slug

    @staticmethod
    def resolve_primary_app(task: Task) -> str | None:
        return task.primary_app.name if task.primary_app else None

    @staticmethod
    def resolve_apps(task: Task) -> list[str]:
        return [app.name for app in task.apps.all()]


class RubricItemOut(Schema):
    position: int
    rubric_id: str
    criterion: str
    verification: str
    weight: float
    normalised_weight: float
    version: int
    varies_by_world_variant: bool = False  # it names a world value: the judge reads each variant's own

    @staticmethod
    def resolve_varies_by_world_variant(item) -> bool:
        return bool(getattr(item, "varies", None))


class IntentOut(Schema):
    id: str
    statement: str
    evidence: list[str]


class SessionOut(Schema):
    sequence: str
    position: int
    depends_on: list[str]
    intent_count: int
    hidden: bool  # intents and checklist withheld from this caller until the maintainers reveal them
    intents: list[IntentOut]
    checklist_item_count: int


class TaskDetailOut(TaskOut):
    apps_involved: list[str]
    rubric_rule: str
    rubric: list[RubricItemOut]
    session: SessionOut | None = None  # session tasks only

    @staticmethod
    def resolve_session(task: Task):
        return getattr(task, "session", None)

    @staticmethod
    def resolve_rubric_item_count(task: Task) -> int:
        return len(task.current_items)  # type: ignore[attr-defined]  # Prefetch(to_attr=) in selectors.task_detail

    @staticmethod
    def resolve_rubric(task: Task) -> list:
        return task.current_items  # type: ignore[attr-defined]  # Prefetch(to_attr=) in selectors.task_detail


class ModelOut(Schema):
    name: str
    slug: str
    provider: str
    family: str
    open_weights: bool


class RunOut(Schema):
    slug: str
    name: str
    model: ModelOut
    suite: str
    agent_type: str
    tool_surface: str
    turn_budget: int
    screenshot_window: int
    image_tag: str
    harness_version: str
    judge: str | None
    provenance: str
    publication: str
    status: str
    source: str
    created_at: datetime
    trajectory_count: int

    @staticmethod
    def resolve_suite(run: Run) -> str:
        return run.suite.slug

    @staticmethod
    def resolve_judge(run: Run) -> str | None:
        return run.judge_config.name if run.judge_config else None

    @staticmethod
    def resolve_source(run: Run) -> str:
        return run.public_source  # a folder's name, never the importing server's path


class ReportedFigureOut(Schema):
    metric: str
    slice_kind: str
    slice_value: str
    value: float
    source: str


class TrajectorySummaryOut(Schema):
    id: int
    task_id: str
    attempt: int
    world_variant: int  # 0: the canonical world
    status: str
    ended_by: str
    n_steps: int
    imported_score: float | None
    judged: int
    passed: int
    judge_errors: int

    contamination_hits: int

    @staticmethod
    def resolve_task_id(t) -> str:
        return t.task.task_id

    @staticmethod
    def resolve_contamination_hits(t) -> int:
        return contamination.hit_count(t)


class ContaminationFlagOut(Schema):
    """One hit of the contamination scan: the step (1-based; null for a final answer with no step),
    the field it was in, what it reached, the pattern and an excerpt; player_url opens that step."""

    trajectory_id: int
    task_id: str
    attempt: int
    step: int | None
    field: str
    kind: str
    pattern: str
    excerpt: str
    player_url: str


class RunDetailOut(RunOut):
    notes: str
    reported_figures: list[ReportedFigureOut]
    trajectories: list[TrajectorySummaryOut]
    world_variants: list[int]  # the variants its trajectories ran on, each once; [0]: the canonical world only
    contamination_hits: int
    contamination_flags: list[ContaminationFlagOut]

    @staticmethod
    def resolve_reported_figures(run: Run) -> list:
        return list(run.reported_figures.all())

    @staticmethod
    def resolve_trajectories(run: Run) -> list:
        return run.trajectory_rows  # type: ignore[attr-defined]  # set by get_run below

    @staticmethod
    def resolve_world_variants(run: Run) -> list[int]:
        return sorted({t.world_variant for t in run.trajectory_rows})  # type: ignore[attr-defined]


class StepOut(Schema):
    index: int
    turn: int
    tool: str
    action: dict
    action_text: str
    model_text: str
    tool_output: str
    done: bool
    timestamp: datetime | None
    screenshot_url: str | None
    image_url: str | None


class JudgmentOut(Schema):
    rubric_id: str
    rubric_position: int
    rubric_version: int
    criterion: str
    stale: bool
    verdict: str
    explanation: str
    cited_steps: list
    failure_mode: str
    judge: str
    judge_origin: str


class TrajectoryOut(Schema):
    id: int
    run: str
    suite: str
    task_id: str
    attempt: int
    world_variant: int  # 0: the canonical world
    status: str
    ended_by: str
    n_steps: int
    n_turns: int
    final_answer: str
    error: str
    imported_score: float | None
    steps: list[StepOut]
    judgments: list[JudgmentOut]


# -- endpoints ------------------------------------------------------------------------------


def _suite_out(stats: selectors.SuiteStats) -> dict:
    s = stats.suite
    return {
        "slug": s.slug,
        "name": s.name,
        "version": s.version,
        "description": s.description,
        "is_demo": s.is_demo,
        "task_count": stats.task_count,
        "rubric_item_count": stats.rubric_item_count,
        "by_type": stats.by_type,
        "by_apps_touched_bin": stats.by_apps_touched_bin,
    }


@router.get("/suites", response=list[SuiteOut], tags=["catalog"], summary="Suites with task and rubric counts")
def list_suites(request):
    return [_suite_out(stats) for stats in selectors.suite_list()]


@router.get("/suites/{slug}", response=SuiteOut, tags=["catalog"], summary="One suite")
def get_suite(request, slug: str):
    return _suite_out(selectors.suite_detail(slug))


@router.get(
    "/suites/{slug}/errata",
    response={200: list[ErratumOut], 404: dict},
    tags=["catalog"],
    summary="The suite's rubric errata (its changelog), newest first; ?task=ID for one task",
)
def list_errata(request, slug: str, task: str = ""):
    suite = Suite.objects.filter(slug=slug).first()
    if suite is None:
        return Status(404, {"detail": f"no suite {slug!r}"})
    one = None
    if task:
        one = suite.tasks.filter(task_id=task).first()
        if one is None:
            return Status(404, {"detail": f"no task {task!r} in suite {slug!r}"})
    entries = errata.changelog(task=one) if one else errata.changelog(suite=suite)
    return [
        {
            "task": e.task.task_id,
            "version": e.version,
            "date": e.date,
            "reason": e.reason,
            "source_url": e.source_url,
            "items": [
                {
                    "rubric_id": i.rubric_id,
                    "change": i.change,
                    "criterion_before": i.old_item.criterion if i.old_item else None,
                    "criterion_after": i.new_item.criterion if i.new_item else None,
                    "weight_before": i.old_item.weight if i.old_item else None,
                    "weight_after": i.new_item.weight if i.new_item else None,
                }
                for i in e.items
            ],
        }
        for e in entries
    ]


@router.get("/tasks", response=list[TaskOut], tags=["catalog"], summary="Tasks, filtered and paginated")
@paginate(PageNumberPagination, page_size=50)
def list_tasks(
    request,
    suite: str = "",
    type: BehaviouralType | None = None,
    app: str = "",
    difficulty: Difficulty | None = None,
):
    filters = selectors.TaskFilters(
        suite=suite, type=type.value if type else "", app=app, difficulty=difficulty.value if difficulty else ""
    )
    return selectors.task_list(filters)


@router.get("/tasks/{suite}/{task_id}", response=TaskDetailOut, tags=["catalog"], summary="One task with its rubric")
def get_task(request, suite: str, task_id: str):
    task = selectors.task_detail(suite, task_id)
    task.session = sessions.session_for_reader(task, request.user)  # type: ignore[attr-defined]  # for the schema
    varying = rubric_variation(task)
    for item in task.current_items:  # type: ignore[attr-defined]  # Prefetch(to_attr=) in selectors.task_detail
        item.varies = varying.get(item.position)
    return task


@router.get("/runs", response=list[RunOut], tags=["runs"], summary="Runs (published only unless staff)")
@paginate(PageNumberPagination, page_size=100)
def list_runs(request):
    return selectors.run_list(request.user)


@router.get("/runs/{slug}", response=RunDetailOut, tags=["runs"], summary="One run with figures and trajectories")
def get_run(request, slug: str):
    run = selectors.run_detail(request.user, slug)
    # attributes for RunDetailOut only (not model fields)
    run.trajectory_rows = list(selectors.run_trajectories(run))  # type: ignore[attr-defined]
    run.trajectory_count = len(run.trajectory_rows)  # type: ignore[attr-defined]
    flags, total = contamination.flags_of_run(run.pk)
    for flag in flags:
        player = reverse("trajectories:trajectory_player", args=[flag["trajectory_id"]])
        flag["player_url"] = request.build_absolute_uri(player + (f"?step={flag['step']}" if flag["step"] else ""))
    run.contamination_flags, run.contamination_hits = flags, total  # type: ignore[attr-defined]
    return run


class KFigureOut(Schema):
    k: int
    pass_hat_k_pct: float | None  # all k attempts perfect (tau-bench's C(c,k)/C(n,k) averaged over tasks)
    pass_hat_k_low: float | None
    pass_hat_k_high: float | None
    best_of_k_pct: float | None  # at least one of k attempts perfect (unbiased pass@k)
    best_of_k_low: float | None
    best_of_k_high: float | None
    tasks: int  # tasks counted: those with at least k known attempts


class TaskConsistencyOut(Schema):
    task: str
    behavioural_type: str
    perfect_attempts: int
    known_attempts: int
    attempts: int
    consistency: str  # consistent, flaky, never or unknown


class ConsistencyOut(Schema):
    run: str
    judge: str
    attempts: int
    by_k: list[KFigureOut]
    task_counts: dict[str, int]
    tasks: list[TaskConsistencyOut]


@router.get(
    "/runs/{slug}/consistency",
    response={200: ConsistencyOut, 404: dict, 400: dict},
    tags=["runs"],
    summary="pass^k and best-of-k for every k, and perfect attempts per task",
    description="Query parameters: tasks (flaky, never, consistent, unknown) filters the tasks; order (rate, "
    "-rate) sorts them by their share of perfect attempts. Percentages with 95% stratified bootstrap intervals "
    "over tasks; scored by the run's default judge, as on the leaderboard.",
)
def get_run_consistency(request, slug: str, tasks: str = "", order: str = ""):
    run = selectors.run_detail(request.user, slug)
    found = run_consistency.run_consistency(run, tasks, order, with_chart=False)
    if found is None:
        return Status(404, {"detail": f"run {slug!r} has no scored per-task outcomes (reported figures, or no tasks)"})
    if found.errors:
        return Status(400, {"detail": "; ".join(found.errors)})
    return Status(200, found.as_dict())


def _url(request, f) -> str | None:
    return request.build_absolute_uri(f.url) if f else None


@router.get("/trajectories/{trajectory_id}", response=TrajectoryOut, tags=["runs"], summary="Steps and judgments")
def get_trajectory(request, trajectory_id: int):
    t = trajectory_detail(request.user, trajectory_id)
    return {
        "id": t.pk,
        "run": t.run.slug,
        "suite": t.task.suite.slug,
        "task_id": t.task.task_id,
        "attempt": t.attempt,
        "world_variant": t.world_variant,
        "status": t.status,
        "ended_by": t.ended_by,
        "n_steps": t.n_steps,
        "n_turns": t.n_turns,
        "final_answer": t.final_answer,
        "error": t.error,
        "imported_score": t.imported_score,
        "steps": [
            {
                "index": s.index,
                "turn": s.turn,
                "tool": s.tool,
                "action": s.action or {},
                "action_text": s.action_text,
                "model_text": s.model_text,
                "tool_output": s.tool_output,
                "done": s.done,
                "timestamp": s.timestamp,
                "screenshot_url": _url(request, s.screenshot),
                "image_url": _url(request, s.display_image or s.thumbnail or s.screenshot),
            }
            for s in t.steps.all()
        ],
        "judgments": [
            {
                "rubric_id": j.rubric_item.rubric_id,
                "rubric_position": j.rubric_item.position,
                "rubric_version": j.rubric_item.version,
                "criterion": j.rubric_item.criterion,
                "stale": j.is_stale,
                "verdict": j.verdict,
                "explanation": j.explanation,
                "cited_steps": j.cited_steps or [],
                "failure_mode": j.failure_mode,
                "judge": j.judge.name,
                "judge_origin": j.judge.origin,
            }
            for j in t.judgments.all()
        ],
    }
