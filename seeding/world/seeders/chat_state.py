"""What a chat app keeps besides the messages, derived from the messages the ``chat`` seeder wrote:
reactions, read receipts, quoted replies and threads, pins, mentions, attachments (Kevin's food photos,
Michael's voice memos), presence, call logs, channel settings and topics, saved items, reminders, huddles,
user groups and custom emoji. Every row points at the messages, channels and users it is about, and
nothing is dated after the anchor.
"""

import datetime as dt
import re

from ..core import DATETIME

EMOJI = ["👍", "😂", "❤️", "🎉", "😮", "🙄", "🔥", "👏"]
EMOJI_BY_RELATIONSHIP = {
    "new_love_interest": ["❤️", "😂", "😍", "🥰"],
    "close_friend": ["😂", "👍", "🙄"],
    "loyal_subordinate": ["👍", "🫡", "💯"],
    "ex_girlfriend": ["🙄", "👍"],
    "mentee": ["👍"],
    "hr_representative": ["👍"],
}
CUSTOM_EMOJI = [
    ("worlds-best-boss", "☕"),
    ("dundie", "🏆"),
    ("pretzel-day", "🥨"),
    ("beets", "🫜"),
    ("thats-what-she-said", "😏"),
    ("scranton", "🏙️"),
    ("paper", "📄"),
    ("prison-mike", "🔒"),
]
USER_GROUPS = {
    "sales-team": ["Jim Halpert", "Dwight Schrute", "Michael Scott", "Ryan Howard"],
    "warehouse": ["Darryl Philbin"],
    "managers": ["Michael Scott", "Dwight Schrute"],
    "ppc": ["Pam Beesly", "Michael Scott"],
}


def _at(value: str) -> dt.datetime:
    return dt.datetime.strptime(value, DATETIME)


def _cap(ctx, moment: dt.datetime) -> str:
    """A time after an event but never past the end of the anchor day."""
    last = dt.datetime.combine(ctx.anchor, dt.time(23, 59))
    return min(moment, last).strftime(DATETIME)


def _members(ctx, app) -> dict[int, list[int]]:
    members: dict[int, list[int]] = {}
    for row in ctx.rows(app, "channel_members"):
        members.setdefault(row["channel_id"], []).append(row["user_id"])
    return members


def _common(ctx, rng, app: str):
    """Reactions, read receipts, pins, mentions, presence and channel settings: both chat apps have them."""
    messages = ctx.rows(app, "messages")
    users = {row["id"]: row for row in ctx.rows(app, "users")}
    channels = {row["id"]: row for row in ctx.rows(app, "channels")}
    members = _members(ctx, app)
    first_names = {row["name"].split()[0].lower(): uid for uid, row in users.items()}
    last_by_channel: dict[int, dict] = {}
    for message in messages:
        last_by_channel[message["channel_id"]] = message
        when = _at(message["sent_at"])
        audience = [u for u in members.get(message["channel_id"], users) if u != message["sender_id"]]
        # Reactions: about one message in four gets one, from someone who saw it.
        if audience and rng.random() < 0.27:
            who = rng.choice(audience)
            pool = EMOJI_BY_RELATIONSHIP.get(users.get(who, {}).get("relationship"), EMOJI)
            ctx.add(
                app,
                "reactions",
                {
                    "message_id": message["id"],
                    "user_id": who,
                    "emoji": rng.choice(pool),
                    "reacted_at": _cap(ctx, when + dt.timedelta(minutes=rng.randint(1, 90))),
                },
                message["provenance"],
            )
        # Mentions: a colleague's first name written in a group channel.
        if channels[message["channel_id"]]["kind"] != "dm":
            for word in set(re.findall(r"@?([A-Z][a-z]+)", message["body"])):
                uid = first_names.get(word.lower())
                if uid and uid != message["sender_id"]:
                    ctx.add(app, "mentions", {"message_id": message["id"], "user_id": uid}, message["provenance"])
    for cid, channel in channels.items():
        for uid in members.get(cid, []):
            last = last_by_channel.get(cid)
            if not last:
                continue
            behind = rng.random() < 0.2 and _at(last["sent_at"]).date() >= ctx.anchor - dt.timedelta(days=2)
            ctx.add(
                app,
                "read_state",
                {
                    "channel_id": cid,
                    "user_id": uid,
                    "last_read_message_id": None if behind else last["id"],
                    "last_read_at": None if behind else _cap(ctx, _at(last["sent_at"]) + dt.timedelta(minutes=20)),
                },
                channel["provenance"],
            )
        ctx.add(
            app,
            "channel_settings",
            {
                "channel_id": cid,
                "muted": int(channel["name"] in ("random", "Todd Packer", "it-help")),
                "notifications": "mentions" if channel["kind"] == "channel" else "all",
                "favorite": int(channel["name"] in ("Holly Flax", "Jim Halpert", "sales", "party-planning-committee")),
            },
            channel["provenance"],
        )
        pinned = [m for m in messages if m["channel_id"] == cid and len(m["body"]) > 60]
        for message in rng.sample(pinned, k=min(len(pinned), rng.choice((0, 1, 1, 2)))):
            ctx.add(
                app,
                "pins",
                {
                    "channel_id": cid,
                    "message_id": message["id"],
                    "pinned_by": rng.choice(members.get(cid) or [1]),
                    "pinned_at": _cap(ctx, _at(message["sent_at"]) + dt.timedelta(hours=rng.randint(1, 30))),
                },
                message["provenance"],
            )
    last_seen: dict[int, str] = {}
    for message in messages:
        last_seen[message["sender_id"]] = message["sent_at"]
    for uid, user in users.items():
        seen = last_seen.get(uid)
        recent = seen and _at(seen).date() >= ctx.anchor - dt.timedelta(days=1)
        ctx.add(
            app,
            "presence",
            {"user_id": uid, "status": "active" if recent else "away", "last_seen_at": seen},
            user["provenance"],
        )


