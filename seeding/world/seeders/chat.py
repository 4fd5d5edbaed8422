"""HooliChat and HooliWork: channels, the queued spec mentions, and routine conversation up to volume.

Direct-message volume per contact follows the contact's ``frequency``; lines are built from the contact's
shared activities, so routine chat stays on the persona's topics.
"""

import datetime as dt
import re

from ..apps import target
from ..core import DATETIME
from ..fanout import ME
from ..persona import scrub
from ..text import conversation, money_talk
from . import chat_state

WEIGHT = {"daily": 6.0, "weekly": 1.5, "monthly": 0.4}
WORK_CHANNELS = [
    ("general", "Office-wide announcements"),
    ("sales", "Sales team"),
    ("party-planning-committee", "PPC"),
    ("random", "Anything goes"),
    ("warehouse", "Shipping, receiving and the loading dock"),
    ("accounting", "Receipts, invoices and expense reports"),
    ("customer-service", "Client calls and complaints"),
    ("hr-announcements", "Policies, training and benefits"),
    ("corporate", "News from Stamford"),
    ("it-help", "Computers, printers and passwords"),
    ("dundies-2026", "Dundie Awards 2026 planning"),
]
CHANNEL_WEIGHTS = [5, 6, 3, 4, 3, 2, 2, 1, 1, 1, 2]  # the busy channels first, as in a real branch
# Michael's own posts per work channel over the year (the released world's counts): a salesman at heart, he
# posts most in #sales, then #random and #general; #accounting and #hr-announcements only when he must.
MICHAEL_POSTS = {
    "sales": 25,
    "random": 24,
    "general": 23,
    "warehouse": 20,
    "party-planning-committee": 19,
    "accounting": 12,
    "dundies-2026": 10,
    "customer-service": 6,
    "it-help": 4,
    "hr-announcements": 4,
    "corporate": 4,
}


def _first(name):
    return (name or "").split()[0]


class Chat:
    """One chat app while it is filled: its users and channels by name (ids), created on first use."""

    def __init__(self, ctx, app: str):
        self.ctx = ctx
        self.app = app
        self.users: dict[str, int] = {row["name"]: row["id"] for row in ctx.rows(app, "users")}
        self.channels: dict[str, int] = {}

    def channel(self, name, kind, members, prov) -> int:
        if name not in self.channels:
            cid = self.ctx.add(
                self.app,
                "channels",
                {"kind": kind, "name": name, "created_at": self.ctx.start.isoformat() + " 09:00:00"},
                prov,
            )
            self.channels[name] = cid
            for member in members:
                if member in self.users:
                    self.ctx.add(self.app, "channel_members", {"channel_id": cid, "user_id": self.users[member]}, prov)
        return self.channels[name]

    def user(self, name, prov) -> int:
        if name not in self.users:
            self.users[name] = self.ctx.add(self.app, "users", {"name": name, "relationship": "other"}, prov)
        return self.users[name]


def _trip(ctx, provenance: str) -> dict:
    """The spec trip a provenance like ``trips[1]`` names (empty when it names something else)."""
    match = re.match(r"trips\[(\d+)\]", provenance)
    trips = ctx.persona.section("trips", [])
    return trips[int(match.group(1))] if match and int(match.group(1)) < len(trips) else {}


def _queued_messages(ctx, rng, chat: Chat) -> list:
    """The messages other seeders queued for this app (events, plants), in their channels."""
    me = ctx.persona.name
    messages = []
    for rec in ctx.pending(f"chat:{chat.app}"):
        if rec.get("contact"):
            cid = chat.channel(rec["contact"], "dm", [me, rec["contact"]], rec["provenance"])
            chat.user(rec["contact"], rec["provenance"])
        else:
            cid = chat.channel(rec["channel"], "group", rec.get("members") or list(chat.users), rec["provenance"])
        sender = me if rec.get("sender", ME) in (ME, None) else rec["sender"]
        if sender == me and rec.get("contact") and conversation.is_narration(rec["body"], me.split()[0]):
            # The spec describes the message instead of giving it: write what he would have said.
            when = dt.datetime.strptime(rec["at"], DATETIME)
            lines = conversation.trip_mention(rng, rec["body"], rec["contact"], _trip(ctx, rec["provenance"]), when)
            for mine, text in lines:
                who = chat.user(me if mine else rec["contact"], rec["provenance"])
                messages.append((when.strftime(DATETIME), cid, who, text, rec["provenance"]))
                when += dt.timedelta(minutes=rng.randint(2, 30))
            continue
        messages.append((rec["at"], cid, chat.user(sender, rec["provenance"]), rec["body"], rec["provenance"]))
    return messages


