"""The real spec's finance, work and social apps, read back as a person would: a price and a year of closes for
every holding, a card within its limit, LockedIn posts and connections, calendar events with guests and
reminders, OddsMarket figures that add up, a tax return not yet done beside filed ones, and these apps' answer
keys resolving against the build."""

import datetime as dt
import sqlite3

import pytest

from seeding.world.answer_keys import load_keys, resolve

pytestmark = pytest.mark.slow  # builds the real persona's world

ANCHOR = dt.date(2026, 4, 13)
FINANCE_APPS = {"vaultbank", "batbucks", "oddsmarket", "speedtax", "lockedin", "sprintboard", "calendar"}
AUTHOR_REMARKS = ("forgot he signed up", "never cancelled", "watched 2 episodes", "bought himself", "Michael's words")


def _rows(real_world, app, sql, *params):
    con = sqlite3.connect(real_world / "apps" / f"{app}.sqlite")
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def test_every_holding_has_a_price_today_and_a_year_of_closes_so_pnl_can_be_read(real_world):
    holdings = _rows(real_world, "batbucks", "SELECT ticker, avg_cost FROM holdings")
    assert {t for t, _ in holdings} == {"GME", "SBUX", "DIS", "VTI", "RIVN"}
    for ticker, avg_cost in holdings:
        (price,) = _rows(real_world, "batbucks", "SELECT price FROM quotes WHERE ticker = ?", ticker)[0]
        closes = _rows(
            real_world, "batbucks", "SELECT day, close FROM price_history WHERE ticker = ? ORDER BY day", ticker
        )
        assert len(closes) > 240, ticker  # a year of trading days
        assert closes[-1] == (ANCHOR.isoformat(), price), ticker  # today's quote is the last close
        assert all(day <= ANCHOR.isoformat() for day, _ in closes)
        pnl_pct = (price - avg_cost) / avg_cost * 100
        assert -95 < pnl_pct < 400, (ticker, pnl_pct)
    # A fill happened at a price the chart shows that day.
    fills = _rows(real_world, "batbucks", "SELECT placed_on, ticker, price FROM orders WHERE placed_on >= '2026-01-01'")
    for placed_on, ticker, price in fills:
        shown = _rows(
            real_world,
            "batbucks",
            "SELECT close FROM price_history WHERE ticker = ? AND day <= ? ORDER BY day DESC LIMIT 1",
            ticker,
            placed_on,
        )
        assert shown and shown[0][0] == price, (placed_on, ticker)


def test_the_card_is_within_its_limit_and_nothing_posts_after_today(real_world):
    accounts = dict(_rows(real_world, "vaultbank", "SELECT kind, balance FROM accounts"))
    (limit,) = _rows(real_world, "vaultbank", "SELECT credit_limit FROM accounts WHERE kind = 'credit_card'")[0]
    assert accounts == {"checking": 3210.0, "savings": 890.0, "credit_card": -7340.0}
    assert -accounts["credit_card"] <= limit == 8000.0
    # ...and along the whole year: the card never over its limit, checking never overdrawn.
    lowest_card, lowest_checking = _rows(
        real_world,
        "vaultbank",
        "SELECT MIN(CASE WHEN a.kind = 'credit_card' THEN t.balance_after END), "
        "MIN(CASE WHEN a.kind = 'checking' THEN t.balance_after END) FROM transactions t JOIN accounts a "
        "ON a.id = t.account_id",
    )[0]
    assert -lowest_card <= limit and lowest_checking >= 0
    assert _rows(
        real_world, "vaultbank", "SELECT COUNT(*) FROM transactions WHERE posted_date > ?", ANCHOR.isoformat()
    ) == [(0,)]
    rent = _rows(
        real_world, "vaultbank", "SELECT DISTINCT method, merchant FROM transactions WHERE description LIKE 'Zelle to%'"
    )
    assert rent == [("zelle", "Arnav Singh")]


def test_subscription_names_read_like_a_bank_shows_them(real_world):
    names = [n for (n,) in _rows(real_world, "vaultbank", "SELECT name FROM recurring_payments")]
    names += [d for (d,) in _rows(real_world, "vaultbank", "SELECT DISTINCT description FROM transactions")]
    names += [t for (t,) in _rows(real_world, "sprintboard", "SELECT title FROM tasks")]
    assert "Paramount+" in names and "Hulu (No Ads)" in names
    assert not [n for n in names if any(remark in n for remark in AUTHOR_REMARKS)]
    assert _rows(real_world, "batbucks", "SELECT COUNT(*) FROM holdings WHERE note IS NOT NULL") == [(0,)]


def test_lockedin_has_posts_and_connections(real_world):
    assert _rows(real_world, "lockedin", "SELECT COUNT(*) FROM posts") == [(12,)]
    assert _rows(real_world, "lockedin", "SELECT COUNT(*) FROM connections") == [(20,)]
    reacted = _rows(real_world, "lockedin", "SELECT COUNT(DISTINCT post_id) FROM reactions")[0][0]
    assert reacted == 12
    assert "Somehow I Manage" in _rows(real_world, "lockedin", "SELECT headline FROM profile")[0][0]


