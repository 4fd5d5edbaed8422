"""``plants``: the records the overlay plants for contradictions, dependencies and tasks (``plant`` under
planted_contradictions / planted_dependencies, and ``seed_records``)."""

import datetime as dt

from ..core import Event, at, parse_time_of_day
from ..fanout import emit


def _when(ctx, rec, key="date", time_key="time"):
    value = rec.get(key)
    if value is None:
        return None
    if isinstance(value, int):
        day = ctx.relative(-value) if value < 0 else ctx.relative(value)
        hour, minute = parse_time_of_day(rec.get(time_key, ""), (12, 0))
        return at(day, hour, minute)
    return ctx.moment(value, rec.get(time_key))


def seed_plants(ctx):
    """Records under ``plant`` in planted_contradictions / planted_dependencies, and ``seed_records``."""
    groups = []
    for section in ("planted_contradictions", "planted_dependencies"):
        for i, item in enumerate(ctx.persona.section(section, [])):
            if item.get("plant"):
                groups.append(
                    (
                        f"{section}[{i}]",
                        item.get("id", section),
                        item.get("description") or item.get("trigger", ""),
                        item["plant"],
                    )
                )
    for i, item in enumerate(ctx.persona.section("seed_records", [])):
        groups.append((f"seed_records[{i}]", item.get("id", "seed"), item.get("title", ""), item["records"]))
    for pid, kind, title, records in groups:
        first = next((_when(ctx, r) for r in records if r.get("date") is not None), None)
        ev = ctx.add_event(Event(pid, kind, title[:200], first.date().isoformat() if first else ctx.anchor.isoformat()))
        for rec in records:
            rec = dict(rec)
            when = _when(ctx, rec) or dt.datetime.combine(ctx.anchor, dt.time(12))
            rec["when"] = when
            for key in ("end", "check_in", "check_out", "deadline", "departs"):
                if rec.get(key) is not None:
                    moment = _when(ctx, rec, key, key + "_time")
                    rec[key] = moment.date() if key in ("check_in", "check_out", "deadline") else moment
            if rec["app"] == "calendar" and "end" not in rec:
                rec["end"] = when + dt.timedelta(hours=1)
            result = emit(ctx, ev, rec)
            if isinstance(result, tuple):
                ev.code, ev.amount = result
            elif isinstance(result, str):
                ev.code = result
            elif rec.get("amount") is not None and ev.amount is None:
                ev.amount = rec["amount"]
