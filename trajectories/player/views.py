"""Thin views for the trajectory player, the side-by-side comparison of two trajectories and step search."""

from django.shortcuts import render

from leaderboard.scoring.one_trajectory import trajectory_page_version, trajectory_score
from mypcbench_site.page_cache import anonymous_page_cache
from trajectories.models import FailureMode
from trajectories.player import payloads, session_panel, step_search
from trajectories.recording import selectors


# keyed on this trajectory's own rows: judgments of others (a run being judged) leave the page cached
@anonymous_page_cache("player-page", page_version=trajectory_page_version)
def trajectory_player(request, version, pk):
    trajectory = selectors.trajectory_detail(request.user, pk)
    payload = payloads.player_payload(trajectory)
    session = session_panel.session_panel(trajectory, request.user)
    if session and session["hidden"]:
        session_panel.hide_checklist(payload)
    trajectory.task.instruction_display = trajectory.task.instruction.strip()  # type: ignore[attr-defined]  # for the template
    return render(
        request,
        "trajectories/player.html",
        {
            "payload": payload,
            "trajectory": trajectory,
            "run": trajectory.run,
            "task": trajectory.task,
            "score": trajectory_score(trajectory),  # its own score only: rebuilt often while a run is judged
            "session": session,
        },
    )


def _compare_help(request, problem: str = "", status: int = 200):
    """How to compare two trajectories, with the reason the last attempt did not work (if any)."""
    response = render(
        request,
        "trajectories/compare_help.html",
        {"problem": problem, "a": request.GET.get("a", "")[:20], "b": request.GET.get("b", "")[:20]},
        status=status,
    )
    # our own page already: the error-page middleware leaves it alone (a mark it reads, not an HttpResponse field)
    response.friendly = True  # type: ignore[attr-defined]
    return response


def trajectory_compare(request):
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    if not a and not b:
        return _compare_help(request)
    if not (a.isdigit() and b.isdigit()):
        return _compare_help(
            request,
            f"compare needs two trajectory ids as ?a=<id>&b=<id> (whole numbers); got a={a[:20]!r}, b={b[:20]!r}",
            status=400,
        )
    try:
        payload = payloads.compare_payload(request.user, int(a), int(b))
    except ValueError as exc:
        return _compare_help(request, str(exc), status=400)
    task = payload.pop("task")
    if session_panel.checklist_hidden(task, request.user):
        session_panel.hide_checklist(payload["a"])
        session_panel.hide_checklist(payload["b"])
    return render(request, "trajectories/compare.html", {"payload": payload, "task": task})


def step_search_page(request):
    """/search/steps/: steps of readable trajectories holding the words of ?q=, narrowed by ?run=, ?task=,
    ?app=, ?verdict= and ?failure_mode=, a ?page= at a time; bad input answers 400 with the reason."""
    result = step_search.search_steps(request.user, request.GET)
    context = {
        "result": result,
        "verdicts": step_search.VERDICTS,
        "failure_modes": FailureMode.choices,
        "max_hits": step_search.MAX_HITS,
        "max_chars": step_search.MAX_QUERY_CHARS,
    }
    return render(request, "trajectories/step_search.html", context, status=400 if result.errors else 200)
