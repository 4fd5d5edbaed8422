"""The persona world pipeline: a small persona of our own built in seconds, read back with independent
readers (sqlite3, mailbox/email, icalendar), rebuilt in other processes for determinism, and the real
upstream spec (skipped when ../shared/upstream is absent) for the paper's volumes."""

import csv
import datetime as dt
import email
import email.policy
import json
import mailbox
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import icalendar
import pytest

from seeding.world.build import build
from seeding.world.check import check
from seeding.world.coverage import extract_entities
from seeding.world.persona import PersonaError, load_persona
from tests.conftest import in_ci, need_upstream

pytestmark = pytest.mark.slow  # builds persona worlds

ROOT = Path(__file__).resolve().parents[2]
ANCHOR = dt.date(2026, 4, 13)

SMALL = {
    "reference_date": "2026-04-13",
    "identity": {
        "name": "Pat Tester",
        "city": "Scranton",
        "email": "pat@paper.example",
        "phone": "+1-570-555-0100",
        "employer": "Paper Co",
        "role": "Manager",
        "salary": 52000,
        "address": "1 Main St",
    },
    "contacts": [
        {
            "name": "Robin Friend",
            "relationship": "close_friend",
            "frequency": "daily",
            "email": "robin@paper.example",
            "shared_activities": ["lunch"],
            "apps_present_in": ["buzzchat", "workbuzz", "tablefind"],
            "birthday": "1990-06-14",
        },
        {
            "name": "Sam Sister",
            "relationship": "sister",
            "frequency": "monthly",
            "email": "sam@home.example",
            "shared_activities": ["phone calls"],
            "apps_present_in": ["buzzchat"],
        },
    ],
    "financial": {
        "checking_balance": 1200,
        "savings_balance": 300,
        "credit_limit": 5000,
        "credit_used": 900,
        "recurring_charges": [
            {"name": "Rent", "amount": 1100, "payee": "Lee Landlord", "day": 1, "method": "zelle"},
            {"name": "Streamflix", "amount": 12.99, "day": 12, "method": "credit_card"},
        ],
    },
    "tax_info": {
        "tax_year": 2025,
        "w2": {
            "employer": "Paper Co",
            "gross_wages": 52000,
            "federal_withheld": 7800,
            "state_withheld": 1600,
            "pretax_401k": 2600,
            "pretax_health": 1300,
        },
    },
    "routines": {
        "commute": {
            "from": "Home",
            "to": "Office",
            "mode": "etaxi",
            "days": ["mon", "thu"],
            "typical_departure": "8:45am",
        },
        "meals": {
            "lunch": {
                "typical_restaurant": "Corner Deli",
                "typical_order": "Club sandwich",
                "alternatives": ["Noodle Bar"],
            },
            "dinner": {"ordering_days": ["fri", "sat"]},
        },
    },
    "trips": [
        {
            "destination": "Boston",
            "dates": ["2026-05-01", "2026-05-03"],
            "purpose": "conference",
            "flight": {
                "airline": "Dinoco",
                "number": "DN1001",
                "from": "AVP",
                "to": "BOS",
                "departure": "7:00am",
                "seat": "3A",
                "confirmation": "DN-11111",
            },
            "hotel": {
                "name": "Harbor Inn",
                "nightly_rate": 150,
                "confirmation": "HI-22222",
                "cancellation_deadline": "2026-04-25",
            },
            "generates": {
                "vaultbank_charge": [300, "Harbor Inn"],
                "vaultbank_charge_flight": [210, "Dinoco Airlines"],
                "email_confirmation": True,
                "calendar_event": True,
                "buzzchat_mention": {"contact": "Robin Friend", "context": "Boston next month!"},
                "browser_history": ["boston conference hotels"],
                "etaxi_to_airport": {"date": "2026-05-01", "from": "Home", "to": "AVP", "cost": 31},
            },
        }
    ],
    "cross_app_events": [
        {
            "type": "dinner_plan",
            "description": "Birthday dinner at Blue Fin Grill for Robin",
            "date": "2026-04-02",
            "time": "7:00pm",
            "apps": ["tablefind", "buzzchat", "vaultbank", "mail", "hoolicalendar"],
            "generates": {
                "buzzchat_mention": {"contact": "Robin Friend", "context": "Dinner at Blue Fin, 7pm!"},
                "browser_history": ["blue fin grill menu"],
                "calendar_event": True,
            },
        }
    ],
    "browsing_patterns": {"routine_browsing": [{"pattern": "weekday", "time": "9:00am", "sites": ["news.example"]}]},
    "app_overrides": {
        "calendar": {
            "events": [
                {
                    "summary": "Standup",
                    "start": "2026-04-06T09:00:00",
                    "end": "2026-04-06T09:15:00",
                    "recurrence": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
                }
            ]
        },
        "filesystem": {
            "documents": [{"path": "Documents/notes.txt", "content": "Harbor Inn HI-22222", "mtime_days_ago": 2}]
        },
    },
    "volume": {
        "bank_transactions": 160,
        "emails": 90,
        "calendar_events": 30,
        "chat_and_workplace_messages": 60,
        "rideshare_requests": 8,
        "food_delivery_orders": 15,
        "retail_orders": 5,
        "grocery_orders": 3,
        "restaurant_reservations": 4,
        "bookmarks": 20,
        "history_visits": 400,
    },
}


