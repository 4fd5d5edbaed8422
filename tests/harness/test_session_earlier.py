"""Earlier sessions and the ablation without them: a session that builds on an earlier one is told its
conversation and continues on the desktop it left (so a preference stated there is applied unasked and
counts as completed); with the earlier sessions withheld it gets the request alone on a reset guest (the
same preference has to be supplied again); the setting is recorded in session.json and run.json, and a
session whose earlier session has no record is not played but named."""

import json

import pytest

from harness.agents.scripted import Plan, ScriptedAgent, Turn
from harness.backends import FakeEnv
from harness.judge.usersim import RuleUser
from harness.run import LoopConfig
from harness.run.cli import main
from harness.run.session import GIVEN, SESSION_RECORD, WITHHELD, play_sessions
from harness.tasks.sessions import read_session_data, session_tasks
from leaderboard.scoring.sessions import read_session_record, session_scores

FIRST, SECOND = "session_rides-s01", "session_rides-s02"
XL = "Book an XL ride, not a standard car."
SEQUENCE_FILE = {
    "format": "mypcbench-sessions",
    "version": 1,
    "suite": "Earlier sessions",
    "suite_version": "t1",
    "persona": "michael_scott",
    "sequences": [{"id": "rides", "title": "Rides"}],
    "sessions": [
        {"id": FIRST, "sequence": "rides", "position": 1, "category": "situated_action",
         "request": "Book me a ride to the airport.",
         "intents": [{"id": "I1", "statement": XL, "evidence": [{"kind": "spec", "path": "preferences.rides"}]}],
         "checklist": [{"criterion": "An XL ride is booked"}]},
        {"id": SECOND, "sequence": "rides", "position": 2, "category": "situated_action",
         "request": "Book me a ride home from the airport.", "depends_on": [FIRST],
         "intents": [{"id": "I1", "statement": XL,
                      "evidence": [{"kind": "session", "session": FIRST, "intent": "I1"}]}],
         "checklist": [{"criterion": "An XL ride is booked"}]},
    ],
}  # fmt: skip
PLANS = {
    f"{FIRST}#1": Plan([Turn("", ["pyautogui.write('airport ride')"])], final_answer="Booked a ride."),
    f"{FIRST}#2": Plan([Turn("", ["pyautogui.write('XL ride, not a standard car')"])], final_answer="Now an XL."),
    "*": Plan([Turn("", ["pyautogui.write('ride home')"])], final_answer="Booked a ride."),
}  # fmt: skip


class RemembersWhatItWasTold(ScriptedAgent):
    """Applies a preference it finds in what it is told: an XL ride when its instruction mentions one."""

    def predict(self, instruction, observation):
        if self.turn == 0 and "XL ride" in instruction:
            self.plan = Plan([Turn("", ["pyautogui.write('XL ride, not a standard car')"])], final_answer="Booked.")
        return super().predict(instruction, observation)


@pytest.fixture
def sequence_guest():
    env = FakeEnv(screen_size=(1280, 800))
    env.start()
    yield env
    env.stop()


def play(env, out, setting, only=None):
    sessions = read_session_data(SEQUENCE_FILE, "rides.json")
    tasks = {t.id: t for t in session_tasks(sessions).tasks}
    chosen = [s for s in sessions.sessions if only is None or s.id in only]
    errors: list[str] = []
    config = LoopConfig(sleep_after=0.0, max_turns=10)
    agent = RemembersWhatItWasTold(PLANS)
    counts = play_sessions(chosen, tasks, env, agent, RuleUser(), out, config, setting=setting, report=errors.append)
    return counts, errors


def typed(env) -> list[str]:
    return [a.get("text") for a in env.guest.actions if a.get("type") in ("type", "write", "typewrite")]


