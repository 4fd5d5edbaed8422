"""Recorded sessions through the one ingest path: a session folder (session.json beside its turn folders)
becomes one trajectory whose steps run on across the turns, with the user's turns and every intent's
status stored; the same from a .zip and a .tar.gz; a malformed session is refused naming what is wrong;
and the run's Proactivity, Completeness and turns come out as worked by hand (tests/session_data.py)."""

import json
import shutil

import pytest

from leaderboard.scoring.session_runs import run_sessions
from tests.factories import make_suite, write_task_dir
from tests.session_data import LUNCH, RIDE, import_session_suite, write_two_sessions
from tests.trajectories.recording.test_import_archives import tar_folder, zip_folder
from trajectories.models import IntentStatus, Step, Trajectory, UserTurn
from trajectories.recording.import_notes import ImportResultsError
from trajectories.recording.import_results import import_results

pytestmark = pytest.mark.django_db


@pytest.fixture
def hand_session_suite(tmp_path):
    return import_session_suite(tmp_path)


def _check_ride(run):
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    steps = list(Step.objects.filter(trajectory=ride).order_by("index"))
    assert [s.index for s in steps] == [1, 2, 3, 4, 5]
    assert [s.info.get("user_turn") for s in steps] == [1, 1, 2, 2, 3]
    assert [s.action.get("type") for s in steps] == ["click", "done", "click", "done", "done"]
    assert len({s.turn for s in steps}) == 5  # model turns numbered on across user turns
    turns = list(UserTurn.objects.filter(trajectory=ride).values_list("number", "message", "after_step"))
    assert turns == [
        (1, "Book me a ride to the airport.", 0),
        (2, "Yes: Tip the driver 25 percent.", 2),
        (3, "Oh, and Pickup from the office at 4pm.", 4),
    ]
    statuses = set(IntentStatus.objects.filter(trajectory=ride).values_list("intent_id", "status", "turn", "step"))
    assert statuses == {("I1", "completed", 1, 2), ("I2", "inferred", 2, 2), ("I3", "provided", 3, 4)}
    assert ride.session["user_simulator"]["prompt_version"] == "mypc-user-rules-1"
    assert ride.final_answer == "Pickup set for the office at 4pm."
    lunch = Trajectory.objects.get(run=run, task__task_id=LUNCH)
    assert lunch.session["ended_by"] == "turn_limit"
    assert IntentStatus.objects.get(trajectory=lunch, intent_id="I2").status == "open"


def _check_figures(run):
    figures = run_sessions(run)
    assert figures is not None and figures.summary.sessions == 2
    assert figures.summary.proactivity.value == pytest.approx(1 / 3)  # (2/3 + 0) / 2
    assert figures.summary.completeness.value == pytest.approx(3 / 8)  # (1/2 + 1/4) / 2
    assert figures.summary.turns.value == pytest.approx(2.5)
    assert figures.summary.statuses == {"completed": 1, "inferred": 1, "provided": 2, "open": 1}
    assert figures.summary.turn_limit_sessions == 1
    assert figures.simulator_words() == "rules (prompt mypc-user-rules-1)"


def test_a_session_folder_imports_as_one_trajectory_with_its_turns_and_intents(hand_session_suite, tmp_path):
    folder = write_two_sessions(tmp_path / "results")
    summary = import_results(folder, "hand run", suite_slug=hand_session_suite.slug)
    assert summary.report.trajectories == 2 and summary.report.steps == 5 + 5
    _check_ride(summary.run)
    _check_figures(summary.run)


@pytest.mark.parametrize("pack", [zip_folder, tar_folder], ids=["zip", "tar.gz"])
def test_a_session_archive_imports_like_the_folder(hand_session_suite, tmp_path, pack):
    folder = write_two_sessions(tmp_path / "results")
    archive = pack(folder, tmp_path / ("hand.zip" if pack is zip_folder else "hand.tar.gz"))
    summary = import_results(archive, "hand archive", suite_slug=hand_session_suite.slug)
    assert summary.report.trajectories == 2
    _check_ride(summary.run)
    _check_figures(summary.run)


