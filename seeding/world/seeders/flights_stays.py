"""Dinoco Airlines and Cheskepdia around the bookings (part of the ``travel`` seeder).

Dinoco: airports, routes with their miles, aircraft, fare classes with their cancel policies, fares and
seat maps per flight, check-in, payments, bags, loyalty activity and tiers, a travel credit. Cheskepdia:
listings with details, amenities, photos, reviews, 60 nights of availability, saved trips, and each
booking's price breakdown, payment and host message.
"""

import datetime as dt

from ..core import DATE, DATETIME, stable_id
from ..fanout import lookup
from .storefront_data import REVIEW_LINES, REVIEWERS
from .travel_data import AIRPORTS, LISTINGS, ROUTE_MILES

# Dinoco opens online check-in a week before departure (and keeps the boarding pass in the app).
CHECK_IN_WINDOW = dt.timedelta(days=7)


def _stamp(value: dt.datetime) -> str:
    return value.strftime(DATETIME)


def _parse(text: str) -> dt.datetime:
    return dt.datetime.strptime(text[:19], DATETIME)


def seed_flights_and_stays(ctx):
    _dinoco(ctx)
    _cheskepdia(ctx)


def _dinoco(ctx):
    app, rng, where = "dinoco-airlines", ctx.rng("travel.dinoco"), "catalog.dinoco-airlines"
    for code, (name, city) in AIRPORTS.items():
        ctx.add(app, "airports", {"code": code, "name": name, "city": city}, where)
    for (origin, dest), (miles, minutes) in ROUTE_MILES.items():
        ctx.add(app, "routes", {"origin": origin, "destination": dest, "miles": miles, "minutes": minutes}, where)
        ctx.add(app, "routes", {"origin": dest, "destination": origin, "miles": miles, "minutes": minutes + 10}, where)
    for model, first, main, per_row in [
        ("Embraer E175", 3, 17, 4),
        ("Airbus A220-300", 3, 24, 5),
        ("Boeing 737-800", 4, 26, 6),
    ]:
        ctx.add(
            app, "aircraft", {"model": model, "rows_first": first, "rows_main": main, "seats_per_row": per_row}, where
        )
    classes = [
        ("BE", "Main", "Basic Economy", 0, 0.0, "No changes; cancellation forfeits the fare", 0.5),
        ("MC", "Main", "Main Cabin", 0, 0.0, "Cancel any time for a travel credit of the full fare", 1.0),
        ("CP", "Main", "Comfort+", 0, 0.0, "Cancel any time for a travel credit of the full fare", 1.5),
        ("FC", "First", "First Class", 1, 0.0, "Refundable to the original payment", 2.0),
    ]
    for code, cabin, name, refundable, fee, policy, mult in classes:
        ctx.add(
            app,
            "fare_classes",
            {
                "code": code,
                "cabin": cabin,
                "name": name,
                "refundable": refundable,
                "change_fee": fee,
                "cancel_policy": policy,
                "miles_multiplier": mult,
            },
            where,
        )
    _return_legs(ctx, app)
    seat_of = {seg["flight_id"]: seg["seat"] for seg in ctx.rows(app, "segments")}
    miles_of = {}
    for (origin, dest), value in ROUTE_MILES.items():
        miles_of[(origin, dest)] = miles_of[(dest, origin)] = value
    for flight in ctx.rows(app, "flights"):
        miles, minutes = miles_of.get((flight["origin"], flight["destination"]), (500, 120))
        departs = _parse(flight["departs_at"])
        aircraft = 1 if miles < 300 else 3
        ctx.add(
            app,
            "flight_details",
            {
                "flight_id": flight["id"],
                "miles": miles,
                "aircraft_id": aircraft,
                "arrives_at": _stamp(departs + dt.timedelta(minutes=minutes)),
                "status": "landed" if departs.date() < ctx.anchor else "scheduled",
            },
            flight["provenance"],
        )
        for n in range(len(classes)):
            ctx.add(
                app,
                "fares",
                {
                    "flight_id": flight["id"],
                    "fare_class_id": n + 1,
                    "price": round((89 + miles * 0.19) * (1, 1.25, 1.6, 3.2)[n]),
                    "seats_left": rng.randint(0, 9),
                },
                where,
            )
        first, main, per_row = (3, 17, 4) if aircraft == 1 else (4, 26, 6)
        letters = "ABCDEF"[:per_row]
        for row in range(1, first + main + 1):
            cabin = "First" if row <= first else "Main"
            for letter in letters[:4] if cabin == "First" else letters:
                seat = f"{row}{letter}"
                window = letter in (letters[0], letters[-1] if cabin == "Main" else "D")
                status = "yours" if seat_of.get(flight["id"]) == seat else ("taken" if rng.random() < 0.55 else "open")
                ctx.add(
                    app,
                    "seats",
                    {
                        "flight_id": flight["id"],
                        "seat": seat,
                        "cabin": cabin,
                        "kind": "window" if window else "aisle" if letter in "CD" else "middle",
                        "status": status,
                    },
                    flight["provenance"],
                )
    flights = {f["id"]: f for f in ctx.rows(app, "flights")}
    for booking in ctx.rows(app, "bookings"):
        flight = flights[booking["flight_id"]]
        departs = _parse(flight["departs_at"])
        legs = [flights[seg["flight_id"]] for seg in ctx.rows(app, "segments") if seg["booking_id"] == booking["id"]]
        flown_legs = [leg for leg in legs if _parse(leg["departs_at"]).date() < ctx.anchor]
        miles = sum(miles_of.get((leg["origin"], leg["destination"]), (500, 0))[0] for leg in flown_legs)
        flown = departs.date() < ctx.anchor
        ctx.add(
            app,
            "booking_details",
            {
                "booking_id": booking["id"],
                "fare_class_id": 2,
                "checked_in": int(flown),
                "check_in_opens": _stamp(departs - CHECK_IN_WINDOW),
                "miles_earned": miles,
            },
            booking["provenance"],
        )
        if booking.get("fare"):
            ctx.add(
                app,
                "payments",
                {
                    "booking_id": booking["id"],
                    "amount": booking["fare"],
                    "method": "Gringotts Visa",
                    "paid_on": booking.get("booked_on") or departs.date().isoformat(),
                },
                booking["provenance"],
            )
        ctx.add(
            app,
            "baggage",
            {
                "booking_id": booking["id"],
                "kind": "carry-on",
                "fee": 0.0,
                "tag": f"DN{stable_id(booking['confirmation'], 'bag', length=8).upper()}",
            },
            booking["provenance"],
        )
        for leg in flown_legs:
            ctx.add(
                app,
                "loyalty_activity",
                {
                    "passenger_id": booking["passenger_id"],
                    "miles": miles_of.get((leg["origin"], leg["destination"]), (500, 0))[0],
                    "posted_on": (_parse(leg["departs_at"]).date() + dt.timedelta(days=2)).isoformat(),
                    "description": f"Flight {leg['number']} {leg['origin']}-{leg['destination']}",
                },
                booking["provenance"],
            )
    ctx.add(
        app,
        "travel_credits",
        {
            "code": f"TC-{stable_id(*ctx.surface(ctx.persona.slug, 'credit'), length=6).upper()}",
            "amount": 75.0,
            "balance": 75.0,
            "reason": "Schedule change goodwill credit",
            "issued_on": (ctx.anchor - dt.timedelta(days=150)).isoformat(),
            "expires_on": (ctx.anchor + dt.timedelta(days=215)).isoformat(),
            "source_confirmation": None,
            "status": "active",
        },
        where,
    )
    for name, need, perks in [
        ("Blue", 0, "Earn 5 miles per dollar"),
        ("Silver Voyager", 25000, "Free checked bag"),
        ("Gold Voyager", 50000, "Free upgrades when available; priority boarding"),
        ("Platinum Voyager", 75000, "Lounge access; 2 free checked bags"),
    ]:
        ctx.add(app, "loyalty_tiers", {"name": name, "qualifying_miles": need, "perks": perks}, where)


