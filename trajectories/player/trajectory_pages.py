"""Thin views over trajectory selectors: a paged trajectory list and the plain trajectory page."""

from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils.http import urlencode

from leaderboard.scoring.one_trajectory import trajectory_scores
from trajectories.player import session_panel
from trajectories.recording import selectors


def trajectory_list(request):
    trajectories, applied = selectors.filter_trajectories(selectors.trajectory_list(request.user), request.GET)
    page = Paginator(trajectories, 50).get_page(request.GET.get("page"))
    query = {k: request.GET[k] for k in ("run", "type", "bin", "app", "domain") if request.GET.get(k)}
    shown = list(page.object_list)
    thumbnails = selectors.final_screenshots(t.pk for t in shown)
    scores = trajectory_scores(shown)
    rows = [(t, thumbnails.get(t.pk, ""), scores.get(t.pk)) for t in shown]
    return render(
        request,
        "trajectories/trajectory_list.html",
        {"page": page, "rows": rows, "applied_filters": applied, "query": urlencode(query)},
    )


def trajectory_detail(request, pk):
    trajectory = selectors.trajectory_detail(request.user, pk)
    steps = [
        (
            step,
            selectors.step_image_url(step),
            step.screenshot.url if step.screenshot else "",
            selectors.step_alt_text(step),
        )
        for step in trajectory.steps.all()
    ]
    return render(
        request,
        "trajectories/trajectory_detail.html",
        {
            "trajectory": trajectory,
            "run": trajectory.run,
            "task": trajectory.task,
            "steps": steps,
            "session": session_panel.session_panel(trajectory, request.user),  # None for a single-turn trajectory
        },
    )