def _upstream():
    return need_upstream("michael_scott.json")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    base = tmp_path_factory.mktemp("world")
    persona = base / "pat_tester.json"
    persona.write_text(json.dumps(SMALL))
    out = base / "out"
    manifest = build(persona, out, ANCHOR)
    return persona, out, manifest


def _db(out, app):
    return sqlite3.connect(out / "apps" / f"{app}.sqlite")


def test_small_build_meets_its_volumes_and_passes_every_check(small):
    _, out, manifest = small
    for metric, row in manifest["volume"].items():
        assert row["built"] == SMALL["volume"][metric], metric
    report = check(out)
    assert report.ok, report.render()
    assert len(list((out / "apps").glob("*.sqlite"))) == 17


def test_trip_fans_out_with_the_same_code_amount_and_date_everywhere(small):
    _, out, _ = small
    booking = (
        _db(out, "cheskepdia")
        .execute("SELECT check_in, total, provenance FROM bookings WHERE confirmation = 'HI-22222'")
        .fetchone()
    )
    assert booking == ("2026-05-01", 300.0, "trips[0].hotel")
    charge = (
        _db(out, "vaultbank")
        .execute("SELECT posted_date, amount FROM transactions WHERE provenance = 'trips[0].hotel'")
        .fetchall()
    )
    assert len(charge) == 1 and charge[0][1] == -300.0
    mail = _db(out, "mail").execute("SELECT sent_at, body FROM messages WHERE provenance = 'trips[0].hotel'").fetchall()
    assert len(mail) == 1 and "HI-22222" in mail[0][1] and mail[0][0][:10] == charge[0][0]
    flight = (
        _db(out, "dinoco-airlines")
        .execute(
            "SELECT b.fare, f.departs_at FROM bookings b JOIN flights f ON f.id = b.flight_id "
            "WHERE b.confirmation = 'DN-11111'"
        )
        .fetchone()
    )
    assert flight == (210.0, "2026-05-01 07:00:00")
    ride = (
        _db(out, "etaxi")
        .execute("SELECT ride_code, total FROM rides WHERE provenance = 'trips[0].etaxi_to_airport'")
        .fetchone()
    )
    assert ride[1] == 31.0
    ride_charge = (
        _db(out, "vaultbank")
        .execute("SELECT amount, description FROM transactions WHERE provenance = 'trips[0].etaxi_to_airport'")
        .fetchone()
    )
    # The airport ride is booked ahead (May 1, after the anchor): the card is charged when it happens, not before.
    assert ride_charge is None
    dinner = (
        _db(out, "tablefind")
        .execute(
            "SELECT r.reserved_for, t.name FROM reservations r JOIN restaurants t ON t.id = r.restaurant_id "
            "WHERE r.provenance = 'cross_app_events[0]'"
        )
        .fetchone()
    )
    assert dinner == ("2026-04-02 19:00:00", "Blue Fin Grill")
    chat = _db(out, "buzzchat").execute("SELECT body FROM messages WHERE provenance = 'cross_app_events[0]'").fetchone()
    assert chat == ("Dinner at Blue Fin, 7pm!",)


