"""Routine records that fill the world around the spec's events up to the paper's volumes.

Each filler follows the persona: rides on commute days at the departure time, dinners on ordering days
from the favourite restaurants, the recurring charges on their day of the month, chat with each contact
as often as their ``frequency`` says. Fillers never touch a spec record; they only add around them.
"""

import datetime as dt
from functools import cache

import holidays

from ..apps import app_domain, target
from ..core import WEEKDAYS, Event, parse_time_of_day
from ..fanout import emit
from .menus import MENUS, TRIP_DINNERS, USUALS, menu_price, spec_priced
from .receipts import food_receipt, ride_receipt, shipment_receipt
from .travel_data import ROUTE_MILES


def _count(ctx, app, table):
    return len(ctx.rows(app, table))


def away_days(ctx) -> set:
    """Every day Michael is away on a spec trip (departure to return, both included)."""
    away = set()
    for trip in ctx.persona.section("trips", []):
        dates = trip.get("dates") or []
        if len(dates) == 2:
            day, last = ctx.day(dates[0]), ctx.day(dates[1])
            while day <= last:
                away.add(day)
                day += dt.timedelta(days=1)
    return away


def _pick_days(ctx, rng, n, allowed=None, until=None, home_only=False):
    # Home-town routines (deliveries, commutes) skip the days Michael is travelling.
    skip = away_days(ctx) if home_only else set()
    days = [d for d in ctx.days(until) if (allowed is None or WEEKDAYS[d.weekday()] in allowed) and d not in skip]
    if not days or n <= 0:
        return []
    return sorted(rng.sample(days, n) if n <= len(days) else rng.choices(days, k=n))


def _at(day, hour, minute=0):
    return dt.datetime.combine(day, dt.time(hour % 24, minute % 60))


def _routine_event(ctx, eid, kind, title, when, amount=None):
    # Routine records are events too (one record fanned to app, bank and mail), but are not listed in
    # events.json one by one: their provenance names the routine and the checker samples them by app.
    return Event(eid, kind, title, when.date().isoformat(), amount=amount)


# Everyday spending goes on the debit card; the credit card carries shopping, travel and subscriptions.
DEBIT_APPS = {"hangrydash", "kwik-e-mart", "etaxi"}


def _plain_receipt(lines, total, code) -> str:
    return "\n".join(lines) + f"\nTotal: ${total:,.2f}\nReference: {code}\n"


def _bank_and_receipt(ctx, ev, when, app, merchant, code, total, body, category):
    emit(
        ctx,
        ev,
        {
            "method": "debit_card" if app in DEBIT_APPS else "credit_card",
            "app": "vaultbank",
            "when": when,
            "amount": total,
            "merchant": merchant,
            "description": f"{merchant} {code}",
            "category": category,
            "code": code,
        },
    )
    emit(
        ctx,
        ev,
        {
            "app": "mail",
            "when": when + dt.timedelta(minutes=2),
            "from_name": merchant.split(" *")[0],
            "from_addr": f"receipts@{app_domain(app)}",
            "subject": f"Your {merchant.split(' *')[0]} receipt {code}",
            "code": code,
            "body": body,
            "label": None,
        },
    )


