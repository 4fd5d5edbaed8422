"""API for live evaluation progress: the counts a run page polls while our harness runs it."""

from ninja import Router, Schema

from leaderboard import selectors
from trajectories import evaluations

router = Router(tags=["evaluations"])


class ProgressOut(Schema):
    run: str
    status: str
    status_display: str
    live: bool
    total: int
    queued: int
    running: int
    done: int
    errored: int
    interrupted: int
    judged: int
    steps: int


@router.get(
    "/runs/{slug}/progress",
    response=ProgressOut,
    url_name="run_progress",
    summary="Trajectories of a run by state (queued, running, done, errored, interrupted, judged)",
)
def run_progress(request, slug: str):
    return evaluations.progress(selectors.run_detail(request.user, slug))
