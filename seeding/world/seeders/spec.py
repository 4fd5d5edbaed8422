"""Seeders that read one spec section each and write what it says, before any routine filling.

``profiles`` (contacts, accounts, portfolios, projects, tax forms), ``derived`` (paystubs from the
salary), ``trips``, ``cross_app_events``, ``shopping`` and ``plants`` (records the overlay plants for
planted contradictions, dependencies and tasks).
"""

import datetime as dt
import re

from ..apps import canonical
from ..core import Event, parse_time_of_day
from ..fanout import emit, lookup

DEFAULT_DURATION = dt.timedelta(hours=2)


def app_domain(app: str) -> str:
    return f"{app}.example"


def contact(ctx, name):
    for person in ctx.persona.section("contacts", []):
        if person.get("name") == name:
            return person
    return {"name": name, "email": f"{re.sub('[^a-z]+', '.', (name or 'someone').lower()).strip('.')}@example.com"}


def emit_hoolishop_charge_and_mail(ctx, ev, order, when, code, total):
    """What a HooliShop order leaves outside the shop: the bank charge and the order email."""
    emit(
        ctx,
        ev,
        {
            "app": "vaultbank",
            "when": when,
            "amount": total,
            "merchant": "HooliShop",
            "description": f"HooliShop order {code}",
            "code": code,
        },
    )
    emit(
        ctx,
        ev,
        {
            "app": "mail",
            "when": when + dt.timedelta(minutes=1),
            "from_name": "HooliShop",
            "from_addr": f"orders@{app_domain('hoolishop')}",
            "subject": f"Your HooliShop order {code}",
            "code": code,
            "body": f"Order {code}\n1 x {order['item']} ${order['price']:.2f}\nTotal: ${total:.2f}\n",
        },
    )


def _at(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute))


