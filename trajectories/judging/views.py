"""Judge reliability pages: one run (flips on re-judging, agreement with state checks and human labels)
and, across every run the viewer may see, each rubric item of a suite or of one task; the judges'
list and one judge's agreement with human labels (pages, CSV and JSON)."""

import csv
import io

from django.http import HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.http import urlencode

from leaderboard.catalog.selectors import visible_runs
from leaderboard.catalog.sessions import checklist_wording_hidden
from leaderboard.models import Suite, Task
from trajectories.judging import agreement
from trajectories.judging.labelling import can_label
from trajectories.judging.reliability import SORTS, items_reliability, run_reliability


def _judge_id(request) -> int | None:
    try:
        return int(request.GET.get("judge", ""))
    except ValueError:
        return None


def run_reliability_page(request, slug):
    run = get_object_or_404(visible_runs(request.user).select_related("model", "judge_config", "suite"), slug=slug)
    context = {
        "run": run,
        "report": run_reliability(run, _judge_id(request)),
        "hide_wording": checklist_wording_hidden(run.suite, request.user),
    }
    return render(request, "trajectories/reliability.html", context)


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
        "hide_wording": checklist_wording_hidden(suite, request.user),
    }
    return render(request, "trajectories/reliability_items.html", context)


def suite_reliability_page(request, slug):
    return _items_page(request, get_object_or_404(Suite, slug=slug))


def task_reliability_page(request, suite, task_id):
    task = get_object_or_404(Task.objects.select_related("suite"), suite__slug=suite, task_id=task_id)
    return _items_page(request, task.suite, task)


# ---------------------------------------------------------------- judges and their agreement with people

EXPORT_FORMATS = ("csv", "json")


def _export_format(request) -> str | None:
    """The export asked for with ?format=, or None for the page; a format we do not write is a 400."""
    fmt = request.GET.get("format", "")
    if fmt and fmt not in EXPORT_FORMATS:
        raise BadFormat(f"unknown format {fmt!r}: use {' or '.join(EXPORT_FORMATS)}, or leave it out for the page")
    return fmt or None


class BadFormat(ValueError):
    """An export format the judge pages do not write."""


def _export(report: list[agreement.JudgeAgreement], fmt: str, filename: str) -> HttpResponse:
    rows = agreement.export_rows(report)
    if fmt == "json":
        response: HttpResponse = JsonResponse({"judges": rows}, json_dumps_params={"indent": 1})
    else:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=agreement.EXPORT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        response = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response


def judge_list_page(request):
    """Every judge configuration with verdicts on runs the viewer may see, with its agreement with human
    labels overall (CSV/JSON with ?format=, one row per judge and slice)."""
    try:
        fmt = _export_format(request)
    except BadFormat as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    report = agreement.judge_agreements(visible_runs(request.user))
    if fmt:
        return _export(report, fmt, "mypcbench-judge-agreement")
    return render(request, "trajectories/judges.html", {"report": report, "can_label": can_label(request.user)})


def judge_agreement_page(request, pk):
    """One judge's agreement with human labels: overall, per behavioural type and per primary app."""
    try:
        fmt = _export_format(request)
    except BadFormat as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    runs = visible_runs(request.user)
    judge = get_object_or_404(agreement.judges_with_judgments(runs), pk=pk)
    (figures,) = agreement.judge_agreements(runs, judge)
    if fmt:
        return _export([figures], fmt, f"mypcbench-judge-{judge.pk}-agreement")
    context = {"a": figures, "judge": judge, "overall_rows": [figures.overall], "can_label": can_label(request.user)}
    return render(request, "trajectories/judge_agreement.html", context)
