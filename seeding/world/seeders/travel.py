"""``travel``: what TableFind, eTaxi, Dinoco Airlines and Cheskepdia hold around the bookings.

TableFind's venues with their slot inventory (free, held with an expiry, booked) over the next 31
days, hours, reviews, favourites and lists; eTaxi's saved places, cards, car types and the options a
route offers, receipts and each ride's timeline, the airport rides booked for the upcoming trip;
Dinoco's airports, routes with their miles, fare classes and cancel policies, seat maps, check-in,
travel credits and loyalty activity; Cheskepdia's listings, nightly availability, reviews, saved trips,
host messages and price breakdowns. Runs after the booking seeders and never changes a booking.
"""

import datetime as dt

from ..core import DATETIME, parse_time_of_day
from ..fanout import lookup
from .flights_stays import seed_flights_and_stays
from .receipts import CAR_TYPES, driver_car, ride_miles, ride_minutes
from .routine import DRIVERS
from .storefront_data import REVIEW_LINES, REVIEWERS
from .storefronts import HOME, OFFICE, add_cards
from .travel_data import VENUES

SLOT_DAYS = 31
STREETS = ["Lackawanna Ave", "Spruce St", "Wyoming Ave", "Linden St", "N Washington Ave"]


def _stamp(value: dt.datetime) -> str:
    return value.strftime(DATETIME)


def _parse(text: str) -> dt.datetime:
    return dt.datetime.strptime(text[:19], DATETIME)


def seed_travel(ctx):
    _tablefind(ctx)
    _etaxi(ctx)
    seed_flights_and_stays(ctx)


def _tablefind(ctx):
    app, rng, where = "tablefind", ctx.rng("travel.tablefind"), "catalog.tablefind"
    city = ctx.persona.spec["identity"].get("city", "Scranton")
    for name, cuisine, hood, _band, _brunch in VENUES:
        lookup(
            ctx,
            app,
            "restaurants",
            name,
            lambda name=name, cuisine=cuisine, hood=hood: {
                "name": name,
                "city": city,
                "cuisine": cuisine,
                "neighborhood": hood,
            },
            where,
        )
    info = {v[0]: v for v in VENUES}
    restaurants = ctx.rows(app, "restaurants")
    for row in restaurants:
        venue = info.get(row["name"])
        if venue:
            row["cuisine"] = row.get("cuisine") or venue[1]
            row["neighborhood"] = row.get("neighborhood") or venue[2]
    booked = {}
    for res in ctx.rows(app, "reservations"):
        booked[(res["restaurant_id"], res["reserved_for"][:16])] = res
    for row in restaurants:
        venue = info.get(row["name"], (row["name"], "American", "Downtown Scranton", "$$", False))
        big = row["name"] == "Cotogna"
        ctx.add(
            app,
            "restaurant_details",
            {
                "restaurant_id": row["id"],
                "address": f"{100 + row['id'] * 17} {rng.choice(STREETS)}, {city}, PA",
                "phone": f"(570) 555-{1000 + row['id'] * 37:04d}",
                "price_band": venue[3],
                "rating": round(rng.uniform(3.9, 4.8), 1),
                "review_count": rng.randint(40, 900),
                "max_party": 12 if big else rng.choice([6, 8, 10]),
            },
            where,
        )
        for weekday in ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]:
            opens = "10:00" if venue[4] and weekday in ("sat", "sun") else "11:30"
            ctx.add(
                app,
                "restaurant_hours",
                {"restaurant_id": row["id"], "weekday": weekday, "opens": opens, "closes": "22:00"},
                where,
            )
        for _ in range(rng.randint(3, 9)):
            rating = rng.choices([5, 4, 3, 2, 1], [42, 33, 13, 7, 5])[0]
            ctx.add(
                app,
                "reviews",
                {
                    "restaurant_id": row["id"],
                    "author": rng.choice(REVIEWERS),
                    "rating": rating,
                    "body": REVIEW_LINES[rating][rng.randrange(len(REVIEW_LINES[rating]))][1],
                    "visited_on": (ctx.anchor - dt.timedelta(days=rng.randint(3, 400))).isoformat(),
                },
                where,
            )
        # Slot inventory: each seating a table of a given size; holds expire, bookings point at the reservation.
        if big:
            times, sizes = ["17:30", "18:00", "18:30", "19:00", "19:30", "20:00", "20:30"], [2, 4, 6, 12]
        else:
            times = sorted(rng.sample(["17:00", "17:30", "18:00", "18:30", "19:00", "19:30", "20:00", "20:30"], 3))
            sizes = [rng.choice([4, 6])]
        for offset in range(SLOT_DAYS):
            day = ctx.anchor + dt.timedelta(days=offset)
            day_times = list(times)
            if venue[4] and day.weekday() >= 5:
                day_times = ["10:30", "11:00"] + day_times
            for time_text in day_times:
                for seats in sizes:
                    starts = f"{day.isoformat()} {time_text}"
                    res = booked.pop((row["id"], starts), None)
                    roll = rng.random()
                    status = "booked" if res or roll < 0.08 else "held" if roll < 0.1 else "free"
                    held = _stamp(dt.datetime.combine(ctx.anchor, dt.time(23, 59))) if status == "held" else None
                    ctx.add(
                        app,
                        "slots",
                        {
                            "restaurant_id": row["id"],
                            "starts_at": starts + ":00",
                            "seats": seats,
                            "area": rng.choice(["Main room", "Patio", "Bar", "Private room"])
                            if seats < 12
                            else "Private room",
                            "status": status,
                            "held_until": held,
                            "reservation_id": res["id"] if res else None,
                        },
                        where,
                    )
    # An upcoming reservation at a time the regular seatings do not list still holds its own table.
    last = (ctx.anchor + dt.timedelta(days=SLOT_DAYS - 1)).isoformat()
    for (restaurant_id, starts), res in sorted(booked.items(), key=lambda item: (item[0][1], item[0][0])):
        if ctx.anchor.isoformat() <= starts[:10] <= last:
            ctx.add(
                app,
                "slots",
                {
                    "restaurant_id": restaurant_id,
                    "starts_at": starts + ":00",
                    "seats": res["party_size"],
                    "area": "Main room",
                    "status": "booked",
                    "held_until": None,
                    "reservation_id": res["id"],
                },
                res["provenance"],
            )
    _tablefind_account(ctx, app, rng, where, restaurants)


