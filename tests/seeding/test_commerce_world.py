"""The shops and travel apps of the real spec's world, read back as a person would see them: carts and lists
a task names, TableFind slots bookable on the days tasks ask for, one price per dish, no deliveries or
commutes at home while Michael is away, and the commerce tasks' answer keys resolving."""

import datetime as dt
import sqlite3
from pathlib import Path

import pytest

from seeding.world.answer_keys import load_keys, resolve
from seeding.world.seeders.menus import menu_price, price_change
from seeding.world.seeders.routine import office_closed

ROOT = Path(__file__).resolve().parents[2]
ANCHOR = dt.date(2026, 4, 13)
COMMERCE = ["hoolishop", "kwik-e-mart", "hangrydash", "tablefind", "etaxi", "dinoco-airlines", "cheskepdia"]


def _db(real_world: Path, app: str) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{real_world / 'apps' / f'{app}.sqlite'}?mode=ro", uri=True)


def _next(weekday: int) -> dt.date:
    """The first such weekday strictly after the anchor (Monday is 0)."""
    return ANCHOR + dt.timedelta(days=(weekday - ANCHOR.weekday() - 1) % 7 + 1)


def test_a_dish_keeps_its_price_until_its_one_dated_change():
    dishes = ["Harvest Bowl", "Baby Back Ribs", "Awesome Blossom", "Fish and Chips", "Key Lime Pie", "Cannoli"]
    changed = [d for d in dishes if price_change(ANCHOR, "Any Grill", d, 10.0)]
    assert changed and len(changed) < len(dishes)  # some dishes change price once, others never
    day, new = price_change(ANCHOR, "Any Grill", changed[0], 10.0)
    assert day < ANCHOR and new > 10.0
    assert menu_price(ANCHOR, "Any Grill", changed[0], 10.0, day - dt.timedelta(days=1)) == 10.0
    assert menu_price(ANCHOR, "Any Grill", changed[0], 10.0, day) == new
    steady = next(d for d in dishes if d not in changed)
    assert {menu_price(ANCHOR, "Any Grill", steady, 10.0, ANCHOR - dt.timedelta(days=n)) for n in range(300)} == {10.0}


@pytest.mark.slow
def test_commerce_apps_hold_what_real_shops_and_travel_apps_hold(real_world):
    tables = rows = 0
    empty = []
    for app in COMMERCE:
        con = _db(real_world, app)
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        tables += len(names)
        for name in names:
            count = con.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]
            rows += count
            if not count:
                empty.append(f"{app}.{name}")
    assert tables >= 85 and rows >= 15_900, (tables, rows)
    # The released world's HooliShop cart is empty; every other table has this user's rows.
    assert empty == ["hoolishop.cart_items"]
    assert _db(real_world, "hoolishop").execute("SELECT COUNT(*) FROM products").fetchone()[0] >= 92
    assert _db(real_world, "tablefind").execute("SELECT COUNT(*) FROM restaurants").fetchone()[0] == 37


@pytest.mark.slow
def test_carts_and_lists_hold_the_items_tasks_name(real_world):
    kwik = _db(real_world, "kwik-e-mart")
    party = {
        r[0]
        for r in kwik.execute(
            "SELECT i.name FROM shopping_list_items i JOIN shopping_lists l ON l.id = i.list_id "
            "WHERE l.name = 'Party Supplies'"
        )
    }
    assert {"Paper plates (100ct)", "Plastic silverware (150ct)", "Napkins (250ct)", "Party ice (20 lb)"} <= party
    assert kwik.execute("SELECT COUNT(*) FROM cart_items").fetchone()[0] >= 1
    # A Price Chopper reorder can add oat milk and eggs: the store stocks both.
    stocked = {
        r[0]
        for r in kwik.execute(
            "SELECT p.name FROM store_products sp JOIN stores s ON s.id = sp.store_id "
            "JOIN products p ON p.id = sp.product_id WHERE s.name = 'Price Chopper'"
        )
    }
    assert {"Oat milk (half gallon)", "Eggs (dozen)"} <= stocked
    dash = _db(real_world, "hangrydash")
    cart = dash.execute(
        "SELECT r.name, m.name FROM cart_items c JOIN menu_items m ON m.id = c.menu_item_id "
        "JOIN restaurants r ON r.id = m.restaurant_id"
    ).fetchall()
    assert cart and all(restaurant for restaurant, _ in cart)
    shop = _db(real_world, "hoolishop")
    assert shop.execute("SELECT COUNT(*) FROM carts WHERE status = 'active'").fetchone()[0] == 1
    labels = dict(shop.execute("SELECT label, line1 FROM addresses"))
    assert labels["Home"] == "1725 Slough Ave" and labels["Work"].startswith("Dunder Mifflin")


