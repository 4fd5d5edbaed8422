"""API for the trajectory player: a trajectory's steps after index N, so a page showing a
running trajectory appends new steps as they are recorded; step search across trajectories."""

from ninja import Router, Schema, Status

from trajectories.player import payloads, step_search

router = Router(tags=["player"])


class PlayerStepOut(Schema):
    index: int
    turn: int
    tool: str
    action: dict
    action_text: str
    model_text: str
    tool_output: str
    done: bool
    time: str
    image: str
    thumb: str
    original: str
    width: int | None
    height: int | None
    problem: str
    alt: str
    app: str


class StepsSinceOut(Schema):
    status: str
    ended_by: str
    ended_by_label: str
    final_answer: str
    running: bool
    steps: list[PlayerStepOut]


@router.get(
    "/trajectories/{trajectory_id}/steps",
    response=StepsSinceOut,
    url_name="player_steps_since",
    summary="Steps recorded after index `since` (for live players)",
)
def steps_since(request, trajectory_id: int, since: int = 0):
    return payloads.steps_since(request.user, trajectory_id, max(since, 0))


class StepHitOut(Schema):
    trajectory: int
    run: str
    task: str
    attempt: int
    step: int
    turn: int
    tool: str
    app: str
    action_text: str
    excerpt: str
    verdict: str
    player_url: str


class StepSearchOut(Schema):
    query: str
    words: list[str]
    filters: dict[str, str]
    notes: list[str]
    count: int
    capped: bool
    max_hits: int
    page: int
    pages: int
    per_page: int
    hits: list[StepHitOut]


@router.get(
    "/steps/search",
    response={200: StepSearchOut, 400: dict},
    url_name="step_search",
    tags=["runs"],
    summary="Steps whose model text, action, typed text or URL hold every word of q",
    description="Query parameters: q (up to 200 characters; its first 8 words, letters and digits only), run "
    "(slug), task (task id), app (slug), verdict (passed: every judged rubric item passed; failed: some item "
    "failed), failure_mode, page (20 hits a page). At most 1,000 hits are counted (capped says when more "
    "match). Only trajectories you may read; each hit's player_url opens the player at its step.",
)
def search_steps(request, q: str = "", run: str = "", task: str = "", app: str = "", verdict: str = "",
                 failure_mode: str = "", page: str = "1"):  # fmt: skip
    params = {"q": q, "run": run, "task": task, "app": app, "verdict": verdict, "failure_mode": failure_mode}
    found = step_search.search_steps(request.user, {**params, "page": page})
    if found.errors:
        return Status(400, {"detail": " ".join(found.errors)})
    return Status(200, found.as_dict())
