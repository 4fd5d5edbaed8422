"""Thin views over leaderboard selectors: home (the top of the leaderboard), suites (a suite with no
tasks loaded shown as its published figures only), tasks, runs, and the rubric changelogs (errata) of a
suite and of a task."""

from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render
from django.utils.http import urlencode

from harness.results import world_variants_words
from leaderboard.analysis import task_rates
from leaderboard.boards import board_display, reported, run_consistency, session_figures
from leaderboard.boards.board import board
from leaderboard.catalog import errata, selectors, sessions
from leaderboard.models import Suite, Task
from leaderboard.scoring.filters import BoardFilters
from leaderboard.scoring.outcomes import run_outcomes
from leaderboard.scoring.variants import run_variant_figures
from mypcbench_site.page_cache import anonymous_page_cache
from trajectories.evaluations import lifecycle, run_table
from trajectories.evaluations.views import can_manage_runs
from trajectories.recording import contamination
from world.records.task_world import rubric_variation, task_world


@anonymous_page_cache("home-page")
def home(request, version):
    """The front page: what the benchmark is, the top of the one leaderboard, where to go next."""
    b = board(request.user, BoardFilters.from_query({}), version=version)
    rows = board_display.merged_rows(b)
    return render(
        request,
        "leaderboard/home.html",
        {
            "board": b,
            "chart": board_display.headline_chart(rows)[:8],
            "more": max(0, len(rows) - 8),
            "suites": _with_published_only(selectors.suite_list()),
            "links": board_display.project_links(),
            "last_updated": board_display.last_updated(),
            "citation": board_display.citation(),
        },
    )


def _with_published_only(suites: list) -> list:
    """Give each suite with no tasks loaded what it has instead (``published``: its reported runs),
    so pages show "published figures only" rather than a table of zeros."""
    empty = [s.suite for s in suites if not s.task_count]
    found = reported.published_only(empty) if empty else {}
    for s in suites:
        s.published = found.get(s.suite.pk)
    return suites


def suite_list(request):
    return render(request, "leaderboard/suite_list.html", {"suites": _with_published_only(selectors.suite_list())})


def suite_detail(request, slug):
    stats = _with_published_only([selectors.suite_detail(slug)])[0]
    return render(request, "leaderboard/suite_detail.html", {"stats": stats, "suite": stats.suite})


def suite_changelog(request, slug):
    suite = get_object_or_404(Suite, slug=slug)
    entries = errata.changelog(suite=suite)
    context = {"suite": suite, "task": None, "entries": entries, "revision": errata.suite_rubric_revision(suite)}
    return render(request, "leaderboard/changelog.html", context)


def task_changelog(request, suite, task_id):
    task = get_object_or_404(Task.objects.select_related("suite"), suite__slug=suite, task_id=task_id)
    context = {"suite": task.suite, "task": task, "entries": errata.changelog(task=task)}
    return render(request, "leaderboard/changelog.html", context)


def task_list(request):
    filters = selectors.TaskFilters.from_query(request.GET)
    page = Paginator(selectors.task_list(filters), selectors.TASKS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "leaderboard/task_list.html",
        {
            "page": page,
            "filters": filters,
            "options": selectors.task_filter_options(),
            "filter_query": urlencode(filters.as_query()),
        },
    )


@anonymous_page_cache("task-page")
def task_detail(request, version, suite, task_id):
    task = selectors.task_detail(suite, task_id)
    session = sessions.session_for_reader(task, request.user)  # before the rubric is read: may withhold it
    varying = rubric_variation(task)
    for item in task.current_items:  # type: ignore[attr-defined]  # the items a world variant words differently
        item.varies = varying.get(item.position)
    return render(
        request,
        "leaderboard/task_detail.html",
        {
            "task": task,
            "trajectories": selectors.task_trajectories(task, request.user),
            # The world behind a task is read from its rubric too: withheld with a hidden checklist.
            "task_world": None if session and session.hidden else task_world(task),
            "solve_rates": task_rates.task_solve_rates(task, request.user),
            "osworld_reference": selectors.osworld_reference(task),
            "session": session,
        },
    )


def run_list(request):
    return render(request, "leaderboard/run_list.html", {"runs": selectors.run_list(request.user)})


@anonymous_page_cache("run-page")
def run_detail(request, version, slug):
    run = selectors.run_detail(request.user, slug)
    # A run our harness is running polls its progress; the table is rendered from the same rows.
    launched = run.provenance == run.Provenance.HARNESS and bool((run.metadata or {}).get("launch"))
    progress = lifecycle.progress(run) if launched else None
    rows = progress["trajectories"] if progress else run_table.trajectory_rows(run)
    flags, flags_total = contamination.flags_of_run(run.pk)  # the contamination scan's hits, with step links
    return render(
        request,
        "leaderboard/run_detail.html",
        {
            "run": run,
            "headline_rows": board_display.run_rows(request.user, run),
            "sessions": None if run.is_reported else session_figures.run_figures(run),
            "trajectories": rows,
            "world_words": world_variants_words(row["world_variant"] for row in rows),
            "varied_worlds": any(row["world_variant"] for row in rows),
            "over_variants": None if run.is_reported else run_variant_figures(run_outcomes([run]).get(run.pk)),
            "verdicts_judge": run_table.verdicts_judge(run) if rows else None,
            "progress": progress,
            "show_imported": any(row["imported_score"] is not None for row in rows),
            "can_manage": launched and can_manage_runs(request.user),
            "rerun_tasks": list({row["task_pk"]: row["task"] for row in rows}.items()),
            "figure_groups": reported.reported_figure_groups(run) if run.is_reported else [],
            "flags": flags,
            "flags_total": flags_total,
            "consistency": run_consistency.run_consistency(
                run, request.GET.get("tasks", ""), request.GET.get("order", "")
            ),
            "task_filters": run_consistency.TASK_FILTERS,
            "task_orders": run_consistency.TASK_ORDERS,
        },
    )
