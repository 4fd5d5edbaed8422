"""A session run (pi-Bench's protocol, arXiv 2605.14678, App. C): the agent works on the request, the
simulated user (harness.judge.usersim) settles the intents the agent's turn satisfied and answers or
supplies one more, the user's message starts the agent's next turn on the same desktop, until every
hidden intent is terminal and the agent gave its final response, or the user-turn limit.

Each agent turn is a normal result folder (``<out>/<session id>/turn_<n>/``); the session record
(``<out>/<session id>/session.json``) is in the format the site's scoring reads (docs/sessions.md).

How the user's message reaches the agent: agents that talk back (``resume``; every agent here) keep one
conversation across the session's turns, the user's reply going in as the next user message; an agent
without ``resume`` starts each later turn afresh, told the request, what was said so far and the new
message. The desktop carries over between turns either way.

Earlier sessions (``Earlier``): a session that depends on earlier sessions of its sequence is told what
was said in them (the context) and continues on the desktop the last of them left, when that one was
played just before on the same guest. The ablation (``withheld``) gives neither: the request alone on a
reset guest, so a preference stated earlier can only come back by asking or being told again.
"""

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from harness import safejson
from harness.judge.provider_base import ProviderError
from harness.judge.usersim import AgentTurn, UserAnswerError, UserReply, UserSimulator, check_reply, is_question
from harness.results import SESSION_RECORD
from harness.run.loop import LoopConfig, LoopResult, run_task
from harness.run.recorder import Recorder
from harness.tasks.sessions import SessionSpec

SESSION_ERROR = "session_error.json"
DEFAULT_USER_TURNS = 10
GIVEN, WITHHELD = "given", "withheld"
EARLIER_SETTINGS = (GIVEN, WITHHELD)


@dataclass(frozen=True)
class Earlier:
    """What a session is given of the earlier sessions it depends on: ``given`` (the default) tells the
    agent their conversations (``records``, by session id) and may continue on the desktop the one just
    played left (``world_from``); ``withheld`` (the ablation) gives neither."""

    setting: str = GIVEN
    records: dict = field(default_factory=dict)
    world_from: str = ""

    def __post_init__(self):
        if self.setting not in EARLIER_SETTINGS:
            raise ValueError(f"earlier sessions: {self.setting!r} (expected one of {', '.join(EARLIER_SETTINGS)})")

    def described(self, session: SessionSpec) -> dict:
        """What session.json records: the setting, the sessions whose conversation was given, the world."""
        given = self.setting == GIVEN
        context = [d for d in session.depends_on if d in self.records] if given else []
        world = f"carried over from {self.world_from}" if given and self.world_from else "reset"
        return {"setting": self.setting, "depends_on": list(session.depends_on), "context": context, "world": world}


def missing_earlier(session: SessionSpec, records: dict) -> list[str]:
    """The sessions ``session`` depends on that have no record to give it (not played yet, or errored)."""
    return [d for d in session.depends_on if d not in records]


def earlier_instruction(session: SessionSpec, records: dict) -> str:
    """The first turn's instruction when the earlier sessions are given: what was said in each of them
    (the user's words and the agent's answers, in order), then today's request."""
    context = [d for d in session.depends_on if d in records]
    if not context:
        return session.request
    lines = ["Earlier sessions with this user, on this computer (for context):"]
    for dep in context:
        lines.append(f"Session {dep}:")
        for turn in records[dep].get("turns") or []:
            if isinstance(turn, dict):
                lines += [f"  User: {turn.get('user', '')}", f"  You: {turn.get('agent') or '(no message)'}"]
    lines += ["", f"Today's request: {session.request}"]
    return "\n".join(lines)


@dataclass
class SessionResult:
    session_id: str
    status: str  # finished | errored
    ended_by: str  # final_response | turn_limit | error
    record: dict = field(default_factory=dict)
    error: str = ""


