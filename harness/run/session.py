"""A session run (pi-Bench's protocol, arXiv 2605.14678, App. C): the agent works on the request, the
simulated user (harness.judge.usersim) settles the intents the agent's turn satisfied and answers or
supplies one more, the user's message starts the agent's next turn on the same desktop, until every
hidden intent is terminal and the agent gave its final response, or the user-turn limit.

Each agent turn is a normal result folder (``<out>/<session id>/turn_<n>/``); the session record
(``<out>/<session id>/session.json``) is in the format the site's scoring reads (docs/sessions.md).

How the user's message reaches the agent: agents read the instruction only when their conversation
starts, so each later turn starts the agent afresh with the request, what was said so far and the new
message (the desktop is not reset). Agents that keep one conversation across turns (that talk back) are
still to come.
"""

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from harness.judge.provider_base import ProviderError
from harness.judge.usersim import AgentTurn, UserAnswerError, UserReply, UserSimulator, check_reply, is_question
from harness.run.loop import LoopConfig, LoopResult, run_task
from harness.run.recorder import Recorder
from harness.tasks.sessions import SessionSpec

SESSION_RECORD = "session.json"
SESSION_ERROR = "session_error.json"
DEFAULT_USER_TURNS = 10


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
                *, max_user_turns: int = DEFAULT_USER_TURNS, meta: dict | None = None) -> SessionResult:  # fmt: skip
    """Play one session and write its record; ``task`` is the session as a task spec (``session_tasks``)."""
    if max_user_turns < 1:
        raise ValueError(f"max_user_turns: {max_user_turns} (expected at least 1)")
    folder = Path(out) / session.id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SESSION_ERROR).unlink(missing_ok=True)  # a failed attempt's error is not this attempt's
    open_intents = list(session.intents)
    statuses: dict[str, dict] = {}
    turns: list[dict] = []
    said: list[tuple[str, str]] = []
    message, steps = session.request, 0
    ended_by = "turn_limit"
    for number in range(1, max_user_turns + 1):
        instruction = session.request if number == 1 else turn_instruction(session.request, said, message)
        if hasattr(agent, "user_turn"):
            agent.user_turn = number
        turn_task = dataclasses.replace(task, instruction=instruction)
        recorder = Recorder.to_folder(
            turn_task,
            folder / f"turn_{number}",
            meta={**(meta or {}), "user_turn": number, "user_simulator": user.identity},
        )
        result: LoopResult = run_task(turn_task, env, agent, recorder, config, reset_guest=number == 1)
        steps += result.steps
        turn = {"user": message, "agent": result.final_answer, "agent_ended_by": result.ended_by,
                "steps": result.steps, "folder": f"turn_{number}"}  # fmt: skip
        turns.append(turn)
        if result.status != "finished":
            return _errored(session, folder, f"user turn {number}: the agent's turn errored: {result.error}",
                            turns, user)  # fmt: skip
        # What the agent did: its GUI actions and the shell commands and file edits its tools ran.
        actions = [row["action"] for row in recorder.rows] + list(getattr(agent, "tool_commands", []))
        said_by_agent = AgentTurn(result.final_answer, actions)
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
