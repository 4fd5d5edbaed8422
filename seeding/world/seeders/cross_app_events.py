"""``cross_app_events``: each spec event fanned out to the apps it names (booking, order, charge, mail,
calendar entry, chat mention, searches), with the same date, amount and code everywhere."""

import datetime as dt
import re
from dataclasses import dataclass

from ..apps import app_domain, canonical
from ..core import Event
from ..fanout import emit

DEFAULT_DURATION = dt.timedelta(hours=2)


def _merchant_from(description: str) -> str | None:
    match = re.search(r"\bat ([A-Z][\w'&.-]*(?: [A-Z][\w'&.-]*)*)", description)
    return match.group(1) if match else None


@dataclass
class CrossAppEvent:
    """One spec event while it is fanned out: what the spec says, and the event's amount, merchant and code so far."""

    item: dict
    details: dict
    generates: dict
    apps: list
    when: dt.datetime
    event: Event
    merchant: str | None
    amount: float | None
    code: str | None

    @property
    def description(self) -> str:
        return self.item.get("description", "")


def seed_cross_app_events(ctx):
    rng = ctx.rng("cross_app_events")
    for i, item in enumerate(ctx.persona.section("cross_app_events", [])):
        x = _begin(ctx, rng, i, item)
        _book_and_order(ctx, x)
        x.event.code = x.code
        x.event.merchant = x.merchant = (
            x.details.get("bank_merchant")
            or x.merchant
            or (APP_MERCHANT.get(next((a for a in x.apps if a in APP_MERCHANT), ""), None))
            or "Merchant"
        )
        for leave_trace in TRACES:
            leave_trace(ctx, x)


def _begin(ctx, rng, i, item) -> CrossAppEvent:
    """The event of spec entry ``i``, with its amount (items' sum, or a random charge for the bank)."""
    details = item.get("details", {}) or {}
    gen = item.get("generates", {}) or {}
    apps = [canonical(a) for a in item.get("apps", [])]
    when = ctx.moment(item["date"], item.get("time") or details.get("time") or "12:30pm")
    merchant = details.get("merchant") or details.get("restaurant") or _merchant_from(item.get("description", ""))
    items = details.get("items")
    amount = details.get("amount")
    if amount is None and items:
        amount = round(sum(x["price"] * x.get("quantity", 1) for x in items), 2)
    if amount is None and "vaultbank" in apps:
        amount = round(rng.uniform(25, 180), 2)
    people = [gen["buzzchat_mention"]["contact"]] if gen.get("buzzchat_mention") else []
    ev = ctx.add_event(
        Event(
            f"cross_app_events[{i}]",
            item.get("type", "event"),
            item.get("description", item.get("type", "")),
            when.date().isoformat(),
            time=item.get("time"),
            amount=amount,
            merchant=merchant,
            people=people + details.get("people", []),
            extra={"named_apps": sorted(set(apps) | ({"browser"} if gen.get("browser_history") else set()))},
        )
    )
    return CrossAppEvent(item, details, gen, apps, when, ev, merchant, amount, details.get("code"))


def _book_and_order(ctx, x: CrossAppEvent):
    """The reservation and the orders, which set the event's code (and the orders its amount)."""
    details = x.details
    if "tablefind" in x.apps:
        x.code = emit(
            ctx,
            x.event,
            {
                "app": "tablefind",
                "when": x.when,
                "restaurant": details.get("restaurant") or x.merchant or "Restaurant",
                "party_size": details.get("party_size", 2),
                "code": x.code,
                "occasion": details.get("occasion", x.item.get("type")),
                "name": ctx.persona.override("tablefind").get("reservation_name", ctx.persona.name),
            },
        )
    for app in ("hoolishop", "hangrydash"):
        if app not in x.apps:
            continue
        order_items = details.get("items") or [
            {"item": details.get("item") or x.item.get("description", "Order"), "price": x.amount}
        ]
        if app == "hoolishop":
            rec = {
                "app": app,
                "when": x.when,
                "items": order_items,
                "item": order_items[0]["item"],
                "price": order_items[0]["price"],
                "code": x.code,
                "category": details.get("category", "General"),
            }
        else:
            rec = {
                "app": app,
                "when": x.when,
                "restaurant": details.get("restaurant") or x.merchant or "Restaurant",
                "items": order_items,
                "tip": details.get("tip", 0),
                "code": x.code,
            }
        x.code, total = emit(ctx, x.event, rec)
        x.amount = x.event.amount = total


