"""API for the trajectory player: a trajectory's steps after index N, so a page showing a
running trajectory appends new steps as they are recorded."""

from ninja import Router, Schema

from trajectories.player import payloads

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