def _buzzchat(ctx, rng):
    app = "buzzchat"
    messages = ctx.rows(app, "messages")
    users = {row["id"]: row for row in ctx.rows(app, "users")}
    channels = {row["id"]: row for row in ctx.rows(app, "channels")}
    by_name = {row["name"]: uid for uid, row in users.items()}
    # The other person of each direct-message channel (DM channels are named after the contact).
    other = {cid: by_name.get(row["name"]) for cid, row in channels.items() if row["kind"] == "dm"}
    previous: dict[int, dict] = {}
    for message in messages:
        cid, sender = message["channel_id"], message["sender_id"]
        before = previous.get(cid)
        previous[cid] = message
        when = _at(message["sent_at"])
        partner = other.get(cid)
        # Read receipts in direct messages: the other person read it (Ryan reads and does not answer).
        if partner and rng.random() < 0.92:
            ctx.add(
                app,
                "message_reads",
                {
                    "message_id": message["id"],
                    "user_id": 1 if sender != 1 else partner,
                    "read_at": _cap(ctx, when + dt.timedelta(minutes=rng.randint(0, 120))),
                },
                message["provenance"],
            )
        # A quoted reply: answering a specific earlier message in the same chat.
        if before and before["sender_id"] != sender and rng.random() < 0.12:
            ctx.add(
                app,
                "quoted_replies",
                {"message_id": message["id"], "quoted_message_id": before["id"]},
                message["provenance"],
            )
        stamp = when.strftime("%Y%m%d_%H%M")
        if users.get(sender, {}).get("name") == "Kevin Malone" and rng.random() < 0.5:  # Kevin sends food photos
            attachment = {"kind": "photo", "filename": f"IMG_{stamp}.jpg", "duration_seconds": None}
        elif (
            sender == 1
            and partner
            and users[partner].get("relationship") == "loyal_subordinate"
            and rng.random() < 0.25
        ):
            attachment = {
                "kind": "voice_memo",
                "filename": f"memo_{stamp}.m4a",
                "duration_seconds": rng.randint(180, 900),
            }
        else:
            continue
        ctx.add(app, "attachments", {"message_id": message["id"], **attachment}, message["provenance"])
    # Calls: phone and video calls with the people he talks to most.
    span = (ctx.anchor - ctx.start).days
    for contact in ctx.persona.section("contacts", []):
        uid = by_name.get(contact["name"])
        if not uid:
            continue
        per_year = {"daily": 40, "weekly": 12, "monthly": 4}.get(contact.get("frequency"), 3)
        if "long_phone_calls" in (contact.get("shared_activities") or []):
            per_year *= 2
        for _ in range(per_year):
            day = ctx.start + dt.timedelta(days=rng.randrange(span + 1))
            outgoing = rng.random() < 0.7
            missed = contact.get("relationship") in ("ex_girlfriend", "mentee") and outgoing and rng.random() < 0.6
            long_call = "long_phone_calls" in (contact.get("shared_activities") or [])
            ctx.add(
                app,
                "calls",
                {
                    "caller_id": 1 if outgoing else uid,
                    "callee_id": uid if outgoing else 1,
                    "started_at": dt.datetime.combine(day, dt.time(rng.randint(8, 22), rng.randint(0, 59))).strftime(
                        DATETIME
                    ),
                    "duration_seconds": 0 if missed else rng.randint(600, 5400) if long_call else rng.randint(20, 900),
                    "kind": "video" if long_call and rng.random() < 0.3 else "voice",
                    "missed": int(missed),
                },
                f"contacts[{ctx.persona.section('contacts').index(contact)}]",
            )
    for uid, user in users.items():
        if uid == 1:
            continue
        spec_contact: dict = next((c for c in ctx.persona.section("contacts", []) if c["name"] == user["name"]), {})
        if not spec_contact:  # someone he only met in a group chat is not in his contact list
            continue
        ctx.add(
            app,
            "contacts",
            {
                "user_id": uid,
                "nickname": None,
                "favorite": int(spec_contact.get("frequency") == "daily"),
                "birthday": spec_contact.get("birthday"),
            },
            user["provenance"],
        )


