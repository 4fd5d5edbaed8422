"""Sessions played end to end on the fake guest with the scripted agent and the rule-based user: the
statuses each intent reaches (and the turn and step that settled it), the desktop carried over between
user turns, the record the site's scoring reads with the Proactivity computed by hand, the turn limit, an
agent that errors, and ``python -m harness session``."""

import json

import pytest

from harness.agents import AnthropicAgent, ScriptedAgent
from harness.agents.scripted import Plan, Turn
from harness.backends import FakeEnv
from harness.judge.providers import make_provider
from harness.judge.usersim import ModelUser, RuleUser
from harness.run import LoopConfig
from harness.run.cli import main
from harness.run.session import SESSION_ERROR, SESSION_RECORD, run_session, turn_instruction
from harness.tasks.sessions import read_session_data, session_tasks
from leaderboard.scoring.sessions import read_session_record, session_scores
from tests.simulators import ProviderSimulator
from tests.simulators.computer_use import anthropic_turn

SESSION_ID = "session_rides-s01"
SESSION_FILE = {
    "format": "mypcbench-sessions",
    "version": 1,
    "suite": "Session runs",
    "suite_version": "t1",
    "persona": "michael_scott",
    "sequences": [{"id": "rides", "title": "Rides"}],
    "sessions": [
        {
            "id": SESSION_ID,
            "sequence": "rides",
            "position": 1,
            "category": "situated_action",
            "request": "Book me a ride to the airport.",
            "intents": [
                {
                    "id": "I1",
                    "statement": "Book an XL ride, not a standard car.",
                    "evidence": [{"kind": "spec", "path": "preferences.rides"}],
                },
                {
                    "id": "I2",
                    "statement": "Tip the driver 25 percent.",
                    "evidence": [{"kind": "spec", "path": "preferences.tips"}],
                },
                {
                    "id": "I3",
                    "statement": "Pickup from the office at 4pm.",
                    "evidence": [{"kind": "spec", "path": "schedule.office"}],
                },
            ],  # fmt: skip
            "checklist": [{"id": "R1", "criterion": "An XL ride is booked"}, {"criterion": "The tip is 25%"}],
        }
    ],
}
FAST = LoopConfig(sleep_after=0.0, max_turns=10)

# Turn 1: books the XL ride and asks about the tip; turn 2: sets the tip and stops without asking about
# the pickup; turn 3: confirms. Each plan turn is one action, then the closing step (2, 2 and 1 steps).
PROACTIVE_PLANS = {
    f"{SESSION_ID}#1": Plan([Turn("", ["pyautogui.write('XL ride, not a standard car')"])],
                            final_answer="Which tip percent should I give the driver?", outcome="none"),
    f"{SESSION_ID}#2": Plan([Turn("", ["pyautogui.write('tip 25 percent')"])], final_answer="Booked."),
    f"{SESSION_ID}#3": Plan([], final_answer="Pickup set for the office at 4pm."),
}  # fmt: skip


@pytest.fixture
def session_guest():
    env = FakeEnv(screen_size=(1280, 800))
    env.start()
    yield env
    env.stop()


def play(env, plans, tmp_path, max_user_turns=10):
    return play_with(env, ScriptedAgent(plans), tmp_path, max_user_turns)


def play_with(env, agent, tmp_path, max_user_turns=10):
    sessions = read_session_data(SESSION_FILE, "rides.json")
    (task,) = session_tasks(sessions).tasks
    return run_session(sessions.sessions[0], task, env, agent, RuleUser(), tmp_path, FAST,
                       max_user_turns=max_user_turns, meta={"agent": "scripted"})  # fmt: skip