def test_with_the_earlier_session_given_its_preference_is_applied_unasked(sequence_guest, tmp_path):
    counts, errors = play(sequence_guest, tmp_path, GIVEN)
    assert (counts, errors) == ({"final_response": 2}, [])
    first = json.loads((tmp_path / FIRST / SESSION_RECORD).read_text())
    second = json.loads((tmp_path / SECOND / SESSION_RECORD).read_text())
    assert first["intents"]["I1"]["status"] == "provided"  # stated by the user in session 1
    assert second["intents"]["I1"]["status"] == "completed"  # applied unasked in session 2
    assert second["earlier_sessions"] == {"setting": "given", "depends_on": [FIRST], "context": [FIRST],
                                          "world": f"carried over from {FIRST}"}  # fmt: skip
    told = json.loads((tmp_path / SECOND / "turn_1" / "rubric_bundle.json").read_text())["task"]["instruction"]
    assert f"Session {FIRST}:" in told and "User: Oh, and Book an XL ride" in told
    assert told.endswith("Today's request: Book me a ride home from the airport.")
    # the desktop session 1 left is still there: its typing, then session 2's
    assert typed(sequence_guest) == ["airport ride", "XL ride, not a standard car", "XL ride, not a standard car"]
    assert session_scores(read_session_record(second)).proactivity == 1.0


def test_without_the_earlier_sessions_the_preference_must_be_supplied_again(sequence_guest, tmp_path):
    counts, _ = play(sequence_guest, tmp_path, WITHHELD)
    assert counts == {"final_response": 2}
    second = json.loads((tmp_path / SECOND / SESSION_RECORD).read_text())
    assert second["intents"]["I1"]["status"] == "provided"
    assert second["earlier_sessions"] == {"setting": "withheld", "depends_on": [FIRST], "context": [],
                                          "world": "reset"}  # fmt: skip
    told = json.loads((tmp_path / SECOND / "turn_1" / "rubric_bundle.json").read_text())["task"]["instruction"]
    assert told == "Book me a ride home from the airport."
    assert typed(sequence_guest)[0] == "ride home"  # the guest was reset before session 2
    bundle = json.loads((tmp_path / SECOND / "turn_1" / "bundle.json").read_text())
    assert bundle["earlier_sessions"] == "withheld"
    assert session_scores(read_session_record(second)).proactivity == 0.0


def test_a_session_whose_earlier_session_has_no_record_is_named_not_played(sequence_guest, tmp_path):
    counts, errors = play(sequence_guest, tmp_path, GIVEN, only={SECOND})
    assert counts == {"errored": 1}
    assert errors == [f"{SECOND}: it builds on {FIRST}, which has no record in {tmp_path}: play it first (or run "
                      "the ablation without the earlier sessions)"]  # fmt: skip
    assert not (tmp_path / SECOND).exists()
    counts, errors = play(sequence_guest, tmp_path, WITHHELD, only={SECOND})  # the ablation needs none
    assert (counts, errors) == ({"final_response": 1}, [])


def test_the_command_line_records_the_setting_in_run_json(tmp_path, capsys):
    (tmp_path / "rides.json").write_text(json.dumps(SEQUENCE_FILE))
    base = ["session", "--sessions", str(tmp_path / "rides.json")]
    assert main([*base, "--out", str(tmp_path / "given")]) == 0
    assert main([*base, "--out", str(tmp_path / "ablation"), "--without-earlier-sessions"]) == 0
    runs = {name: json.loads((tmp_path / name / "run.json").read_text()) for name in ("given", "ablation")}
    assert (runs["given"]["earlier_sessions"], runs["ablation"]["earlier_sessions"]) == ("given", "withheld")
    record = json.loads((tmp_path / "ablation" / SECOND / SESSION_RECORD).read_text())
    assert record["earlier_sessions"]["setting"] == "withheld"
    bundle = json.loads((tmp_path / "ablation" / SECOND / "turn_1" / "bundle.json").read_text())
    assert bundle["earlier_sessions"] == "withheld"
