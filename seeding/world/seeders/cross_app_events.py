"""``cross_app_events``: each spec event fanned out to the apps it names (booking, order, charge, mail,
calendar entry, chat mention, searches), with the same date, amount and code everywhere."""

import datetime as dt
import re

from ..apps import app_domain, canonical
from ..core import Event
from ..fanout import emit

DEFAULT_DURATION = dt.timedelta(hours=2)


def _merchant_from(description: str) -> str | None:
    match = re.search(r"\bat ([A-Z][\w'&.-]*(?: [A-Z][\w'&.-]*)*)", description)
    return match.group(1) if match else None


def seed_cross_app_events(ctx):
    rng = ctx.rng("cross_app_events")
    for i, item in enumerate(ctx.persona.section("cross_app_events", [])):
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
        code = details.get("code")
        if "tablefind" in apps:
            code = emit(
                ctx,
                ev,
                {
                    "app": "tablefind",
                    "when": when,
                    "restaurant": details.get("restaurant") or merchant or "Restaurant",
                    "party_size": details.get("party_size", 2),
                    "code": code,
                    "occasion": details.get("occasion", item.get("type")),
                    "name": ctx.persona.override("tablefind").get("reservation_name", ctx.persona.name),
                },
            )
        for app in ("hoolishop", "hangrydash"):
            if app in apps:
                order_items = items or [
                    {"item": details.get("item") or item.get("description", "Order"), "price": amount}
                ]
                if app == "hoolishop":
                    code, total = emit(
                        ctx,
                        ev,
                        {
                            "app": app,
                            "when": when,
                            "items": order_items,
                            "item": order_items[0]["item"],
                            "price": order_items[0]["price"],
                            "code": code,
                            "category": details.get("category", "General"),
                        },
                    )
                else:
                    code, total = emit(
                        ctx,
                        ev,
                        {
                            "app": app,
                            "when": when,
                            "restaurant": details.get("restaurant") or merchant or "Restaurant",
                            "items": order_items,
                            "tip": details.get("tip", 0),
                            "code": code,
                        },
                    )
                amount = ev.amount = total
        ev.code = code
        ev.merchant = merchant = (
            details.get("bank_merchant")
            or merchant
            or (APP_MERCHANT.get(next((a for a in apps if a in APP_MERCHANT), ""), None))
            or "Merchant"
        )
        if "vaultbank" in apps and amount is not None:
            emit(
                ctx,
                ev,
                {
                    "app": "vaultbank",
                    "when": when,
                    "amount": amount,
                    "merchant": merchant,
                    "description": f"{merchant}" + (f" {code}" if code else ""),
                    "category": details.get(
                        "category", "Dining" if "tablefind" in apps or "hangrydash" in apps else "Shopping"
                    ),
                    "code": code,
                },
            )
        if "mail" in apps:
            sender = "TableFind" if "tablefind" in apps else "HooliShop" if "hoolishop" in apps else merchant
            addr_app = (
                "tablefind"
                if "tablefind" in apps
                else "hoolishop"
                if "hoolishop" in apps
                else re.sub("[^a-z]+", "", merchant.lower())
            )
            lines = [f"{item.get('description', '')}", f"Date: {when.strftime('%A %B %d, %Y %I:%M %p')}"]
            if code:
                lines.append(f"Confirmation: {code}")
            if amount is not None:
                lines.append(f"Amount: ${amount:,.2f}")
            emit(
                ctx,
                ev,
                {
                    "app": "mail",
                    "when": when - dt.timedelta(hours=5),
                    "from_name": sender,
                    "from_addr": f"noreply@{app_domain(addr_app)}",
                    "subject": details.get("mail_subject") or f"{sender}: {item.get('description', '')}"[:120],
                    "code": code,
                    "body": "\n".join(lines) + "\n",
                },
            )
        if gen.get("calendar_event") or "calendar" in apps:
            emit(
                ctx,
                ev,
                {
                    "app": "calendar",
                    "when": when,
                    "end": when + DEFAULT_DURATION,
                    "summary": details.get("calendar_summary") or item.get("description", ""),
                    "description": f"Confirmation {code}" if code else "",
                    "location": details.get("restaurant") or merchant,
                },
            )
        if gen.get("buzzchat_mention"):
            mention = gen["buzzchat_mention"]
            emit(
                ctx,
                ev,
                {
                    "app": "buzzchat",
                    "when": when - dt.timedelta(hours=3),
                    "contact": mention["contact"],
                    "text": mention["context"],
                },
            )
        if "workbuzz" in apps:
            emit(
                ctx,
                ev,
                {
                    "app": "workbuzz",
                    "when": when - dt.timedelta(hours=4),
                    "channel": "general",
                    "text": details.get("workbuzz_text")
                    or f"Reminder: {item.get('description', '')} - {when.strftime('%A %I:%M %p')}. Be there.",
                },
            )
        if gen.get("browser_history"):
            emit(
                ctx,
                ev,
                {"app": "browser", "when": when - dt.timedelta(days=1, hours=2), "searches": gen["browser_history"]},
            )


APP_MERCHANT = {"hoolishop": "HooliShop", "hangrydash": "HangryDash", "etaxi": "eTaxi", "kwik-e-mart": "Kwik-E-Mart"}
