"""Session tasks on the site: what a task page and the API show of a session (its sequence, dependencies and
hidden intents), who may see the intents (and the checklist, which would give them away), and the
maintainers' switch that reveals them to visitors."""

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
    hidden: bool  # intents and checklist hidden from this reader
    revealed: bool  # revealed to visitors (maintainers see intents either way)
    checklist_item_count: int = 0


def may_see_intents(task: Task, user) -> bool:
    """Maintainers always; visitors once a maintainer has revealed the suite's intents."""
    return bool(task.suite.intents_revealed or sees_unpublished(user))


def checklist_wording_hidden(suite: Suite, user) -> bool:
    """Whether pages listing ``suite``'s rubric items (the reliability pages) must leave out their wording for
    this reader: a suite of sessions whose intents are still hidden from visitors, read by a visitor."""
    if suite.intents_revealed or sees_unpublished(user):
        return False
    return suite.tasks.filter(extra__has_key="session").exists()


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


def session_for_reader(task: Task, user) -> SessionView | None:
    """:func:`session_view` for a task read by ``task_detail``; while the intents are hidden from this
    reader, the task's checklist items (``task.current_items``) are withheld too: they name what the
    intents are. None for a task that is not a session (its rubric untouched)."""
    view = session_view(task, user)
    if view is None:
        return None
    items = getattr(task, "current_items", [])
    view = SessionView(**{**view.__dict__, "checklist_item_count": len(items)})
    if view.hidden:
        task.current_items = []  # type: ignore[attr-defined]  # Prefetch(to_attr=) in selectors.task_detail
    return view


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
