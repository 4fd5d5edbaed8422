"""Thin views for the trajectory player and the side-by-side comparison of two trajectories."""

from django.http import HttpResponseBadRequest
from django.shortcuts import render

from trajectories.player import payloads as player
from trajectories.recording import selectors


def trajectory_player(request, pk):
    trajectory = selectors.trajectory_detail(request.user, pk)
    payload = player.player_payload(trajectory)
    trajectory.task.instruction_display = trajectory.task.instruction.strip()
    return render(
        request,
        "trajectories/player.html",
        {"payload": payload, "trajectory": trajectory, "run": trajectory.run, "task": trajectory.task},
    )


def trajectory_compare(request):
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    if not (a.isdigit() and b.isdigit()):
        return HttpResponseBadRequest(
            "compare needs two trajectory ids as ?a=<id>&b=<id> (whole numbers); "
            f"got a={a[:20]!r}, b={b[:20]!r}".encode(),
            content_type="text/plain; charset=utf-8",
        )
    try:
        payload = player.compare_payload(request.user, int(a), int(b))
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc).encode(), content_type="text/plain; charset=utf-8")
    task = payload.pop("task")
    return render(request, "trajectories/compare.html", {"payload": payload, "task": task})
