"""The two scripted demo agents on Michael's sessions (seeding/sessions/michael.json), so the demo shows
sessions, the intents panel and the gap between Proactivity and Completeness:

* **proactive**: at its first turn it acts on every hidden intent an attentive assistant could know
  (those whose evidence is the persona spec or an earlier session), asks one focused question about
  the first of the others, and acts on whatever the user then says;
* **reactive**: it does only what the request literally says, then acts on each thing the user has to
  spell out, one turn at a time.

Their plans are written from the session file (a fixed script, no model), and each session is played
with the rule-based user (harness.judge.usersim.RuleUser) on the fake guest through
harness.run.session.run_session, into an ordinary session results folder. The checklist verdicts are
written by the script too (every item satisfied once every intent was settled and acted on), not by a
judge. ``python -m seeding.session_demo OUT`` writes both runs; load_demo imports them. Django-free."""

import argparse
import json
import sys
from pathlib import Path

from harness.agents import ScriptedAgent
from harness.agents.scripted import Plan, Turn
from harness.backends import FakeEnv
from harness.judge.usersim import AgentTurn, RuleUser
from harness.run import LoopConfig
from harness.run.session import SESSION_RECORD, SessionResult, run_session
from harness.tasks.sessions import IntentSpec, SessionSpec, load_sessions, session_tasks

SESSIONS_FILE = Path(__file__).resolve().parent / "sessions" / "michael.json"
KINDS = ("proactive", "reactive")
KNOWABLE = {"spec", "session"}  # evidence an attentive assistant has without asking
MAX_USER_TURNS = 10
SCREEN = (640, 400)  # the fake guest's blank screen: small screenshots


def _write(text: str) -> str:
    return f"pyautogui.write({text!r})"


def _question(intent: IntentSpec) -> str:
    return f"Before I finish: {intent.statement.rstrip('.')}. Is that right?"


def first_turn(session: SessionSpec, kind: str) -> Plan:
    """What the agent does on the request alone."""
    if kind == "reactive":
        return Plan([Turn("I will do exactly what was asked.", [_write(session.request)])], final_answer="Done.")
    known = [i for i in session.intents if {e.kind for e in i.evidence} & KNOWABLE]
    unknown = [i for i in session.intents if i not in known]
    actions = [_write(session.request), *(_write(i.statement) for i in known)]
    answer = _question(unknown[0]) if unknown else "Done, with what you usually want."
    return Plan([Turn("Doing the request the way Michael likes it.", actions)], final_answer=answer, outcome="done")


def plans_for(session: SessionSpec, kind: str) -> dict[str, Plan]:
    """The agent's plan at each user turn (``<session id>#<n>``), found by playing the rule-based user
    ahead: a later turn acts on what the user's last message settled."""
    user, open_intents = RuleUser(), list(session.intents)
    by_id = {i.id: i for i in session.intents}
    plans, plan = {}, first_turn(session, kind)
    for number in range(1, MAX_USER_TURNS + 1):
        plans[f"{session.id}#{number}"] = plan
        actions = [a for t in plan.turns for a in t.actions]
        reply = user.respond(session.request, open_intents, AgentTurn(plan.final_answer, actions))
        settled = {*reply.completed, reply.inferred, reply.provided} - {""}
        open_intents = [i for i in open_intents if i.id not in settled]
        told = reply.inferred or reply.provided
        if not reply.message or not told:
            break
        plan = Plan([Turn("Acting on what the user said.", [_write(by_id[told].statement)])], final_answer="Done.")
    return plans


def script_checklist(record: dict) -> dict:
    """The script's checklist verdicts: every item satisfied when every intent was settled (both agents act
    on each intent once they know it), none when some intent was still open at the turn limit."""
    settled = all(v.get("status") != "open" for v in record["intents"].values())
    return dict.fromkeys(record["checklist"], settled)


def record_kind(kind: str, out: Path, sessions_file: Path = SESSIONS_FILE) -> list[SessionResult]:
    """Play every session with one demo agent into ``out`` (sessions already there are kept)."""
    sessions = load_sessions(sessions_file)
    tasks = {t.id: t for t in session_tasks(sessions).tasks}
    plans = {key: plan for s in sessions.sessions for key, plan in plans_for(s, kind).items()}
    agent, user = ScriptedAgent(plans), RuleUser()
    config = LoopConfig(max_turns=5, sleep_after=0.0)
    meta = {"agent": f"scripted-{kind}", "model": f"Scripted {kind} demo agent", "backend": "fake",
            "user_simulator": user.identity}  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps({**meta, "sessions": sessions_file.name,
                                              "max_user_turns": MAX_USER_TURNS}, indent=2) + "\n")  # fmt: skip
    env = FakeEnv(screen_size=SCREEN)
    env.start()
    results = []
    try:
        for session in sessions.sessions:
            record_path = out / session.id / SESSION_RECORD
            if record_path.is_file():
                continue
            result = run_session(session, tasks[session.id], env, agent, user, out, config,
                                 max_user_turns=MAX_USER_TURNS, meta=meta)  # fmt: skip
            if result.status == "finished":
                record = json.loads(record_path.read_text(encoding="utf-8"))
                record["checklist"] = script_checklist(record)
                record_path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            results.append(result)
    finally:
        env.stop()
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Record the two scripted demo agents on Michael's sessions.")
    parser.add_argument("out", type=Path, help="folder to write <kind>/<session id>/ into")
    parser.add_argument("--kind", choices=KINDS, action="append", help="one agent only (default: both)")
    args = parser.parse_args(argv)
    for kind in args.kind or KINDS:
        results = record_kind(kind, args.out / kind)
        errored = [r for r in results if r.status != "finished"]
        print(f"{kind}: {len(results)} session(s) played, {len(errored)} errored", file=sys.stderr)
        if errored:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