def _workbuzz(ctx, rng, descriptions: dict):
    app = "workbuzz"
    messages = ctx.rows(app, "messages")
    users = {row["id"]: row for row in ctx.rows(app, "users")}
    by_name = {row["name"]: uid for uid, row in users.items()}
    channels = {row["id"]: row for row in ctx.rows(app, "channels")}
    ctx.add(
        app,
        "workspace",
        {
            "name": ctx.persona.spec["identity"].get("employer", "Workspace"),
            "domain": ctx.persona.spec["identity"].get("email", "@x").split("@")[1],
        },
        "identity",
    )
    for cid, channel in channels.items():
        if channel["name"] in descriptions:
            ctx.add(
                app,
                "channel_topics",
                {
                    "channel_id": cid,
                    "topic": descriptions[channel["name"]],
                    "set_by": 1,
                    "set_at": channel["created_at"],
                },
                channel["provenance"],
            )
    # Threads: a reply in the same channel within the hour answers the message before it.
    last: dict[int, dict] = {}
    for message in messages:
        before = last.get(message["channel_id"])
        last[message["channel_id"]] = message
        when = _at(message["sent_at"])
        if (
            before
            and before["sender_id"] != message["sender_id"]
            and when - _at(before["sent_at"]) < dt.timedelta(hours=3)
        ):
            ctx.add(
                app,
                "message_threads",
                {"message_id": message["id"], "parent_message_id": before["id"]},
                message["provenance"],
            )
        if message["sender_id"] != 1 and rng.random() < 0.015:
            ctx.add(
                app,
                "saved_items",
                {"message_id": message["id"], "saved_at": _cap(ctx, when + dt.timedelta(hours=1))},
                message["provenance"],
            )
        if re.search(r"attach|spreadsheet|report is on|notes", message["body"], re.I) and rng.random() < 0.6:
            ctx.add(
                app,
                "files",
                {
                    "message_id": message["id"],
                    "channel_id": message["channel_id"],
                    "filename": f"{channels[message['channel_id']]['name']}_{when.date().isoformat()}.pdf",
                    "size": rng.randint(20_000, 900_000),
                },
                message["provenance"],
            )
    span = (ctx.anchor - ctx.start).days
    reminders = [
        "Call corporate back",
        "Sign expense reports",
        "Order Dundies trophies",
        "Buy Holly flowers",
        "Return Dwight's binder",
        "Ask Oscar about the 401k",
        "Book the conference room",
        "Pretzel day!",
    ]
    for number in range(24):
        day = ctx.start + dt.timedelta(days=rng.randrange(span + 1))
        ctx.add(
            app,
            "reminders",
            {
                "user_id": 1,
                "text": reminders[number % len(reminders)],
                "remind_at": dt.datetime.combine(day, dt.time(rng.randint(9, 16), 0)).strftime(DATETIME),
                "done": 1,
            },
            "routines.work",
        )
    for _ in range(60):
        day = ctx.start + dt.timedelta(days=rng.randrange(span + 1))
        if day.weekday() >= 5:
            continue
        cid = rng.choice([c for c, row in channels.items() if row["kind"] == "channel"])
        start = dt.datetime.combine(day, dt.time(rng.randint(9, 16), rng.choice((0, 15, 30, 45))))
        hid = ctx.add(
            app,
            "huddles",
            {
                "channel_id": cid,
                "started_by": rng.choice(list(users)),
                "started_at": start.strftime(DATETIME),
                "duration_minutes": rng.randint(3, 45),
            },
            "routines.work",
        )
        for uid in rng.sample(list(users), k=min(len(users), rng.randint(2, 4))):
            ctx.add(app, "huddle_participants", {"huddle_id": hid, "user_id": uid}, "routines.work")
    for handle, names in USER_GROUPS.items():
        gid = ctx.add(app, "user_groups", {"handle": handle}, "routines.work")
        for name in names:
            if name in by_name:
                ctx.add(app, "user_group_members", {"group_id": gid, "user_id": by_name[name]}, "routines.work")
    for name, glyph in CUSTOM_EMOJI:
        ctx.add(
            app, "custom_emoji", {"name": name, "glyph": glyph, "added_by": rng.choice(list(users))}, "routines.work"
        )


def seed_chat_state(ctx, descriptions: dict):
    """Fill the state tables of both chat apps from their messages (run after the messages are written)."""
    rng = ctx.rng("chat_state")
    for app in ("buzzchat", "workbuzz"):
        _common(ctx, rng, app)
    _buzzchat(ctx, rng)
    _workbuzz(ctx, rng, descriptions)