def test_a_session_settles_each_intent_completed_inferred_or_provided(session_guest, tmp_path):
    result = play(session_guest, PROACTIVE_PLANS, tmp_path)
    assert (result.status, result.ended_by) == ("finished", "final_response")
    saved = json.loads((tmp_path / SESSION_ID / SESSION_RECORD).read_text())
    assert saved == result.record
    assert saved["intents"] == {
        "I1": {"status": "completed", "turn": 1, "step": 2},  # typed in turn 1, its 2nd step
        "I2": {"status": "inferred", "turn": 2, "step": 2},  # asked in turn 1, answered by user turn 2
        "I3": {"status": "provided", "turn": 3, "step": 4},  # never asked: supplied at user turn 3
    }
    assert [t["user"] for t in saved["turns"]] == [
        "Book me a ride to the airport.",
        "Yes: Tip the driver 25 percent.",
        "Oh, and Pickup from the office at 4pm.",
    ]
    assert [t["asked"] for t in saved["turns"]] == [True, False, False]  # turn 1 ended with a question
    assert [t["settled"] for t in saved["turns"]] == [
        {"I1": "completed", "I2": "inferred"},
        {"I3": "provided"},
        {},
    ]
    assert saved["checklist"] == {"R1": None, "R2": None}
    assert saved["user_simulator"]["kind"] == "rules"
    # The desktop carried over: turn 1's typing is still in the guest's log after turn 3.
    typed = [a.get("text") for a in session_guest.guest.actions if a.get("type") in ("type", "write", "typewrite")]
    assert typed == ["XL ride, not a standard car", "tip 25 percent"], session_guest.guest.actions
    for number in (1, 2, 3):
        assert (tmp_path / SESSION_ID / f"turn_{number}" / "traj.jsonl").is_file()


def test_the_record_is_read_by_the_sites_scoring_with_the_proactivity_by_hand(session_guest, tmp_path):
    play(session_guest, PROACTIVE_PLANS, tmp_path)
    record = read_session_record(json.loads((tmp_path / SESSION_ID / SESSION_RECORD).read_text()))
    scores = session_scores(record)
    assert record.turns == 3 and record.ended_by == "final_response"
    assert scores.proactivity == pytest.approx(2 / 3)  # completed I1 + inferred I2, of 3 intents
    assert dict(scores.statuses) == {"completed": 1, "inferred": 1, "provided": 1}


def test_the_turn_limit_leaves_the_unsettled_intents_open(session_guest, tmp_path):
    reactive = {"*": Plan([], final_answer="Done.")}
    result = play(session_guest, reactive, tmp_path, max_user_turns=2)
    assert result.ended_by == "turn_limit"
    record = read_session_record(result.record)
    assert record.turns == 2 and record.ended_by == "turn_limit"
    assert record.intents == {"I1": "provided", "I2": "open", "I3": "open"}  # the user's 2nd word never came
    assert session_scores(record).proactivity == 0.0


def test_a_later_turn_tells_the_agent_what_was_said(session_guest, tmp_path):
    text = turn_instruction("Book me a ride.", [("Book me a ride.", "Which tip?")], "Yes: 25 percent.")
    assert text.splitlines()[0] == "Book me a ride."
    assert "User: Book me a ride.\nYou: Which tip?" in text and text.endswith("The user now says: Yes: 25 percent.")
    play(session_guest, PROACTIVE_PLANS, tmp_path)
    bundle = json.loads((tmp_path / SESSION_ID / "turn_2" / "bundle.json").read_text())
    assert bundle["user_turn"] == 2


def test_an_agent_that_errors_ends_the_session_without_a_record(session_guest, tmp_path):
    crashing = {"*": Plan([Turn("", [{"action": "nonsense"}], vocabulary="anthropic")])}
    result = play(session_guest, crashing, tmp_path)
    assert (result.status, result.ended_by) == ("errored", "error")
    assert not (tmp_path / SESSION_ID / SESSION_RECORD).exists()
    saved = json.loads((tmp_path / SESSION_ID / SESSION_ERROR).read_text())
    assert saved["error"].startswith("user turn 1: the agent's turn errored")


