"""Fan one event record out to each app it names, with the same date, amount, code and people everywhere.

``emit(ctx, event, record)`` turns one per-app record into rows (or queued intents for the seeders that
own bank transactions, mail, chat, calendar and browser history) and notes on the event what each app
must show, so ``check`` can compare the apps afterwards. ``WRITERS`` holds one writer per app: adding an
app that events reach is one function and one entry there (its schema goes in ``seeding.world.apps``).
"""

import datetime as dt

from .apps import canonical
from .core import DATETIME, Event, stable_id

ME = "me"


def _date(value) -> str:
    return value.isoformat()[:10] if isinstance(value, (dt.date, dt.datetime)) else str(value)[:10]


def _stamp(value) -> str:
    if isinstance(value, dt.datetime):
        return value.strftime(DATETIME)
    if isinstance(value, dt.date):
        return value.isoformat() + " 12:00:00"
    return str(value)


def expect(event: Event, app: str, date, amount=None, code=None):
    entry: dict[str, str | float] = {"date": _date(date)}
    if amount is not None:
        entry["amount"] = round(float(amount), 2)
    if code:
        entry["code"] = code
    event.extra.setdefault("expect", {}).setdefault(app, []).append(entry)
    if app not in event.apps:
        event.apps.append(app)


def lookup(ctx, app, table, value, make, provenance):
    """Id of the ``table`` row named ``value``, creating it with ``make()`` (first user's provenance)."""
    index = ctx.notes.setdefault(("index", app, table), {})
    if value not in index:
        index[value] = ctx.add(app, table, make(), provenance)
    return index[value]


def next_number(ctx, app: str, table: str, prefix: str) -> str:
    """Sequential codes per app from a persona- and variant-dependent base, like a real shop's order numbers."""
    base = int(stable_id(*ctx.surface(ctx.persona.slug, app), length=8), 16) % 800000 + 100000
    return f"{prefix}-{base + 1 + 3 * len(ctx.rows(app, table))}"


def _charge(ctx, event: Event, rec: dict):
    """A bank transaction, queued for the ``vaultbank`` seeder (which owns balances)."""
    app = "vaultbank"
    pid = event.id
    when = rec.get("when")
    ctx.intent(
        "charge",
        {
            "date": _date(when),
            "amount": -abs(rec["amount"]) if not rec.get("credit") else abs(rec["amount"]),
            "merchant": rec["merchant"],
            "description": rec.get("description", rec["merchant"]),
            "category": rec.get("category", "Shopping"),
            "method": rec.get("method", "credit_card"),
            "reference": rec.get("code"),
        },
        pid,
    )
    expect(event, app, when, -abs(rec["amount"]) if not rec.get("credit") else abs(rec["amount"]))


def _chat_message(ctx, event: Event, rec: dict):
    """A HooliChat or HooliWork message, queued for the ``chat`` seeder."""
    app = canonical(rec["app"])
    pid = event.id
    when = rec.get("when")
    ctx.intent(
        f"chat:{app}",
        {
            "at": _stamp(when),
            "channel": rec.get("channel"),
            "members": rec.get("members"),
            "contact": rec.get("contact"),
            "sender": rec.get("sender", ME),
            "body": rec["text"],
        },
        pid,
    )
    expect(event, app, when)


def _mail(ctx, event: Event, rec: dict):
    """A message, queued for the ``mail`` seeder (Maildir and HooliMail)."""
    app = "mail"
    pid = event.id
    when = rec.get("when")
    ctx.intent(
        "mail",
        {
            "at": _stamp(when),
            "from_name": rec["from_name"],
            "from_addr": rec["from_addr"],
            "to_addr": rec.get("to_addr"),
            "subject": rec["subject"],
            "body": rec["body"],
            "thread": rec.get("thread"),
            "label": rec.get("label"),
            "folder": rec.get("folder", "INBOX"),
        },
        pid,
    )
    expect(event, app, when, code=rec.get("code"))


def _calendar_entry(ctx, event: Event, rec: dict):
    """A calendar entry, queued for the ``calendar`` seeder (ICS and HooliCalendar)."""
    app = "calendar"
    pid = event.id
    when = rec.get("when")
    ctx.intent(
        "calendar",
        {
            "start": _stamp(when),
            "end": _stamp(rec["end"]),
            "summary": rec["summary"],
            "description": rec.get("description", ""),
            "location": rec.get("location"),
            "all_day": bool(rec.get("all_day")),
            "rrule": rec.get("rrule"),
            "attendees": rec.get("attendees", []),
        },
        pid,
    )
    expect(event, app, when)