def _return_legs(ctx, app):
    """Each trip's booking is a round trip: the outbound flight and the flight home on the trip's last day."""
    flights = {f["id"]: f for f in ctx.rows(app, "flights")}
    trips = {(t.get("flight") or {}).get("confirmation"): t for t in ctx.persona.section("trips", [])}
    for booking in list(ctx.rows(app, "bookings")):
        out = flights[booking["flight_id"]]
        trip = trips.get(booking["confirmation"])
        ctx.add(
            app,
            "segments",
            {"booking_id": booking["id"], "flight_id": out["id"], "leg": "outbound", "seat": booking["seat"]},
            booking["provenance"],
        )
        if not trip or len(trip.get("dates") or []) != 2:
            continue
        taken = {f["number"] for f in ctx.rows(app, "flights")}
        value = int(out["number"][2:]) + 1
        while f"DN{value}" in taken:
            value += 2
        number = f"DN{value}"
        home = dt.datetime.combine(ctx.day(trip["dates"][1]), dt.time(15, 10))
        fid = ctx.add(
            app,
            "flights",
            {
                "number": number,
                "origin": out["destination"],
                "destination": out["origin"],
                "departs_at": _stamp(home),
                "gate": None,
            },
            booking["provenance"],
        )
        ctx.add(
            app,
            "segments",
            {"booking_id": booking["id"], "flight_id": fid, "leg": "return", "seat": booking["seat"]},
            booking["provenance"],
        )