def test_bank_balances_end_at_the_spec_and_paychecks_follow_the_salary(small):
    _, out, _ = small
    con = _db(out, "vaultbank")
    balances = dict(con.execute("SELECT kind, balance FROM accounts").fetchall())
    assert balances == {"checking": 1200.0, "savings": 300.0, "credit_card": -900.0}
    opening, total = con.execute(
        "SELECT a.opening_balance, SUM(t.amount) FROM accounts a JOIN transactions t ON t.account_id = a.id "
        "WHERE a.kind = 'checking'"
    ).fetchone()
    assert round(opening + total, 2) == 1200.0
    net = _db(out, "speedtax").execute("SELECT DISTINCT gross, net FROM paystubs").fetchall()
    assert net == [(2000.0, round(2000 - 300 - 61.54 - 100 - 50, 2))]  # 52000/26 less the W-2 lines / 26


def test_maildir_parses_with_the_standard_library_and_matches_hoolimail(small):
    _, out, _ = small
    box = mailbox.Maildir(out / "home/user/Maildir", factory=None, create=False)
    ids = set()
    for folder in [box] + [box.get_folder(name) for name in box.list_folders()]:
        for key in folder.iterkeys():
            with folder.get_file(key) as handle:
                msg = email.message_from_binary_file(handle, policy=email.policy.default)
            ids.add(msg["Message-ID"])
    db_ids = {row[0] for row in _db(out, "mail").execute("SELECT message_id FROM messages")}
    assert ids == db_ids and len(ids) == SMALL["volume"]["emails"]
    replies = _db(out, "mail").execute("SELECT in_reply_to FROM messages WHERE in_reply_to IS NOT NULL").fetchall()
    assert all(r[0] in db_ids for r in replies)


def test_ics_parses_and_keeps_the_weekly_recurrence(small):
    _, out, _ = small
    raw = (out / "home/user/Calendar/personal.ics").read_bytes()
    cal = icalendar.Calendar.from_ical(raw)
    events = list(cal.walk("VEVENT"))
    assert len(events) == SMALL["volume"]["calendar_events"]
    standup = [e for e in events if str(e["summary"]) == "Standup"]
    assert standup and standup[0]["rrule"]["FREQ"] == ["WEEKLY"]
    assert b"RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR" in raw.replace(b"\r\n ", b"")
    uids = {row[0] for row in _db(out, "calendar").execute("SELECT uid FROM events")}
    assert uids == {str(e["uid"]) for e in events}


def test_routine_meetings_fill_the_past_and_never_overlap_the_specs_events(small):
    # The weeks the tasks are about hold exactly what the spec puts there ("the first free hour on
    # Wednesday" stays what the spec makes it), and a routine meeting never double-books a spec event.
    _, out, _ = small
    rows = _db(out, "calendar").execute("SELECT start_at, end_at, provenance FROM events").fetchall()
    routine = [
        (dt.datetime.fromisoformat(s), dt.datetime.fromisoformat(e)) for s, e, p in rows if p.startswith("routines")
    ]
    assert len(routine) > 10
    week_start = ANCHOR - dt.timedelta(days=ANCHOR.weekday() + 1)  # the Sunday the week view opens on
    assert max(start for start, _ in routine).date() < week_start
    standup_from = dt.date(2026, 4, 6)  # the spec's weekday Standup, 9:00-9:15 from Monday, April 6
    for start, end in routine:
        if start.date() >= standup_from and start.weekday() < 5:
            assert not (start.time() < dt.time(9, 15) and dt.time(9, 0) < end.time()), f"{start} overlaps Standup"


def test_firefox_profile_has_firefox_schema_versions_and_consistent_history(small):
    _, out, _ = small
    profile = out / "home/user/.mozilla/firefox/mypcbench.default-release"
    places = sqlite3.connect(profile / "places.sqlite")
    assert places.execute("PRAGMA user_version").fetchone()[0] == 86
    assert places.execute("SELECT COUNT(*) FROM moz_historyvisits").fetchone()[0] == 400
    assert places.execute("SELECT COUNT(*) FROM moz_bookmarks WHERE type = 1").fetchone()[0] == 20
    search = places.execute("SELECT COUNT(*) FROM moz_places WHERE url LIKE '%q=boston+conference+hotels%'").fetchone()[
        0
    ]
    assert search == 1
    assert places.execute("SELECT COUNT(*) FROM moz_places WHERE url_hash = 0").fetchone()[0] == 0
    cookies = sqlite3.connect(profile / "cookies.sqlite")
    assert cookies.execute("SELECT COUNT(DISTINCT host) FROM moz_cookies").fetchone()[0] == 17
    form = sqlite3.connect(profile / "formhistory.sqlite")
    assert form.execute(
        "SELECT value FROM moz_formhistory WHERE fieldname = 'searchbar-history' AND value = 'blue fin grill menu'"
    ).fetchone()


