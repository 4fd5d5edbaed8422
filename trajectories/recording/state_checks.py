"""Storing the state-check results a bundle carries (state_checks.json) against the trajectory's
rubric items, and reading them back beside the judge's verdicts."""

from datetime import datetime

from django.utils import timezone

from leaderboard.models import RubricItem
from trajectories.models import StateCheckResult, Trajectory

NOT_RUN = "not_run"
LABELS = {"passed": "passed", "failed": "failed", "error": "error (could not run)", NOT_RUN: "not run"}


def _when(value) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return timezone.make_aware(moment) if timezone.is_naive(moment) else moment


def store_state_checks(trajectory: Trajectory, rows: list[dict]) -> tuple[int, list[str]]:
    """Store one result per rubric item named in ``rows`` (current items of the trajectory's task,
    matched by rubric id); returns (stored, warnings). Rows naming no such item are reported, not stored."""
    if not rows:
        return 0, []
    items = {item.rubric_id: item for item in RubricItem.objects.filter(task_id=trajectory.task_id, is_current=True)}
    warnings, results = [], []
    for row in rows:
        item = items.get(row["rubric_id"])
        if item is None:
            warnings.append(
                f"state_checks.json: rubric id {row['rubric_id']!r} is not an item of task "
                f"{trajectory.task.task_id} (expected one of {', '.join(sorted(items)) or 'none'}); not stored"
            )
            continue
        code = row.get("returncode")
        results.append(
            StateCheckResult(
                trajectory=trajectory,
                rubric_item=item,
                status=row["status"],
                command=row.get("command") or "",
                expected=str(row.get("expected") or ""),
                match=str(row.get("match") or ""),
                returncode=code if isinstance(code, int) and not isinstance(code, bool) else None,
                output=str(row.get("output") or ""),
                error=str(row.get("error") or ""),
                checked_at=_when(row.get("checked_at")),
            )
        )
    StateCheckResult.objects.filter(trajectory=trajectory).delete()
    StateCheckResult.objects.bulk_create(results)
    return len(results), warnings


def state_checks_by_item(trajectory: Trajectory) -> dict[int, StateCheckResult]:
    """{rubric item pk: result} for one trajectory (one query)."""
    return {r.rubric_item_id: r for r in StateCheckResult.objects.filter(trajectory=trajectory)}


def state_check_summary(result: StateCheckResult | None, item_has_check: bool) -> dict | None:
    """What a page shows beside the LLM verdict; None when the item has no state check at all."""
    if result is None:
        return {"status": NOT_RUN, "label": LABELS[NOT_RUN], "detail": ""} if item_has_check else None
    detail = result.error or (f"printed {result.output[:200]!r}" if result.status == "failed" else "")
    return {"status": result.status, "label": LABELS[result.status], "detail": detail}
