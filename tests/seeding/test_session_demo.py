"""The two scripted demo agents on Michael's sessions (seeding/session_demo.py): their plans (the proactive
one acts on what the profile and earlier sessions say and asks one focused question; the reactive one
does only the request), the committed recordings (seeding/demo_sessions) against a fresh replay, and the
gap they show: the same Completeness, very different Proactivity and turns."""

import json
import math

import pytest

from harness.agents import ScriptedAgent
from harness.backends import FakeEnv
from harness.judge.usersim import RuleUser
from harness.run import LoopConfig
from harness.run.session import SESSION_RECORD, run_session
from harness.tasks.sessions import load_sessions, session_tasks
from leaderboard.scoring.sessions import read_session_record, run_summary
from seeding import session_demo

DEMO = session_demo.SESSIONS_FILE.parent.parent / "demo_sessions"
SESSIONS = load_sessions(session_demo.SESSIONS_FILE)
BY_ID = {s.id: s for s in SESSIONS.sessions}


def records(kind: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((DEMO / kind).glob(f"*/{SESSION_RECORD}"))]


def test_the_proactive_plan_acts_on_what_michael_told_before_and_asks_about_the_rest():
    session = BY_ID["session_dundies-s01"]
    known = [i for i in session.intents if {e.kind for e in i.evidence} & {"spec", "session"}]
    unknown = [i for i in session.intents if i not in known]
    assert known and unknown, "this session mixes both kinds of evidence"
    first = session_demo.plans_for(session, "proactive")["session_dundies-s01#1"]
    typed = [a for t in first.turns for a in t.actions]
    assert typed == [f"pyautogui.write({t!r})" for t in [session.request, *(i.statement for i in known)]]
    assert first.final_answer.endswith("?") and unknown[0].statement.rstrip(".") in first.final_answer
    reactive = session_demo.plans_for(session, "reactive")
    assert [a for t in reactive["session_dundies-s01#1"].turns for a in t.actions] == [
        f"pyautogui.write({session.request!r})"
    ]
    assert len(reactive) == len(session.intents) + 1  # one more turn per intent the user has to say


def test_the_committed_recordings_cover_every_session_and_show_the_gap():
    proactive, reactive = records("proactive"), records("reactive")
    assert len(proactive) == len(reactive) == len(SESSIONS.sessions) == 33
    summaries = {}
    for kind, recs in (("proactive", proactive), ("reactive", reactive)):
        assert all(r["user_simulator"]["kind"] == "rules" for r in recs)
        summaries[kind] = run_summary([read_session_record(r) for r in recs])
    p, r = summaries["proactive"], summaries["reactive"]
    assert r.proactivity.value == 0 and r.statuses["provided"] == 91  # it waited to be told every intent
    assert p.proactivity.value > 0.9 and p.statuses["open"] == r.statuses["open"] == 0
    assert p.completeness.value == r.completeness.value == 1.0  # both get there in the end
    assert r.turns.value > p.turns.value + 1.5  # waiting costs turns
    assert not math.isnan(p.proactivity.low)


@pytest.mark.parametrize("kind", session_demo.KINDS)
def test_a_fresh_replay_settles_the_intents_as_the_committed_recording(kind, tmp_path):
    chosen = [BY_ID["session_dundies-s01"], BY_ID["session_everyday-s01"]]
    tasks = {t.id: t for t in session_tasks(SESSIONS).tasks}
    plans = {k: v for s in chosen for k, v in session_demo.plans_for(s, kind).items()}
    env = FakeEnv(screen_size=session_demo.SCREEN)
    env.start()
    try:
        for session in chosen:
            result = run_session(session, tasks[session.id], env, ScriptedAgent(plans), RuleUser(), tmp_path,
                                 LoopConfig(max_turns=5, sleep_after=0.0))  # fmt: skip
            committed = json.loads((DEMO / kind / session.id / SESSION_RECORD).read_text())
            assert result.record["intents"] == committed["intents"]
            assert [t["user"] for t in result.record["turns"]] == [t["user"] for t in committed["turns"]]
            assert session_demo.script_checklist(result.record) == committed["checklist"]
    finally:
        env.stop()