def _searches(ctx, event: Event, rec: dict):
    """Searches in the browser history, queued for the ``firefox`` seeder."""
    app = "browser"
    pid = event.id
    when: dt.datetime = rec["when"]
    event.extra.setdefault("searches", []).extend(rec["searches"])
    if app not in event.apps:
        event.apps.append(app)
    for number, query in enumerate(rec["searches"]):
        ctx.intent(
            "visit",
            {"at": _stamp(when + dt.timedelta(minutes=3 * number)), "search": query},
            pid,
        )


def _reservation(ctx, event: Event, rec: dict):
    """A TableFind reservation; returns its confirmation code."""
    app = "tablefind"
    pid = event.id
    when: dt.datetime = rec["when"]
    rid = lookup(
        ctx,
        app,
        "restaurants",
        rec["restaurant"],
        lambda: {"name": rec["restaurant"], "city": rec.get("city", ctx.persona.spec["identity"].get("city"))},
        pid,
    )
    code = rec.get("code") or next_number(ctx, app, "reservations", "TF")
    ctx.add(
        app,
        "reservations",
        {
            "confirmation": code,
            "restaurant_id": rid,
            "reserved_for": _stamp(when),
            "party_size": rec.get("party_size", 2),
            "name": rec.get("name", ctx.persona.name),
            "status": rec.get("status", "confirmed" if when.date() >= ctx.anchor else "completed"),
            "occasion": rec.get("occasion"),
            "deposit": rec.get("deposit"),
        },
        pid,
    )
    expect(event, app, when, code=code)
    return code


def _shop_order(ctx, event: Event, rec: dict):
    """A HooliShop order and its items; returns (order number, total)."""
    app = "hoolishop"
    pid = event.id
    when = rec.get("when")
    code = rec.get("code") or next_number(ctx, app, "orders", "HS")
    total = 0.0
    oid = ctx.add(
        app,
        "orders",
        {
            "order_number": code,
            "placed_at": _stamp(when),
            "status": rec.get("status", "delivered"),
            "total": 0,
            "note": rec.get("note"),
        },
        pid,
    )
    for item in rec.get("items") or [{"item": rec["item"], "price": rec["price"], "quantity": rec.get("quantity", 1)}]:
        prod = lookup(
            ctx,
            app,
            "products",
            item["item"],
            lambda item=item: {
                "name": item["item"],
                "category": rec.get("category", "General"),
                "price": item["price"],
            },
            pid,
        )
        quantity = item.get("quantity", 1)
        ctx.add(
            app,
            "order_items",
            {"order_id": oid, "product_id": prod, "quantity": quantity, "price": item["price"]},
            pid,
        )
        total += item["price"] * quantity
    ctx.rows(app, "orders")[oid - 1]["total"] = round(total, 2)
    expect(event, app, when, round(total, 2), code)
    return code, round(total, 2)


def _food_order(ctx, event: Event, rec: dict):
    """A HangryDash delivery; returns (order number, total)."""
    app = "hangrydash"
    pid = event.id
    when = rec.get("when")
    rid = lookup(
        ctx,
        app,
        "restaurants",
        rec["restaurant"],
        lambda: {"name": rec["restaurant"], "cuisine": rec.get("cuisine")},
        pid,
    )
    code = rec.get("code") or next_number(ctx, app, "orders", "HD")
    subtotal = round(sum(i["price"] * i.get("quantity", 1) for i in rec["items"]), 2)
    tip = round(rec.get("tip", subtotal * 0.15), 2)
    total = round(subtotal + tip, 2)
    oid = ctx.add(
        app,
        "orders",
        {
            "order_number": code,
            "restaurant_id": rid,
            "placed_at": _stamp(when),
            "subtotal": subtotal,
            "tip": tip,
            "total": total,
            "status": "delivered",
        },
        pid,
    )
    add_order_items(ctx, app, oid, rec["items"], pid)
    expect(event, app, when, total, code)
    return code, total


def _grocery_order(ctx, event: Event, rec: dict):
    """A Kwik-E-Mart delivery; returns (order number, total)."""
    app = "kwik-e-mart"
    pid = event.id
    when = rec.get("when")
    sid = lookup(ctx, app, "stores", rec["store"], lambda: {"name": rec["store"]}, pid)
    code = rec.get("code") or next_number(ctx, app, "orders", "KM")
    subtotal = round(sum(i["price"] * i.get("quantity", 1) for i in rec["items"]), 2)
    tip = round(subtotal * rec.get("tip_pct", 20) / 100, 2)
    total = round(subtotal + tip, 2)
    oid = ctx.add(
        app,
        "orders",
        {
            "order_number": code,
            "store_id": sid,
            "placed_at": _stamp(when),
            "delivery_instructions": rec.get("instructions"),
            "subtotal": subtotal,
            "tip": tip,
            "total": total,
            "status": "delivered",
        },
        pid,
    )
    add_order_items(ctx, app, oid, rec["items"], pid)
    expect(event, app, when, total, code)
    return code, total