def _trip_rides(ctx, rng, home):
    """Travel-side rides of the trips already under way: to the airport (or the hotel) and back home."""
    over = ctx.persona.override("etaxi")
    for i, trip in enumerate(ctx.persona.section("trips", [])):
        dates, flight = trip.get("dates") or [], trip.get("flight") or {}
        if len(dates) != 2 or ctx.day(dates[0]) > ctx.anchor or (trip.get("generates") or {}).get("etaxi_to_airport"):
            continue
        first, last = ctx.day(dates[0]), ctx.day(dates[1])
        if flight:
            hour, minute = parse_time_of_day(flight.get("departure", "9:00am"))
            minutes = ROUTE_MILES.get((str(flight.get("from")), str(flight.get("to"))), (0, 180))[1]
            legs = [
                (_at(first, hour, minute) - dt.timedelta(hours=2, minutes=30), home, flight.get("from", "AVP"), 42.0),
                (_at(last, 15, 10) + dt.timedelta(minutes=minutes + 40), flight.get("from", "AVP"), home, 42.0),
            ]
        else:
            hotel = f"{(trip.get('hotel') or {}).get('name', 'Hotel')}, {trip['destination']}"
            legs = [(_at(first, 13, 30), home, hotel, 168.0), (_at(last, 11, 15), hotel, home, 168.0)]
        for when, pickup, dropoff, fare in legs:
            if when.date() > ctx.anchor:
                continue
            ev = _routine_event(ctx, f"trips[{i}].rides", "ride", f"{pickup} -> {dropoff}", when)
            ride = {
                "app": "etaxi",
                "when": when,
                "pickup": pickup,
                "dropoff": dropoff,
                "fare": fare,
                "tip": round(fare * over.get("typical_tip_pct", 15) / 100, 2),
                "car_type": over.get("preferred_car_type", "Standard"),
                "driver": rng.choice(DRIVERS),
                "rating": 5,
                "code": None,
            }
            code, total = emit(ctx, ev, ride)
            body = ride_receipt(ride, code, total, ctx.persona.name)
            _bank_and_receipt(ctx, ev, when, "etaxi", "eTaxi", code, total, body, "Transport")


# The days Dunder Mifflin's office is closed: the federal holidays a private office keeps (observed days too).
OFFICE_HOLIDAYS = (
    "New Year's Day",
    "Memorial Day",
    "Independence Day",
    "Labor Day",
    "Thanksgiving Day",
    "Christmas Day",
)


@cache
def _closed_days(year: int) -> frozenset:
    return frozenset(
        day for day, name in holidays.country_holidays("US", years=year).items() if name.startswith(OFFICE_HOLIDAYS)
    )


def office_closed(day: dt.date) -> bool:
    """Whether the office is closed on ``day`` (no commute then)."""
    return day in _closed_days(day.year)


def fill_rides(ctx):
    rng = ctx.rng("routine.etaxi")
    commute = ctx.persona.section("routines", {}).get("commute", {})
    over = ctx.persona.override("etaxi")
    _trip_rides(ctx, rng, commute.get("from", "Home"))
    need = target(ctx, "rideshare_requests") - _count(ctx, "etaxi", "rides")
    hour, minute = parse_time_of_day(commute.get("typical_departure", "8:30am"), (8, 30))
    tip_pct = over.get("typical_tip_pct", 15)
    home, office = commute.get("from", "Home"), commute.get("to", "Office")
    # The most recent commute days, back from today: he rides in on every office day, so the rides of this
    # year and last month are all there, and none while he is away.
    away = away_days(ctx)
    office_days = [d for d in ctx.days() if WEEKDAYS[d.weekday()] in (commute.get("days") or WEEKDAYS)]
    office_days = [d for d in office_days if d not in away and not office_closed(d)]
    for day in office_days[-need:] if need > 0 else []:
        when = _at(day, hour, minute + rng.randint(0, 25))
        fare = round(rng.uniform(11, 19), 2)
        ev = _routine_event(ctx, "routines.commute", "ride", "Commute", when)
        ride = {
            "app": "etaxi",
            "when": when,
            "pickup": home,
            "dropoff": office,
            "fare": fare,
            "tip": round(fare * tip_pct / 100, 2),
            "car_type": over.get("preferred_car_type", "Standard"),
            "driver": rng.choice(DRIVERS),
            "rating": 5,
            "code": None,
        }
        code, total = emit(ctx, ev, ride)
        _bank_and_receipt(
            ctx, ev, when, "etaxi", "eTaxi", code, total, ride_receipt(ride, code, total, ctx.persona.name), "Transport"
        )


# The drivers who work the Scranton area (each with one car: ``receipts.driver_car``).
DRIVERS = [
    "Luis M.",
    "Priya K.",
    "Dale W.",
    "Tanya R.",
    "Omar S.",
    "Greg P.",
    "Rosa D.",
    "Ken T.",
    "Sharon B.",
    "Irfan A.",
    "Molly C.",
    "Frank D.",
    "Yolanda J.",
    "Pete V.",
    "Ana L.",
    "Bill H.",
]


