"""A recorded session judged as a whole and its intent statuses audited offline: the transcript (the
user's messages between the turns' steps, steps numbered across the session), the checklist judged over
it (the judge reads the user's later words where they were spoken; the verdicts land in session.json,
where the scoring reads Completeness), and the statuses re-derived by the same two-stage protocol with
their agreement with the live ones, per intent, per live status and overall (completed, inferred,
provided and a session that hit its turn limit)."""

import json
from pathlib import PurePosixPath

import pytest

from harness.agents import ScriptedAgent
from harness.agents.scripted import Plan
from harness.backends import FakeEnv
from harness.judge.cli import main
from harness.judge.core import Judge
from harness.judge.providers import make_provider
from harness.judge.sessions import INTENT_AUDIT_FILE, SESSION_JUDGE_FILE, agreement, judge_session, rederive_intents
from harness.judge.usersim import ModelUser, RuleUser
from harness.results import (
    SESSION_RECORD,
    BundleError,
    SessionFolderError,
    StepRecord,
    UserTurn,
    read_session_folder,
    read_task_dir,
)
from harness.results.layouts import KIND_MYPCBENCH, TaskFolder
from harness.run import LoopConfig
from harness.run.session import run_session
from harness.tasks.sessions import read_session_data, session_tasks
from leaderboard.scoring.sessions import read_session_record, session_scores
from tests.harness.test_session_runs import PROACTIVE_PLANS, SESSION_FILE, SESSION_ID
from tests.simulators import ProviderSimulator

SPEC = read_session_data(SESSION_FILE, "rides.json").sessions[0]


@pytest.fixture
def recorded_session(tmp_path):
    """The hand-built session of test_session_runs played and recorded: I1 completed at turn 1, I2
    inferred (asked in turn 1, answered opening turn 2), I3 provided (opening turn 3)."""
    env = FakeEnv(screen_size=(1280, 800))
    env.start()
    try:
        (task,) = session_tasks(read_session_data(SESSION_FILE, "rides.json")).tasks
        run_session(SPEC, task, env, ScriptedAgent(PROACTIVE_PLANS), RuleUser(), tmp_path,
                    LoopConfig(sleep_after=0.0, max_turns=10))  # fmt: skip
    finally:
        env.stop()
    return tmp_path / SESSION_ID


def test_a_session_reads_as_one_transcript_with_the_user_between_the_turns(recorded_session):
    transcript = read_session_folder(recorded_session)
    kinds = ["user" if isinstance(e, UserTurn) else e.action_text for e in transcript.entries]
    assert kinds == ["user", "pyautogui.write('XL ride, not a standard car')", "DONE",
                     "user", "pyautogui.write('tip 25 percent')", "DONE", "user", "DONE"]  # fmt: skip
    assert [(u.number, u.after_step) for u in transcript.user_turns] == [(1, 0), (2, 2), (3, 4)]
    assert transcript.user_turns[1].message == "Yes: Tip the driver 25 percent."
    assert [s.index for s in transcript.steps] == [1, 2, 3, 4, 5]  # numbered across the session
    assert all(isinstance(s, StepRecord) for s in transcript.steps)
    assert len({s.turn for s in transcript.steps}) == 5  # each turn's model turns kept apart
    assert transcript.request == "Book me a ride to the airport."
    assert transcript.final_answer == "Pickup set for the office at 4pm."


def test_the_judge_refuses_a_malformed_record_naming_every_bad_field_as_the_import_does(recorded_session, capsys):
    record = json.loads((recorded_session / SESSION_RECORD).read_text())
    record["intents"]["I2"] = "guessed"
    record["turns"][1]["user"] = ""
    (recorded_session / SESSION_RECORD).write_text(json.dumps(record))
    assert main(["session", str(recorded_session), "--provider", "anthropic", "--api-key", "k"]) == 1
    said = capsys.readouterr().err
    assert f"{recorded_session / SESSION_RECORD}: " in said
    assert "intents.I2: 'guessed' is not a status here (expected completed, inferred, provided)" in said
    assert "turns[1].user: missing or empty (expected the user's message that opened the turn)" in said
    with pytest.raises(SessionFolderError) as caught:
        read_session_folder(recorded_session)
    with pytest.raises(BundleError) as imported:  # the import's reader: one message
        read_task_dir(recorded_session, folder=TaskFolder(PurePosixPath("."), SESSION_ID, KIND_MYPCBENCH))
    assert str(caught.value) == str(imported.value)


def _verdicts(request):
    item = request.last_text
    if "Requirement R1" in item:
        return '{"reasoning": "Typed at step 1.", "cited_steps": [1], "verdict": "success"}'
    return '{"reasoning": "No tip was set.", "cited_steps": [3], "verdict": "failure"}'


