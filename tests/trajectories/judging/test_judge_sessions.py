"""Our judge over a whole session: the transcript it reads of a stored session has the user's later turns
between the steps they came after (inside the data block, like everything the trajectory holds), so a
checklist item is judged on the whole conversation; a single-turn trajectory's transcript is unchanged."""

import pytest

from harness.judge.prompt import BEGIN, END, build_prefix
from tests.session_data import RIDE, import_hand_run
from trajectories.models import Trajectory
from trajectories.recording.failure_signals import trajectory_for_judge

pytestmark = pytest.mark.django_db


def test_the_judges_transcript_of_a_session_has_the_user_turns_where_they_were_said(tmp_path):
    run = import_hand_run(tmp_path)
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    seen = trajectory_for_judge(ride)
    assert seen.user_turns == [
        (0, "Book me a ride to the airport."),
        (2, "Yes: Tip the driver 25 percent."),
        (4, "Oh, and Pickup from the office at 4pm."),
    ]
    text = build_prefix(seen, max_images=-1).data_text
    assert "User task (for context): Book me a ride to the airport." in text
    block = text.split(BEGIN)[1].split(END)[0]
    lines = [line for line in block.splitlines() if line.startswith(("Step ", "The user "))]
    assert lines == [
        "Step 1:",
        "Step 2:",
        "The user then says: Yes: Tip the driver 25 percent.",
        "Step 3:",
        "Step 4:",
        "The user then says: Oh, and Pickup from the office at 4pm.",
        "Step 5:",
    ]


def test_a_single_turn_transcript_has_no_user_lines():
    from harness.judge.prompt import TrajectoryForJudge, action_history
    from harness.results import StepRecord

    steps = [StepRecord(index=1, turn=1, tool="computer", action={"type": "click"}, action_text="click(1, 2)")]
    assert action_history(steps) == "Step 1:\n  Action (computer): click(1, 2)"
    assert "User (" not in build_prefix(TrajectoryForJudge("k", "Do it.", steps), max_images=-1).data_text
