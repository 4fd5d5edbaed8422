"""Judge reliability page of a run: flips on re-judging, agreement with state checks and human labels."""

from django.shortcuts import get_object_or_404, render

from leaderboard.selectors import visible_runs
from trajectories.reliability import run_reliability


def run_reliability_page(request, slug):
    run = get_object_or_404(visible_runs(request.user).select_related("model", "judge_config"), slug=slug)
    try:
        judge_id = int(request.GET.get("judge", ""))
    except ValueError:
        judge_id = None
    return render(request, "trajectories/reliability.html", {"run": run, "report": run_reliability(run, judge_id)})