def _firefox() -> str:
    """Debian's Firefox ESR (bin/test installs it); missing, the test skips on a user's clone and fails in CI."""
    found = shutil.which("firefox-esr") or shutil.which("firefox")
    if found is None:
        if in_ci():
            pytest.fail("firefox-esr is not installed, and CI is set: bin/test installs it", pytrace=False)
        pytest.skip("firefox-esr is not installed (apt-get install firefox-esr)")
    return found


def _count(db: Path, sql: str) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return con.execute(sql).fetchone()[0]


def test_real_firefox_opens_the_profile_keeps_its_history_and_adds_to_it(small, tmp_path):
    # The seeded profile in the browser the desktop runs: headless Firefox ESR starts on a copy, opens
    # a page, and records the visit in our places.sqlite, with every seeded visit, bookmark and cookie
    # kept (a schema it did not accept would have been set aside as places.sqlite.corrupt and replaced).
    firefox = _firefox()
    _, out, _ = small
    profile = tmp_path / "profile"
    shutil.copytree(out / "home/user/.mozilla/firefox/mypcbench.default-release", profile)
    places, cookies = profile / "places.sqlite", profile / "cookies.sqlite"
    visits = _count(places, "SELECT COUNT(*) FROM moz_historyvisits")
    bookmarks = _count(places, "SELECT COUNT(*) FROM moz_bookmarks")
    cookie_rows = _count(cookies, "SELECT COUNT(*) FROM moz_cookies")
    version = _count(places, "PRAGMA user_version")
    page = tmp_path / "page.html"
    page.write_text("<!doctype html><title>Seeded profile check</title><p>hello</p>")
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "MOZ_HEADLESS": "1"}
    browser = subprocess.Popen(
        [firefox, "--headless", "--no-remote", "--profile", str(profile), page.as_uri()],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        # Firefox holds places.sqlite locked while it runs: wait for its write-ahead log to stop growing
        # once the page is in (the visit is written there), then let it quit and read the database.
        wal, deadline, last, still = profile / "places.sqlite-wal", time.monotonic() + 90, -1, 0
        while still < 6:
            assert browser.poll() is None, f"Firefox exited with {browser.returncode}"
            assert time.monotonic() < deadline, "Firefox wrote nothing to places.sqlite in 90 s"
            size = wal.stat().st_size if wal.exists() else -1
            still = still + 1 if size == last and size > 0 else 0
            last = size
            time.sleep(0.5)
    finally:
        os.killpg(browser.pid, signal.SIGTERM)
        browser.wait(timeout=60)
    assert not list(profile.glob("*.corrupt")), "Firefox set a database aside as corrupt"
    assert _count(places, "PRAGMA user_version") >= version
    assert _count(places, "SELECT COUNT(*) FROM moz_historyvisits") == visits + 1
    assert _count(places, f"SELECT COUNT(*) FROM moz_places WHERE url = '{page.as_uri()}'") == 1
    assert _count(places, "SELECT COUNT(*) FROM moz_bookmarks") == bookmarks
    assert _count(cookies, "SELECT COUNT(*) FROM moz_cookies") == cookie_rows


def test_check_catches_a_tampered_bank_row(small, tmp_path):
    _, out, _ = small
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    con = sqlite3.connect(copy / "apps/vaultbank.sqlite")
    con.execute("UPDATE transactions SET amount = amount - 5 WHERE provenance = 'trips[0].hotel'")
    con.commit()
    con.close()
    chat = sqlite3.connect(copy / "apps/buzzchat.sqlite")
    chat.execute("DELETE FROM messages WHERE provenance = 'cross_app_events[0]'")
    chat.commit()
    chat.close()
    report = check(copy)
    assert not report.ok
    assert report.problems.get("balances") and report.problems.get("manifest")
    events = " ".join(report.problems["events"])
    assert "trips[0].hotel" in events and "cross_app_events[0]: no HooliChat messages row" in events


def test_builds_in_two_processes_with_different_hash_seeds_and_cwds_are_identical(small, tmp_path):
    persona, _, _ = small
    outs = []
    for seed, cwd in (("1", tmp_path), ("4242", ROOT)):
        out = tmp_path / f"build{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "seeding",
                "build",
                "--persona",
                str(persona),
                "--out",
                str(out),
                "--anchor",
                "2026-04-13",
                "--quiet",
            ],
            cwd=cwd,
            env=env,
            check=True,
            capture_output=True,
        )
        outs.append(out)
    first, second = ((o / "manifest.json").read_bytes() for o in outs)
    assert first == second
    files = json.loads(first)["files"]
    assert "apps/vaultbank.sqlite" in files and "home/user/Calendar/personal.ics" in files


