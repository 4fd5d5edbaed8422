"""What HooliMail keeps besides the messages, derived from the messages the ``mail`` seeder wrote: the
address book and its groups, recipients, labels on messages, stars and importance, the filters that
label mail as it arrives, mailing lists, his identity and signature, drafts Michael
has not sent, and his recent searches. Nothing is dated after the anchor.
"""

import datetime as dt
import re

from ..core import DATETIME, ZONE_NAME

SERVICE_HINTS = ("receipt", "order", "booking", "confirmed", "ride", "reservation", "statement", "delivered")
DRAFTS = [
    ("Re: {subject}", "Thanks for the note. I wanted to say that I"),
    ("Dundies idea", "Category idea: Best Dundie Acceptance Speech. Also I need to"),
    ("Holly", "Holly, I have been thinking about what you said at lunch and"),
    ("Business idea (CONFIDENTIAL)", "Ryan, picture this: a paper company, but online. We would"),
    ("Toby", "Toby, I am writing to formally"),
]
SEARCHES = [
    "Jan",
    "expense report",
    "Dundies",
    "Sandals",
    "Chili's",
    "Holly",
    "receipt",
    "improv",
    "David Wallace",
    "trophies",
    "Barbados",
    "flight confirmation",
    "Ryan business",
    "Pretzel day",
    "rent",
]


def _label_for(message: dict, labels: dict[str, int], newsletters: set[str]) -> list[int]:
    text = f"{message['subject']} {message['body'][:400]}".lower()
    found = []
    for name, lid in labels.items():
        words = {
            "Movie Night Planning": ("movie",),
            "Improv Class": ("improv",),
            "Dundies": ("dundie",),
            "Newsletters": (),
            "Receipts": SERVICE_HINTS,
            "Travel": ("flight", "sandals", "booking", "itinerary"),
            "Family": (),
        }.get(name, (name.lower(),))
        if name == "Newsletters" and message["from_addr"] in newsletters:
            found.append(lid)
        elif any(word in text for word in words):
            found.append(lid)
    return found


def _settings(ctx, me: str, contacts: dict, newsletters: set[str], messages: list[dict]) -> dict[str, int]:
    """Identity, signature, the filters' labels and rules, and the mailing lists; returns labels by name."""
    ident = ctx.persona.spec["identity"]
    # His identity: the address he sends from and the signature under it.
    signature = ctx.persona.override("mail").get("signature") or ""
    identity = {"name": ident["name"], "address": me, "signature": signature, "is_default": 1}
    ctx.add("mail", "identities", identity, "identity")
    # Dates are shown in the persona's zone (New York, with daylight saving).
    ctx.add("mail", "settings", {"key": "timezone", "value": ZONE_NAME}, "identity")
    # Labels the filters put on arriving mail (besides the persona's own labels).
    for name in ("Newsletters", "Receipts", "Travel", "Family"):
        ctx.add("mail", "labels", {"name": name}, "mail.filters")
    labels = {row["name"]: row["id"] for row in ctx.rows("mail", "labels")}
    family = [c["email"] for c in contacts.values() if c.get("relationship") in ("sister",)]
    rules = [("from", addr, "Newsletters") for addr in sorted(newsletters)]
    rules += [("subject", word, "Receipts") for word in ("receipt", "order")]
    rules += [("subject", "booking confirmed", "Travel")] + [("from", addr, "Family") for addr in family]
    for field, value, label in rules:
        ctx.add(
            "mail",
            "filters",
            {"match_field": field, "match_value": value, "label_id": labels[label], "skip_inbox": 0},
            "mail.filters",
        )
    for addr in sorted(newsletters):
        sender = next((m["from_name"] for m in messages if m["from_addr"] == addr), None)
        if sender is None:  # a list this persona never received an issue of
            continue
        ctx.add(
            "mail",
            "mailing_lists",
            {
                "name": sender,
                "address": addr,
                "list_unsubscribe": f"https://{addr.split('@')[1]}/unsubscribe",
                "subscribed": 1,
            },
            "routines.newsletters",
        )
    return labels