def test_calendar_events_have_guests_reminders_and_colours(real_world):
    guests = _rows(
        real_world,
        "calendar",
        "SELECT a.name, a.response, a.organizer FROM attendees a JOIN events e ON e.id = a.event_id "
        "WHERE e.summary = 'Quarterly Review with David Wallace'",
    )
    assert ("David Wallace", "accepted", 1) in guests and any(name == "Michael Scott" for name, _, _ in guests)
    planning = _rows(
        real_world,
        "calendar",
        "SELECT COUNT(*) FROM attendees a JOIN events e ON e.id = a.event_id WHERE e.summary LIKE 'Dundies Planning%'",
    )[0][0]
    assert planning >= 4
    without_reminder = _rows(
        real_world, "calendar", "SELECT COUNT(*) FROM events WHERE id NOT IN (SELECT event_id FROM reminders)"
    )
    assert without_reminder == [(0,)]
    colours = {c for (c,) in _rows(real_world, "calendar", "SELECT DISTINCT color FROM events WHERE color IS NOT NULL")}
    assert {"Flamingo", "Grape", "Sage"} <= colours


def test_oddsmarket_open_and_settled_bets_add_up_to_the_account(real_world):
    balance, invested, net = _rows(real_world, "oddsmarket", "SELECT balance, total_invested, net_pnl FROM account")[0]
    open_cost, unrealized = _rows(
        real_world, "oddsmarket", "SELECT SUM(cost_basis), SUM(unrealized_pnl) FROM positions"
    )[0]
    settled_cost, realized = _rows(real_world, "oddsmarket", "SELECT SUM(cost), SUM(realized_pnl) FROM settlements")[0]
    assert round(open_cost + settled_cost, 2) == invested
    assert round(unrealized + realized, 2) == net
    deposits = _rows(real_world, "oddsmarket", "SELECT SUM(amount) FROM funding")[0][0]
    payouts = _rows(real_world, "oddsmarket", "SELECT SUM(payout) FROM settlements")[0][0]
    assert round(deposits - invested + payouts, 2) == balance
    nba = _rows(
        real_world,
        "oddsmarket",
        "SELECT p.current_price FROM positions p JOIN markets m ON m.id = p.market_id "
        "WHERE m.ticker = 'will-nba-expansion-yearend'",
    )
    assert nba == [(0.78,)]


def test_the_tax_return_in_progress_shows_no_refund_beside_filed_years(real_world):
    current = _rows(
        real_world,
        "speedtax",
        "SELECT tax_year, federal_refund_amount, amount_owed, home_office_days, "
        "charitable_total FROM returns WHERE status != 'filed'",
    )
    assert current == [(2025, None, None, 104, 625.0)]
    filed = _rows(real_world, "speedtax", "SELECT tax_year, federal_refund_amount FROM returns WHERE status = 'filed'")
    assert sorted(y for y, _ in filed) == [2022, 2023, 2024] and all(r > 0 for _, r in filed)
    gifts = _rows(
        real_world,
        "vaultbank",
        "SELECT ROUND(-SUM(amount), 2) FROM transactions WHERE category = 'Charity' "
        "AND posted_date BETWEEN '2025-01-01' AND '2025-12-31'",
    )
    assert gifts == [(625.0,)]


def test_sprintboard_shows_27_open_cards_and_some_in_review(real_world):
    assert _rows(real_world, "sprintboard", "SELECT COUNT(*) FROM tasks WHERE status != 'done'") == [(27,)]
    review = _rows(
        real_world,
        "sprintboard",
        "SELECT p.name FROM tasks t JOIN projects p ON p.id = t.project_id WHERE t.status = 'in_review'",
    )
    assert ("Team Morale Initiative Q2",) in review


def test_every_fact_these_apps_hold_for_an_answer_key_is_found(real_world):
    keys = load_keys()
    report = resolve(real_world, keys)
    missing = [
        (task, fact["need"])
        for task, entry in report["per_task"].items()
        for fact in entry["facts"]
        if fact["where"] in FINANCE_APPS and not fact["found"]
    ]
    assert not missing


def test_each_project_has_a_brief_listing_its_board(real_world):
    for (project,) in _rows(real_world, "sprintboard", "SELECT name FROM projects"):
        brief = real_world / "home/user/Documents/Projects" / f"{project.replace(' ', '_')}_Brief.txt"
        text = brief.read_text(encoding="utf-8")
        cards = _rows(
            real_world,
            "sprintboard",
            "SELECT t.title FROM tasks t JOIN projects p ON p.id = t.project_id WHERE p.name = ?",
            project,
        )
        assert all(title in text for (title,) in cards), project
