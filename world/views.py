"""Thin views of the World section and of task review."""

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods

from leaderboard.models import Suite, Task
from world.records import browse
from world.records.summary import summary_html
from world.records.task_world import check_figures, rubric_variation, solvable_figure, task_world
from world.review import services


def _bad_request(message: str):
    """A 400 naming what was wrong, as plain text (the message may repeat what was sent)."""
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


def _world_or_empty(request):
    world = browse.current_world()
    if world is None:
        return None, render(request, "world/empty.html", status=200)
    return world, None


def overview(request):
    world, empty = _world_or_empty(request)
    if empty:
        return empty
    return render(
        request,
        "world/overview.html",
        {
            "world": world,
            "summary": summary_html(world.summary),
            "solvable": solvable_figure(world),
            "figures": check_figures(world),
            "apps": browse.app_list(world),
            **browse.overview(world),
        },
    )


def app_records(request, app):
    world, empty = _world_or_empty(request)
    if empty:
        return empty
    filters = browse.RecordFilters.from_query(request.GET)
    records = browse.search_records(world, app, filters)
    page = Paginator(records, browse.RECORDS_PER_PAGE).get_page(request.GET.get("page"))
    page.object_list = list(page.object_list)
    labels = browse.made_by_labels(world, (r.section for r in page.object_list))
    for r in page.object_list:
        r.made_by = labels[r.section]
    return render(
        request,
        "world/app_records.html",
        {
            "world": world,
            "app": app,
            "app_name": browse.app_name(app),
            "filters": filters,
            "kinds": browse.kinds_of(world, app),
            "page": page,
            "query": urlencode(filters.as_query()),
        },
        status=400 if filters.errors else 200,
    )


def record_detail(request, app, kind, row_id):
    world, empty = _world_or_empty(request)
    if empty:
        return empty
    record = browse.record_detail(world, app, kind, row_id)
    record.made_by = browse.made_by_labels(world, [record.section])[record.section]  # type: ignore[attr-defined]  # for the template
    return render(
        request,
        "world/record_detail.html",
        {"world": world, "record": record, "app_name": browse.app_name(app), "fields": sorted(record.data.items())},
    )


def event_list(request):
    world, empty = _world_or_empty(request)
    if empty:
        return empty
    q, kind = request.GET.get("q", "").strip()[:200], request.GET.get("kind", "").strip()[:100]
    page = Paginator(browse.event_list(world, q, kind), browse.EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "world/event_list.html",
        {
            "world": world,
            "page": page,
            "q": q,
            "kind": kind,
            "kinds": browse.event_kinds(world),
            "query": urlencode({k: v for k, v in (("q", q), ("kind", kind)) if v}),
        },
    )


def event_detail(request, event_id):
    world, empty = _world_or_empty(request)
    if empty:
        return empty
    return render(request, "world/event_detail.html", {"world": world, **browse.event_chain(world, event_id)})


def _reviewer_or_refuse(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not services.can_review(request.user):
        raise PermissionDenied("Task review is for staff with the 'Can review tasks' permission.")
    return None


def review_queue(request):
    refused = _reviewer_or_refuse(request)
    if refused:
        return refused
    suites = list(Suite.objects.order_by("name", "version"))
    slug = request.GET.get("suite", "")
    suite = next((x for x in suites if x.slug == slug), None)
    if slug and suite is None:
        return _bad_request(f"No suite {slug!r}: pick one from the list.")
    world = browse.current_world()
    groups = services.review_queue(suite)
    per_task = ((world.check_report or {}).get("solvable") or {}).get("per_task", {}) if world else {}
    for group in groups:
        for row in group["rows"]:
            row["verdict"] = per_task.get(row["task"].task_id, {}).get("verdict", "")
    return render(
        request,
        "world/review_queue.html",
        {
            "groups": groups,
            "solvable": solvable_figure(world),
            "suites": suites,
            "suite": suite,
            "recent": services.recent_changes(),
        },
    )


@require_http_methods(["GET", "POST"])
def review_task(request, suite, task_id):
    refused = _reviewer_or_refuse(request)
    if refused:
        return refused
    task = get_object_or_404(Task.objects.select_related("suite", "primary_app"), suite__slug=suite, task_id=task_id)
    if request.method == "POST":
        try:
            services.set_verdict(task, request.user, request.POST.get("verdict", ""), request.POST.get("note", ""))
        except ValidationError as exc:
            return _bad_request(" ".join(exc.messages))
        target = request.POST.get("next_task", "")
        nxt = Task.objects.filter(suite=task.suite, task_id=target).first() if target else None
        if nxt:
            return redirect("world:world_review_task", suite=nxt.suite.slug, task_id=nxt.task_id)
        return redirect("world:world_review_task", suite=task.suite.slug, task_id=task.task_id)
    following = (
        Task.objects.filter(suite=task.suite, position__gt=task.position).order_by("position", "task_id").first()
    )
    world = browse.current_world()
    items, varying = list(task.current_rubric()), rubric_variation(task)
    for item in items:  # the items a world variant words differently, with their template for review
        item.varies = varying.get(item.position)
    return render(
        request,
        "world/review_task.html",
        {
            "task": task,
            "items": items,
            "state": services.task_state(task),
            "reviews": list(task.reviews.select_related("reviewer")),
            "approvals": task.reviews.filter(verdict="approved").count(),
            "task_world": task_world(task),
            "mine": task.reviews.filter(reviewer=request.user).first(),
            "audit": services.audit_for(task),
            "world": world,
            "next_task": following,
            "approvals_needed": services.APPROVALS_NEEDED,
        },
    )