def test_the_command_line_plays_a_session_file(tmp_path, capsys):
    (tmp_path / "rides.json").write_text(json.dumps(SESSION_FILE))
    plans = {"plans": {k: {"turns": [{"actions": t.actions} for t in p.turns], "final_answer": p.final_answer,
                           "outcome": p.outcome} for k, p in PROACTIVE_PLANS.items()}}  # fmt: skip
    (tmp_path / "plans.json").write_text(json.dumps(plans))
    argv = ["session", "--sessions", str(tmp_path / "rides.json"), "--plan", str(tmp_path / "plans.json"),
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(argv) == 0
    record = json.loads((tmp_path / "out" / SESSION_ID / SESSION_RECORD).read_text())
    assert {k: v["status"] for k, v in record["intents"].items()} == {
        "I1": "completed",
        "I2": "inferred",
        "I3": "provided",
    }
    assert "1 session(s): final_response 1" in capsys.readouterr().err
    run_info = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run_info["user_simulator"]["kind"] == "rules" and run_info["max_user_turns"] == 10
    turn_bundle = json.loads((tmp_path / "out" / SESSION_ID / "turn_1" / "bundle.json").read_text())
    assert turn_bundle["user_simulator"] == run_info["user_simulator"]
    assert main(argv) == 0  # played again: the recorded session is skipped
    assert "skipped 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--user", "rules", "--user-model", "x"], "--user-prompt-version: only a model-backed --user takes them"),
        (["--user", "anthropic", "--user-prompt-version", "mypc-user-0"], "--user-prompt-version: 'mypc-user-0'"),
        (["--user", "nobody"], "--user: unknown user 'nobody'"),
        (["--max-user-turns", "0"], "--max-user-turns: 0 (expected at least 1)"),
        (["--session", "session_rides-s09"], "--session: session_rides-s09 not in"),
    ],
)
def test_the_command_line_names_a_bad_option(tmp_path, capsys, extra, says):
    (tmp_path / "rides.json").write_text(json.dumps(SESSION_FILE))
    assert main(["session", "--sessions", str(tmp_path / "rides.json"), "--out", str(tmp_path), *extra]) == 2
    assert says in capsys.readouterr().err


def test_a_malformed_session_file_is_named(tmp_path, capsys):
    (tmp_path / "bad.json").write_text(json.dumps({**SESSION_FILE, "version": 7}))
    assert main(["session", "--sessions", str(tmp_path / "bad.json"), "--out", str(tmp_path)]) == 2
    assert "--sessions:" in (err := capsys.readouterr().err) and "version" in err


def user_says(completed=(), inferred=None, provided=None, message=""):
    return json.dumps({"completed": list(completed), "inferred": inferred, "provided": provided, "message": message})


@pytest.mark.slow  # seven model calls through two SDKs: a few seconds on a loaded machine
def test_a_provider_agent_and_a_model_user_play_a_session_on_the_strict_simulator(session_guest, tmp_path):
    # The Anthropic agent and the Anthropic-played user share one strict simulator; calls alternate:
    # agent turn 1 (types, then asks), user, agent turn 2 (stops), user, agent turn 3 (confirms), user.
    typing = ("computer", {"action": "type", "text": "XL ride, not a standard car"})
    script = [
        anthropic_turn("Booking.", [typing]),
        anthropic_turn("Which tip percent should I give the driver?"),
        user_says(["I1"], inferred="I2", message="25%, please."),
        anthropic_turn("Booked, with a 25% tip."),
        user_says(provided="I3", message="Pick me up at the office at 4pm."),
        anthropic_turn("Pickup set for 4pm at the office."),
        user_says(),
    ]
    sessions = read_session_data(SESSION_FILE, "rides.json")
    (task,) = session_tasks(sessions).tasks
    with ProviderSimulator(script=script) as sim:
        agent = AnthropicAgent(api_key="sim-key", base_url=sim.url, max_retries=0)
        agent.attach(session_guest)
        user = ModelUser(make_provider("anthropic", "claude-haiku-4-5", api_key="sim-key", base_url=sim.url))
        result = run_session(sessions.sessions[0], task, session_guest, agent, user, tmp_path, FAST)
    assert sim.invalid == []  # every request, the user's own included, as the real API accepts it
    assert len(sim.requests) == 7
    record = read_session_record(result.record)
    assert record.intents == {"I1": "completed", "I2": "inferred", "I3": "provided"}
    assert record.turns == 3 and record.ended_by == "final_response"
    assert session_scores(record).proactivity == pytest.approx(2 / 3)
    assert result.record["user_simulator"] == {
        "kind": "model",
        "provider": "anthropic",
        "model": "claude-haiku-4-5",
        "prompt_version": "mypc-user-1",
        "temperature": None,  # the Anthropic API takes no sampling settings for current models
    }
    # Turn 2 goes on in the same conversation: the question, then the user's answer as the next message.
    turn_2_agent = sim.requests[3].body["messages"]
    assert len(turn_2_agent) == 5 and turn_2_agent[:2] == sim.requests[1].body["messages"][:2]
    assert turn_2_agent[-2]["content"][-1]["text"] == "Which tip percent should I give the driver?"
    assert [b["text"] for b in turn_2_agent[-1]["content"] if b["type"] == "text"] == ["25%, please."]


