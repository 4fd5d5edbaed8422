"""HooliCalendar and home/user/Calendar/personal.ics: the same events, UIDs and recurrences in both.

The .ics is written with the ``icalendar`` library; weekly series keep their RRULE (one VEVENT per
series, as calendar apps store them). DTSTAMP is the anchor, never the wall clock.
"""

import datetime as dt

import icalendar

from ..apps import target
from ..core import DATETIME, ZONE, stable_id

MEETINGS = [
    "Client call - {client}",
    "Sales huddle",
    "Lunch with {person}",
    "Budget review",
    "Vendor meeting - {client}",
    "Branch walkthrough",
    "Conference call with corporate",
    "Performance review prep",
    "Team building brainstorm",
    "Interview candidate",
]
CLIENTS = ["Lackawanna County", "Dunmore High School", "Blue Cross", "Harper Collins", "Scranton White Pages"]


def _stamp(value: dt.datetime) -> str:
    return value.strftime(DATETIME)


WEEKDAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def _overlaps(event: dict, start: dt.datetime, end: dt.datetime) -> bool:
    """Whether a timed event (a one-off, or a weekly series from its first day on) takes up any of
    [start, end) on start's day. All-day events (birthdays, trips) leave the hours free."""
    if event["all_day"]:
        return False
    first = dt.datetime.strptime(event["start"], DATETIME)
    last = dt.datetime.strptime(event["end"], DATETIME)
    rrule = event.get("rrule") or ""
    if rrule.startswith("FREQ=WEEKLY"):
        parts = dict(p.split("=", 1) for p in rrule.split(";") if "=" in p)
        days = {d[-2:] for d in parts.get("BYDAY", WEEKDAY_CODES[first.weekday()]).split(",")}
        if start.date() < first.date() or WEEKDAY_CODES[start.weekday()] not in days:
            return False
        first = dt.datetime.combine(start.date(), first.time())
        last = first + (last - dt.datetime.strptime(event["start"], DATETIME))
    elif rrule.startswith("FREQ=DAILY"):
        if start.date() < first.date():
            return False
        first = dt.datetime.combine(start.date(), first.time())
        last = first + (last - dt.datetime.strptime(event["start"], DATETIME))
    return first < end and start < last