def _trip_dinners(ctx):
    """Travel-side meals: the first evening of a past city trip, delivered to the hotel there."""
    for i, trip in enumerate(ctx.persona.section("trips", [])):
        dates = trip.get("dates") or []
        place = next((v for city, v in TRIP_DINNERS.items() if city in trip.get("destination", "")), None)
        if not place or len(dates) != 2 or ctx.day(dates[0]) >= ctx.anchor:
            continue
        name, dishes = place
        day = ctx.day(dates[0])
        when = _at(day, 19, 40)
        base = {m[1]: m[2] for m in MENUS[name][2]}
        items: list[dict] = [
            {"item": dish, "price": menu_price(ctx.anchor, name, dish, base[dish], day)} for dish in dishes
        ]
        ev = _routine_event(ctx, f"trips[{i}].meals", "food_order", name, when)
        order = {
            "app": "hangrydash",
            "when": when,
            "restaurant": name,
            "items": items,
            "tip": round(sum(i["price"] * i.get("quantity", 1) for i in items) * 0.2, 2),
            "code": None,
        }
        code, total = emit(ctx, ev, order)
        body = food_receipt(order, code, total)
        _bank_and_receipt(ctx, ev, when, "hangrydash", f"HangryDash *{name}", code, total, body, "Dining")


def _per_week(text) -> float:
    """'3x/week' -> 3, 'weekly' -> 1, 'monthly' -> 0.25, 'daily' -> 7; unknown -> 1."""
    value = str(text or "").lower()
    if "x/week" in value:
        try:
            return float(value.split("x/week")[0].strip())
        except ValueError:
            return 1.0
    return {"daily": 7.0, "weekly": 1.0, "biweekly": 0.5, "monthly": 0.25}.get(value.strip(), 1.0)


def _usual_basket(rng, name, menu) -> list[str]:
    """His usual at ``name``, as people order it: the main dish always, the usual sides most times, now and
    then another dish from the menu beside it (never a random stranger's order)."""
    usual = list(USUALS.get(name, [menu[0][1]]))
    basket = usual[:1] + [dish for dish in usual[1:] if rng.random() < 0.75]
    if rng.random() < 0.35:
        extra = [m[1] for m in menu if m[1] not in basket and m[0] not in ("Desserts", "Cheesecake")]
        if extra:
            basket.append(rng.choice(extra))
    return basket