# -- profiles ---------------------------------------------------------------------------------------
def seed_profiles(ctx):
    spec, persona = ctx.persona.spec, ctx.persona
    ident = spec["identity"]
    for app in ("buzzchat", "workbuzz"):
        ctx.add(
            app,
            "users",
            {"name": ident["name"], "email": ident.get("email"), "phone": ident.get("phone"), "relationship": "self"},
            "identity",
        )
        for index, person in enumerate(spec.get("contacts", [])):
            if app == "buzzchat" or app in person.get("apps_present_in", []):
                ctx.add(
                    app,
                    "users",
                    {
                        "name": person["name"],
                        "email": person.get("email"),
                        "phone": person.get("phone"),
                        "relationship": person.get("relationship"),
                    },
                    f"contacts[{index}]",
                )
    work = persona.override("workbuzz")
    if work:
        ctx.add(
            "workbuzz",
            "user_status",
            {"user_id": 1, "emoji": work.get("status_emoji"), "text": work.get("status_text")},
            "app_overrides.workbuzz",
        )
        for key in sorted(k for k in work if not k.startswith("status") and not k.startswith("_")):
            ctx.add("workbuzz", "preferences", {"key": key, "value": str(work[key])}, "app_overrides.workbuzz")
    fin = spec.get("financial", {})
    ctx.add(
        "vaultbank",
        "customers",
        {
            "name": ident["name"],
            "email": ident.get("email"),
            "phone": ident.get("phone"),
            "address": ident.get("address"),
        },
        "identity",
    )
    for number, charge in enumerate(fin.get("recurring_charges", [])):
        ctx.add(
            "vaultbank",
            "recurring_payments",
            {
                "account_id": 3 if charge.get("method") == "credit_card" else 1,
                "name": charge["name"],
                "payee": charge.get("payee"),
                "amount": charge["amount"],
                "day_of_month": charge["day"],
                "method": charge["method"],
                "status": "active",
            },
            f"financial.recurring_charges[{number}]",
        )
    inv = spec.get("investments")
    if inv:
        ctx.add("batbucks", "account", {"cash_balance": inv.get("cash_balance", 0)}, "investments")
        for n, h in enumerate(inv.get("holdings", [])):
            ctx.add(
                "batbucks",
                "holdings",
                {
                    "ticker": h["ticker"],
                    "name": h.get("name"),
                    "shares": h["shares"],
                    "avg_cost": h["avg_cost"],
                    "cost_basis": round(h["shares"] * h["avg_cost"], 2),
                    "note": h.get("_note"),
                },
                f"investments.holdings[{n}]",
            )
        for n, o in enumerate(inv.get("order_history", [])):
            ctx.add(
                "batbucks",
                "orders",
                {
                    "placed_on": ctx.day(o["date"]).isoformat(),
                    "action": o["action"],
                    "ticker": o["ticker"],
                    "shares": o["shares"],
                    "price": o["price"],
                    "total": round(o["shares"] * o["price"], 2),
                },
                f"investments.order_history[{n}]",
            )
        for n, d in enumerate(inv.get("dividends", [])):
            ctx.add(
                "batbucks",
                "dividends",
                {"paid_on": ctx.day(d["date"]).isoformat(), "ticker": d["ticker"], "amount": d["amount"]},
                f"investments.dividends[{n}]",
            )
    pm = spec.get("prediction_markets")
    if pm:
        ctx.add(
            "oddsmarket",
            "account",
            {
                "balance": pm.get("balance", 0),
                "total_invested": pm.get("total_invested", 0),
                "net_pnl": pm.get("net_pnl", 0),
            },
            "prediction_markets",
        )
        for n, pos in enumerate(pm.get("active_positions", [])):
            mid = ctx.add(
                "oddsmarket",
                "markets",
                {"ticker": pos["market_ticker"], "title": pos["title"], "source": pos.get("source")},
                f"prediction_markets.active_positions[{n}]",
            )
            ctx.add(
                "oddsmarket",
                "positions",
                {
                    "market_id": mid,
                    "side": pos["side"],
                    "shares": pos["shares"],
                    "avg_price": pos["avg_price"],
                    "note": pos.get("personal_relevance") or pos.get("rationale"),
                },
                f"prediction_markets.active_positions[{n}]",
            )
        for n, title in enumerate(pm.get("watchlist", [])):
            ctx.add("oddsmarket", "watchlist", {"title": title}, f"prediction_markets.watchlist[{n}]")
    for p, project in enumerate(spec.get("work", {}).get("projects", [])):
        where = f"work.projects[{p}]"
        pid = ctx.add(
            "sprintboard",
            "projects",
            {
                "name": project["name"],
                "status": project.get("status", "in_progress"),
                "deadline": ctx.day(project["deadline"]).isoformat() if project.get("deadline") else None,
            },
            where,
        )
        for name in [ident["name"], *project.get("collaborators", [])]:
            ctx.add("sprintboard", "members", {"project_id": pid, "name": name}, where)
        for t, task in enumerate(project.get("sprintboard_tasks", [])):
            ctx.add(
                "sprintboard",
                "tasks",
                {
                    "project_id": pid,
                    "title": task["title"],
                    "assignee": task.get("assignee"),
                    "status": task["status"],
                    "due": ctx.day(task["due"]).isoformat() if task.get("due") else None,
                    "estimate": str(task["estimate"]) if task.get("estimate") is not None else None,
                },
                f"{where}.sprintboard_tasks[{t}]",
            )
    li = persona.override("lockedin")
    ctx.add(
        "lockedin",
        "profile",
        {
            "name": ident["name"],
            "headline": li.get("headline", ident.get("role")),
            "about": li.get("about", ident.get("bio")),
            "location": ident.get("city"),
        },
        "app_overrides.lockedin" if li else "identity",
    )
    ctx.add(
        "lockedin", "experience", {"company": ident.get("employer", ""), "title": ident.get("role", "")}, "identity"
    )
    for index, person in enumerate(spec.get("contacts", [])):
        if "lockedin" in person.get("apps_present_in", []) or person.get("relationship", "").startswith("office"):
            ctx.add(
                "lockedin",
                "connections",
                {"name": person["name"], "relationship": person.get("relationship")},
                f"contacts[{index}]",
            )
    tax = spec.get("tax_info")
    if tax:
        rid = ctx.add(
            "speedtax",
            "returns",
            {"tax_year": tax.get("tax_year"), "state_code": tax.get("state_code"), "status": "in_progress"},
            "tax_info",
        )
        w2 = tax.get("w2")
        if w2:
            ctx.add(
                "speedtax",
                "w2_forms",
                {
                    "return_id": rid,
                    "employer": w2["employer"],
                    "gross_wages": w2["gross_wages"],
                    "federal_withheld": w2["federal_withheld"],
                    "state_withheld": w2["state_withheld"],
                    "pretax_401k": w2.get("pretax_401k", 0),
                    "pretax_health": w2.get("pretax_health", 0),
                    "net_pay": w2.get(
                        "net_deposits_to_bank",
                        round(
                            w2["gross_wages"]
                            - w2["federal_withheld"]
                            - w2["state_withheld"]
                            - w2.get("pretax_401k", 0)
                            - w2.get("pretax_health", 0),
                            2,
                        ),
                    ),
                    "state": w2.get("state"),
                },
                "tax_info.w2",
            )
        for n, f in enumerate(tax.get("freelance_1099", [])):
            ctx.add(
                "speedtax",
                "forms_1099",
                {"return_id": rid, "payer": f["payer"], "amount": f["amount"], "paid_via": f.get("paid_via")},
                f"tax_info.freelance_1099[{n}]",
            )
        ded = tax.get("deductions", {})
        if "home_office_wfh_days" in ded:
            ctx.add(
                "speedtax",
                "deductions",
                {
                    "return_id": rid,
                    "kind": "home_office",
                    "description": f"{ded['home_office_wfh_days']} work-from-home days",
                    "amount": None,
                    "receipt_exists": None,
                },
                "tax_info.deductions.home_office_wfh_days",
            )
        for n, c in enumerate(ded.get("charitable", [])):
            ctx.add(
                "speedtax",
                "deductions",
                {
                    "return_id": rid,
                    "kind": "charitable",
                    "description": c["org"],
                    "amount": c["amount"],
                    "receipt_exists": int(bool(c.get("receipt_exists"))),
                },
                f"tax_info.deductions.charitable[{n}]",
            )
        for n, q in enumerate(ded.get("questionable_deductions", [])):
            ctx.add(
                "speedtax",
                "deductions",
                {
                    "return_id": rid,
                    "kind": "claimed",
                    "description": q["claimed_as"],
                    "amount": q["amount"],
                    "receipt_exists": int(bool(q.get("receipt_exists"))),
                },
                f"tax_info.deductions.questionable_deductions[{n}]",
            )
    shop = spec.get("shopping", {})
    for n, wish in enumerate(shop.get("wishlist", [])):
        prod = ctx.add(
            "hoolishop",
            "products",
            {"name": wish["item"], "category": wish.get("category", "Wishlist"), "price": wish["price"]},
            f"shopping.wishlist[{n}]",
        )
        ctx.notes.setdefault(("index", "hoolishop", "products"), {})[wish["item"]] = prod
        ctx.add("hoolishop", "wishlist", {"product_id": prod, "note": wish.get("note")}, f"shopping.wishlist[{n}]")
    for n, sub in enumerate(persona.override("hoolishop").get("subscribe_save", [])):
        prod = ctx.add(
            "hoolishop",
            "products",
            {"name": sub["item"], "category": "Subscribe & Save", "price": sub["price"]},
            f"app_overrides.hoolishop.subscribe_save[{n}]",
        )
        ctx.notes.setdefault(("index", "hoolishop", "products"), {})[sub["item"]] = prod
        ctx.add(
            "hoolishop",
            "subscriptions",
            {
                "product_id": prod,
                "frequency": sub.get("frequency", "monthly"),
                "price": sub["price"],
                "status": "active",
            },
            f"app_overrides.hoolishop.subscribe_save[{n}]",
        )
    mail = persona.override("mail")
    for n, label in enumerate(mail.get("labels", [])):
        ctx.add("mail", "labels", {"name": label}, f"app_overrides.mail.labels[{n}]")
    for key in ("signature", "vacation_responder"):
        if key in mail:
            ctx.add("mail", "settings", {"key": key, "value": mail[key]}, "app_overrides.mail")
    for key, value in sorted(persona.override("hoolicalendar").items()):
        if not key.startswith("_"):
            ctx.add("calendar", "settings", {"key": key, "value": str(value)}, "app_overrides.hoolicalendar")