def seed_calendar(ctx):
    rng = ctx.rng("calendar")
    settings = ctx.persona.override("hoolicalendar")
    reminder = settings.get("default_reminder_minutes", 30)
    for n, ev in enumerate(ctx.persona.override("calendar").get("events", [])):
        all_day = bool(ev.get("all_day")) or len(ev["start"]) == 10
        start = ctx.moment(ev["start"]) if not all_day else dt.datetime.combine(ctx.day(ev["start"]), dt.time())
        end = (
            ctx.moment(ev["end"])
            if ev.get("end") and not all_day
            else start + dt.timedelta(days=1 if all_day else 1 / 24)
        )
        ctx.intent(
            "calendar",
            {
                "start": _stamp(start),
                "end": _stamp(end),
                "summary": ev["summary"],
                "description": ev.get("description", ""),
                "location": ev.get("location"),
                "all_day": all_day,
                "rrule": ev.get("recurrence"),
                "attendees": [],
            },
            f"app_overrides.calendar.events[{n}]",
        )
    for n, person in enumerate(ctx.persona.section("contacts", [])):
        if person.get("birthday"):
            born = dt.date.fromisoformat(person["birthday"])
            first = born.replace(year=ctx.start.year)
            if first < ctx.start:
                first = born.replace(year=ctx.start.year + 1)
            ctx.intent(
                "calendar",
                {
                    "start": _stamp(dt.datetime.combine(first, dt.time())),
                    "end": _stamp(dt.datetime.combine(first + dt.timedelta(days=1), dt.time())),
                    "summary": f"{person['name']}'s birthday",
                    "description": person.get("relationship", "").replace("_", " "),
                    "all_day": True,
                    "rrule": f"FREQ=YEARLY;BYMONTH={born.month};BYMONTHDAY={born.day}",
                    "attendees": [],
                },
                f"contacts[{n}].birthday",
            )
    need = target(ctx, "calendar_events") - len(ctx.pending("calendar"))
    people = [c["name"] for c in ctx.persona.section("contacts", [])] or ["a colleague"]
    # Routine meetings fill the past only, up to the Sunday before the anchor's week: the weeks the
    # tasks are about hold exactly what the spec puts there ("the first free hour on Wednesday" must
    # stay what the spec makes it), and no routine meeting overlaps an event the spec places.
    last_day = ctx.anchor - dt.timedelta(days=ctx.anchor.weekday() + 1)
    span = (last_day - ctx.start).days
    hours = settings.get("working_hours", {})
    first_hour = int(str(hours.get("start", "09:00"))[:2])
    last_hour = int(str(hours.get("end", "17:00"))[:2]) - 1
    length = dt.timedelta(minutes=settings.get("default_event_duration_minutes", 60))
    spec_events = list(ctx.pending("calendar"))
    while need > 0:
        day = ctx.start + dt.timedelta(days=rng.randrange(span + 1))
        if day.weekday() >= 5:
            continue
        start = dt.datetime.combine(
            day, dt.time(rng.randint(first_hour, max(first_hour, last_hour)), rng.choice([0, 30]))
        )
        title = rng.choice(MEETINGS).format(client=rng.choice(CLIENTS), person=rng.choice(people))
        if any(_overlaps(ev, start, start + length) for ev in spec_events):
            continue
        ctx.intent(
            "calendar",
            {
                "start": _stamp(start),
                "end": _stamp(start + length),
                "summary": title,
                "description": "",
                "location": "Dunder Mifflin Scranton" if "Lunch" not in title else None,
                "all_day": False,
                "rrule": None,
                "attendees": [],
            },
            "routines.work_calendar",
        )
        need -= 1
    ctx.add("calendar", "calendars", {"name": ctx.persona.name, "color": "#3366cc"}, "identity")
    cal = icalendar.Calendar()
    cal.add("prodid", "-//MyPCBench//persona world//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", f"{ctx.persona.name}")
    stamp = dt.datetime.combine(ctx.anchor, dt.time(), tzinfo=dt.UTC)
    records = sorted(enumerate(ctx.pending("calendar")), key=lambda x: (x[1]["start"], x[0]))
    for order, (_, rec) in enumerate(records):
        uid = f"{stable_id(rec['provenance'], rec['start'], rec['summary'], str(order), length=20)}@mypcbench"
        start = dt.datetime.strptime(rec["start"], DATETIME)
        end = dt.datetime.strptime(rec["end"], DATETIME)
        vevent = icalendar.Event()
        vevent.add("uid", uid)
        vevent.add("dtstamp", stamp)
        vevent.add("summary", rec["summary"])
        if rec["all_day"]:
            vevent.add("dtstart", start.date())
            vevent.add("dtend", max(end.date(), start.date() + dt.timedelta(days=1)))
        else:
            vevent.add("dtstart", start.replace(tzinfo=ZONE))
            vevent.add("dtend", end.replace(tzinfo=ZONE))
        if rec.get("description"):
            vevent.add("description", rec["description"])
        if rec.get("location"):
            vevent.add("location", rec["location"])
        if rec.get("rrule"):
            vevent.add("rrule", icalendar.vRecur.from_ical(rec["rrule"]))
        vevent.add("x-mypcbench-provenance", rec["provenance"])
        cal.add_component(vevent)
        eid = ctx.add(
            "calendar",
            "events",
            {
                "calendar_id": 1,
                "uid": uid,
                "summary": rec["summary"],
                "description": rec.get("description"),
                "location": rec.get("location"),
                "start_at": rec["start"],
                "end_at": rec["end"],
                "all_day": int(rec["all_day"]),
                "rrule": rec.get("rrule"),
                "reminder_minutes": reminder,
            },
            rec["provenance"],
        )
        for name in rec.get("attendees", []):
            ctx.add("calendar", "attendees", {"event_id": eid, "name": name}, rec["provenance"])
    cal.add_missing_timezones()  # one VTIMEZONE for America/New_York, with its EST/EDT rules
    ctx.path("home/user/Calendar/personal.ics", "calendar").write_bytes(cal.to_ical())