def checklist_ids(session: SessionSpec) -> list[str]:
    """Each checklist item's id: its own ``id``, else R1, R2, ... by position."""
    return [str(item.get("id") or f"R{n}") for n, item in enumerate(session.checklist, start=1)]


def turn_instruction(request: str, said: list[tuple[str, str]], message: str) -> str:
    """What the agent is told at a later user turn: the request, the exchange so far (user, agent), and
    the user's new message."""
    lines = [request, "", "This continues the same session on the same computer. What was said so far:"]
    for user, agent in said:
        lines += [f"User: {user}", f"You: {agent or '(no message)'}"]
    lines += ["", f"The user now says: {message}"]
    return "\n".join(lines)


def run_session(session: SessionSpec, task, env, agent, user: UserSimulator, out: Path, config: LoopConfig,
                *, max_user_turns: int = DEFAULT_USER_TURNS, meta: dict | None = None,
                earlier: Earlier | None = None) -> SessionResult:  # fmt: skip
    """Play one session and write its record; ``task`` is the session as a task spec (``session_tasks``)."""
    if max_user_turns < 1:
        raise ValueError(f"max_user_turns: {max_user_turns} (expected at least 1)")
    earlier = earlier or Earlier()
    folder = Path(out) / session.id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SESSION_ERROR).unlink(missing_ok=True)  # a failed attempt's error is not this attempt's
    talks_back = callable(getattr(agent, "resume", None))
    if callable(getattr(agent, "enter_session", None)):
        agent.enter_session()
    open_intents = list(session.intents)
    statuses: dict[str, dict] = {}
    turns: list[dict] = []
    said: list[tuple[str, str]] = []
    message, steps = session.request, 0
    first = earlier_instruction(session, earlier.records) if earlier.setting == GIVEN else session.request
    ended_by = "turn_limit"
    for number in range(1, max_user_turns + 1):
        if number == 1:
            instruction = first
        else:
            instruction = message if talks_back else turn_instruction(first, said, message)
        if hasattr(agent, "user_turn"):
            agent.user_turn = number
        turn_task = dataclasses.replace(task, instruction=instruction)
        recorder = Recorder.to_folder(
            turn_task,
            folder / f"turn_{number}",
            meta={
                **(meta or {}),
                "user_turn": number,
                "user_simulator": user.identity,
                "earlier_sessions": earlier.setting,
            },  # fmt: skip
        )
        result: LoopResult = run_task(
            turn_task, env, agent, recorder, config,
            reset_guest=number == 1 and not (earlier.setting == GIVEN and earlier.world_from),
            resume_with=message if number > 1 and talks_back else None,
        )  # fmt: skip
        steps += result.steps
        tool_commands = list(getattr(agent, "tool_commands", []))
        turn = {"user": message, "agent": result.final_answer, "asked": is_question(result.final_answer),
                "agent_ended_by": result.ended_by, "steps": result.steps, "folder": f"turn_{number}",
                "tool_commands": tool_commands}  # fmt: skip
        turns.append(turn)
        if result.status != "finished":
            return _errored(session, folder, f"user turn {number}: the agent's turn errored: {result.error}",
                            turns, user)  # fmt: skip
        # What the agent did: its GUI actions and the shell commands and file edits its tools ran.
        said_by_agent = AgentTurn(result.final_answer, [row["action"] for row in recorder.rows] + tool_commands)
        try:
            reply: UserReply = check_reply(user.respond(session.request, open_intents, said_by_agent), open_intents)
        except (UserAnswerError, ProviderError) as exc:  # the user could not answer: the session cannot go on
            return _errored(session, folder, f"user turn {number}: the simulated user failed: {exc}", turns, user)
        settled = {intent_id: "completed" for intent_id in reply.completed}
        for intent_id in reply.completed:
            statuses[intent_id] = {"status": "completed", "turn": number, "step": steps}
        if number == max_user_turns or (not reply.inferred and not reply.provided and not reply.message):
            turn["settled"] = settled
            open_intents = [i for i in open_intents if i.id not in settled]
            if not open_intents and not is_question(result.final_answer):
                ended_by = "final_response"
            break  # the limit (what is still open stays open), or nothing left to say
        for status, intent_id in (("inferred", reply.inferred), ("provided", reply.provided)):
            if intent_id:  # settled by the user's next message, which opens turn number + 1
                statuses[intent_id] = {"status": status, "turn": number + 1, "step": steps}
                settled[intent_id] = status
        turn["settled"] = settled
        open_intents = [i for i in open_intents if i.id not in settled]
        message = reply.message
        said.append((str(turn["user"]), result.final_answer))
    for intent in open_intents:
        statuses[intent.id] = {"status": "open", "turn": None, "step": None}
    record = {
        "task_id": session.id,
        "attempt": 1,
        "turns": turns,
        "ended_by": ended_by,
        "max_user_turns": max_user_turns,
        "intents": {i.id: statuses[i.id] for i in session.intents},
        "checklist": dict.fromkeys(checklist_ids(session)),  # judged over the whole session later
        "user_simulator": dict(user.identity),
        "agent_conversation": "one" if talks_back else "fresh each turn",
        "earlier_sessions": earlier.described(session),
    }
    _write(folder / SESSION_RECORD, record)
    return SessionResult(session.id, "finished", ended_by, record=record)