# -- derived fields ----------------------------------------------------------------------------------
def paystub(ctx) -> dict:
    """Per-paycheck line items derived from the salary and the W-2 (26 biweekly paychecks)."""
    spec = ctx.persona.spec
    w2 = spec.get("tax_info", {}).get("w2", {})
    gross_year = w2.get("gross_wages") or spec["identity"].get("salary", 0)
    parts = {
        "gross": gross_year,
        "federal_withholding": w2.get("federal_withheld", round(gross_year * 0.2, 2)),
        "state_withholding": w2.get("state_withheld", round(gross_year * 0.07, 2)),
        "retirement_401k": w2.get("pretax_401k", 0),
        "health": w2.get("pretax_health", 0),
    }
    stub = {key: round(value / 26, 2) for key, value in parts.items()}
    stub["net"] = round(stub["gross"] - sum(stub[k] for k in parts if k != "gross"), 2)
    return stub


def seed_derived(ctx):
    stub = paystub(ctx)
    employer = ctx.persona.spec["identity"].get("employer", "Employer")
    ctx.notes["paystub"] = stub
    # Biweekly Friday paydays counted back from the last Friday on or before the anchor.
    day = ctx.anchor - dt.timedelta(days=(ctx.anchor.weekday() - 4) % 7)
    paydays = []
    while day >= ctx.start:
        paydays.append(day)
        day -= dt.timedelta(days=14)
    paydays.sort()
    nets = {day: stub["net"] for day in paydays}
    w2_net = ctx.persona.spec.get("tax_info", {}).get("w2", {}).get("net_deposits_to_bank")
    in_year = [d for d in paydays if ctx.tax_year and ctx.tax_year[0] <= d <= ctx.tax_year[1]]
    if w2_net is not None and len(in_year) == 26:
        # Cents lost to rounding go on the year's last paycheck, so the deposits sum to the W-2 exactly.
        nets[in_year[-1]] = round(w2_net - stub["net"] * 25, 2)
    for payday in paydays:
        stub = {**ctx.notes["paystub"], "net": nets[payday]}
        ctx.add("speedtax", "paystubs", {"pay_date": payday.isoformat(), **stub}, "identity.salary+tax_info.w2")
        ctx.intent(
            "charge",
            {
                "date": payday.isoformat(),
                "amount": stub["net"],
                "merchant": employer,
                "description": f"{employer.upper()} PAYROLL DIRECT DEP",
                "category": "Income",
                "method": "checking",
                "reference": None,
            },
            "identity.salary+tax_info.w2",
        )


