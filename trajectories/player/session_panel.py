"""What the player shows of a recorded session: the user's turns as a lane along the timeline (each turn
spanning the steps that answered it) and the intents panel (each hidden intent's terminal status with
the turn and step that settled it). While a suite's intents are hidden from a reader, the intents'
statements, the user's later messages (they state the intents) and the checklist's wording are left out
for them; statuses, turns and steps stay."""

from leaderboard.catalog.sessions import may_see_intents
from leaderboard.scoring.session_runs import simulator_label
from trajectories.models import IntentStatus, Trajectory

STATUS_WORDS = {
    "completed": "done unasked",
    "inferred": "asked about",
    "provided": "the user had to say it",
    "open": "still open at the turn limit",
}
ENDINGS = {
    "final_response": "It ended once every intent was settled and the agent had answered.",
    "turn_limit": "It stopped at the turn limit.",
}
HIDDEN_MESSAGE = "(hidden: it states an intent, shown once the suite's intents are revealed)"


def session_panel(trajectory: Trajectory, user) -> dict | None:
    """The lane and the panel for ``trajectory``, None when it is not a recorded session."""
    turns = list(trajectory.user_turns.order_by("number"))
    if not turns:
        return None
    visible = may_see_intents(trajectory.task, user)
    spec = (trajectory.task.extra or {}).get("session") or {}
    statements = {i.get("id"): i.get("statement", "") for i in spec.get("intents") or []}
    n = trajectory.n_steps
    lane = []
    for k, turn in enumerate(turns):
        last = turns[k + 1].after_step if k + 1 < len(turns) else n
        first = turn.after_step + 1
        shown = visible or turn.number == 1
        lane.append(
            {
                "number": turn.number,
                "message": turn.message if shown else HIDDEN_MESSAGE,
                "hidden": not shown,
                "agent_message": turn.agent_message,
                "first_step": first if first <= last else None,
                "last_step": last,
                "steps": max(last - first + 1, 0),
            }
        )
    intents = [
        {
            "id": row.intent_id,
            "statement": statements.get(row.intent_id, "") if visible else "",
            "status": row.status,
            "status_label": row.get_status_display(),
            "status_words": STATUS_WORDS.get(row.status, ""),
            "turn": row.turn,
            "step": row.step if row.step and row.step <= n else None,
        }
        for row in IntentStatus.objects.filter(trajectory=trajectory).order_by("id")
    ]
    session = trajectory.session or {}
    simulator = session.get("user_simulator") or {}
    return {
        "turns": lane,
        "intents": intents,
        "hidden": not visible,
        "ended_by": ENDINGS.get(session.get("ended_by", ""), session.get("ended_by", "")),
        "user_simulator": simulator_label(simulator),
        "proactive": sum(1 for i in intents if i["status"] in ("completed", "inferred")),
    }


def checklist_hidden(task, user) -> bool:
    """A session task whose intents (and so its checklist's wording) this reader may not see yet."""
    return isinstance((task.extra or {}).get("session"), dict) and not may_see_intents(task, user)


def hide_checklist(payload: dict) -> None:
    """The player's rubric items without their wording (they name what the user wants)."""
    for judge in payload.get("judges", []):
        for item in judge.get("items", []):
            item["criterion"] = f"Checklist item {item['rubric_id']} (hidden until the suite's intents are revealed)"
            item["explanation"] = ""
