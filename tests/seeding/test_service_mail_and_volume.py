"""The real spec's world read as its user would: ride and food receipts that differ the way real receipts do
(driver, car, plate and trip time; the basket, courier and drop-off), and agree with the apps that sent them;
no author remark in a calendar entry, profile or shop note; the app databases within 10% of the volume goal."""

import collections
import datetime as dt
import re
import sqlite3

import pytest

from seeding.world.text_checks import leaks, text_variety

pytestmark = pytest.mark.slow  # builds the real persona's world

ANCHOR = dt.date(2026, 4, 13)


def _rows(root, app, sql, *params):
    con = sqlite3.connect(root / "apps" / f"{app}.sqlite")
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _contents(node):
    """Every document text the spec gives as the user's own (its ``content`` fields)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "content" and isinstance(value, str):
                yield value
            else:
                yield from _contents(value)
    elif isinstance(node, list):
        for item in node:
            yield from _contents(item)


def test_ride_receipts_name_the_driver_car_and_trip_the_app_recorded(real_world, real_spec):
    root = real_world
    bodies = [b for (b,) in _rows(root, "mail", "SELECT body FROM messages WHERE subject LIKE 'Your eTaxi receipt%'")]
    # One receipt per completed ride (the airport ride booked for next week has none yet).
    assert len(bodies) == _rows(root, "etaxi", "SELECT COUNT(*) FROM rides WHERE status = 'completed'")[0][0] > 100
    drivers = {name: (car, plate) for name, car, plate in _rows(root, "etaxi", "SELECT name, car, plate FROM drivers")}
    trips = {
        code: (driver, minutes)
        for code, driver, minutes in _rows(
            root, "etaxi", "SELECT r.ride_code, r.driver, t.minutes FROM rides r JOIN receipts t ON t.ride_id = r.id"
        )
    }
    named, footers = set(), set()
    for body in bodies:
        code = re.search(r"Reference: (ET-\d+)", body).group(1)
        driver, minutes = trips[code]
        car, plate = drivers[driver]
        assert f"Your driver: {driver}, {car}, {plate}" in body, body
        assert f" {minutes} min" in body and "Pickup" in body and "Drop-off" in body, body
        named.add(driver)
        footers.add(body.strip().splitlines()[-1])
    assert len(named) >= 10 and len(footers) >= 6  # many drivers, a footer that changes


def test_food_receipts_list_the_basket_and_his_usuals_vary(real_world, real_spec):
    root = real_world
    rows = _rows(
        root,
        "hangrydash",
        "SELECT o.order_number, r.name, group_concat(i.name, ' + ') FROM orders o "
        "JOIN restaurants r ON r.id = o.restaurant_id JOIN order_items i ON i.order_id = o.id "
        "WHERE o.provenance = 'routines.meals' GROUP BY o.id",  # his everyday orders (the spec's own are apart)
    )
    assert len(rows) > 300
    baskets = collections.defaultdict(collections.Counter)
    for _, restaurant, basket in rows:
        baskets[restaurant][basket] += 1
    for restaurant, counts in baskets.items():
        if sum(counts.values()) >= 20:  # a place he orders from often: no single basket every time
            assert counts.most_common(1)[0][1] <= 0.5 * sum(counts.values()), (restaurant, counts.most_common(3))
    mail = {
        re.search(r"Reference: (HD-\d+)", b).group(1): b
        for (b,) in _rows(root, "mail", "SELECT body FROM messages WHERE body LIKE '%Reference: HD-%'")
    }
    couriers = set()
    for code, restaurant, basket in rows:
        body = mail[code]
        assert f"Your order from {restaurant} was delivered." in body
        assert all(f"x {item}  $" in body for item in basket.split(" + ")), body
        couriers.add(body.splitlines()[1].split(" delivered")[0])
    assert len(couriers) >= 12


def test_service_mail_is_not_one_template_repeated(real_world, real_spec):
    root, spec = real_world, real_spec
    mail = text_variety(root, spec)["apps"]["mail"]
    assert mail["top10_share"] <= 0.05, mail["top_repeated"]
    assert mail["distinct_share"] >= 0.6


def test_no_author_remark_reaches_calendar_profile_or_shop(real_world, real_spec):
    root, spec = real_world, real_spec
    hits = leaks(root, spec)
    # The one phrase left is in a document Michael wrote himself (the spec gives its text as his): "Holly (if
    # she says yes)" in his sequel notes is his own aside, not the author's.
    own = list(_contents(spec))
    for hit in hits:
        assert hit["file"].startswith("home/user/Documents/"), hit
        assert any(hit["phrase"] in content for content in own), hit
    description = _rows(root, "calendar", "SELECT description FROM events WHERE summary = 'Team Standup'")[0][0]
    assert description == "Daily standup. Keep it to 15 min."
    (about,) = _rows(root, "lockedin", "SELECT about FROM profile")[0]
    assert "Threat Level Midnight" in about and "not sold anywhere" not in about


def test_app_databases_hold_the_goal_volume_within_ten_percent(real_world, real_spec):
    root = real_world
    tables = rows = 0
    for db in sorted((root / "apps").glob("*.sqlite")):
        names = [r[0] for r in _rows(root, db.stem, "SELECT name FROM sqlite_master WHERE type = 'table'")]
        tables += len(names)
        rows += sum(_rows(root, db.stem, f'SELECT COUNT(*) FROM "{name}"')[0][0] for name in names)
    assert 204 <= tables <= 248, tables
    assert 37_800 <= rows <= 46_200, rows