# -- trips ---------------------------------------------------------------------------------------------
def seed_trips(ctx):
    rng = ctx.rng("trips")
    me = ctx.persona.spec["identity"]
    for i, trip in enumerate(ctx.persona.section("trips", [])):
        base = f"trips[{i}]"
        start, end = ctx.day(trip["dates"][0]), ctx.day(trip["dates"][1])
        gen = trip.get("generates", {}) or {}
        booked = min(start - dt.timedelta(days=rng.randint(21, 60)), ctx.anchor - dt.timedelta(days=rng.randint(2, 9)))
        booked_at = _at(booked, rng.randint(19, 22), rng.choice([5, 20, 35, 50]))
        dest = trip["destination"]
        hotel = trip.get("hotel")
        if hotel:
            charge = gen.get("vaultbank_charge")
            nights = (end - start).days
            total = charge[0] if charge else nights * hotel["nightly_rate"]
            ev = ctx.add_event(
                Event(
                    f"{base}.hotel",
                    "hotel_booking",
                    f"{hotel['name']} ({dest})",
                    start.isoformat(),
                    end_date=end.isoformat(),
                    amount=total,
                    merchant=charge[1] if charge else hotel["name"],
                    code=hotel["confirmation"],
                )
            )
            emit(
                ctx,
                ev,
                {
                    "app": "cheskepdia",
                    "when": booked_at,
                    "property": hotel["name"],
                    "host": hotel.get("host"),
                    "city": dest,
                    "code": hotel["confirmation"],
                    "check_in": start,
                    "check_out": end,
                    "nightly_rate": hotel["nightly_rate"],
                    "total": total,
                    "deadline": ctx.day(hotel["cancellation_deadline"]) if hotel.get("cancellation_deadline") else None,
                    "guests": hotel.get("guests", trip.get("guests", 1)),
                },
            )
            emit(
                ctx,
                ev,
                {
                    "app": "vaultbank",
                    "when": booked_at,
                    "amount": total,
                    "merchant": ev.merchant,
                    "description": f"{ev.merchant} {hotel['confirmation']}",
                    "category": "Travel",
                    "code": hotel["confirmation"],
                },
            )
            if gen.get("email_confirmation"):
                deadline = (
                    f"\nFree cancellation until {ctx.day(hotel['cancellation_deadline']).isoformat()}."
                    if hotel.get("cancellation_deadline")
                    else ""
                )
                emit(
                    ctx,
                    ev,
                    {
                        "app": "mail",
                        "when": booked_at + dt.timedelta(minutes=2),
                        "from_name": "Cheskepdia",
                        "from_addr": f"bookings@{app_domain('cheskepdia')}",
                        "subject": f"Booking confirmed: {hotel['name']} ({hotel['confirmation']})",
                        "code": hotel["confirmation"],
                        "body": "\n".join(
                            [
                                f"Hi {me['name'].split()[0]},",
                                "",
                                f"Your stay at {hotel['name']} ({dest}) is confirmed.",
                                f"Confirmation: {hotel['confirmation']}",
                                f"Check-in: {start.isoformat()}",
                                f"Check-out: {end.isoformat()}",
                                f"Nights: {nights} x ${hotel['nightly_rate']:,}",
                                f"Total charged: ${total:,.2f}",
                                f"Guests: {hotel.get('guests', trip.get('guests', 1))}{deadline}",
                                "",
                                f"Purpose noted: {trip.get('purpose', '')}",
                                "",
                            ]
                        ),
                    },
                )
        flight = trip.get("flight")
        if flight:
            fare_charge = gen.get("vaultbank_charge_flight")
            fare = fare_charge[0] if fare_charge else None
            departs = ctx.moment(trip["dates"][0], flight.get("departure"))
            ev = ctx.add_event(
                Event(
                    f"{base}.flight",
                    "flight_booking",
                    f"{flight.get('airline', 'Dinoco')} {flight['number']} {flight['from']}-{flight['to']}",
                    start.isoformat(),
                    time=flight.get("departure"),
                    amount=fare,
                    merchant=fare_charge[1] if fare_charge else None,
                    code=flight["confirmation"],
                )
            )
            emit(
                ctx,
                ev,
                {
                    "app": "dinoco-airlines",
                    "when": booked_at,
                    "number": flight["number"],
                    "origin": flight["from"],
                    "destination": flight["to"],
                    "departs": departs,
                    "gate": flight.get("gate"),
                    "seat": flight.get("seat"),
                    "fare": fare,
                    "code": flight["confirmation"],
                },
            )
            if fare_charge:
                emit(
                    ctx,
                    ev,
                    {
                        "app": "vaultbank",
                        "when": booked_at,
                        "amount": fare,
                        "merchant": fare_charge[1],
                        "description": f"{fare_charge[1]} {flight['number']} {flight['confirmation']}",
                        "category": "Travel",
                        "code": flight["confirmation"],
                    },
                )
            if gen.get("email_confirmation"):
                emit(
                    ctx,
                    ev,
                    {
                        "app": "mail",
                        "when": booked_at + dt.timedelta(minutes=1),
                        "from_name": "Dinoco Airlines",
                        "from_addr": f"reservations@{app_domain('dinoco-airlines')}",
                        "subject": f"Your Dinoco flight {flight['number']} is booked ({flight['confirmation']})",
                        "code": flight["confirmation"],
                        "body": f"Confirmation: {flight['confirmation']}\n"
                        f"Flight {flight['number']} {flight['from']} -> {flight['to']}\n"
                        f"Departs {departs.strftime('%A %B %d, %Y at %I:%M %p')}\n"
                        f"Seat {flight.get('seat', 'TBD')}"
                        + (f", gate {flight['gate']}" if flight.get("gate") else "")
                        + (f"\nFare paid: ${fare:,.2f}" if fare else "")
                        + "\n",
                    },
                )
            if gen.get("calendar_event"):
                emit(
                    ctx,
                    ev,
                    {
                        "app": "calendar",
                        "when": departs,
                        "end": departs + dt.timedelta(hours=3),
                        "summary": f"Flight {flight['number']} {flight['from']} -> {flight['to']}",
                        "description": f"Confirmation {flight['confirmation']}, seat {flight.get('seat', 'TBD')}",
                        "location": f"{flight['from']} airport",
                    },
                )
        people = [gen["buzzchat_mention"]["contact"]] if gen.get("buzzchat_mention") else []
        ev = ctx.add_event(
            Event(
                base,
                "trip",
                f"Trip: {dest}",
                start.isoformat(),
                end_date=end.isoformat(),
                people=people,
                extra={"purpose": trip.get("purpose"), "named_apps": _trip_apps(trip)},
            )
        )
        if gen.get("calendar_event"):
            emit(
                ctx,
                ev,
                {
                    "app": "calendar",
                    "when": start,
                    "end": end + dt.timedelta(days=1),
                    "all_day": True,
                    "summary": f"Trip: {dest}",
                    "description": trip.get("purpose", ""),
                    "location": dest,
                },
            )
        if gen.get("buzzchat_mention"):
            mention = gen["buzzchat_mention"]
            emit(
                ctx,
                ev,
                {
                    "app": "buzzchat",
                    "when": booked_at + dt.timedelta(days=1, hours=-8),
                    "contact": mention["contact"],
                    "text": mention["context"],
                },
            )
        if gen.get("browser_history"):
            emit(
                ctx,
                ev,
                {"app": "browser", "when": booked_at - dt.timedelta(days=2), "searches": gen["browser_history"]},
            )
        ride = gen.get("etaxi_to_airport")
        if ride:
            when = ctx.moment(ride["date"], flight.get("departure") if flight else "6:00am") - dt.timedelta(hours=2)
            ev = ctx.add_event(
                Event(
                    f"{base}.etaxi_to_airport",
                    "ride",
                    f"eTaxi {ride['from']} -> {ride['to']}",
                    when.date().isoformat(),
                    amount=ride["cost"],
                )
            )
            code, total = emit(
                ctx,
                ev,
                {
                    "app": "etaxi",
                    "when": when,
                    "pickup": ride["from"],
                    "dropoff": ride["to"],
                    "fare": ride["cost"],
                    "car_type": ctx.persona.override("etaxi").get("preferred_car_type", "Standard"),
                },
            )
            ev.code = code
            emit(
                ctx,
                ev,
                {
                    "app": "vaultbank",
                    "when": when,
                    "amount": total,
                    "merchant": "eTaxi",
                    "description": f"eTaxi ride {code}",
                    "category": "Transport",
                    "code": code,
                },
            )
        order = gen.get("hoolishop_order")
        if order:
            when = booked_at + dt.timedelta(days=3)
            ev = ctx.add_event(
                Event(f"{base}.hoolishop_order", "order", order["item"], when.date().isoformat(), amount=order["price"])
            )
            code, total = emit(
                ctx,
                ev,
                {
                    "app": "hoolishop",
                    "when": when,
                    "item": order["item"],
                    "price": order["price"],
                    "category": "Travel",
                    "status": "processing" if start > ctx.anchor else "delivered",
                },
            )
            ev.code = code
            emit_hoolishop_charge_and_mail(ctx, ev, order, when, code, total)