def fill_food(ctx):
    rng = ctx.rng("routine.hangrydash")
    over = ctx.persona.override("hangrydash")
    _trip_dinners(ctx)
    meals = ctx.persona.section("routines", {}).get("meals", {})
    places = [r["name"] for r in over.get("favorite_restaurants", [])]
    lunch = meals.get("lunch", {})
    if lunch.get("typical_restaurant") and lunch["typical_restaurant"] not in places:
        places.append(lunch["typical_restaurant"])
    places += [name for name in lunch.get("alternatives", []) if name not in places]
    if "Sweetgreen" not in places:
        places.append("Sweetgreen")
    places = [p for p in places if p in MENUS] or ["Alfredo's Pizza Cafe"]
    # How often each place is ordered from follows the spec's frequency ("3x/week", "weekly", "monthly").
    often = {r["name"]: _per_week(r.get("frequency")) for r in over.get("favorite_restaurants", [])}
    if lunch.get("typical_restaurant"):
        often[lunch["typical_restaurant"]] = max(
            often.get(lunch["typical_restaurant"], 0), _per_week(lunch.get("frequency"))
        )
    weights = [often.get(p, 1.0) for p in places]
    need = target(ctx, "food_delivery_orders") - _count(ctx, "hangrydash", "orders")
    days = meals.get("dinner", {}).get("ordering_days") or WEEKDAYS
    pinned = spec_priced(ctx)
    vary = ctx.rng("routine.hangrydash.baskets")  # its own RNG: the days and places drawn above stay as they were
    # Story, in every world variant: each lunch place (the usual, the alternatives, the salad place a task
    # looks for) has at least one lunch order. The last days go to a lunch place still missing, if any.
    lunch_places = [p for p in (lunch.get("typical_restaurant"), *lunch.get("alternatives", []), "Sweetgreen") if p]
    unlunched = [p for p in dict.fromkeys(lunch_places) if p in places]
    picked = _pick_days(ctx, rng, need, days, home_only=True)
    for number, day in enumerate(picked):
        name = rng.choices(places, weights)[0]
        when = _at(day, rng.choice([12, 18, 19, 20]), rng.randint(0, 59))
        lunched = when.hour == 12 and name in unlunched
        if unlunched and len(picked) - number <= len(unlunched) and not lunched:
            name, when = unlunched[0], when.replace(hour=12)
        if when.hour == 12 and name in unlunched:
            unlunched.remove(name)
        menu = MENUS[name][2]
        if rng.random() < 0.7:
            names = _usual_basket(vary, name, menu)
        else:
            names = [rng.choice([m[1] for m in menu if m[0] not in ("Drinks", "Desserts", "Cheesecake")])]
        base = {m[1]: m[2] for m in menu}
        items: list[dict] = [
            {"item": n, "price": menu_price(ctx.anchor, name, n, base[n], day, pinned.get((name, n)))} for n in names
        ]
        sweets = [m for m in menu if m[0] in ("Desserts", "Cheesecake") and m[1] not in names]
        if sweets and (over.get("always_gets_dessert") or rng.random() < 0.4):
            sweet = rng.choice(sweets)
            price = menu_price(ctx.anchor, name, sweet[1], sweet[2], day, pinned.get((name, sweet[1])))
            items.append({"item": sweet[1], "price": price})
        ev = _routine_event(ctx, "routines.meals", "food_order", name, when)
        order = {
            "app": "hangrydash",
            "when": when,
            "restaurant": name,
            "items": items,
            "tip": round(sum(i["price"] * i.get("quantity", 1) for i in items) * 0.2, 2),
            "code": None,
        }
        code, total = emit(ctx, ev, order)
        body = food_receipt(order, code, total)
        _bank_and_receipt(ctx, ev, when, "hangrydash", f"HangryDash *{name}", code, total, body, "Dining")


GENERIC_PRODUCTS = [
    ("Printer paper (5 reams)", 32.99, "Office"),
    ("Sticky notes 24-pack", 14.99, "Office"),
    ("Bluetooth speaker", 49.99, "Electronics"),
    ("Phone charger", 19.99, "Electronics"),
    ("Comedy DVD box set", 29.99, "Movies"),
    ("Karaoke microphone", 39.99, "Electronics"),
    ("Hair gel 3-pack", 18.99, "Beauty"),
    ("Novelty necktie", 24.99, "Apparel"),
    ("Party streamers", 9.99, "Party Supplies"),
    ("Coffee pods 48ct", 27.99, "Kitchen"),
    ("Desk toy Newton's cradle", 21.99, "Office"),
    ("Motivational poster", 16.99, "Office"),
    ("Magic trick kit", 34.99, "Toys"),
    ("Running socks", 12.99, "Outdoor"),
    ("Leadership book", 17.99, "Books"),
]


