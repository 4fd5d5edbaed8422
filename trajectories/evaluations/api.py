"""API for live evaluation progress: the counts and trajectory rows a run page polls while our harness runs it."""

from ninja import Router, Schema

from leaderboard.catalog import selectors
from trajectories.evaluations import lifecycle

router = Router(tags=["evaluations"])


class TrajectoryRowOut(Schema):
    id: int
    task: str
    task_pk: int
    attempt: int
    world_variant: int  # 0: the canonical world
    status: str
    status_display: str
    ended_by: str  # "" while queued or running
    ended_by_display: str
    steps: int  # steps recorded so far
    judged: int  # judgments on current rubric items by the judge the run is scored by
    passed: int
    judge_errors: int
    judging: str  # "" (nothing to judge), waiting, judging, error, graded
    score: float | None  # the rubric score the leaderboard counts, once graded
    imported_score: float | None
    url: str
    player_url: str | None  # None while nothing is recorded
    note: str  # why it errored or was interrupted ("" otherwise)


class ProgressOut(Schema):
    run: str
    status: str
    status_display: str
    live: bool  # the page keeps polling: the run is queued or running, or a trajectory still runs
    cancellable: bool
    total: int
    queued: int
    running: int
    done: int
    errored: int
    interrupted: int
    judged: int  # trajectories graded (every current rubric item judged)
    steps: int
    trajectories: list[TrajectoryRowOut]


@router.get(
    "/runs/{slug}/progress",
    response=ProgressOut,
    url_name="run_progress",
    summary="A run's trajectories by state (queued, running, done, errored, interrupted, judged) and their rows",
)
def run_progress(request, slug: str):
    return lifecycle.progress(selectors.run_detail(request.user, slug))