def _tablefind_account(ctx, app, rng, where, restaurants):
    rid = {r["name"]: r["id"] for r in restaurants}
    for name in ["Cotogna", "Cooper's Seafood House"]:
        ctx.add(
            app,
            "favorites",
            {"restaurant_id": rid[name], "added_at": _stamp(ctx.start + dt.timedelta(days=20, hours=21))},
            where,
        )
    lid = ctx.add(
        app, "saved_lists", {"name": "Date Night", "created_at": _stamp(ctx.start + dt.timedelta(days=45))}, where
    )
    for name in ["Cotogna", "Le Bistro Scranton", "Posh at the Scranton Club"]:
        ctx.add(app, "saved_list_items", {"list_id": lid, "restaurant_id": rid[name]}, where)
    ctx.add(
        app,
        "waitlist_entries",
        {
            "restaurant_id": rid["Le Bistro Scranton"],
            "party_size": 2,
            "status": "expired",
            "wanted_at": _stamp(dt.datetime.combine(ctx.anchor - dt.timedelta(days=17), dt.time(19, 30))),
        },
        where,
    )
    for res in ctx.rows(app, "reservations"):
        if res.get("occasion") or res["party_size"] >= 6:
            ctx.add(
                app,
                "special_requests",
                {"reservation_id": res["id"], "request": "Best table in the house, please."},
                res["provenance"],
            )
    for name, title, days in [
        ("Cotogna", "Half-price bottles of wine", "mon,tue"),
        ("Ruth's Chris Steak House", "Prix fixe dinner $59", "sun,mon,tue,wed,thu"),
        ("Carmen's 2.0", "Bottomless brunch mimosas", "sat,sun"),
    ]:
        ctx.add(app, "offers", {"restaurant_id": rid[name], "title": title, "weekdays": days}, where)