def _errored(session: SessionSpec, folder: Path, error: str, turns: list, user: UserSimulator) -> SessionResult:
    """A session that cannot go on: no record (nothing to score), its error and turns so far beside it."""
    _write(folder / SESSION_ERROR, {"task_id": session.id, "error": error, "turns": turns,
                                    "user_simulator": user.identity})  # fmt: skip
    return SessionResult(session.id, "errored", "error", error=error)


def _write(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def recorded_sessions(out: Path, ids) -> dict[str, dict]:
    """The session records already written in ``out`` for ``ids`` (an unreadable one counts as none)."""
    records = {}
    for session_id in ids:
        try:
            data = safejson.load_file(Path(out) / session_id / SESSION_RECORD)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            records[session_id] = data
    return records


def play_sessions(sessions: list[SessionSpec], tasks: dict, env, agent, user: UserSimulator, out: Path,
                  config: LoopConfig, *, setting: str = GIVEN, max_user_turns: int = DEFAULT_USER_TURNS,
                  meta: dict | None = None, report=lambda line: None) -> dict[str, int]:  # fmt: skip
    """Play ``sessions`` in order (a sequence's in its order), skipping recorded ones; counts by outcome.
    With the earlier sessions ``given``, a session is told the recorded conversations of those it depends
    on (one without its dependencies' records is not played: it errors, naming them) and continues on the
    desktop of the one played just before when it depends on it; ``withheld`` gives neither."""
    out = Path(out)
    counts: dict[str, int] = {}
    last_played = ""  # the session whose desktop the guest holds now
    for session in sessions:
        if recorded_sessions(out, [session.id]):
            counts["skipped"] = counts.get("skipped", 0) + 1
            continue
        records = recorded_sessions(out, session.depends_on) if setting == GIVEN else {}
        missing = missing_earlier(session, records) if setting == GIVEN else []
        if missing:
            result = SessionResult(session.id, "errored", "error", error=(
                f"it builds on {', '.join(missing)}, which has no record in {out}: play it first (or run the "
                "ablation without the earlier sessions)"))  # fmt: skip
        else:
            world_from = last_played if setting == GIVEN and last_played in session.depends_on else ""
            result = run_session(session, tasks[session.id], env, agent, user, out, config,
                                 max_user_turns=max_user_turns, meta=meta,
                                 earlier=Earlier(setting, records, world_from))  # fmt: skip
            last_played = session.id
        if result.error:
            report(f"{session.id}: {result.error}")
        outcome = "errored" if result.status == "errored" else result.ended_by
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts
