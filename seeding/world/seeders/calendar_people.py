"""``calendar_people``: who is on each HooliCalendar event (attendees with their responses, Michael as
organizer or guest), its reminders and colour, plus the colour palette, working hours and subscribed
calendars. Runs after ``calendar`` and reads the events it wrote.
"""

# Google Calendar's event colours.
PALETTE = [
    ("Tomato", "#d50000"),
    ("Flamingo", "#e67c73"),
    ("Tangerine", "#f4511e"),
    ("Banana", "#f6bf26"),
    ("Sage", "#33b679"),
    ("Basil", "#0b8043"),
    ("Peacock", "#039be5"),
    ("Blueberry", "#3f51b5"),
    ("Lavender", "#7986cb"),
    ("Grape", "#8e24aa"),
    ("Graphite", "#616161"),
]
# First matching keyword (lower case) -> colour name.
COLOR_RULES = [
    ("birthday", "Flamingo"),
    ("trip:", "Sage"),
    ("flight", "Sage"),
    ("improv", "Grape"),
    ("dundies", "Banana"),
    ("client", "Tangerine"),
    ("vendor", "Tangerine"),
    ("corporate", "Blueberry"),
    ("david wallace", "Blueberry"),
    ("date night", "Tomato"),
    ("holly", "Tomato"),
    ("lunch", "Basil"),
    ("dinner", "Basil"),
]
OFFICE = [
    "Jim Halpert",
    "Dwight Schrute",
    "Pam Beesly",
    "Kevin Malone",
    "Oscar Martinez",
    "Darryl Philbin",
    "Toby Flenderson",
]
CORPORATE: list[tuple[str, str | None]] = [("David Wallace", "david.wallace@dundermifflin.com")]
CLIENT_CONTACTS = {
    "Lackawanna County": ("Carla Fern", "cfern@lackawannacounty.org"),
    "Dunmore High School": ("Principal Ed Truck", "etruck@dunmoreschools.org"),
    "Blue Cross": ("Christian Slater", "cslater@bluecrosspa.com"),
    "Harper Collins": ("Nancy Bright", "nbright@harpercollins.com"),
    "Scranton White Pages": ("Tony Gardner", "tgardner@scrantonwhitepages.com"),
}
# Meetings Michael is invited to and keeps declining.
DECLINES = ("Conference call with corporate",)


def _people(ctx, summary: str, rng) -> list[tuple[str, str | None]]:
    emails: dict[str, str | None] = {c["name"]: c.get("email") for c in ctx.persona.spec.get("contacts", [])}
    lowered = summary.lower()
    for client, contact in CLIENT_CONTACTS.items():
        if client.lower() in lowered:
            return [(contact[0], contact[1]), ("Dwight Schrute", emails.get("Dwight Schrute"))]
    for name in emails:
        if name.lower() in lowered or (name.split()[0].lower() in lowered and len(name.split()[0]) > 3):
            return [(name, emails[name])]
    if "corporate" in lowered or "david wallace" in lowered or "quarterly review" in lowered:
        return CORPORATE
    if any(
        word in lowered
        for word in ("huddle", "standup", "all-hands", "pipeline", "budget", "brainstorm", "dundies", "team")
    ):
        return [(name, emails.get(name)) for name in rng.sample(OFFICE, 4)]
    if any(word in lowered for word in ("interview", "performance", "walkthrough")):
        return [("Toby Flenderson", emails.get("Toby Flenderson"))]
    return []


def seed_calendar_people(ctx):
    rng = ctx.rng("calendar_people")
    colors = {
        name: ctx.add("calendar", "colors", {"name": name, "hex": hexcode}, "calendar palette")
        for name, hexcode in PALETTE
    }
    del colors
    me = ctx.persona.spec["identity"]
    for event in ctx.rows("calendar", "events"):
        summary = event["summary"]
        lowered = summary.lower()
        event["color"] = next((color for word, color in COLOR_RULES if word in lowered), None)
        event["visibility"] = (
            "private" if any(w in lowered for w in ("date", "dentist", "mom", "dry cleaning")) else "default"
        )
        if event["all_day"]:
            ctx.add(
                "calendar",
                "reminders",
                {"event_id": event["id"], "method": "popup", "minutes_before": 1440},
                "calendar reminders",
            )
            continue
        minutes = event.get("reminder_minutes") or 30
        ctx.add(
            "calendar",
            "reminders",
            {"event_id": event["id"], "method": "popup", "minutes_before": minutes},
            "calendar reminders",
        )
        if event.get("rrule") is None and any(
            w in lowered for w in ("client", "review", "flight", "dundies", "dinner")
        ):
            ctx.add(
                "calendar",
                "reminders",
                {"event_id": event["id"], "method": "email", "minutes_before": 1440},
                "calendar reminders",
            )
        guests = _people(ctx, summary, rng)
        if not guests:
            continue
        declined = summary in DECLINES
        organizer_is_me = not declined and guests != CORPORATE
        ctx.add(
            "calendar",
            "attendees",
            {
                "event_id": event["id"],
                "name": me["name"],
                "email": me.get("email"),
                "response": "declined" if declined and rng.random() < 0.6 else "accepted",
                "organizer": int(organizer_is_me),
            },
            event["provenance"],
        )
        for name, email in guests:
            ctx.add(
                "calendar",
                "attendees",
                {
                    "event_id": event["id"],
                    "name": name,
                    "email": email,
                    "response": "accepted"
                    if not organizer_is_me
                    else rng.choice(["accepted", "accepted", "accepted", "tentative", "needsAction"]),
                    "organizer": int(not organizer_is_me),
                },
                event["provenance"],
            )
    for day in ("mon", "tue", "wed", "thu", "fri"):
        ctx.add("calendar", "working_hours", {"weekday": day, "starts": "09:00", "ends": "17:30"}, "identity")
    for name, url, color in (
        ("Holidays in United States", "calendar://holidays/en.usa", "#0b8043"),
        ("Philadelphia 76ers", "calendar://sports/nba/phi", "#3f51b5"),
        ("Dunder Mifflin Scranton", "calendar://dundermifflin/scranton", "#f4511e"),
    ):
        ctx.add("calendar", "subscriptions", {"name": name, "url": url, "color": color}, "calendar subscriptions")
