"""``trips``: each spec trip's hotel and flight bookings, their charges, mails and calendar entries, the ride
to the airport and the order for the trip."""

import datetime as dt
from dataclasses import dataclass

from ..apps import app_domain
from ..core import DATETIME, Event, at
from ..fanout import emit
from .shopping import emit_hoolishop_charge_and_mail


@dataclass
class Trip:
    """One spec trip while it is seeded: its provenance base, dates, what it generates, and when it was booked."""

    trip: dict
    base: str
    start: dt.date
    end: dt.date
    gen: dict
    booked_at: dt.datetime
    dest: str


def seed_trips(ctx):
    rng = ctx.split_rng("trips")  # the day a trip was booked is story, the time of day surface
    for i, trip in enumerate(ctx.persona.section("trips", [])):
        start, end = ctx.day(trip["dates"][0]), ctx.day(trip["dates"][1])
        ahead, before_today = rng.story.randint(21, 60), rng.story.randint(2, 9)
        booked = min(start - dt.timedelta(days=ahead), ctx.anchor - dt.timedelta(days=before_today))
        booked_at = at(booked, rng.randint(19, 22), rng.choice([5, 20, 35, 50]))
        t = Trip(trip, f"trips[{i}]", start, end, trip.get("generates", {}) or {}, booked_at, trip["destination"])
        for part in PARTS:
            part(ctx, t)
    _cheskepdia_policies(ctx)


# Cheskepdia's policy notices to members with a stay booked: what happens when the card is declined at settlement.
POLICIES = [
    (
        30,
        "CHESK-POL-1",
        "Updated cancellation policy: your grace period",
        [
            "We've updated our cancellation and payment policy (CHESK-POL-1).",
            "",
            "- Free cancellation: stays stay cancellable free of charge until the deadline shown on your booking.",
            "- Grace period: if the card on file is declined when the property settles your stay, we hold your",
            "  reservation for 72 hours so you can pay with another card. No fee is charged during the grace",
            "  period; after 72 hours an unpaid reservation is cancelled.",
        ],
    ),
    (
        16,
        "CHESK-POL-2",
        "Alternate card on file: hold policy",
        [
            "About the alternate card on your account (CHESK-POL-2).",
            "",
            "If your primary card is declined at settlement, we place a $200 hold on the alternate card on file",
            "to keep your reservation while you settle the balance. The hold is released within 5 business days",
            "once the stay is paid in full. No alternate card on file? The grace period of CHESK-POL-1 applies.",
        ],
    ),
]


def _cheskepdia_policies(ctx):
    """The two policy notices, once Michael has a Cheskepdia stay with a free-cancellation deadline."""
    if not any((trip.get("hotel") or {}).get("cancellation_deadline") for trip in ctx.persona.section("trips", [])):
        return
    first = ctx.persona.spec["identity"]["name"].split()[0]
    for days, code, subject, lines in POLICIES:
        body = [f"Hi {first},", "", *lines, "", "Questions? Reply to this email.", "The Cheskepdia team"]
        ctx.intent(
            "mail",
            {
                "at": at(ctx.anchor - dt.timedelta(days=days), 10, 5).strftime(DATETIME),
                "from_name": "Cheskepdia",
                "from_addr": f"policies@{app_domain('cheskepdia')}",
                "to_addr": None,
                "subject": subject,
                "body": "\n".join(body),
                "thread": None,
                "label": None,
                "folder": "INBOX",
            },
            f"cheskepdia.policies.{code}",
        )


def _hotel(ctx, t: Trip):
    """The hotel booking: Cheskepdia, its charge and the confirmation mail."""
    trip, base, start, end, gen, booked_at, dest = t.trip, t.base, t.start, t.end, t.gen, t.booked_at, t.dest
    me = ctx.persona.spec["identity"]
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


def _flight(ctx, t: Trip):
    """The flight booking: Dinoco, its fare, the confirmation mail and the calendar entry."""
    trip, base, start, gen, booked_at = t.trip, t.base, t.start, t.gen, t.booked_at
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


def _trip_event(ctx, t: Trip):
    """The trip itself: its all-day calendar entry, the chat mention and the searches before it."""
    trip, base, start, end, gen, booked_at, dest = t.trip, t.base, t.start, t.end, t.gen, t.booked_at, t.dest
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


def _ride_to_airport(ctx, t: Trip):
    """The eTaxi ride to the airport and its charge."""
    trip, base, gen = t.trip, t.base, t.gen
    flight = trip.get("flight")
    ride = gen.get("etaxi_to_airport")
    # The spec says "Home"; the app shows the saved Home place's address, as for every other ride.
    home = ctx.persona.section("routines", {}).get("commute", {}).get("from", "Home")
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
                "pickup": home if ride["from"] == "Home" else ride["from"],
                "dropoff": home if ride["to"] == "Home" else ride["to"],
                "fare": ride["cost"],
                "car_type": ctx.persona.override("etaxi").get("preferred_car_type", "Standard"),
            },
        )
        ev.code = code
        if when.date() > ctx.anchor:
            return  # a ride booked ahead is charged when it happens, not before
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


def _order(ctx, t: Trip):
    """The HooliShop order for the trip, its charge and mail."""
    base, start, gen, booked_at = t.base, t.start, t.gen, t.booked_at
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


# In this order: event ids, row ids and the order of mails and messages follow it.
PARTS = (_hotel, _flight, _trip_event, _ride_to_airport, _order)


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