@pytest.mark.slow
def test_tablefind_slots_are_bookable_on_the_days_tasks_ask_for(real_world):
    con = _db(real_world, "tablefind")
    count, days = con.execute("SELECT COUNT(*), COUNT(DISTINCT date(starts_at)) FROM slots").fetchone()
    assert days == 31 and abs(count - 4128) <= 413, count  # the paper: 4,128 slots over 31 dates
    statuses = dict(con.execute("SELECT status, COUNT(*) FROM slots GROUP BY status"))
    assert set(statuses) == {"free", "held", "booked"} and statuses["free"] > statuses["booked"]
    assert con.execute("SELECT COUNT(*) FROM slots WHERE status = 'held' AND held_until IS NULL").fetchone()[0] == 0
    for day, time, party in [(_next(2), "18:30", 6), (_next(5), "19:00", 4), (_next(4), "19:00", 10)]:
        free = con.execute(
            "SELECT COUNT(*) FROM slots s JOIN restaurants r ON r.id = s.restaurant_id WHERE r.name = 'Cotogna' "
            "AND s.starts_at = ? AND s.seats >= ? AND s.status = 'free'",
            (f"{day.isoformat()} {time}:00", party),
        ).fetchone()[0]
        assert free, (day, time, party)
    # The upcoming reservation holds its table: a booked slot at its time points at it.
    upcoming = con.execute(
        "SELECT id, restaurant_id, reserved_for FROM reservations WHERE reserved_for > ?", (ANCHOR.isoformat(),)
    ).fetchall()
    assert upcoming
    for rid, restaurant, when in upcoming:
        slot = con.execute(
            "SELECT restaurant_id, starts_at, status FROM slots WHERE reservation_id = ?", (rid,)
        ).fetchone()
        assert slot == (restaurant, when, "booked"), (rid, slot)


@pytest.mark.slow
def test_a_dish_costs_the_same_at_a_restaurant_except_after_its_dated_change(real_world):
    con = _db(real_world, "hangrydash")
    prices = con.execute(
        "SELECT r.name, i.name, o.placed_at, i.price FROM order_items i JOIN orders o ON o.id = i.order_id "
        "JOIN restaurants r ON r.id = o.restaurant_id"
    ).fetchall()
    changes = {
        (r, n): (day, old, new)
        for r, n, day, old, new in con.execute(
            "SELECT r.name, m.name, c.effective_date, c.old_price, c.new_price FROM menu_price_changes c "
            "JOIN menu_items m ON m.id = c.menu_item_id JOIN restaurants r ON r.id = m.restaurant_id"
        )
    }
    menu = {
        (r, n): p
        for r, n, p in con.execute(
            "SELECT r.name, m.name, m.price FROM menu_items m JOIN restaurants r ON r.id = m.restaurant_id"
        )
    }
    assert len(prices) > 400
    for restaurant, item, placed, price in prices:
        change = changes.get((restaurant, item))
        if change:
            expected = change[2] if placed[:10] >= change[0] else change[1]
        else:
            expected = menu[(restaurant, item)]
        assert price == expected, (restaurant, item, placed, price, expected)