def test_overlay_entries_must_cite_tasks_and_are_applied(tmp_path):
    persona = tmp_path / "p.json"
    persona.write_text(json.dumps(SMALL))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"entries": [{"path": "contacts", "op": "append", "value": {"name": "X"}}]}))
    with pytest.raises(PersonaError, match="tasks"):
        load_persona(persona, bad)
    good = tmp_path / "good.json"
    good.write_text(
        json.dumps(
            {
                "entries": [
                    {"tasks": ["t-1"], "path": "contacts", "op": "append", "value": {"name": "New Pal"}},
                    {"tasks": ["t-2"], "path": "financial.checking_balance", "op": "set", "value": 5},
                ]
            }
        )
    )
    loaded = load_persona(persona, good)
    assert loaded.spec["contacts"][-1]["name"] == "New Pal" and loaded.spec["financial"]["checking_balance"] == 5
    with pytest.raises(PersonaError, match="no list item"):
        bad.write_text(json.dumps({"entries": [{"tasks": ["t"], "path": "contacts.9.name", "op": "set", "value": 1}]}))
        load_persona(persona, bad)


def test_entity_extractor_finds_names_codes_amounts_and_dates():
    found = extract_entities(
        "Cancel my stay at the Harbor Inn (HI-22222) on April 25 and refund $1,455 to Robin Friend."
    )
    assert {"Harbor Inn", "Robin Friend"} <= found["names"]
    assert "HI-22222" in found["codes"] and 1455.0 in found["amounts"] and "04-25" in found["dates"]


def test_real_spec_reaches_the_paper_volumes_and_passes_checks(tmp_path):
    upstream = _upstream()
    manifest = build(upstream / "michael_scott.json", tmp_path / "world", ANCHOR)
    for metric, row in manifest["volume"].items():
        assert abs(row["ratio"] - 1) <= 0.10, (metric, row)
    report = check(tmp_path / "world", upstream / "all_tasks_with_grading.json")
    assert report.ok, report.render()
    figures = json.loads((tmp_path / "world" / "check.json").read_text())
    assert figures["solvable"]["tasks"] == 184 and len(figures["solvable"]["per_task"]) == 184
    released = figures["released"]["per_variable"]
    assert len(released) == 213
    for name in ("GRINGOTTS_CREDIT_LIMIT", "GRINGOTTS_CREDIT_CARD_BALANCE", "JAMAICA_HOTEL_CONF", "NYC_FLIGHT_NUM"):
        assert released[name]["status"] == "matched", (name, released[name])
    assert released["TASK_START"]["status"] == "not applicable"
    assert released["GRINGOTTS_TOTAL_TRANSACTIONS"]["status"] == "kept different"
    assert "1,812" in released["GRINGOTTS_TOTAL_TRANSACTIONS"]["why"]
    assert figures["volume"]["databases"] == 17
    kinds = figures["invariants"]["kinds"]
    # history only on pages the apps have, with real titles; trip documents agree with the bookings;
    # no Scranton deliveries or commutes while away
    for kind in ("browser pages and titles", "documents agree with databases", "routine follows trips"):
        assert kinds[kind]["violations"] == 0, (kind, kinds[kind]["examples"])
    assert any("1725 Slough Ave" in kept for kept in figures["invariants"]["planted"])
    trips = tmp_path / "world/home/user/Documents/Trips"
    jamaica = (trips / "sandals_montego_bay_jamaica.txt").read_text()
    assert "SM-88431" in jamaica and "2026-05-16 to 2026-05-21" in jamaica and "(5 nights)" in jamaica
    assert "originally booked with Jan" not in jamaica  # the spec's author note stays out of his files
    assert "2026-06-13 to 2026-06-18  Sandals Royal Barbados" in (trips / "Travel_Overview.txt").read_text()