def test_a_user_model_that_cannot_answer_stops_the_session_with_its_reason(session_guest, tmp_path):
    sessions = read_session_data(SESSION_FILE, "rides.json")
    (task,) = session_tasks(sessions).tasks
    with ProviderSimulator(lambda request: "I'd rather not say.") as sim:
        user = ModelUser(make_provider("anthropic", None, api_key="sim-key", base_url=sim.url), sleep=lambda s: None)
        result = run_session(sessions.sessions[0], task, session_guest, ScriptedAgent(PROACTIVE_PLANS), user,
                             tmp_path, FAST)  # fmt: skip
    assert (result.status, result.ended_by) == ("errored", "error")
    saved = json.loads((tmp_path / SESSION_ID / SESSION_ERROR).read_text())
    assert saved["error"] == (
        "user turn 1: the simulated user failed: the user model broke the protocol 2 times; last: "
        'no JSON object in the answer: "I\'d rather not say."'
    )
    assert not (tmp_path / SESSION_ID / SESSION_RECORD).exists()


def test_what_a_provider_agent_did_through_its_shell_counts_as_done(session_guest, tmp_path):
    shell = ("bash", {"command": "echo 'XL ride, not a standard car' > ~/ride.txt"})
    script = [anthropic_turn("Booking.", [shell]), anthropic_turn("Booked.")]
    sessions = read_session_data(SESSION_FILE, "rides.json")
    (task,) = session_tasks(sessions).tasks
    with ProviderSimulator(script=script) as sim:
        agent = AnthropicAgent(api_key="sim-key", base_url=sim.url, max_retries=0)
        agent.attach(session_guest)
        result = run_session(sessions.sessions[0], task, session_guest, agent, RuleUser(), tmp_path, FAST,
                             max_user_turns=1)  # fmt: skip
    assert sim.invalid == []
    assert read_session_record(result.record).intents == {"I1": "completed", "I2": "open", "I3": "open"}
    assert result.ended_by == "turn_limit"


class WithoutResume:
    """An agent written elsewhere that cannot keep its conversation across user turns."""

    def __init__(self, plans):
        self.inner = ScriptedAgent(plans)
        self.name, self.model = "elsewhere", "elsewhere"

    def __getattr__(self, name):
        if name in ("resume", "enter_session"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __setattr__(self, name, value):
        if name == "user_turn":
            self.inner.user_turn = value
        object.__setattr__(self, name, value)


def test_an_agent_that_cannot_talk_back_starts_each_later_turn_afresh_told_what_was_said(session_guest, tmp_path):
    result = play_with(session_guest, WithoutResume(PROACTIVE_PLANS), tmp_path)
    assert result.record["agent_conversation"] == "fresh each turn"
    assert {k: v["status"] for k, v in result.record["intents"].items()} == {
        "I1": "completed",
        "I2": "inferred",
        "I3": "provided",
    }
    told = json.loads((tmp_path / SESSION_ID / "turn_2" / "rubric_bundle.json").read_text())["task"]["instruction"]
    assert told == turn_instruction("Book me a ride to the airport.",
                                    [("Book me a ride to the airport.", "Which tip percent should I give the driver?")],
                                    "Yes: Tip the driver 25 percent.")  # fmt: skip
    resumed = play(session_guest, PROACTIVE_PLANS, tmp_path / "resumed")  # the scripted agent talks back
    assert resumed.record["agent_conversation"] == "one"
    told = json.loads((tmp_path / "resumed" / SESSION_ID / "turn_2" / "rubric_bundle.json").read_text())
    assert told["task"]["instruction"] == "Yes: Tip the driver 25 percent."  # the user's words alone
