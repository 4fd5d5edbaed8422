"""Judging a recorded session as a whole, offline. ``judge_session``: every checklist item over the
whole session (all turns' steps, the user's messages between them, in order; the request as the task),
the verdicts written into session.json's ``checklist`` (true / false; null when the judge erred) with the
full verdicts in session_judge.json. ``rederive_intents``: the intent statuses worked out again from the
recorded agent turns by the same two-stage protocol as the live simulated user (any ``UserSimulator``),
compared with the live statuses per intent, written to intent_audit.json."""

import json
from pathlib import Path

from harness.judge.core import ERROR, SUCCESS, Judge
from harness.judge.prompt import TrajectoryForJudge
from harness.judge.usersim import AgentTurn, UserSimulator, check_reply
from harness.results import SESSION_RECORD, SessionFolderError, SessionTranscript, read_session_folder
from harness.tasks.sessions import SessionSpec

SESSION_JUDGE_FILE = "session_judge.json"
INTENT_AUDIT_FILE = "intent_audit.json"


def session_trajectory(transcript: SessionTranscript) -> TrajectoryForJudge:
    """What the judge reads of a session: the request, every turn's steps numbered across the session,
    the user's later messages where they were spoken, and the agent's last message."""
    last = transcript.record.get("turns", [{}])[-1]
    return TrajectoryForJudge(
        key=transcript.task_id,
        instruction=transcript.request,
        steps=transcript.steps,
        final_answer=transcript.final_answer,
        ended_by=str(last.get("agent_ended_by") or ""),
        user_turns=[(u.after_step, u.message) for u in transcript.user_turns],
    )


def session_folders(root) -> list[Path]:
    """``root`` itself when it holds a session record, else its sub-folders that do, sorted."""
    root = Path(root)
    if (root / SESSION_RECORD).is_file():
        return [root]
    return sorted(p for p in root.iterdir() if (p / SESSION_RECORD).is_file()) if root.is_dir() else []


def judge_session(folder, judge: Judge) -> dict:
    """Judge the session in ``folder``'s checklist over the whole session; returns the new checklist."""
    transcript = read_session_folder(folder)
    ids = list(transcript.record.get("checklist") or {})
    items = transcript.rubric
    if not items or len(items) != len(ids):
        raise SessionFolderError(f"{transcript.folder}: the checklist has {len(ids)} items in {SESSION_RECORD} but "
                                 f"{len(items)} in the turns' rubric_bundle.json")  # fmt: skip
    verdicts = judge.judge(session_trajectory(transcript), items)
    checklist = {i: (None if v.verdict == ERROR else v.verdict == SUCCESS) for i, v in zip(ids, verdicts, strict=True)}
    _write(Path(folder) / SESSION_JUDGE_FILE, {
        "task_id": transcript.task_id, "judge": judge.settings,
        "items": [{"id": i, **v.as_dict()} for i, v in zip(ids, verdicts, strict=True)],
    })  # fmt: skip
    _write(Path(folder) / SESSION_RECORD, {**transcript.record, "checklist": checklist})
    return checklist


def rederive_intents(folder, session: SessionSpec, user: UserSimulator) -> dict:
    """The session's intent statuses derived again by ``user`` from the recorded agent turns, with the
    live ones and whether each agrees; written to intent_audit.json and returned. Stage 2's inferred and
    provided settle at the next turn, and nothing is said after the last turn of a session that hit its
    turn limit, exactly as the live loop does."""
    transcript = read_session_folder(folder)
    live = {
        k: (v.get("status") if isinstance(v, dict) else v) for k, v in (transcript.record.get("intents") or {}).items()
    }
    if set(live) != {i.id for i in session.intents}:
        raise SessionFolderError(f"{transcript.folder}: the record's intents ({', '.join(sorted(live))}) are not "
                                 f"{session.id}'s ({', '.join(i.id for i in session.intents)})")  # fmt: skip
    turns = transcript.record["turns"]
    at_limit = transcript.record.get("ended_by") == "turn_limit"
    open_intents, derived = list(session.intents), dict[str, str]()
    for number, (turn, steps) in enumerate(zip(turns, transcript.turn_steps, strict=True), start=1):
        if not open_intents:
            break
        actions = [s.action_text for s in steps] + [str(c) for c in turn.get("tool_commands") or []]
        reply = check_reply(user.respond(session.request, open_intents, AgentTurn(str(turn.get("agent") or ""),
                                                                                  actions)), open_intents)  # fmt: skip
        settled = dict.fromkeys(reply.completed, "completed")
        if not (at_limit and number == len(turns)):
            settled |= {i: s for s, i in (("inferred", reply.inferred), ("provided", reply.provided)) if i}
        derived |= settled
        open_intents = [i for i in open_intents if i.id not in settled]
    intents: dict[str, dict] = {}
    for intent in session.intents:
        offline = derived.get(intent.id, "open")
        intents[intent.id] = {"live": live[intent.id], "offline": offline, "agree": offline == live[intent.id]}
    agreeing = sum(1 for v in intents.values() if v["agree"])
    audit = {"task_id": session.id, "user_simulator": dict(user.identity), "intents": intents,
             "agreement": agreeing / len(intents) if intents else None}  # fmt: skip
    _write(Path(folder) / INTENT_AUDIT_FILE, audit)
    return audit


def agreement(audits: list[dict]) -> dict:
    """Agreement over many sessions: overall (agreeing intents of all intents) and by live status."""
    rows = [v for audit in audits for v in audit["intents"].values()]
    by_status: dict[str, list[bool]] = {}
    for row in rows:
        by_status.setdefault(row["live"], []).append(row["agree"])
    return {"intents": len(rows), "agreement": sum(r["agree"] for r in rows) / len(rows) if rows else None,
            "by_live_status": {s: sum(v) / len(v) for s, v in sorted(by_status.items())}}  # fmt: skip


def _write(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
