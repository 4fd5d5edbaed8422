"""Session tasks on the site: what a task page shows of a session (its sequence, dependencies and hidden
intents), who may see the intents, and the maintainers' switch that reveals them to visitors."""

from collections.abc import Iterable
from dataclasses import dataclass

from leaderboard.catalog.selectors import sees_unpublished
from leaderboard.models import Suite, Task


@dataclass(frozen=True)
class SessionView:
    """A session task's page data. ``intents`` is empty while they are hidden from this reader."""

    sequence: str
    position: int
    depends_on: list[str]
    intent_count: int
    intents: list[dict]  # {id, statement, evidence: [one line each]}
    hidden: bool  # hidden from this reader
    revealed: bool  # revealed to visitors (maintainers see intents either way)


def may_see_intents(task: Task, user) -> bool:
    """Maintainers always; visitors once a maintainer has revealed the suite's intents."""
    return bool(task.suite.intents_revealed or sees_unpublished(user))


def session_view(task: Task, user) -> SessionView | None:
    """The session part of a task page, or None for a task that is not a session."""
    session = (task.extra or {}).get("session")
    if not isinstance(session, dict):
        return None
    intents = session.get("intents") or []
    visible = may_see_intents(task, user)
    shown = [
        {
            "id": intent.get("id", ""),
            "statement": intent.get("statement", ""),
            "evidence": [describe_evidence(e) for e in intent.get("evidence") or []],
        }
        for intent in intents
        if visible
    ]
    return SessionView(
        sequence=session.get("sequence", ""),
        position=session.get("position", 0),
        depends_on=list(session.get("depends_on") or []),
        intent_count=len(intents),
        intents=shown,
        hidden=not visible,
        revealed=task.suite.intents_revealed,
    )


def describe_evidence(evidence: dict) -> str:
    """One line naming where an intent can be learnt, as stored on the task."""
    kind = evidence.get("kind")
    if kind == "spec":
        return f"Persona spec: {evidence.get('path', '')}"
    if kind == "world":
        key = ", ".join(f"{k} = {v}" for k, v in (evidence.get("key") or {}).items())
        return f"World record: {evidence.get('app', '')} {evidence.get('table', '')} where {key}"
    if kind == "session":
        intent = evidence.get("intent")
        return f"Earlier session {evidence.get('session', '')}" + (f", intent {intent}" if intent else "")
    return "Unknown evidence"


def set_intents_revealed(suites: Iterable[Suite], revealed: bool) -> int:
    """Reveal (or hide again) the suites' hidden intents to visitors; how many suites changed. Each suite
    is saved on its own so the published pages' version moves with it."""
    changed = 0
    for suite in suites:
        if suite.intents_revealed != revealed:
            suite.intents_revealed = revealed
            suite.save(update_fields=["intents_revealed", "updated_at"])
            changed += 1
    return changed