def _ride(ctx, event: Event, rec: dict):
    """An eTaxi ride; returns (ride code, total)."""
    app = "etaxi"
    pid = event.id
    when: dt.datetime = rec["when"]
    code = rec.get("code") or next_number(ctx, app, "rides", "ET")
    fare = round(rec["fare"], 2)
    tip = round(rec.get("tip", 0), 2)
    ctx.add(
        app,
        "rides",
        {
            "ride_code": code,
            "requested_at": _stamp(when),
            "pickup": rec["pickup"],
            "dropoff": rec["dropoff"],
            "car_type": rec.get("car_type", "Standard"),
            "driver": rec.get("driver", "Driver"),
            "fare": fare,
            "tip": tip,
            "total": round(fare + tip, 2),
            "rating": rec.get("rating", 5),
            "status": "completed" if when.date() <= ctx.anchor else "scheduled",
        },
        pid,
    )
    expect(event, app, when, round(fare + tip, 2), code)
    return code, round(fare + tip, 2)


def _flight_booking(ctx, event: Event, rec: dict):
    """A Dinoco flight, booking and boarding pass."""
    app = "dinoco-airlines"
    pid = event.id
    when = rec.get("when")
    pax = lookup(
        ctx,
        app,
        "passengers",
        ctx.persona.name,
        lambda: {
            "name": ctx.persona.name,
            "email": ctx.persona.spec["identity"].get("email"),
            "seat_preference": ctx.persona.override("dinoco-airlines").get("seat_preference"),
        },
        pid,
    )
    fid = ctx.add(
        app,
        "flights",
        {
            "number": rec["number"],
            "origin": rec["origin"],
            "destination": rec["destination"],
            "departs_at": _stamp(rec["departs"]),
            "gate": rec.get("gate"),
        },
        pid,
    )
    bid = ctx.add(
        app,
        "bookings",
        {
            "confirmation": rec["code"],
            "passenger_id": pax,
            "flight_id": fid,
            "seat": rec.get("seat"),
            "fare": rec.get("fare"),
            "status": rec.get("status", "confirmed"),
            "booked_on": _date(when),
        },
        pid,
    )
    ctx.add(
        app,
        "boarding_passes",
        {
            "booking_id": bid,
            "barcode": "M1" + stable_id(rec["code"], rec["number"], length=16).upper(),
            "boarding_group": "B",
        },
        pid,
    )
    expect(event, app, when, rec.get("fare"), rec["code"])


def _stay(ctx, event: Event, rec: dict):
    """A Cheskepdia stay at a property."""
    app = "cheskepdia"
    pid = event.id
    prop = lookup(
        ctx,
        app,
        "properties",
        rec["property"],
        lambda: {
            "name": rec["property"],
            "city": rec.get("city"),
            "host": rec.get("host"),
            "nightly_rate": rec["nightly_rate"],
        },
        pid,
    )
    nights = (rec["check_out"] - rec["check_in"]).days
    total = rec.get("total") or nights * rec["nightly_rate"]
    ctx.add(
        app,
        "bookings",
        {
            "confirmation": rec["code"],
            "property_id": prop,
            "check_in": _date(rec["check_in"]),
            "check_out": _date(rec["check_out"]),
            "nights": nights,
            "nightly_rate": rec["nightly_rate"],
            "total": total,
            "cancellation_deadline": _date(rec["deadline"]) if rec.get("deadline") else None,
            "guests": rec.get("guests", 1),
            "status": rec.get("status", "confirmed"),
        },
        pid,
    )
    expect(event, app, rec["check_in"], total, rec["code"])


# One writer per app a record can name: adding an app is one function and one entry here.
WRITERS = {
    "vaultbank": _charge,
    "buzzchat": _chat_message,
    "workbuzz": _chat_message,
    "mail": _mail,
    "calendar": _calendar_entry,
    "browser": _searches,
    "tablefind": _reservation,
    "hoolishop": _shop_order,
    "hangrydash": _food_order,
    "kwik-e-mart": _grocery_order,
    "etaxi": _ride,
    "dinoco-airlines": _flight_booking,
    "cheskepdia": _stay,
}


def emit(ctx, event: Event, rec: dict):
    """Write one record of ``event`` to its app; ``rec['app']`` names the app.

    Returns what the app's writer returns: a confirmation code, (code, total), or None.
    """
    writer = WRITERS.get(canonical(rec["app"]))
    if writer is None:
        raise ValueError(f"event {event.id}: app {rec['app']!r} has no seeder")
    return writer(ctx, event, rec)


def add_order_items(ctx, app, order_id, items, provenance):
    """One `order_items` row per line of an order (food delivery and grocery share the shape)."""
    for item in items:
        ctx.add(
            app,
            "order_items",
            {"order_id": order_id, "name": item["item"], "quantity": item.get("quantity", 1), "price": item["price"]},
            provenance,
        )
