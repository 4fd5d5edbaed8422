"""Read-side queries for trajectory pages and the API: one trajectory with its steps and
judgments, visible only when its run is visible to the user."""

from __future__ import annotations

from django.db.models import OuterRef, Prefetch, Subquery
from django.http import Http404

from leaderboard.catalog.selectors import visible_runs
from leaderboard.models import Run
from trajectories.models import Judgment, Step, Trajectory


def readable_runs(user):
    """Runs whose trajectories this user may read: the visible ones, and an author's own uploads before
    review (so they can play them back)."""
    runs = visible_runs(user)
    if user is not None and user.is_authenticated:
        runs = runs | Run.objects.filter(submission__author=user)
    return runs


def trajectory_detail(user, pk: int) -> Trajectory:
    """The trajectory with steps (in order) and judgments (by rubric position, then judge)."""
    runs = readable_runs(user)
    trajectory = (
        Trajectory.objects.filter(pk=pk, run__in=runs)
        .select_related("run", "run__model", "run__suite", "run__judge_config", "task", "task__suite")
        .prefetch_related(
            Prefetch("steps", queryset=Step.objects.order_by("index")),
            Prefetch(
                "judgments",
                queryset=Judgment.objects.select_related("rubric_item", "judge").order_by(
                    "-rubric_item__is_current", "rubric_item__version", "rubric_item__position", "judge__name"
                ),
            ),
        )
        .first()
    )
    if trajectory is None:
        raise Http404(f"No trajectory {pk}")
    return trajectory


def step_image_url(step: Step) -> str:
    """The lightest image to show for a step: the display derivative, the thumbnail, else the
    original (derivatives may not be made yet)."""
    for f in (step.display_image, step.thumbnail, step.screenshot):
        if f:
            return f.url
    return ""


def step_thumbnail_url(step: Step) -> str:
    """The smallest image of a step, for lists: the thumbnail, else the display derivative, else the
    original."""
    for f in (step.thumbnail, step.display_image, step.screenshot):
        if f:
            return f.url
    return ""


def final_screenshots(trajectory_ids) -> dict[int, str]:
    """{trajectory id: URL of the smallest image of its last step that has a screenshot}, in one query
    whatever the number of trajectories (trajectories with no screenshot are left out). While a
    trajectory runs, this is its latest screen."""
    ids = [int(i) for i in trajectory_ids]
    if not ids:
        return {}
    with_image = Step.objects.exclude(screenshot="")
    last_index = with_image.filter(trajectory_id=OuterRef("trajectory_id")).order_by("-index").values("index")[:1]
    steps = with_image.filter(trajectory_id__in=ids, index=Subquery(last_index)).only(
        "trajectory_id", "index", "screenshot", "display_image", "thumbnail"
    )
    return {step.trajectory_id: step_thumbnail_url(step) for step in steps}


def step_alt_text(step: Step) -> str:
    text = (step.action_text or (step.action or {}).get("type", "") or "").strip().replace("\n", " ")
    label = f"Screenshot after step {step.index}"
    return f"{label}: {text[:140]}" if text else label


def trajectory_list(user):
    """Trajectories of visible runs, newest runs first."""
    return (
        Trajectory.objects.filter(run__in=visible_runs(user))
        .select_related("run", "run__model", "task", "task__suite")
        .order_by("-run__created_at", "run__name", "task__position", "task__task_id", "attempt")
    )


def filter_trajectories(trajectories, params) -> tuple:
    """Narrow a trajectory list by query parameters: run (slug), type (behavioural type), bin
    (apps-touched bin), app (slug), domain (an OSWorld task's category), so an analysis cell links to
    exactly the trajectories behind it. Returns the queryset and the applied filters as (label, value)
    pairs for the page."""
    applied = []
    for param, lookup, label in (
        ("run", "run__slug", "run"),
        ("type", "task__behavioural_type", "behavioural type"),
        ("bin", "task__apps_touched_bin", "apps touched"),
        ("app", "task__apps__slug", "app"),
        ("domain", "task__category", "domain"),
    ):
        value = (params.get(param) or "").strip()
        if value:
            trajectories = trajectories.filter(**{lookup: value})
            applied.append((label, value))
    return trajectories, applied
