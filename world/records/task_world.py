"""The world behind one task: its answer key as the check resolved it (each fact, where it lives, found or
missing, the values found, linked to the records), the events its overlay entries cite (planted
contradictions apart), and the records holding the people, places, codes and amounts its instruction and
rubric name; the rubric items a world variant words differently (``rubric_variation``). Called from the task page
view and task review."""

import json
from decimal import Decimal

from django.db.models import F

from seeding.world.answer_keys import load_keys
from seeding.world.coverage import extract_entities
from seeding.world.rubric_templates import load_templates
from world.models import WorldEvent, WorldRecord
from world.records.browse import app_name, current_world

RECORDS_PER_ENTITY = 3
MAX_ENTITIES = 20
MENTIONS_TO_MATCH = 2  # a planted event not cited for the task is shown when its text restates this many


def task_text(task) -> str:
    return task.instruction + "\n" + "\n".join(item.criterion for item in task.current_rubric())


VALUES_SHOWN = 5  # rows of values shown per fact


def solvable_figure(world) -> dict | None:
    """The solvable-task figure of the world's check report: counts, total and rate, or None."""
    solvable = (world.check_report or {}).get("solvable") if world else None
    if not solvable:
        return None
    counts = solvable.get("counts", {})
    return {
        "solvable": counts.get("solvable", 0),
        "tasks": solvable.get("tasks", 0),
        "rate": solvable.get("solvable_rate", 0.0),
        "others": sorted((v, n) for v, n in counts.items() if v != "solvable"),
    }


def _percent(share) -> str | None:
    return f"{share:.1%}" if isinstance(share, int | float) else None


def check_figures(world) -> dict:
    """The other figures of the check report, flattened for the World overview."""
    report = (world.check_report or {}) if world else {}
    out: dict = {}
    released = report.get("released")
    if released:
        counts = released.get("counts", {})
        out["released"] = {
            "matched": counts.get("matched", 0),
            "differs": counts.get("differs", 0),
            "kept": [
                (name, item.get("why", ""))
                for name, item in released.get("per_variable", {}).items()
                if item.get("status") == "kept different"
            ],
            "not_applicable": counts.get("not applicable", 0),
            "variables": released.get("variables", 0),
        }
    invariants = report.get("invariants")
    if invariants:
        out["invariants"] = {
            "violations": invariants.get("violations", 0),
            "kinds": [(kind, found.get("violations", 0)) for kind, found in invariants.get("kinds", {}).items()],
        }
    text = report.get("text") or {}
    if text.get("measured"):
        apps = (text.get("variety") or {}).get("apps", {})
        names = {"mail": "HooliMail", "buzzchat": "HooliChat", "workbuzz": "HooliWork"}
        out["text"] = {
            "apps": [
                {
                    "name": names.get(app, app),
                    "distinct": _percent(figures.get("distinct_share")),
                    "person": _percent((figures.get("person_to_person") or {}).get("distinct_share")),
                    "top10": _percent(figures.get("top10_share")),
                    "silent": figures.get("silent_contacts") or [],
                }
                for app, figures in apps.items()
            ],
            "leaks": len(text.get("leaks") or []),
        }
    if report.get("volume"):
        out["volume"] = report["volume"]
    return out


def _fact_view(world, fact: dict) -> dict:
    """One resolved fact with its values and the records it points at (those the world index holds)."""
    app, table = fact.get("where"), fact.get("table")
    records = []
    if app and table and fact.get("ids"):
        ids = [i for i in fact["ids"] if isinstance(i, int)]
        indexed = WorldRecord.objects.filter(world=world, app=app, kind=table, row_id__in=ids)
        held = set(indexed.values_list("row_id", flat=True))
        records = [{"app": app, "kind": table, "row_id": i} for i in ids if i in held]
    rows = [", ".join(str(v) for v in row) for row in fact.get("rows", [])[:VALUES_SHOWN]]
    return {
        "need": fact.get("need", ""),
        "where": app_name(app) if app and app != "files" else "files",
        "found": bool(fact.get("found")),
        "why": fact.get("why", ""),
        "columns": fact.get("columns", []),
        "rows": rows,
        "more_rows": max(0, int(fact.get("count", 0) or 0) - len(rows)),
        "paths": fact.get("paths", []),
        "records": records,
    }


def rubric_variation(task) -> dict[int, dict]:
    """The task's current rubric items that name a world value, by position: the item's template and, for each
    value, the answer-key fact it is read from. An item an erratum reworded since the template was written is
    left out (it is judged as written on every variant)."""
    template = load_templates().get(task.task_id)
    if template is None:
        return {}
    canonical = {item["position"]: item for item in template["items"]}
    needs = [fact["need"] for fact in load_keys().get(task.task_id, {}).get("facts", [])]
    varying = {}
    for item in task.current_rubric():
        entry = canonical.get(item.position)
        if entry is None or entry["canonical"] != item.criterion:
            continue
        values = [
            {"name": name, "need": needs[w["fact"] - 1] if w["fact"] <= len(needs) else "", **w}
            for name, w in template["values"].items()
            if "{" + name + "}" in entry["template"]
        ]
        varying[item.position] = {"template": entry["template"], "values": values}
    return varying


def answer_key_for(world, task_id: str) -> dict | None:
    """The task's answer key as the check resolved it: verdict, exception, and each fact; None if unchecked."""
    solvable = (world.check_report or {}).get("solvable") if world else None
    if not solvable:
        return None
    entry = solvable.get("per_task", {}).get(task_id)
    if entry is None:
        return {"verdict": "not checked", "facts": [], "exception": ""}
    return {
        "verdict": entry.get("verdict", ""),
        "exception": entry.get("exception", ""),
        "facts": [_fact_view(world, f) for f in entry.get("facts", [])],
    }


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
        "answer_key": answer_key_for(world, task.task_id),
    }