@pytest.mark.slow
def test_no_home_deliveries_or_commutes_while_michael_is_away(real_world):
    stays = (
        _db(real_world, "cheskepdia")
        .execute(
            "SELECT p.name, b.check_in, b.check_out FROM bookings b JOIN properties p ON p.id = b.property_id "
            "WHERE b.check_in <= ?",
            (ANCHOR.isoformat(),),
        )
        .fetchall()
    )
    # Philadelphia is behind him; Barbados is upcoming (the overlay dates it after its June 1 deadline).
    assert "Radisson Blu Warwick Hotel" in {name for name, _, _ in stays}
    assert "Sandals Royal Barbados" not in {name for name, _, _ in stays}
    for name, first, last in stays:
        window = (first, last + " 23:59:59")
        food = (
            _db(real_world, "hangrydash")
            .execute(
                "SELECT r.name, o.provenance FROM orders o JOIN restaurants r ON r.id = o.restaurant_id "
                "WHERE o.placed_at BETWEEN ? AND ?",
                window,
            )
            .fetchall()
        )
        grocery = (
            _db(real_world, "kwik-e-mart")
            .execute("SELECT COUNT(*) FROM orders WHERE placed_at BETWEEN ? AND ?", window)
            .fetchone()[0]
        )
        rides = (
            _db(real_world, "etaxi")
            .execute("SELECT pickup, dropoff FROM rides WHERE requested_at BETWEEN ? AND ?", window)
            .fetchall()
        )
        # Only the trip's own meal (dinner delivered to the Philadelphia hotel), never a Scranton delivery.
        assert grocery == 0 and all(prov.startswith("trips[") for _, prov in food), (name, food, grocery)
        assert not [r for r in rides if r[1].startswith("Dunder Mifflin")], (name, rides)
        # Travel-side rides instead: off to the airport or the hotel on the first day, home on the last.
        assert len(rides) == 2 and rides[0][1] != rides[1][1], (name, rides)


@pytest.mark.slow
def test_dinoco_miles_come_from_the_legs_flown(real_world):
    con = _db(real_world, "dinoco-airlines")
    for confirmation, earned, flown in con.execute(
        "SELECT b.confirmation, d.miles_earned, (SELECT COALESCE(SUM(r.miles), 0) FROM segments s "
        "JOIN flights f ON f.id = s.flight_id JOIN routes r ON r.origin = f.origin AND r.destination = f.destination "
        "WHERE s.booking_id = b.id AND f.departs_at < ?) FROM bookings b JOIN booking_details d ON d.booking_id = b.id",
        (ANCHOR.isoformat(),),
    ):
        assert earned == flown, confirmation
    legs = con.execute("SELECT COUNT(*) FROM segments WHERE leg = 'return'").fetchone()[0]
    assert legs == con.execute("SELECT COUNT(*) FROM bookings").fetchone()[0]
    credited = con.execute("SELECT COALESCE(SUM(miles), 0) FROM loyalty_activity").fetchone()[0]
    assert credited == con.execute("SELECT SUM(miles_earned) FROM booking_details").fetchone()[0] > 0


@pytest.mark.slow
def test_every_answer_key_fact_in_a_commerce_app_is_found(real_world):
    keys = load_keys()
    reading = [t for t, key in keys.items() if any(f.get("app") in COMMERCE for f in key["facts"])]
    assert len(reading) >= 55
    report = resolve(real_world, keys, reading)
    missing = [
        (task, fact["need"])
        for task, entry in report["per_task"].items()
        for fact in entry["facts"]
        if fact["where"] in COMMERCE and not fact["found"]
    ]
    assert not missing, missing


@pytest.mark.slow
def test_no_commute_on_a_day_the_office_is_closed(real_world):
    rides = _db(real_world, "etaxi").execute("SELECT requested_at FROM rides WHERE dropoff LIKE 'Dunder Mifflin%'")
    days = [dt.date.fromisoformat(when[:10]) for (when,) in rides]
    assert len(days) > 50
    closed = [day for day in days if office_closed(day)]
    assert not closed, closed  # New Year's Day, Thanksgiving, Christmas...
    assert office_closed(dt.date(2026, 1, 1)) and office_closed(dt.date(2025, 11, 27))
    assert not office_closed(dt.date(2026, 1, 2)) and not office_closed(dt.date(2026, 2, 16))  # Presidents' Day: open