def _etaxi(ctx):
    app, rng, where = "etaxi", ctx.rng("travel.etaxi"), "catalog.etaxi"
    commute = ctx.persona.section("routines", {}).get("commute", {})
    home = commute.get("from", f"{HOME[0]}, {HOME[1]}")
    office = commute.get("to", OFFICE[0])
    for label, address in [("Home", home), ("Work", office)]:
        ctx.add(
            app,
            "saved_locations",
            {"label": label, "address": address, "created_at": _stamp(ctx.start + dt.timedelta(hours=8))},
            "routines.commute",
        )
    add_cards(ctx, app, where)
    types = CAR_TYPES
    for name, seats, base, mile, minute in types:
        ctx.add(
            app,
            "car_types",
            {"name": name, "seats": seats, "base_fare": base, "per_mile": mile, "per_minute": minute},
            where,
        )
    for route, miles, minutes in [
        (f"{home} -> AVP", 11.5, 22),
        (f"AVP -> {home}", 11.5, 22),
        (f"{home} -> Downtown Scranton", 1.5, 8),
    ]:
        waits = [7, 3, 4, 6] if "AVP" in route else [3, 4, 5, 8]
        for n, (_name, _seats, base, mile, minute) in enumerate(types):
            ctx.add(
                app,
                "ride_options",
                {
                    "route": route,
                    "car_type_id": n + 1,
                    "price": round(base + mile * miles + minute * minutes, 2),
                    "wait_minutes": waits[n],
                },
                where,
            )
    for name in DRIVERS:
        # The same car and plate the ride receipts in the mailbox name.
        car, plate = driver_car(name)
        ctx.add(
            app,
            "drivers",
            {"name": name, "car": car, "plate": plate, "rating": round(rng.uniform(4.6, 4.99), 2)},
            where,
        )
    for code, text, pct, days, used in [
        ("RIDE10", "10% off your next 3 rides", 10, 30, 0),
        ("AIRPORT15", "15% off airport rides", 15, 60, 0),
        ("WELCOMEBACK", "20% off one ride", 20, -90, 1),
    ]:
        ctx.add(
            app,
            "promotions",
            {
                "code": code,
                "description": text,
                "percent_off": pct,
                "used": used,
                "valid_to": (ctx.anchor + dt.timedelta(days=days)).isoformat(),
            },
            where,
        )
    per_type = {t[0]: t for t in types}
    for ride in ctx.rows(app, "rides"):
        kind = per_type.get(ride["car_type"], types[0])
        # The time and distance the ride's receipt mail states.
        minutes = ride_minutes(ride["ride_code"])
        miles = ride_miles(ride["fare"], kind[0], minutes)
        ctx.add(
            app,
            "receipts",
            {
                "ride_id": ride["id"],
                "base_fare": kind[2],
                "distance_miles": miles,
                "minutes": minutes,
                "fees": 0.0,
                "tip": ride["tip"],
                "total": ride["total"],
                "payment_method_id": 2,
            },
            ride["provenance"],
        )
        start = _parse(ride["requested_at"])
        for step, status in [(0, "requested"), (1, "driver_assigned"), (6, "picked_up"), (6 + minutes, "completed")]:
            moment = start + dt.timedelta(minutes=step)
            if moment.date() <= ctx.anchor:
                ctx.add(
                    app,
                    "ride_events",
                    {"ride_id": ride["id"], "happened_at": _stamp(moment), "status": status},
                    ride["provenance"],
                )
    # The airport rides booked ahead for an upcoming trip's flight (both ways).
    for i, trip in enumerate(ctx.persona.section("trips", [])):
        flight, dates = trip.get("flight") or {}, trip.get("dates") or []
        if not flight or len(dates) != 2 or ctx.day(dates[0]) <= ctx.anchor:
            continue
        hour, minute = parse_time_of_day(flight.get("departure", "9:00am"))
        depart = dt.datetime.combine(ctx.day(dates[0]), dt.time(hour, minute))
        back = dt.datetime.combine(ctx.day(dates[1]), dt.time(16, 30))
        for pickup_at, pickup, dropoff in [
            (depart - dt.timedelta(hours=2, minutes=45), home, "AVP"),
            (back, "AVP", home),
        ]:
            ctx.add(
                app,
                "scheduled_rides",
                {
                    "pickup_at": _stamp(pickup_at),
                    "pickup": pickup,
                    "dropoff": dropoff,
                    "car_type": "XL",
                    "status": "scheduled",
                },
                f"trips[{i}].flight",
            )