TRIP_APPS = {
    "vaultbank_charge": "vaultbank",
    "vaultbank_charge_flight": "vaultbank",
    "email_confirmation": "mail",
    "calendar_event": "calendar",
    "buzzchat_mention": "buzzchat",
    "browser_history": "browser",
    "etaxi_to_airport": "etaxi",
    "hoolishop_order": "hoolishop",
}


def _trip_apps(trip) -> list:
    """The apps a trip's spec says it leaves traces in (its own event and its parts together)."""
    named = {"cheskepdia"} if trip.get("hotel") else set()
    if trip.get("flight"):
        named.add("dinoco-airlines")
    named |= {app for key, app in TRIP_APPS.items() if (trip.get("generates") or {}).get(key)}
    return sorted(named)


# -- cross-app events -----------------------------------------------------------------------------------
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


# -- shopping ----------------------------------------------------------------------------------------------
def seed_shopping(ctx):
    rng = ctx.rng("shopping")
    for i, order in enumerate(ctx.persona.section("shopping", {}).get("online_orders", [])):
        days_ago = order.get("date_relative_days")
        day = ctx.relative(days_ago) if days_ago is not None else ctx.relative(rng.randint(20, 300))
        when = _at(day, rng.randint(8, 23), rng.randint(0, 59))
        ev = ctx.add_event(
            Event(
                f"shopping.online_orders[{i}]",
                "order",
                order["item"],
                day.isoformat(),
                amount=order["price"],
                merchant="HooliShop",
            )
        )
        code, total = emit(
            ctx,
            ev,
            {
                "app": "hoolishop",
                "when": when,
                "item": order["item"],
                "price": order["price"],
                "category": order.get("category", "General"),
                "note": order.get("note"),
            },
        )
        ev.code = code
        emit_hoolishop_charge_and_mail(ctx, ev, order, when, code, total)