@pytest.mark.slow  # the judge's provider SDK and screenshot encoding: several seconds on a loaded machine
def test_the_checklist_is_judged_over_the_whole_session(recorded_session):
    with ProviderSimulator(_verdicts) as sim:
        judge = Judge(make_provider("anthropic", None, api_key="k", base_url=sim.url), sleep=lambda s: None)
        checklist = judge_session(recorded_session, judge)
    assert sim.invalid == []
    assert checklist == {"R1": True, "R2": False}
    history = sim.requests[0].all_text
    # the user's later words stand where they were spoken, between turn 1's and turn 2's steps
    assert history.index("Step 2:") < history.index("The user then says: Yes: Tip the driver 25 percent.")
    assert history.index("The user then says: Yes: Tip the driver 25 percent.") < history.index("Step 3:")
    assert "The user then says: Oh, and Pickup from the office at 4pm." in history
    assert "User task (for context): Book me a ride to the airport." in history
    record = json.loads((recorded_session / SESSION_RECORD).read_text())
    assert record["checklist"] == {"R1": True, "R2": False}
    assert session_scores(read_session_record(record)).completeness == 0.5
    saved = json.loads((recorded_session / SESSION_JUDGE_FILE).read_text())
    assert [(i["id"], i["verdict"]) for i in saved["items"]] == [("R1", "success"), ("R2", "failure")]
    assert saved["judge"]["provider"] == "anthropic"


def test_the_statuses_re_derived_by_the_same_protocol_agree_with_the_live_ones(recorded_session):
    audit = rederive_intents(recorded_session, SPEC, RuleUser())
    assert audit["intents"] == {
        "I1": {"live": "completed", "offline": "completed", "agree": True},
        "I2": {"live": "inferred", "offline": "inferred", "agree": True},
        "I3": {"live": "provided", "offline": "provided", "agree": True},
    }
    assert audit["agreement"] == 1.0
    assert json.loads((recorded_session / INTENT_AUDIT_FILE).read_text()) == audit


def _says(completed=(), inferred=None, provided=None, message=""):
    return json.dumps({"completed": list(completed), "inferred": inferred, "provided": provided, "message": message})


@pytest.mark.slow  # two model calls through a provider SDK
def test_a_user_model_that_judges_otherwise_is_reported_per_intent(recorded_session):
    # Offline, the model finds turn 1's typing not enough for I1 (supplies it), and turn 2's work
    # satisfying I2 (completed, not inferred) while supplying I3: only I3 agrees.
    script = [_says(provided="I1", message="An XL, please."), _says(["I2"], provided="I3", message="From the office.")]
    with ProviderSimulator(script=script) as sim:
        user = ModelUser(make_provider("anthropic", "claude-haiku-4-5", api_key="k", base_url=sim.url))
        audit = rederive_intents(recorded_session, SPEC, user)
    assert sim.invalid == [] and len(sim.requests) == 2  # turn 3: nothing open, nothing asked
    assert {k: (v["live"], v["offline"]) for k, v in audit["intents"].items()} == {
        "I1": ("completed", "provided"),
        "I2": ("inferred", "completed"),
        "I3": ("provided", "provided"),
    }
    assert audit["agreement"] == pytest.approx(1 / 3)
    assert audit["user_simulator"]["model"] == "claude-haiku-4-5"
    total = agreement([audit, rederive_intents(recorded_session, SPEC, RuleUser())])
    assert total == {"intents": 6, "agreement": pytest.approx(4 / 6),
                     "by_live_status": {"completed": 0.5, "inferred": 0.5, "provided": 1.0}}  # fmt: skip


def test_a_session_at_its_turn_limit_keeps_its_open_intents_open_offline(tmp_path):
    env = FakeEnv(screen_size=(1280, 800))
    env.start()
    try:
        (task,) = session_tasks(read_session_data(SESSION_FILE, "rides.json")).tasks
        run_session(SPEC, task, env, ScriptedAgent({"*": Plan([], final_answer="Done.")}), RuleUser(), tmp_path,
                    LoopConfig(sleep_after=0.0, max_turns=10), max_user_turns=2)  # fmt: skip
    finally:
        env.stop()
    audit = rederive_intents(tmp_path / SESSION_ID, SPEC, RuleUser())
    assert {k: v["offline"] for k, v in audit["intents"].items()} == {"I1": "provided", "I2": "open", "I3": "open"}
    assert audit["agreement"] == 1.0


@pytest.mark.slow  # as above: a judge through its provider SDK
def test_the_command_lines_judge_and_audit_a_run_folder(recorded_session, tmp_path, capsys):
    (tmp_path / "rides.json").write_text(json.dumps(SESSION_FILE))
    assert main(["intents", str(tmp_path), "--sessions", str(tmp_path / "rides.json")]) == 0
    out = capsys.readouterr().out
    assert f"{SESSION_ID}: live/offline I1 completed/completed, I2 inferred/inferred, I3 provided/provided" in out
    assert (
        "1 session(s), 3 intents: agreement 1.00 (by live status: completed 1.00, inferred 1.00, provided 1.00)" in out
    )
    with ProviderSimulator(_verdicts) as sim:
        assert main(["session", str(tmp_path), "--provider", "anthropic", "--api-key", "k", "--base-url", sim.url]) == 0
    assert f"{SESSION_ID}: R1=yes R2=no (Completeness 1/2)" in capsys.readouterr().out
    assert main(["intents", str(tmp_path / "nowhere"), "--sessions", str(tmp_path / "rides.json")]) == 2
    assert "holds no session" in capsys.readouterr().err