def _charge(ctx, x: CrossAppEvent):
    if "vaultbank" in x.apps and x.amount is not None:
        dining = "tablefind" in x.apps or "hangrydash" in x.apps
        emit(
            ctx,
            x.event,
            {
                "app": "vaultbank",
                "when": x.when,
                "amount": x.amount,
                "merchant": x.merchant,
                "description": f"{x.merchant}" + (f" {x.code}" if x.code else ""),
                "category": x.details.get("category", "Dining" if dining else "Shopping"),
                "code": x.code,
            },
        )


def _mail(ctx, x: CrossAppEvent):
    if "mail" not in x.apps:
        return
    apps, merchant, code = x.apps, x.merchant or "", x.code
    sender = "TableFind" if "tablefind" in apps else "HooliShop" if "hoolishop" in apps else merchant
    addr_app = (
        "tablefind"
        if "tablefind" in apps
        else "hoolishop"
        if "hoolishop" in apps
        else re.sub("[^a-z]+", "", merchant.lower())
    )
    lines = [f"{x.description}", f"Date: {x.when.strftime('%A %B %d, %Y %I:%M %p')}"]
    if code:
        lines.append(f"Confirmation: {code}")
    if x.amount is not None:
        lines.append(f"Amount: ${x.amount:,.2f}")
    emit(
        ctx,
        x.event,
        {
            "app": "mail",
            "when": x.when - dt.timedelta(hours=5),
            "from_name": sender,
            "from_addr": f"noreply@{app_domain(addr_app)}",
            "subject": x.details.get("mail_subject") or f"{sender}: {x.description}"[:120],
            "code": code,
            "body": "\n".join(lines) + "\n",
        },
    )


def _calendar(ctx, x: CrossAppEvent):
    if x.generates.get("calendar_event") or "calendar" in x.apps:
        emit(
            ctx,
            x.event,
            {
                "app": "calendar",
                "when": x.when,
                "end": x.when + DEFAULT_DURATION,
                "summary": x.details.get("calendar_summary") or x.description,
                "description": f"Confirmation {x.code}" if x.code else "",
                "location": x.details.get("restaurant") or x.merchant,
            },
        )


def _chat_mention(ctx, x: CrossAppEvent):
    mention = x.generates.get("buzzchat_mention")
    if mention:
        emit(
            ctx,
            x.event,
            {
                "app": "buzzchat",
                "when": x.when - dt.timedelta(hours=3),
                "contact": mention["contact"],
                "text": mention["context"],
            },
        )


def _work_reminder(ctx, x: CrossAppEvent):
    if "workbuzz" in x.apps:
        emit(
            ctx,
            x.event,
            {
                "app": "workbuzz",
                "when": x.when - dt.timedelta(hours=4),
                "channel": "general",
                "text": x.details.get("workbuzz_text")
                or f"Reminder: {x.description} - {x.when.strftime('%A %I:%M %p')}. Be there.",
            },
        )


def _searches(ctx, x: CrossAppEvent):
    if x.generates.get("browser_history"):
        emit(
            ctx,
            x.event,
            {
                "app": "browser",
                "when": x.when - dt.timedelta(days=1, hours=2),
                "searches": x.generates["browser_history"],
            },
        )


# What an event leaves in the apps after its bookings and orders, in this order (mail and chat ids follow it).
TRACES = (_charge, _mail, _calendar, _chat_mention, _work_reminder, _searches)


APP_MERCHANT = {"hoolishop": "HooliShop", "hangrydash": "HangryDash", "etaxi": "eTaxi", "kwik-e-mart": "Kwik-E-Mart"}