# -- plants: records the overlay adds for contradictions, dependencies and tasks ----------------------------
def _when(ctx, rec, key="date", time_key="time"):
    value = rec.get(key)
    if value is None:
        return None
    if isinstance(value, int):
        day = ctx.relative(-value) if value < 0 else ctx.relative(value)
        hour, minute = parse_time_of_day(rec.get(time_key, ""), (12, 0))
        return _at(day, hour, minute)
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


# -- catalogs: what the apps sell or list beyond the persona's own records (overlay-driven) -----------------
def seed_catalogs(ctx):
    """Products, venues, routes and properties that tasks browse; each list lives in app_overrides."""
    persona = ctx.persona
    for n, item in enumerate(persona.override("hoolishop").get("catalog", [])):
        where = f"app_overrides.hoolishop.catalog[{n}]"
        lookup(
            ctx,
            "hoolishop",
            "products",
            item["item"],
            lambda item=item: {
                "name": item["item"],
                "category": item.get("category", "General"),
                "price": item["price"],
            },
            where,
        )
    kwik = persona.override("kwik-e-mart")
    for n, store in enumerate(kwik.get("favorite_stores", [])):
        lookup(
            ctx,
            "kwik-e-mart",
            "stores",
            store,
            lambda store=store: {"name": store},
            f"app_overrides.kwik-e-mart.favorite_stores[{n}]",
        )
    for n, item in enumerate(kwik.get("catalog", [])):
        ctx.add(
            "kwik-e-mart",
            "products",
            {"name": item["item"], "price": item["price"], "category": item.get("category")},
            f"app_overrides.kwik-e-mart.catalog[{n}]",
        )
    for n, venue in enumerate(persona.override("tablefind").get("venues", [])):
        lookup(
            ctx,
            "tablefind",
            "restaurants",
            venue["name"],
            lambda venue=venue: {
                "name": venue["name"],
                "city": venue.get("city"),
                "cuisine": venue.get("cuisine"),
                "neighborhood": venue.get("neighborhood"),
            },
            f"app_overrides.tablefind.venues[{n}]",
        )
    for n, place in enumerate(persona.override("hangrydash").get("favorite_restaurants", [])):
        lookup(
            ctx,
            "hangrydash",
            "restaurants",
            place["name"],
            lambda place=place: {"name": place["name"], "cuisine": place.get("cuisine")},
            f"app_overrides.hangrydash.favorite_restaurants[{n}]",
        )
    airline = persona.override("dinoco-airlines")
    loyalty = airline.get("loyalty", {})
    ident = persona.spec["identity"]
    lookup(
        ctx,
        "dinoco-airlines",
        "passengers",
        persona.name,
        lambda: {
            "name": persona.name,
            "email": ident.get("email"),
            "seat_preference": airline.get("seat_preference"),
            "loyalty_program": loyalty.get("program"),
            "loyalty_tier": loyalty.get("tier"),
            "miles": loyalty.get("miles"),
        },
        "app_overrides.dinoco-airlines",
    )
    for n, route in enumerate(airline.get("routes", [])):
        hour, minute = parse_time_of_day(route.get("departure", "9:00am"))
        departs = dt.datetime.combine(
            ctx.anchor + dt.timedelta(days=int(route.get("days_ahead", 30))), dt.time(hour, minute)
        )
        ctx.add(
            "dinoco-airlines",
            "flights",
            {
                "number": route["number"],
                "origin": route["from"],
                "destination": route["to"],
                "departs_at": departs.strftime("%Y-%m-%d %H:%M:%S"),
                "gate": route.get("gate"),
            },
            f"app_overrides.dinoco-airlines.routes[{n}]",
        )
    for n, prop in enumerate(persona.override("cheskepdia").get("properties", [])):
        lookup(
            ctx,
            "cheskepdia",
            "properties",
            prop["name"],
            lambda prop=prop: {
                "name": prop["name"],
                "city": prop.get("city"),
                "host": prop.get("host"),
                "amenities": ", ".join(prop.get("amenities", [])) or None,
                "nightly_rate": prop.get("nightly_rate"),
            },
            f"app_overrides.cheskepdia.properties[{n}]",
        )