def test_a_judges_verdicts_over_the_session_override_the_carried_checklist(hand_session_suite, tmp_path):
    folder = write_two_sessions(tmp_path / "results")
    results = [
        {"rubric_id": "R1", "criterion": "An XL ride is booked", "weight": 1, "success": True, "score": 1.0,
         "reasoning": "Step 1 books the XL ride."},
        {"rubric_id": "R2", "criterion": "The tip is 25%", "weight": 1, "success": True, "score": 1.0,
         "reasoning": "Step 3 sets the tip."},
    ]  # fmt: skip
    (folder / RIDE / "osworld_full_traj_result.json").write_text(
        json.dumps({"score": 100, "passed": True, "model": "judge-x", "rubric_results": results})
    )
    summary = import_results(folder, "judged run", suite_slug=hand_session_suite.slug)
    figures = run_sessions(summary.run)
    # ride: 2/2 by the judge (the carried record said 1/2); lunch keeps its carried 1/4
    assert figures.summary.completeness.value == pytest.approx((1 + 1 / 4) / 2)


def _refusal(folder, suite) -> str:
    with pytest.raises(ImportResultsError) as caught:
        import_results(folder, "bad run", suite_slug=suite.slug)
    assert not Trajectory.objects.exists() and not UserTurn.objects.exists() and not IntentStatus.objects.exists()
    return str(caught.value)


def test_a_malformed_session_is_refused_naming_every_bad_field(hand_session_suite, tmp_path):
    folder = write_two_sessions(tmp_path / "results")
    record_path = folder / RIDE / "session.json"
    record = json.loads(record_path.read_text())
    record["intents"]["I2"] = {"status": "guessed", "turn": 2, "step": 2}
    record["intents"]["I3"]["status"] = "open"  # open only at the turn limit
    record["turns"][1]["user"] = ""
    record["checklist"]["R1"] = "yes"
    record_path.write_text(json.dumps(record))
    text = _refusal(folder, hand_session_suite)
    assert f"{RIDE}/session.json" in text
    assert "intents.I2: 'guessed' is not a status here (expected completed, inferred, provided)" in text
    assert (
        "intents.I3: 'open' is not a status here" in text
        and "open only when the session ended at its turn limit" in text
    )
    assert "turns[1].user: missing or empty" in text
    assert "checklist.R1: 'yes' is not a verdict (expected true, false or null)" in text


def test_a_session_whose_turn_folder_is_missing_or_whose_step_is_beyond_it_is_refused(hand_session_suite, tmp_path):
    folder = write_two_sessions(tmp_path / "results")
    shutil.rmtree(folder / RIDE / "turn_2")
    text = _refusal(folder, hand_session_suite)
    assert "turns: turns name folders without traj.jsonl: turn_2" in text

    folder = write_two_sessions(tmp_path / "again")
    record_path = folder / LUNCH / "session.json"
    record = json.loads(record_path.read_text())
    record["intents"]["I1"]["step"] = 40
    record_path.write_text(json.dumps(record))
    assert "intents.I1: step 40 but the session recorded 5 steps" in _refusal(folder, hand_session_suite)


def test_a_session_that_stopped_with_an_error_is_refused_with_its_reason(hand_session_suite, tmp_path):
    folder = write_two_sessions(tmp_path / "results")
    (folder / LUNCH / "session.json").unlink()
    (folder / LUNCH / "session_error.json").write_text(
        json.dumps({"task_id": LUNCH, "error": "user turn 2: the simulated user failed: 429"})
    )
    text = _refusal(folder, hand_session_suite)
    assert (
        "the session stopped with an error and has no session.json: user turn 2: the simulated user failed: 429" in text
    )


def test_single_turn_trajectories_store_no_session(tmp_path):
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "plain", "retrieval-f016")
    summary = import_results(tmp_path / "plain", "plain run")
    trajectory = Trajectory.objects.get(run=summary.run)
    assert trajectory.session == {} and not trajectory.user_turns.exists() and run_sessions(summary.run) is None


def test_a_turn_folder_the_record_does_not_name_is_left_out_with_a_warning(hand_session_suite, tmp_path):
    folder = write_two_sessions(tmp_path / "results")
    record_path = folder / RIDE / "session.json"
    record = json.loads(record_path.read_text())
    record["turns"] = record["turns"][:2]
    record["intents"]["I3"] = {"status": "provided", "turn": 2, "step": 4}
    record_path.write_text(json.dumps(record))
    summary = import_results(folder, "two turns", suite_slug=hand_session_suite.slug)
    assert any("turn folders its turns do not name were left out: turn_3" in w for w in summary.report.warnings)
    assert Trajectory.objects.get(run=summary.run, task__task_id=RIDE).n_steps == 4
