"""The real spec's world, read as a person would for the facts the released world has and the tasks need: a
boarding pass just downloaded for the trip abroad, a tax worksheet that agrees with SpeedTax, a flown Dinoco trip
with its credited miles, Cheskepdia's policy notices, newsletters left unread for months, Michael's own posts led
by #sales, the ten group chats, his sent replies; and the check's figure leaving out what is kept different on
purpose while naming why."""

import datetime as dt
import sqlite3

import pytest

from seeding.world.check.released import released_facts

pytestmark = pytest.mark.slow  # builds the real persona's world

ANCHOR = dt.date(2026, 4, 13)


def _rows(real_world, app, sql, *params):
    con = sqlite3.connect(real_world / "apps" / f"{app}.sqlite")
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def test_the_jamaica_boarding_pass_waits_in_downloads_and_the_others_are_filed(real_world):
    downloads = real_world / "home/user/Downloads"
    jamaica = downloads / "Jamaica_Boarding_Pass_DN1562.pdf"
    assert jamaica.read_bytes().startswith(b"%PDF-") and b"Confirmation DN-83823" in jamaica.read_bytes()
    trips = real_world / "home/user/Documents/Trips"
    assert not list(trips.glob("BoardingPass_DN1562_*"))  # one copy, not filed yet
    assert (trips / "BoardingPass_DN6769_2026-04-17.pdf").is_file()


def test_the_tax_worksheet_has_the_same_days_and_totals_as_the_open_return(real_world):
    text = (real_world / "home/user/Documents/Tax_2025/tax_worksheet.txt").read_text()
    ((days, charitable),) = _rows(
        real_world, "speedtax", "SELECT home_office_days, charitable_total FROM returns WHERE status != 'filed'"
    )
    assert f"Work-from-home days (home office): {days}" in text and days == 104
    assert f"charitable total on the return: ${charitable:,.2f}" in text
    assert "$142,000.00" in text and "Scranton Improv Academy: $1,200.00" in text


def test_a_flown_dinoco_trip_earned_the_miles_of_its_legs(real_world):
    flown = _rows(
        real_world,
        "dinoco-airlines",
        "SELECT f.number, r.miles FROM segments s JOIN flights f ON f.id = s.flight_id "
        "JOIN routes r ON r.origin = f.origin AND r.destination = f.destination "
        "WHERE f.departs_at < ? AND f.departs_at >= ?",
        ANCHOR.isoformat(),
        (ANCHOR - dt.timedelta(days=365)).isoformat(),
    )
    credited = _rows(real_world, "dinoco-airlines", "SELECT miles FROM loyalty_activity")
    assert flown and sorted(m for _, m in flown) == sorted(m for (m,) in credited)
    ((balance,),) = _rows(real_world, "dinoco-airlines", "SELECT miles FROM passengers")
    assert balance > 10 * sum(m for (m,) in credited)  # the profile's balance is far above what he flew
    charges = _rows(
        real_world, "vaultbank", "SELECT description FROM transactions WHERE description LIKE 'Dinoco%DN2417%'"
    )
    assert len(charges) == 1


def test_cheskepdia_policies_and_never_opened_newsletters_are_in_the_inbox(real_world):
    policies = _rows(real_world, "mail", "SELECT subject, body FROM messages WHERE from_name = 'Cheskepdia'")
    bodies = " ".join(body for _, body in policies)
    assert "CHESK-POL-1" in bodies and "CHESK-POL-2" in bodies and "$200 hold" in bodies
    old_unread = _rows(
        real_world,
        "mail",
        "SELECT from_addr, COUNT(*) FROM messages WHERE is_read = 0 AND sent_at < ? GROUP BY from_addr",
        (ANCHOR - dt.timedelta(days=183)).isoformat(),
    )
    assert len(old_unread) >= 3 and all(n >= 10 for _, n in old_unread)
    # mail from people is read as it comes: only the last few days' is still unread
    people = _rows(
        real_world,
        "mail",
        "SELECT 1 FROM messages WHERE is_read = 0 AND from_addr LIKE '%@dundermifflin.com' AND sent_at < ?",
        (ANCHOR - dt.timedelta(days=7)).isoformat(),
    )
    assert people == []


def test_michael_posts_most_in_sales_and_has_the_ten_group_chats(real_world):
    top = _rows(
        real_world,
        "workbuzz",
        "SELECT c.name, COUNT(*) FROM messages m JOIN channels c ON c.id = m.channel_id "
        "JOIN users u ON u.id = m.sender_id WHERE u.name = 'Michael Scott' GROUP BY c.name ORDER BY 2 DESC, 1",
    )
    assert [name for name, _ in top[:3]] == ["sales", "random", "general"]
    groups = {name for (name,) in _rows(real_world, "buzzchat", "SELECT name FROM channels WHERE kind = 'group'")}
    assert {"Dunder Mifflin Social", "Movie Night Crew", "Break Room Fridge Police", "Finer Things Club"} <= groups
    silent = _rows(
        real_world,
        "buzzchat",
        "SELECT c.name FROM channels c LEFT JOIN messages m ON m.channel_id = c.id "
        "WHERE c.kind = 'group' GROUP BY c.id HAVING COUNT(m.id) < 3",
    )
    assert silent == []


def test_the_expense_report_is_submitted_then_rejected_twice_in_order(real_world):
    subjects = _rows(
        real_world,
        "mail",
        "SELECT subject, folder FROM messages WHERE subject LIKE '%Expense Report - %' ORDER BY sent_at, id",
    )
    assert subjects[0] == ("Expense Report - Q2 Client Entertainment & Office Upgrades", "Sent")
    assert ("Re: Expense Report - Q2 Client Entertainment & Office Upgrades", "INBOX") in subjects
    assert subjects[-1][0] == "Re: Your Expense Report - REJECTED"
    (submission,) = _rows(
        real_world,
        "mail",
        "SELECT body FROM messages WHERE subject = 'Expense Report - Q2 Client Entertainment & Office Upgrades'",
    )
    assert "Total: $2,326.99" in submission[0]  # the expense report document's total


def test_the_figure_leaves_out_what_is_kept_different_and_says_why(real_world):
    report = released_facts(real_world)
    per = report["per_variable"]
    kept = {name: item for name, item in per.items() if item["status"] == "kept different"}
    assert "1,812" in kept["GRINGOTTS_TOTAL_TRANSACTIONS"]["why"]
    assert "2026-01-20" in kept["GRINGOTTS_LARGEST_TRANSACTION_DATE"]["why"]
    assert all(item["why"] for item in kept.values())
    counts = report["counts"]
    assert report["matched_rate"] == round(counts["matched"] / (counts["matched"] + counts.get("differs", 0)), 4)
    for name in (
        "WORKBUZZ_TOP_CHANNEL_NAME",
        "MAILDIR_SENT_THREAD_SUBJECTS",
        "JAN_EXPENSE_SUBJECT_ALT",
        "DOCS_RESUME_PATH",
    ):
        assert per[name]["status"] == "matched", (name, per[name])
    assert report["matched_rate"] >= 0.9