def _cheskepdia(ctx):
    app, rng, where = "cheskepdia", ctx.rng("travel.cheskepdia"), "catalog.cheskepdia"
    for name, city, _kind, host, rate, _guests, amenities in LISTINGS:
        lookup(
            ctx,
            app,
            "properties",
            name,
            lambda name=name, city=city, host=host, rate=rate, amenities=amenities: {
                "name": name,
                "city": city,
                "host": host,
                "amenities": ", ".join(amenities),
                "nightly_rate": rate,
            },
            where,
        )
    kinds = {row[0]: row for row in LISTINGS}
    resort = ["all-inclusive dining", "pool", "beach access", "spa", "swim-up bar", "wifi"]
    for prop in ctx.rows(app, "properties"):
        if not prop.get("amenities"):
            prop["amenities"] = ", ".join(
                resort if "Sandals" in prop["name"] else ["wifi", "restaurant", "fitness center"]
            )
        if not prop.get("host"):
            prop["host"] = prop["name"]
        if prop["name"].startswith("Sandals") and prop.get("city") == prop["name"]:
            prop["city"] = {"Sandals Royal Barbados": "St. Lawrence Gap, Barbados"}.get(prop["name"], prop["city"])
        listing = kinds.get(prop["name"])
        kind = listing[2] if listing else ("Resort" if "Sandals" in prop["name"] else "Hotel")
        ctx.add(
            app,
            "property_details",
            {
                "property_id": prop["id"],
                "kind": kind,
                "address": None,
                "bedrooms": rng.randint(1, 6) if kind in ("House", "Cabin", "Villa", "Cottage") else 1,
                "max_guests": listing[5] if listing else 4,
                "rating": round(rng.uniform(3.8, 4.95), 2),
                "review_count": rng.randint(12, 640),
                "cancellation_policy": rng.choice(["Flexible", "Moderate", "Strict"]),
            },
            where,
        )
        for amenity in prop["amenities"].split(", "):
            ctx.add(app, "property_amenities", {"property_id": prop["id"], "amenity": amenity}, where)
        for n, caption in enumerate(["Exterior", "Living area", "Bedroom", "Bathroom", "View"]):
            ctx.add(app, "photos", {"property_id": prop["id"], "caption": caption, "position": n + 1}, where)
        for _ in range(rng.randint(3, 8)):
            rating = rng.choices([5, 4, 3, 2, 1], [45, 32, 12, 6, 5])[0]
            ctx.add(
                app,
                "reviews",
                {
                    "property_id": prop["id"],
                    "author": rng.choice(REVIEWERS),
                    "rating": rating,
                    "body": REVIEW_LINES[rating][rng.randrange(len(REVIEW_LINES[rating]))][1],
                    "stayed_on": (ctx.anchor - dt.timedelta(days=rng.randint(10, 500))).isoformat(),
                },
                where,
            )
    _cheskepdia_calendar(ctx, app, rng, where)


def _cheskepdia_calendar(ctx, app, rng, where):
    taken = {}
    for booking in ctx.rows(app, "bookings"):
        day = dt.datetime.strptime(booking["check_in"], DATE).date()
        while day.isoformat() < booking["check_out"]:
            taken[(booking["property_id"], day)] = True
            day += dt.timedelta(days=1)
    for prop in ctx.rows(app, "properties"):
        for offset in range(60):
            night = ctx.anchor + dt.timedelta(days=offset)
            weekend = night.weekday() in (4, 5)
            ctx.add(
                app,
                "availability",
                {
                    "property_id": prop["id"],
                    "night": night.isoformat(),
                    "available": int(not taken.get((prop["id"], night)) and rng.random() < 0.85),
                    "rate": round((prop["nightly_rate"] or 150) * (1.15 if weekend else 1), 2),
                },
                where,
            )
    pid = {p["name"]: p["id"] for p in ctx.rows(app, "properties")}
    for name, members in [
        ("Writing retreat ideas", ["Stowe Writer's Cabin", "Catskills Creekside Retreat", "Cape May Quiet Cottage"]),
        ("Party houses", ["The Party Barn Scranton", "Pocono Mountain Party House", "Poconos Lodge with Hot Tub"]),
    ]:
        tid = ctx.add(
            app, "saved_trips", {"name": name, "created_at": _stamp(ctx.anchor - dt.timedelta(days=75))}, where
        )
        for member in members:
            ctx.add(app, "saved_trip_items", {"trip_id": tid, "property_id": pid[member]}, where)
    props = {p["id"]: p for p in ctx.rows(app, "properties")}
    for booking in ctx.rows(app, "bookings"):
        prop = props[booking["property_id"]]
        start = dt.datetime.strptime(booking["check_in"], DATE)
        ctx.add(
            app,
            "price_breakdowns",
            {
                "booking_id": booking["id"],
                "amount": booking["total"],
                "line": f"Stay, {booking['nights']} night(s), taxes and fees included",
            },
            booking["provenance"],
        )
        ctx.add(
            app,
            "payments",
            {
                "booking_id": booking["id"],
                "amount": booking["total"],
                "method": "Gringotts Visa",
                "paid_on": min((start - dt.timedelta(days=30)).date(), ctx.anchor).isoformat(),
            },
            booking["provenance"],
        )
        sent = start - dt.timedelta(days=3, hours=-10)
        if sent.date() <= ctx.anchor:
            ctx.add(
                app,
                "host_messages",
                {
                    "booking_id": booking["id"],
                    "sender": prop["host"],
                    "sent_at": _stamp(sent),
                    "body": f"Looking forward to hosting you at {prop['name']}. Check-in is "
                    "from 3 pm; your confirmation is " + booking["confirmation"] + ".",
                },
                booking["provenance"],
            )
