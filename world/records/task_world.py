"""The world behind one task: the events its overlay entries cite (planted contradictions apart), the
records holding the people, places, codes and amounts its instruction and rubric name, and what the
coverage report could not find. Called from the task page view."""

import json
from decimal import Decimal

from django.db.models import F

from seeding.world.coverage import extract_entities
from world.models import WorldEvent, WorldRecord
from world.records.browse import app_name, current_world

RECORDS_PER_ENTITY = 3
MAX_ENTITIES = 20
MENTIONS_TO_MATCH = 2  # a planted event not cited for the task is shown when its text restates this many


def task_text(task) -> str:
    return task.instruction + "\n" + "\n".join(item.criterion for item in task.current_rubric())


def coverage_for(world, task_id: str) -> dict | None:
    for row in (world.coverage or {}).get("by_task", []):
        if row.get("id") == task_id:
            return row
    return None


def _entity_records(world, entities: dict) -> list[dict]:
    found = []
    names = sorted(entities["names"]) + sorted(entities["codes"])
    for value in names[:MAX_ENTITIES]:
        records = list(
            WorldRecord.objects.filter(world=world, text__contains=value.lower())
            .select_related("event")
            .order_by(F("event").asc(nulls_last=True), "-date", "app", "row_id")[:RECORDS_PER_ENTITY]
        )
        found.append({"entity": value, "records": records})
    for value in sorted(entities["amounts"])[: max(0, MAX_ENTITIES - len(names))]:
        amount = Decimal(str(value)).quantize(Decimal("0.01"))
        records = list(
            WorldRecord.objects.filter(world=world, amount__in=[amount, -amount])
            .select_related("event")
            .order_by(F("event").asc(nulls_last=True), "-date", "app", "row_id")[:RECORDS_PER_ENTITY]
        )
        found.append({"entity": f"${value:,.2f}", "records": records})
    return found


def _money(value: float) -> str:
    return f"${value:,.0f}" if value == int(value) else f"${value:,.2f}"


def _mentions(event, entities: dict) -> int:
    """How many of the task's names, codes and amounts the event's description and record restate."""
    text = (event.title + " " + json.dumps(event.data)).lower()
    values = [v.lower() for v in entities["names"] | entities["codes"]] + [_money(a) for a in entities["amounts"]]
    return sum(1 for v in values if v in text)


def task_world(task) -> dict | None:
    """Context for the task page's world block, or None when no world is loaded."""
    world = current_world()
    if world is None:
        return None
    named = extract_entities(task_text(task))
    events, matched = [], []
    for event in WorldEvent.objects.filter(world=world).order_by("position"):
        event.app_names = [app_name(a) for a in event.apps]  # type: ignore[attr-defined]  # for the template only
        if task.task_id in event.tasks:
            events.append(event)
        elif (event.is_contradiction or event.is_dependency) and _mentions(event, named) >= MENTIONS_TO_MATCH:
            matched.append(event)
    entities = _entity_records(world, named)
    return {
        "world": world,
        "contradictions": [e for e in events if e.is_contradiction],
        "dependencies": [e for e in events if e.is_dependency],
        "events": [e for e in events if not e.is_contradiction and not e.is_dependency],
        "matched": matched,
        "entities": [row for row in entities if row["records"]],
        "unmatched": [row["entity"] for row in entities if not row["records"]],
        "coverage": coverage_for(world, task.task_id),
    }