def seed_mail_state(ctx, newsletters: set[str], corporate: list[dict]):
    rng = ctx.rng("mail_state")
    ident = ctx.persona.spec["identity"]
    me = ident.get("email", "")
    messages = ctx.rows("mail", "messages")
    contacts = {c["email"].lower(): c for c in ctx.persona.section("contacts", []) if c.get("email")}
    contacts.update({c["email"]: c for c in corporate})
    labels = _settings(ctx, me, contacts, newsletters, messages)
    # The address book: everyone he has corresponded with, with how often.
    book: dict[str, dict] = {}
    for message in messages:
        other = message["to_addr"] if message["from_addr"] == me else message["from_addr"]
        name = message["from_name"] if message["from_addr"] != me else contacts.get(other, {}).get("name")
        entry = book.setdefault(other, {"name": name or other.split("@")[0], "count": 0, "last": message["sent_at"]})
        entry["count"] += 1
        entry["last"] = max(entry["last"], message["sent_at"])
    groups = {
        name: ctx.add("mail", "contact_groups", {"name": name}, "mail.contacts")
        for name in ("Work", "Personal", "Services")
    }
    domain = me.split("@")[-1]
    for addr, entry in sorted(book.items()):
        cid = ctx.add(
            "mail",
            "contacts",
            {
                "name": entry["name"],
                "address": addr,
                "times_contacted": entry["count"],
                "last_contacted": entry["last"],
            },
            "mail.contacts",
        )
        group = "Work" if addr.endswith("@" + domain) else "Personal" if addr in contacts else "Services"
        ctx.add("mail", "contact_group_members", {"group_id": groups[group], "contact_id": cid}, "mail.contacts")
    # Per message: its recipients, labels, stars (a thread's participants are its messages' senders and
    # recipients: the app reads them from there, it keeps no table of them).
    for message in messages:
        ctx.add(
            "mail",
            "message_recipients",
            {"message_id": message["id"], "kind": "to", "address": message["to_addr"]},
            message["provenance"],
        )
        sender = message["from_addr"]
        if sender != me and sender.endswith("@" + domain) and rng.random() < 0.15:
            cc = rng.choice([a for a in book if a.endswith("@" + domain) and a not in (sender, me)] or [sender])
            ctx.add(
                "mail",
                "message_recipients",
                {"message_id": message["id"], "kind": "cc", "address": cc},
                message["provenance"],
            )
        for lid in _label_for(message, labels, newsletters):
            ctx.add("mail", "message_labels", {"message_id": message["id"], "label_id": lid}, message["provenance"])
        relationship = contacts.get(sender, {}).get("relationship")
        starred = relationship in ("new_love_interest", "boss") or "REJECTED" in message["subject"]
        if starred or (relationship and rng.random() < 0.05):
            ctx.add(
                "mail",
                "message_flags",
                {
                    "message_id": message["id"],
                    "starred": 1,
                    "important": int(relationship in ("boss", "ex_girlfriend")),
                },
                message["provenance"],
            )
    # Drafts he started and never sent, and what he searched for lately.
    received = [
        m
        for m in messages
        if m["from_addr"] in contacts and m["sent_at"][:10] >= (ctx.anchor - dt.timedelta(days=30)).isoformat()
    ]
    for number, (subject, body) in enumerate(DRAFTS):
        base = received[-1 - 3 * number] if received and len(received) > 3 * number else None
        named = (a for a, c in contacts.items() if c["name"].split()[0] in subject or c["name"].split()[0] in body)
        to = base["from_addr"] if base and number == 0 else next(named, "")
        when = dt.datetime.combine(
            ctx.anchor - dt.timedelta(days=rng.randint(0, 20)), dt.time(rng.randint(8, 22), rng.randint(0, 59))
        )
        ctx.add(
            "mail",
            "drafts",
            {
                "to_addr": to or "",
                "subject": subject.format(
                    subject=re.sub(r"^re:\s*", "", base["subject"], flags=re.I) if base else "your note"
                ),
                "body": body,
                "updated_at": when.strftime(DATETIME),
            },
            "mail.drafts",
        )
    for number, query in enumerate(rng.sample(SEARCHES, k=len(SEARCHES))):
        when = dt.datetime.combine(
            ctx.anchor - dt.timedelta(days=2 * number + rng.randint(0, 1)),
            dt.time(rng.randint(8, 22), rng.randint(0, 59)),
        )
        ctx.add("mail", "search_history", {"query": query, "searched_at": when.strftime(DATETIME)}, "mail.search")
