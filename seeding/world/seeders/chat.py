"""HooliChat and HooliWork: channels, the queued spec mentions, and routine conversation up to volume.

Direct-message volume per contact follows the contact's ``frequency``; lines are built from the contact's
shared activities, so routine chat stays on the persona's topics.
"""

import datetime as dt

from ..fanout import ME
from .routine import target

WEIGHT = {"daily": 6.0, "weekly": 1.5, "monthly": 0.4}
OPENERS = [
    "Hey {first}! Quick question about {activity}.",
    "{first}, are we still on for {activity}?",
    "Can't stop thinking about {activity}. You?",
    "{first}!!! {activity} later?",
    "Just had the best idea for {activity}.",
    "Did you see what happened at {activity} today?",
    "Thoughts on {activity} this week?",
    "Reminder: {activity}. Don't be late {first}.",
]
REPLIES = [
    "Sure thing.",
    "Ha, maybe.",
    "I'll let you know.",
    "Sounds good Michael.",
    "That's what she said?",
    "Can we talk about this tomorrow?",
    "Okay.",
    "Not sure that's a good idea.",
    "I'm in!",
    "Please stop sending voice memos.",
]
WORK_CHANNELS = [
    ("general", "Office-wide announcements"),
    ("sales", "Sales team"),
    ("party-planning-committee", "PPC"),
    ("random", "Anything goes"),
]
WORK_LINES = [
    "Conference room in 5 minutes. Bring your ideas and your A-game.",
    "Who took my World's Best Boss mug?",
    "Great numbers this week team! Pizza on me (Alfredo's, not Pizza by Alfredo).",
    "Reminder: quarterly reports due Friday.",
    "Can someone fix the printer? It's making the noise again.",
    "Birthday cake in the break room at 3!",
    "Client call moved to 2pm.",
    "Who wants to join improv this Thursday?",
    "Please fill out the expense form by EOD.",
    "Fire drill at 11. This is a drill. Probably.",
]


def _first(name):
    return (name or "").split()[0]


def seed_chat(ctx):
    rng = ctx.rng("chat")
    me = ctx.persona.name
    total_target = target(ctx, "chat_and_workplace_messages")
    contacts = ctx.persona.section("contacts", [])
    for app in ("buzzchat", "workbuzz"):
        users = {row["name"]: row["id"] for row in ctx.rows(app, "users")}
        channels = {}

        def channel(name, kind, members, prov, app=app, users=users, channels=channels):
            if name not in channels:
                cid = ctx.add(
                    app,
                    "channels",
                    {"kind": kind, "name": name, "created_at": ctx.start.isoformat() + " 09:00:00"},
                    prov,
                )
                channels[name] = cid
                for member in members:
                    if member in users:
                        ctx.add(app, "channel_members", {"channel_id": cid, "user_id": users[member]}, prov)
            return channels[name]

        if app == "workbuzz":
            for name, _ in WORK_CHANNELS:
                channel(name, "channel", list(users), "app_overrides.workbuzz")
        messages = []
        for rec in ctx.pending(f"chat:{app}"):
            if rec.get("contact"):
                cid = channel(rec["contact"], "dm", [me, rec["contact"]], rec["provenance"])
                if rec["contact"] not in users:
                    users[rec["contact"]] = ctx.add(
                        app, "users", {"name": rec["contact"], "relationship": "other"}, rec["provenance"]
                    )
            else:
                cid = channel(rec["channel"], "group", rec.get("members") or list(users), rec["provenance"])
            sender = me if rec.get("sender", ME) in (ME, None) else rec["sender"]
            if sender not in users:
                users[sender] = ctx.add(app, "users", {"name": sender, "relationship": "other"}, rec["provenance"])
            messages.append((rec["at"], cid, users[sender], rec["body"], rec["provenance"]))
        share = 0.65 if app == "buzzchat" else 0.35
        need = round(total_target * share) - len(messages)
        if app == "buzzchat":
            people = [c for c in contacts if "buzzchat" in c.get("apps_present_in", ["buzzchat"])]
            weights = [WEIGHT.get(c.get("frequency"), 1.0) for c in people]
            span = (ctx.anchor - ctx.start).days
            while need > 0 and people:
                person = rng.choices(people, weights)[0]
                idx = contacts.index(person)
                cid = channel(person["name"], "dm", [me, person["name"]], f"contacts[{idx}]")
                users.setdefault(person["name"], 1)
                when = dt.datetime.combine(
                    ctx.start + dt.timedelta(days=rng.randrange(span + 1)),
                    dt.time(rng.randint(8, 22), rng.randint(0, 59)),
                )
                activity = rng.choice(person.get("shared_activities") or ["catching up"]).replace("_", " ")
                messages.append(
                    (
                        when.strftime("%Y-%m-%d %H:%M:%S"),
                        cid,
                        users[me],
                        rng.choice(OPENERS).format(first=_first(person["name"]), activity=activity),
                        f"contacts[{idx}]",
                    )
                )
                need -= 1
                if need > 0:
                    reply = when + dt.timedelta(minutes=rng.randint(1, 90))
                    messages.append(
                        (
                            reply.strftime("%Y-%m-%d %H:%M:%S"),
                            cid,
                            users[person["name"]],
                            rng.choice(REPLIES),
                            f"contacts[{idx}]",
                        )
                    )
                    need -= 1
        else:
            names = list(users)
            span = (ctx.anchor - ctx.start).days
            while need > 0:
                name, _ = rng.choice(WORK_CHANNELS)
                day = ctx.start + dt.timedelta(days=rng.randrange(span + 1))
                if day.weekday() >= 5:
                    continue
                when = dt.datetime.combine(day, dt.time(rng.randint(9, 17), rng.randint(0, 59)))
                sender = rng.choice(names)
                messages.append(
                    (
                        when.strftime("%Y-%m-%d %H:%M:%S"),
                        channels[name],
                        users[sender],
                        rng.choice(WORK_LINES),
                        "routines.work",
                    )
                )
                need -= 1
        messages.sort(key=lambda m: (m[0], m[1]))
        for at, cid, sender_id, body, prov in messages:
            ctx.add(app, "messages", {"channel_id": cid, "sender_id": sender_id, "sent_at": at, "body": body}, prov)