@pytest.mark.slow
def test_real_spec_meets_every_goal_of_the_check(tmp_path):
    upstream = _upstream()
    build(upstream / "michael_scott.json", tmp_path / "world", ANCHOR)
    report = check(tmp_path / "world", upstream / "all_tasks_with_grading.json")
    assert report.met, report.missed


def _xml_texts(path, member):
    import xml.etree.ElementTree as ET
    import zipfile

    with zipfile.ZipFile(path) as archive:
        return ["".join(node.itertext()) for node in ET.fromstring(archive.read(member)).iter()]


def _q1_business_charges(out: Path) -> tuple[float, int]:
    """(total, count) of Gringotts' Q1 2026 card charges the expense report lists, read from its database."""
    return (
        _db(out, "vaultbank")
        .execute(
            "SELECT ROUND(-SUM(amount), 2), COUNT(*) FROM transactions "
            "WHERE posted_date BETWEEN '2026-01-01' AND '2026-03-31' "
            "AND category IN ('Travel', 'Dining', 'Transport') AND amount < 0"
        )
        .fetchone()
    )


def test_office_documents_open_as_zip_xml_and_pdf_and_agree_with_the_apps(small):
    import xml.etree.ElementTree as ET
    import zipfile

    _, out, _ = small
    docs = out / "home/user/Documents"
    itinerary = " ".join(_xml_texts(docs / "Trips/Boston_itinerary.odt", "content.xml"))
    assert "DN-11111" in itinerary and "HI-22222" in itinerary and "Free cancellation until 2026-04-25" in itinerary
    with zipfile.ZipFile(docs / "Trips/Boston_itinerary.odt") as odt:
        assert (
            odt.infolist()[0].filename == "mimetype"
            and odt.read("mimetype") == b"application/vnd.oasis.opendocument.text"
        )
    pdf = (docs / "Trips/BoardingPass_DN1001_2026-05-01.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and b"Confirmation DN-11111" in pdf and b"/Subtype /Image" in pdf
    # The expense report: the .ods total (read as ODF XML) is the sum of its rows, the .xlsx (read as
    # OOXML) has the same rows and a SUM formula over them, and both match Gringotts' card charges.
    ns = {
        "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
        "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    }
    with zipfile.ZipFile(docs / "Expense_Report_Q1_2026.ods") as ods:
        root = ET.fromstring(ods.read("content.xml"))
    values = [
        float(c.get(f"{{{ns['office']}}}value"))
        for c in root.iter(f"{{{ns['table']}}}table-cell")
        if c.get(f"{{{ns['office']}}}value")
    ]
    rows, total = values[:-1], values[-1]
    assert rows and round(sum(rows), 2) == total
    bank = _q1_business_charges(out)
    assert bank == (total, len(rows))
    with zipfile.ZipFile(docs / "Expense_Report_Q1_2026.xlsx") as xlsx:
        sheet = xlsx.read("xl/worksheets/sheet1.xml").decode()
    assert f"SUM(D2:D{len(rows) + 1})" in sheet


def _tool(name: str, package: str) -> str:
    """A Debian program bin/test installs; missing, the test skips on a user's clone and fails in CI."""
    found = shutil.which(name)
    if found is None:
        if in_ci():
            pytest.fail(f"{name} is not installed, and CI is set: bin/test installs {package}", pytrace=False)
        pytest.skip(f"{name} is not installed (apt-get install {package})")
    return found


def test_libreoffice_opens_the_office_documents_and_a_reader_decodes_the_boarding_pass_qr(small, tmp_path):
    # The programs the desktop's user has: LibreOffice converts each office document (the .xlsx
    # total is its SUM formula, computed by LibreOffice), and the boarding pass's QR code, rendered
    # from the PDF and read by zbar, carries the barcode Dinoco's database holds.
    soffice = _tool("soffice", "libreoffice-calc-nogui libreoffice-writer-nogui")
    pdftoppm, zbarimg = _tool("pdftoppm", "poppler-utils"), _tool("zbarimg", "zbar-tools")
    _, out, _ = small
    docs = out / "home/user/Documents"
    converted = tmp_path / "converted"

    def convert(path: Path, target: str) -> Path:
        subprocess.run(
            [soffice, f"-env:UserInstallation={(tmp_path / 'lo-profile').as_uri()}", "--headless", "--norestore",
             "--convert-to", target, "--outdir", str(converted), str(path)],
            check=True, capture_output=True, timeout=180,
        )  # fmt: skip
        made = converted / f"{path.stem}.{target.split(':')[0]}"
        assert made.is_file(), f"LibreOffice did not convert {path.name}"
        return made

    itinerary = convert(docs / "Trips/Boston_itinerary.odt", "txt:Text").read_text(encoding="utf-8-sig")
    assert "DN-11111" in itinerary and "HI-22222" in itinerary and "Free cancellation until 2026-04-25" in itinerary
    bank = _q1_business_charges(out)
    for name in ("Expense_Report_Q1_2026.ods", "Expense_Report_Q1_2026.xlsx"):
        table = list(csv.reader(convert(docs / name, "csv").read_text(encoding="utf-8").splitlines()))
        assert table[0][3] == "Amount (USD)", name
        amounts = [float(row[3]) for row in table[1:] if row[3]]
        assert len(amounts) - 1 == bank[1] and round(sum(amounts[:-1]), 2) == bank[0], name
        assert table[-1][2] == "Total" and round(amounts[-1], 2) == bank[0], f"{name}: the total LibreOffice shows"

    pdf = docs / "Trips/BoardingPass_DN1001_2026-05-01.pdf"
    subprocess.run([pdftoppm, "-r", "150", "-png", "-singlefile", str(pdf), str(tmp_path / "pass")], check=True)
    read = subprocess.run([zbarimg, "--quiet", "--raw", str(tmp_path / "pass.png")], capture_output=True, text=True)
    barcode = (
        _db(out, "dinoco-airlines")
        .execute(
            "SELECT bp.barcode FROM boarding_passes bp JOIN bookings b ON b.id = bp.booking_id "
            "WHERE b.confirmation = 'DN-11111'"
        )
        .fetchone()[0]
    )
    assert read.returncode == 0 and read.stdout.strip() == barcode


def test_places_url_hash_matches_values_taken_from_real_firefox_profiles():
    from seeding.world.seeders.firefox import url_hash

    # Published url_hash values of real places.sqlite rows (facts, used as expected outputs).
    assert url_hash("http://example.org/") == 125508604170377
    assert url_hash("https://vault.bitwarden.com/") == 47358609224710


def test_cli_names_a_bad_persona_and_a_bad_anchor(tmp_path, capsys):
    from seeding.__main__ import main

    assert main(["build", "--persona", str(tmp_path / "nobody.json"), "--out", str(tmp_path / "w")]) == 2
    assert "nobody.json: cannot be read" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"identity": {"name": "X"}}))
    assert main(["build", "--persona", str(broken), "--out", str(tmp_path / "w")]) == 2
    assert "section 'contacts' is missing" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["build", "--persona", str(broken), "--out", str(tmp_path / "w"), "--anchor", "13/04/2026"])
    assert "--anchor must be YYYY-MM-DD" in capsys.readouterr().err


def test_summary_lists_identity_contacts_finances_and_upcoming_events(small):
    _, out, _ = small
    summary = (out / "SUMMARY.md").read_text()
    assert summary.startswith("# Pat Tester")
    assert "| Robin Friend | close friend | daily |" in summary
    assert "Sapphire" not in summary and "Everyday Checking (Pat Tester): $1,200.00" in summary
    assert "2026-05-01: Trip: Boston" in summary and "2026-05-01: Harbor Inn (Boston) (HI-22222, $300.00)" in summary


def test_a_registry_file_names_the_persona_to_load(tmp_path):
    (tmp_path / "pat.json").write_text(json.dumps(SMALL))
    registry = tmp_path / "registry.json"
    registry.write_text(json.dumps({"default_persona": "pat", "personas": {"pat": {"file": "pat.json"}}}))
    assert load_persona(registry).name == "Pat Tester"
    with pytest.raises(PersonaError, match="no persona 'kim'"):
        load_persona(registry, name="kim")
