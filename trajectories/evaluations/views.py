"""Staff actions on a harness run's page: cancel it and rerun it as a new run (its failed or errored
trajectories, the whole run, or one task), each after a confirmation page. Thin:
trajectories/evaluations/lifecycle.py does the work, the same functions the admin's actions call."""

from typing import cast

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.http import require_http_methods

from leaderboard.catalog import selectors
from trajectories.evaluations import lifecycle
from trajectories.evaluations.admin_launch import RerunForm
from trajectories.evaluations.lifecycle import LaunchRefused


def can_manage_runs(user) -> bool:
    """Staff who may change runs in the admin may cancel and rerun them from the run page too."""
    return bool(user.is_active and user.is_staff and user.has_perm("leaderboard.change_run"))


def _run_for_staff(request, slug: str):
    if not can_manage_runs(request.user):
        raise PermissionDenied("cancelling and rerunning runs is for staff who may change runs")
    return selectors.run_detail(request.user, slug)


def _back(run):
    return redirect(reverse("leaderboard:run_detail", args=[run.slug]))


@require_http_methods(["GET", "POST"])
def run_cancel(request, slug):
    """GET: what cancelling would do, and a button to confirm. POST: cancel and go back to the run."""
    run = _run_for_staff(request, slug)
    if request.method == "POST":
        try:
            dropped = lifecycle.cancel(run, request.user)
        except LaunchRefused as exc:
            messages.error(request, "Not cancelled: " + "; ".join(exc.problems))
        else:
            messages.success(
                request,
                f"Cancelled {run.name}: {dropped} queued trajector{'y' if dropped == 1 else 'ies'} dropped; "
                "running ones stop after their next step.",
            )
        return _back(run)
    return render(
        request,
        "trajectories/run_cancel.html",
        {"run": run, "progress": lifecycle.progress(run), "cancellable": run.status in ("queued", "running")},
    )


@require_http_methods(["GET", "POST"])
def run_rerun(request, slug):
    """GET (or a POST not confirmed): what the rerun would queue, and a button to confirm, as for
    cancelling. A confirmed POST (it carries ``reruns_seen``, the reruns the run had when the page was
    shown, so a second click queues nothing) queues a rerun as a new run; the flash message links to it.
    ``which``: failed, all or task (+ ``task``)."""
    run = _run_for_staff(request, slug)
    form = RerunForm(run, request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        problems = [
            f"{field if field != '__all__' else 'rerun'}: {' '.join(cast(list[str], e))}"
            for field, e in form.errors.items()
        ]
        messages.error(request, "Nothing was queued: " + "; ".join(problems))
        return _back(run)
    which, task = form.cleaned_data["which"], form.cleaned_data["task"]
    seen = request.POST.get("reruns_seen", "") if request.method == "POST" else ""
    if not seen.isdigit():
        pairs = lifecycle.rerun_pairs(run, which, task)
        return render(
            request,
            "trajectories/run_rerun.html",
            {
                "run": run,
                "which": which,
                "which_label": lifecycle.RERUN_CHOICES[which],
                "task": task,
                "pairs": pairs,
                "tasks": len({t.pk for t, _attempt in pairs}),
                "reruns_seen": run.reruns.count(),
                "progress": lifecycle.progress(run),
            },
        )
    try:
        new = lifecycle.rerun(run, which, task=task, user=request.user, reruns_seen=int(seen))
    except LaunchRefused as exc:
        messages.error(request, "Nothing was queued: " + "; ".join(exc.problems))
        return _back(run)
    count = new.trajectories.count()
    messages.success(
        request,
        format_html(
            'Rerun queued as a new run: <a href="{}">{}</a> ({} trajector{}).',
            reverse("leaderboard:run_detail", args=[new.slug]),
            new.name,
            count,
            "y" if count == 1 else "ies",
        ),
    )
    return _back(run)