def fill_retail(ctx):
    rng = ctx.rng("routine.hoolishop")
    subs = [(r, ctx.persona.spec) for r in ctx.rows("hoolishop", "subscriptions")]
    products = {row["id"]: row for row in ctx.rows("hoolishop", "products")}
    need = target(ctx, "retail_orders") - _count(ctx, "hoolishop", "orders")
    monthly: list[tuple] = []
    for sub, _ in subs:
        day = ctx.start.replace(day=min(ctx.start.day, 28))
        while day <= ctx.anchor and len(monthly) < max(need // 2, 0):
            monthly.append((day, products[sub["product_id"]], sub["provenance"]))
            day = (day.replace(day=1) + dt.timedelta(days=32)).replace(day=min(ctx.start.day, 28))
    for day, product, prov in sorted(monthly, key=lambda x: (x[0], x[1]["name"]))[: max(need, 0)]:
        when = _at(day, 6, 0)
        ev = _routine_event(ctx, prov, "subscription_order", product["name"], when)
        order = {
            "app": "hoolishop",
            "when": when,
            "item": product["name"],
            "price": product["price"],
            "note": "Subscribe & Save",
            "code": None,
        }
        code, total = emit(ctx, ev, order)
        body = shipment_receipt(order, code, total, len(ctx.rows("hoolishop", "orders")), subscription=True)
        _bank_and_receipt(ctx, ev, when, "hoolishop", "HooliShop", code, total, body, "Shopping")
    need = target(ctx, "retail_orders") - _count(ctx, "hoolishop", "orders")
    for day in _pick_days(ctx, rng, need):
        name, price, category = rng.choice(GENERIC_PRODUCTS)
        when = _at(day, rng.randint(9, 23), rng.randint(0, 59))
        ev = _routine_event(ctx, "routines.shopping", "order", name, when)
        order = {"app": "hoolishop", "when": when, "item": name, "price": price, "category": category, "code": None}
        code, total = emit(ctx, ev, order)
        body = shipment_receipt(order, code, total, len(ctx.rows("hoolishop", "orders")), subscription=False)
        _bank_and_receipt(ctx, ev, when, "hoolishop", "HooliShop", code, total, body, "Shopping")


GROCERIES = [
    ("Milk", 3.49),
    ("Bacon", 6.99),
    ("Frozen pizza", 7.49),
    ("Donuts (dozen)", 8.99),
    ("Cream (quart)", 4.99),
    ("Splenda (100ct)", 5.49),
    ("Soda 12-pack", 6.99),
    ("Chips", 4.29),
    ("Ice cream", 5.99),
    ("Bread", 3.29),
    ("Hot dogs", 4.99),
    ("Cheese", 5.49),
]


def fill_grocery(ctx):
    rng = ctx.rng("routine.kwik")
    over = ctx.persona.override("kwik-e-mart")
    stores = over.get("favorite_stores") or ["Kwik-E-Mart"]
    need = target(ctx, "grocery_orders") - _count(ctx, "kwik-e-mart", "orders")
    others = [name for name in stores if name != "Wegmans"] or stores
    for n, day in enumerate(_pick_days(ctx, rng, need, ["sat", "sun"], home_only=True)):
        # Three runs in five go to Wegmans (the released world's top store, 17 of 29 orders).
        store = "Wegmans" if "Wegmans" in stores and n % 5 < 3 else rng.choice(others)
        items = [
            {"item": g[0], "price": g[1], "quantity": rng.randint(1, 3)}
            for g in rng.sample(GROCERIES, rng.randint(3, 7))
        ]
        when = _at(day, rng.randint(10, 17), rng.randint(0, 59))
        ev = _routine_event(ctx, "routines.groceries", "grocery_order", store, when)
        code, total = emit(
            ctx,
            ev,
            {
                "app": "kwik-e-mart",
                "when": when,
                "store": store,
                "items": items,
                "tip_pct": over.get("preferred_tip_percent", 20),
                "instructions": over.get("delivery_instructions"),
                "code": None,
            },
        )
        _bank_and_receipt(
            ctx,
            ev,
            when,
            "kwik-e-mart",
            "Kwik-E-Mart",
            code,
            total,
            _plain_receipt([f"{i['quantity']} x {i['item']} ${i['price']:.2f}" for i in items], total, code),
            "Groceries",
        )


def fill_reservations(ctx):
    rng = ctx.rng("routine.tablefind")
    over = ctx.persona.override("tablefind")
    meals = ctx.persona.section("routines", {}).get("meals", {})
    lunch = meals.get("lunch", {})
    places = [lunch["typical_restaurant"]] if lunch.get("typical_restaurant") else []
    places += lunch.get("alternatives", [])
    places += [r["name"] for r in ctx.persona.override("hangrydash").get("favorite_restaurants", [])]
    places = places or ["Main Street Bistro"]
    friends = [c["name"] for c in ctx.persona.section("contacts", []) if "tablefind" in c.get("apps_present_in", [])]
    need = target(ctx, "restaurant_reservations") - _count(ctx, "tablefind", "reservations")
    # One of them is still ahead: the table booked for this coming Friday.
    upcoming = ctx.anchor + dt.timedelta(days=(4 - ctx.anchor.weekday() - 1) % 7 + 1)
    days = _pick_days(ctx, rng, need - 1, ["thu", "fri", "sat"]) + ([upcoming] if need > 0 else [])
    for day in days:
        # Cooper's is the table he books most (the released world's top TableFind restaurant).
        place = rng.choices(places, [3 if name == "Cooper's Seafood House" else 1 for name in places])[0]
        when = _at(day, rng.choice([18, 19, 20]), rng.choice([0, 30]))
        ev = _routine_event(ctx, "routines.dining_out", "reservation", place, when)
        code = emit(
            ctx,
            ev,
            {
                "app": "tablefind",
                "when": when,
                "restaurant": place,
                "party_size": rng.choice([2, 4, 6, 8])
                if "big" in str(over.get("party_size_habit", "")).lower()
                else rng.choice([2, 3, 4]),
                "name": over.get("reservation_name", ctx.persona.name),
                # The spec describes his habit of inventing anniversaries; the booking itself just says so.
                "occasion": rng.choice(
                    [None, None, "business", "anniversary" if over.get("favorite_occasion") else None]
                ),
                "status": None,
            },
        )
        guest = rng.choice(friends) if friends else None
        emit(
            ctx,
            ev,
            {
                "app": "mail",
                "when": max(
                    min(when - dt.timedelta(days=2), _at(ctx.anchor - dt.timedelta(days=1), 9)), _at(ctx.start, 9)
                ),
                "from_name": "TableFind",
                "from_addr": f"reservations@{app_domain('tablefind')}",
                "subject": f"Reservation confirmed at {place} ({code})",
                "code": code,
                "body": f"{place}\n{when.strftime('%A %B %d, %Y %I:%M %p')}\nConfirmation: {code}\n"
                + (f"Shared with {guest}\n" if guest else ""),
            },
        )
    for row in ctx.rows("tablefind", "reservations"):
        if row["status"] is None:
            row["status"] = "completed" if row["reserved_for"][:10] <= ctx.anchor.isoformat() else "confirmed"


def fill_recurring(ctx):
    """Every recurring charge on its day of each month of the window."""
    signups = {}
    for event in ctx.persona.section("cross_app_events", []):
        merchant = (event.get("details") or {}).get("merchant")
        if event.get("type") == "subscription_signup" and merchant:
            signups[merchant.lower()] = ctx.day(event["date"])
    for n, charge in enumerate(ctx.persona.section("financial", {}).get("recurring_charges", [])):
        day = ctx.start
        # A subscription whose signup is an event starts billing the month after it (the signup event
        # carries the first charge), never before it.
        signup = next((d for m, d in signups.items() if charge["name"].lower().startswith(m)), None)
        if signup:
            day = (signup.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
        while day <= ctx.anchor:
            try:
                due = day.replace(day=int(charge["day"]))
            except ValueError:
                due = None
            if due and ctx.start <= due <= ctx.anchor:
                method = {"zelle": "checking", "checking": "checking"}.get(charge.get("method"), "credit_card")
                label = charge.get("payee") and f"Zelle to {charge['payee']} ({charge['name']})" or charge["name"]
                ctx.intent(
                    "charge",
                    {
                        "date": due.isoformat(),
                        "amount": -abs(charge["amount"]),
                        "merchant": charge.get("payee") or charge["name"],
                        "description": label,
                        "category": "Recurring",
                        "method": method,
                        "reference": None,
                    },
                    f"financial.recurring_charges[{n}]",
                )
            day = (day.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
