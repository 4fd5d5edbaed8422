"""Judge reliability pages: one run (flips on re-judging, agreement with state checks and human labels)
and, across every run the viewer may see, each rubric item of a suite or of one task."""

from django.shortcuts import get_object_or_404, render
from django.utils.http import urlencode

from leaderboard.catalog.selectors import visible_runs
from leaderboard.models import Suite, Task
from trajectories.judging.labelling import can_label
from trajectories.judging.reliability import SORTS, items_reliability, run_reliability


def _judge_id(request) -> int | None:
    try:
        return int(request.GET.get("judge", ""))
    except ValueError:
        return None


def run_reliability_page(request, slug):
    run = get_object_or_404(visible_runs(request.user).select_related("model", "judge_config", "suite"), slug=slug)
    return render(
        request, "trajectories/reliability.html", {"run": run, "report": run_reliability(run, _judge_id(request))}
    )


def _sort_headers(report, judge_id) -> dict:
    """Column headers as sort links (the board's header include): the active one flips direction."""
    headers = {}
    for key, (label, natural, _) in SORTS.items():
        active = report.sort == key
        opposite = "asc" if report.dir == "desc" else "desc"
        query = {"sort": key, "dir": opposite if active else natural}
        if judge_id is not None:
            query["judge"] = judge_id
        headers[key] = {"key": key, "label": label, "active": active, "dir": report.dir, "href": "?" + urlencode(query)}
    return headers


def _items_page(request, suite, task=None):
    judge_id = _judge_id(request)
    report = items_reliability(
        suite,
        visible_runs(request.user),
        task=task,
        judge_id=judge_id,
        sort=request.GET.get("sort", "item"),
        direction=request.GET.get("dir", ""),
    )
    context = {
        "suite": suite,
        "task": task,
        "report": report,
        "headers": _sort_headers(report, report.family.pk if report.family and judge_id is not None else None),
        "can_label": can_label(request.user),
    }
    return render(request, "trajectories/reliability_items.html", context)


def suite_reliability_page(request, slug):
    return _items_page(request, get_object_or_404(Suite, slug=slug))


def task_reliability_page(request, suite, task_id):
    task = get_object_or_404(Task.objects.select_related("suite"), suite__slug=suite, task_id=task_id)
    return _items_page(request, task.suite, task)