def _money_messages(ctx, rng, chat: Chat) -> list:
    """DMs about money the spec records elsewhere: stock buys a contact talked him into, and the
    Zelle payments he sends (from the bank's ledger), each acknowledged by the person paid."""
    me = ctx.persona.name
    contacts = {c["name"]: c for c in ctx.persona.section("contacts", [])}
    messages: list[tuple] = []

    def add(lines, contact, when, provenance):
        cid = chat.channel(contact, "dm", [me, contact], provenance)
        for mine, text in lines:
            messages.append(
                (when.strftime(DATETIME), cid, chat.user(me if mine else contact, provenance), text, provenance)
            )
            when += dt.timedelta(minutes=rng.randint(2, 40))

    for talk in money_talk.stock_talks(ctx.persona.spec):
        contact = contacts.get(talk["contact"], {})
        if "buzzchat" not in contact.get("apps_present_in", ["buzzchat"]):
            continue
        day = ctx.day(talk["date"])
        if day > ctx.anchor:
            continue
        when = dt.datetime.combine(day, dt.time(rng.randint(18, 21), rng.randint(0, 59)))
        add(money_talk.stock_exchange(rng, talk, contact), talk["contact"], when, "investments")
    for row in ctx.rows("vaultbank", "transactions"):
        description = row.get("description") or ""
        payee = row.get("merchant")
        if not description.startswith("Zelle to") or payee not in contacts:
            continue
        memo = re.search(r"\(([^()]+)\)", description)
        when = dt.datetime.combine(
            dt.date.fromisoformat(row["posted_date"]), dt.time(rng.randint(8, 11), rng.randint(0, 59))
        )
        add(
            money_talk.zelle_exchange(rng, abs(row["amount"]), memo.group(1) if memo else ""),
            payee,
            when,
            row["provenance"],
        )
    return messages


def _fill_personal(ctx, rng, chat: Chat, need: int) -> list:
    """Direct-message exchanges with the contacts, as often as each one's ``frequency`` says, composed in
    each contact's voice about what they share (``seeding.world.text.conversation``)."""
    me = ctx.persona.name
    contacts = ctx.persona.section("contacts", [])
    messages: list[tuple] = []
    people = [c for c in contacts if "buzzchat" in c.get("apps_present_in", ["buzzchat"])]
    weights = [WEIGHT.get(c.get("frequency"), 1.0) for c in people]
    span = (ctx.anchor - ctx.start).days
    while need > 0 and people:
        person = rng.choices(people, weights)[0]
        idx = contacts.index(person)
        cid = chat.channel(person["name"], "dm", [me, person["name"]], f"contacts[{idx}]")
        chat.users.setdefault(person["name"], 1)
        when = dt.datetime.combine(
            ctx.start + dt.timedelta(days=rng.randrange(span + 1)),
            dt.time(rng.randint(8, 21), rng.randint(0, 59)),
        )
        for mine, text in conversation.exchange(rng, when, person)[:need]:
            messages.append(
                (
                    when.strftime("%Y-%m-%d %H:%M:%S"),
                    cid,
                    chat.users[me if mine else person["name"]],
                    text,
                    f"contacts[{idx}]",
                )
            )
            need -= 1
            # The next line answers this one after the answering person's usual delay.
            when += dt.timedelta(minutes=conversation.reply_delay(rng, person.get("relationship") if mine else "me"))
            if when.date() > ctx.anchor:
                break
    return messages


def _fill_work(ctx, rng, chat: Chat, need: int, queued: list) -> list:
    """Workday posts in the work channels, each in the sender's manner: Michael's as often as
    ``MICHAEL_POSTS`` says (counting what other seeders queued for him), the rest from anyone else there."""
    me = ctx.persona.name
    names = list(chat.users)
    others = [name for name in names if name != me] or names
    span = (ctx.anchor - ctx.start).days
    mine: dict[int, int] = {}
    for _, cid, sender_id, _, _ in queued:
        if sender_id == chat.users.get(me):
            mine[cid] = mine.get(cid, 0) + 1
    plan = [name for name, posts in MICHAEL_POSTS.items() for _ in range(posts - mine.get(chat.channels[name], 0))]
    messages = []
    while need > 0:
        michael = bool(plan)
        name = plan.pop(0) if michael else rng.choices(WORK_CHANNELS, CHANNEL_WEIGHTS)[0][0]
        day = ctx.start + dt.timedelta(days=rng.randrange(span + 1))
        while day.weekday() >= 5:
            day = ctx.start + dt.timedelta(days=rng.randrange(span + 1))
        when = dt.datetime.combine(day, dt.time(rng.randint(9, 17), rng.randint(0, 59)))
        sender = me if michael else rng.choice(others)
        messages.append(
            (
                when.strftime("%Y-%m-%d %H:%M:%S"),
                chat.channels[name],
                chat.users[sender],
                conversation.work_post(rng, name, sender, when, names),
                "routines.work",
            )
        )
        need -= 1
    return messages


def seed_chat(ctx):
    rng = ctx.rng("chat")
    total_target = target(ctx, "chat_and_workplace_messages")
    for app in ("buzzchat", "workbuzz"):
        chat = Chat(ctx, app)
        if app == "workbuzz":
            for name, _ in WORK_CHANNELS:
                chat.channel(name, "channel", list(chat.users), "app_overrides.workbuzz")
        messages = _queued_messages(ctx, rng, chat)
        if app == "buzzchat":
            messages += _money_messages(ctx, rng, chat)
        share = 0.65 if app == "buzzchat" else 0.35
        need = round(total_target * share) - len(messages)
        if app == "buzzchat":
            messages += _fill_personal(ctx, rng, chat, need)
        else:
            messages += _fill_work(ctx, rng, chat, need, messages)
        messages.sort(key=lambda m: (m[0], m[1]))
        remarks = ctx.persona.remarks
        for at, cid, sender_id, body, prov in messages:
            body = scrub(body, remarks)
            ctx.add(app, "messages", {"channel_id": cid, "sender_id": sender_id, "sent_at": at, "body": body}, prov)
    chat_state.seed_chat_state(ctx, dict(WORK_CHANNELS))
