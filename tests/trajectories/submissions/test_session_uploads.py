"""A session archive uploaded from outside: validated and stored through the same path as any upload,
its sessions kept as trajectories with their user turns and intent statuses (shown in the player); a
malformed session is refused with a report naming the file and the field."""

import json

import pytest
from django.urls import reverse

from tests.html_text import visible_text
from tests.session_data import LUNCH, RIDE, import_session_suite, write_two_sessions
from tests.submission_data import folder_entries, upload, zip_bytes
from trajectories.models import IntentStatus, Trajectory, UserTurn
from trajectories.submissions.uploads import submit_archive
from trajectories.submissions.validation import SubmissionRejected

pytestmark = pytest.mark.django_db


def _metadata(suite) -> dict:
    return {"suite": suite.slug, "model": "Claude Opus 4.6", "agent": "claude-cua", "turn_budget": 50}


def test_an_uploaded_session_archive_is_stored_with_its_turns_and_intents(author, tmp_path, staff_client):
    suite = import_session_suite(tmp_path)
    data = zip_bytes(folder_entries(write_two_sessions(tmp_path / "out")))
    result = submit_archive(author, upload(data, "sessions.zip"), _metadata(suite))
    ride = Trajectory.objects.get(run=result.submission.run, task__task_id=RIDE)
    assert list(UserTurn.objects.filter(trajectory=ride).values_list("number", "after_step")) == [
        (1, 0),
        (2, 2),
        (3, 4),
    ]
    assert dict(IntentStatus.objects.filter(trajectory=ride).values_list("intent_id", "status")) == {
        "I1": "completed",
        "I2": "inferred",
        "I3": "provided",
    }
    text = visible_text(staff_client.get(reverse("trajectories:trajectory_player", args=[ride.pk])))
    assert "U2 Yes: Tip the driver 25 percent." in text and "I3 Provided Pickup from the office at 4pm." in text


def test_an_uploaded_malformed_session_is_refused_naming_the_file_and_field(author, tmp_path):
    suite = import_session_suite(tmp_path)
    folder = write_two_sessions(tmp_path / "out")
    record_path = folder / LUNCH / "session.json"
    record = json.loads(record_path.read_text())
    record["ended_by"] = "gave_up"
    record["turns"] = record["turns"][:1]  # the user's second turn is left out; its intent still names turn 2
    record_path.write_text(json.dumps(record))
    data = zip_bytes(folder_entries(folder))
    with pytest.raises(SubmissionRejected) as caught:
        submit_archive(author, upload(data, "sessions.zip"), _metadata(suite))
    (problem,) = [p for p in caught.value.report if p.level == "error"]
    assert problem.file.endswith(f"{LUNCH}/session.json")
    assert "ended_by: 'gave_up' is not allowed (expected final_response or turn_limit)" in problem.problem
    assert "intents.I1.turn: 2 but the session has 1 user turns" in problem.problem
    assert not Trajectory.objects.exists()
