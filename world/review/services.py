"""Review verdicts and the task state they add up to.

A task is "needs changes" when any reviewer asks for changes, "approved" when at least two different
reviewers approve it and nobody asks for changes, and "unreviewed" otherwise. Every change of a
reviewer's verdict writes an audit row.
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from leaderboard.models import Task
from world.models import ReviewAudit, ReviewState, TaskReview

APPROVALS_NEEDED = 2
PERMISSION = "world.review_tasks"
KEYS = {"a": ReviewState.APPROVED, "c": ReviewState.NEEDS_CHANGES, "u": ReviewState.UNREVIEWED}


def can_review(user) -> bool:
    return bool(user and user.is_active and user.is_staff and user.has_perm(PERMISSION))


def state_of(verdicts) -> str:
    """The task's state from its reviewers' verdicts (an iterable of ReviewState values)."""
    verdicts = list(verdicts)
    if ReviewState.NEEDS_CHANGES in verdicts:
        return ReviewState.NEEDS_CHANGES
    if sum(1 for v in verdicts if v == ReviewState.APPROVED) >= APPROVALS_NEEDED:
        return ReviewState.APPROVED
    return ReviewState.UNREVIEWED


def task_state(task) -> str:
    return state_of(task.reviews.values_list("verdict", flat=True))


def set_verdict(task: Task, user, verdict: str, note: str = "") -> dict:
    """Record ``user``'s verdict on ``task`` (unreviewed withdraws it) and audit the change."""
    if not can_review(user):
        raise PermissionDenied("You need the 'Can review tasks' permission to review tasks.")
    if verdict not in ReviewState.values:
        raise ValidationError(f"Unknown verdict {verdict!r}: use one of {', '.join(ReviewState.values)}.")
    note = (note or "").strip()[:2000]
    with transaction.atomic():
        Task.objects.select_for_update().filter(pk=task.pk).first()
        before_state = task_state(task)
        mine = TaskReview.objects.filter(task=task, reviewer=user).first()
        before = mine.verdict if mine else ReviewState.UNREVIEWED
        if verdict == ReviewState.UNREVIEWED:
            if mine:
                mine.delete()
        elif mine:
            mine.verdict, mine.note = verdict, note
            mine.save(update_fields=["verdict", "note", "updated_at"])
        else:
            TaskReview.objects.create(task=task, reviewer=user, verdict=verdict, note=note)
        after_state = task_state(task)
        if before != verdict or note:
            ReviewAudit.objects.create(
                task=task,
                user=user,
                before=before,
                after=verdict,
                task_state_before=before_state,
                task_state_after=after_state,
                note=note,
            )
    return {"before": before, "after": verdict, "state": after_state}


def review_queue(suite=None) -> list[dict]:
    """Tasks grouped by primary app (its name, or the task bucket), each with its state and approvals."""
    tasks = Task.objects.select_related("suite", "primary_app").prefetch_related("reviews__reviewer")
    if suite is not None:
        tasks = tasks.filter(suite=suite)
    groups: dict[str, list[dict]] = {}
    for task in tasks.order_by("suite__slug", "position", "task_id"):
        reviews = list(task.reviews.all())
        verdicts = [r.verdict for r in reviews]
        label = task.primary_app.name if task.primary_app else (task.bucket or "no primary app")
        groups.setdefault(label, []).append(
            {
                "task": task,
                "state": state_of(verdicts),
                "approvals": sum(1 for v in verdicts if v == ReviewState.APPROVED),
                "reviews": reviews,
            }
        )
    return [
        {
            "app": label,
            "rows": rows,
            "approved": sum(1 for r in rows if r["state"] == ReviewState.APPROVED),
        }
        for label, rows in sorted(groups.items(), key=lambda kv: kv[0].lower())
    ]


def audit_for(task, limit=50):
    return list(ReviewAudit.objects.filter(task=task).select_related("user")[:limit])


def recent_changes(limit=20):
    return list(ReviewAudit.objects.select_related("user", "task", "task__suite")[:limit])
