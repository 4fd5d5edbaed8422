"""Invariants of a built world, one function per kind; each returns the violations it finds, in words.

Balances within limits; nothing posted after the anchor (upcoming bookings and calendar entries excepted);
Date headers and calendar times in America/New_York with daylight saving; routine activity follows trips;
stable prices per merchant item (dated changes only); browser history and bookmarks only on pages the apps
have, with real titles; trip documents agree with the booking databases.
"""

import datetime as dt
import email
import email.policy
import email.utils
import json
import mailbox
import re
import urllib.parse
import zipfile
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar

from ..apps import EVENT_TABLES, db_path
from ..core import read_only
from ..persona import PERSONAS_DIR
from ..seeders.firefox import APP_PAGES, PROFILE

ZONE = ZoneInfo("America/New_York")
UPCOMING_APPS = {"calendar", "cheskepdia", "dinoco-airlines", "tablefind"}  # bookings may lie ahead
UPCOMING_STATUSES = ("scheduled", "upcoming")  # a row booked ahead, like a ride scheduled for a trip
SHOWN = 25
SEARCH_TITLE = " - Google Search"
NUMBERED_SLUG = re.compile(r"-\d+/?$")


def balances(root: Path, planted: list[str]) -> list[str]:
    """Accounts never past their limit (credit) or below zero (checking, savings), unless the spec plants it."""
    con = read_only(root / db_path("vaultbank"))
    found = []
    for acc in con.execute("SELECT * FROM accounts"):
        floor = -(acc["credit_limit"] or 0) if acc["kind"] == "credit_card" else 0.0
        low = con.execute(
            "SELECT posted_date, balance_after FROM transactions WHERE account_id = ? ORDER BY balance_after LIMIT 1",
            (acc["id"],),
        ).fetchone()
        if low and low["balance_after"] < floor - 0.005:
            what = f"{acc['name']} at {low['balance_after']:,.2f} on {low['posted_date']} (floor {floor:,.2f})"
            if not any(p.lower() in acc["name"].lower() for p in planted):
                found.append(what)
    con.close()
    return found


def after_anchor(root: Path, anchor: str) -> list[str]:
    """No record dated after the anchor, except upcoming bookings and calendar entries."""
    found = []
    for app, (table, date_col, _, _) in EVENT_TABLES.items():
        if app in UPCOMING_APPS:
            continue
        con = read_only(root / db_path(app))
        booked = ""
        if "status" in {r[1] for r in con.execute(f"PRAGMA table_info({table})")}:
            booked = f" AND status NOT IN {UPCOMING_STATUSES!r}"
        late, first = con.execute(
            f"SELECT COUNT(*), MIN({date_col}) FROM {table} WHERE substr({date_col}, 1, 10) > ?{booked}", (anchor,)
        ).fetchone()
        if late:
            found.append(f"{late} {app} {table} record(s) after {anchor}, the first on {first}")
        con.close()
    return found


def new_york_offset(when: dt.datetime) -> bool:
    local = when.replace(tzinfo=None).replace(tzinfo=ZONE)
    return when.utcoffset() == local.utcoffset()


def time_zones(root: Path) -> list[str]:
    """Every Date header and timed calendar entry in America/New_York, with daylight saving."""
    found = []
    box = mailbox.Maildir(root / "home/user/Maildir", factory=None, create=False)
    wrong = 0
    example = ""
    for folder in [box] + [box.get_folder(name) for name in box.list_folders()]:
        for key in folder.iterkeys():
            header = email.message_from_bytes(folder.get_bytes(key), policy=email.policy.compat32)["Date"]
            when = email.utils.parsedate_to_datetime(header) if header else None
            if when is None or when.tzinfo is None or not new_york_offset(when):
                wrong += 1
                example = example or str(header)
    if wrong:
        found.append(f"{wrong} email Date header(s) not in America/New_York time, e.g. {example!r}")
    cal = icalendar.Calendar.from_ical((root / "home/user/Calendar/personal.ics").read_bytes())
    wrong, example = 0, ""
    for event in cal.walk("VEVENT"):
        start = event.decoded("dtstart")
        if isinstance(start, dt.datetime) and (start.tzinfo is None or not new_york_offset(start)):
            wrong += 1
            example = example or f"{event.get('summary')} at {start.isoformat()}"
    if wrong:
        found.append(f"{wrong} calendar entr(ies) not in America/New_York time, e.g. {example}")
    return found


def _away(root: Path) -> list[tuple[str, str, str]]:
    """(first full day away, last full day away, where) for every booked stay out of town."""
    con = read_only(root / db_path("cheskepdia"))
    stays = []
    for row in con.execute(
        "SELECT b.check_in, b.check_out, p.name, p.city FROM bookings b JOIN properties p ON p.id = b.property_id "
        "WHERE b.status != 'cancelled'"
    ):
        if "scranton" in str(row["city"] or "").lower():
            continue
        first = (dt.date.fromisoformat(row["check_in"][:10]) + dt.timedelta(days=1)).isoformat()
        last = (dt.date.fromisoformat(row["check_out"][:10]) - dt.timedelta(days=1)).isoformat()
        if first <= last:
            stays.append((first, last, row["name"]))
    con.close()
    return stays


def routine_follows_trips(root: Path) -> list[str]:
    """No Scranton food deliveries or home/office rides on a day Michael is away on a trip."""
    found = []
    stays = _away(root)
    food = read_only(root / db_path("hangrydash"))
    rides = read_only(root / db_path("etaxi"))
    for first, last, where in stays:
        orders = food.execute(
            "SELECT COUNT(*) FROM orders WHERE substr(placed_at, 1, 10) BETWEEN ? AND ?", (first, last)
        ).fetchone()[0]
        if orders:
            found.append(f"{orders} HangryDash order(s) in Scranton between {first} and {last} (away at {where})")
        commutes = rides.execute(
            "SELECT COUNT(*) FROM rides WHERE substr(requested_at, 1, 10) BETWEEN ? AND ? "
            "AND (pickup LIKE '%Slough%' OR dropoff LIKE '%Slough%')",
            (first, last),
        ).fetchone()[0]
        if commutes:
            found.append(f"{commutes} eTaxi ride(s) from or to Slough Ave between {first} and {last} (away at {where})")
    food.close()
    rides.close()
    return found


def unstable_items(rows) -> list[str]:
    """Items whose price returns to an earlier value: a price that changes back and forth, not a dated change."""
    history: dict[tuple, list[float]] = {}
    for key, price in rows:
        seq = history.setdefault(key, [])
        if not seq or seq[-1] != price:
            seq.append(price)
    return [f"{' / '.join(map(str, key))}: {seq[:6]}" for key, seq in history.items() if len(seq) != len(set(seq))]


def stable_prices(root: Path) -> list[str]:
    """Each merchant item keeps its price until a dated change (no price that jumps back and forth)."""
    found = []
    queries = {
        "hangrydash": "SELECT r.name, i.name, i.price FROM order_items i JOIN orders o ON o.id = i.order_id "
        "JOIN restaurants r ON r.id = o.restaurant_id ORDER BY o.placed_at, i.id",
        "kwik-e-mart": "SELECT s.name, i.name, i.price FROM order_items i JOIN orders o ON o.id = i.order_id "
        "JOIN stores s ON s.id = o.store_id ORDER BY o.placed_at, i.id",
        "hoolishop": "SELECT 'HooliShop', i.product_id, i.price FROM order_items i JOIN orders o ON o.id = i.order_id "
        "ORDER BY o.placed_at, i.id",
    }
    for app, sql in queries.items():
        con = read_only(root / db_path(app))
        unstable = unstable_items(((a, b), round(p, 2)) for a, b, p in con.execute(sql))
        con.close()
        if unstable:
            found.append(f"{len(unstable)} {app} item(s) with unstable prices, e.g. {unstable[0]}")
    return found


def browser_pages(root: Path) -> list[str]:
    """History and bookmarks only on pages the apps have, with real titles."""
    con = read_only(root / PROFILE / "places.sqlite")
    found: list[str] = []
    for url, title in con.execute(
        "SELECT url, title FROM moz_places WHERE id IN (SELECT place_id FROM moz_historyvisits) "
        "OR id IN (SELECT fk FROM moz_bookmarks WHERE type = 1)"
    ):
        parts = urllib.parse.urlsplit(url)
        host, path = parts.hostname or "", parts.path or "/"
        is_search = host == "www.google.com" and path == "/search"
        if host.endswith(".localhost"):
            app = host.removesuffix(".localhost")
            if path not in APP_PAGES.get(app, {}):
                found.append(f"{url}: {app} has no page {path}")
        elif host == "www.google.com" and not is_search and path != "/":
            found.append(f"{url}: not a page Google has")
        elif NUMBERED_SLUG.search(path):
            found.append(f"{url}: an invented, numbered page")
        if (title or "").endswith(SEARCH_TITLE) and not is_search:
            found.append(f"{url}: titled {title!r} but it is not a search")
        if is_search:
            query = urllib.parse.parse_qs(parts.query).get("q", [""])[0]
            if title != query + SEARCH_TITLE:
                found.append(f"{url}: a Google search titled {title!r}, not {query + SEARCH_TITLE!r}")
        if not (title or "").strip(" -"):
            found.append(f"{url}: no title")
    con.close()
    return found


def _document_texts(root: Path) -> dict[str, str]:
    texts = {}
    for path in sorted((root / "home/user/Documents").rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.suffix in (".txt", ".md", ".csv"):
            texts[relative] = path.read_text(encoding="utf-8", errors="replace")
        elif path.suffix in (".odt", ".docx"):
            with zipfile.ZipFile(path) as archive:
                part = "content.xml" if path.suffix == ".odt" else "word/document.xml"
                xml = archive.read(part).decode("utf-8", errors="replace")
            texts[relative] = re.sub(r"<[^>]+>", " ", xml).replace("&gt;", ">").replace("&amp;", "&")
    return texts


def documents_agree(root: Path) -> list[str]:
    """Every trip document states its booking as the databases have it (confirmation, dates, nights, total)."""
    found = []
    texts = _document_texts(root)
    con = read_only(root / db_path("cheskepdia"))
    for row in con.execute("SELECT * FROM bookings"):
        nights = (dt.date.fromisoformat(row["check_out"][:10]) - dt.date.fromisoformat(row["check_in"][:10])).days
        if nights != row["nights"]:
            found.append(f"{row['confirmation']}: {row['nights']} nights booked for a {nights}-night stay")
        if abs(row["nights"] * row["nightly_rate"] - row["total"]) > 0.011:
            stay = f"{row['nights']} nights at {row['nightly_rate']}"
            found.append(f"{row['confirmation']}: {stay} is not the total {row['total']}")
        docs = {p: t for p, t in texts.items() if row["confirmation"] in t}
        if not docs:
            found.append(f"{row['confirmation']}: no document names this booking")
            continue
        total = f"{row['total']:,.2f}"
        for path, text in docs.items():
            absent = [v for v in (row["check_in"][:10], row["check_out"][:10], total) if v not in text]
            stated = re.search(r"\((\d+) nights?\)", text)
            if stated and int(stated.group(1)) != nights:
                absent.append(f"{nights} nights (says {stated.group(1)})")
            if absent:
                found.append(f"{path}: does not state {row['confirmation']}'s {', '.join(absent)}")
    con.close()
    return found


def records(finding: str) -> int:
    """How many records a finding covers: the number it starts with ("1432 email Date header(s) ..."), else 1."""
    match = re.match(r"(\d+) ", finding)
    return int(match.group(1)) if match else 1


def kept_contradictions(root: Path) -> list[dict]:
    """The contradictions the build's overlay keeps on purpose because tasks rely on them (``kept_contradictions``)."""
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    overlay = PERSONAS_DIR / str(manifest.get("overlay_file") or "")
    if not manifest.get("overlay_file") or not overlay.is_file():
        return []
    kept = json.loads(overlay.read_text(encoding="utf-8")).get("kept_contradictions", [])
    return [k for k in kept if isinstance(k, dict)]


def invariants(root: Path | str) -> dict:
    """Each invariant kind with its violations (0 is the goal) and what is planted on purpose."""
    root = Path(root)
    anchor = json.loads((root / "manifest.json").read_text(encoding="utf-8"))["anchor"]
    kept = kept_contradictions(root)
    planted = [k.get("account", "") for k in kept if k.get("kind") == "balances" and k.get("account")]
    kinds: dict[str, Callable[[], list[str]]] = {
        "balances within limits": lambda: balances(root, planted),
        "nothing after the anchor": lambda: after_anchor(root, anchor),
        "America/New_York times": lambda: time_zones(root),
        "routine follows trips": lambda: routine_follows_trips(root),
        "stable prices": lambda: stable_prices(root),
        "browser pages and titles": lambda: browser_pages(root),
        "documents agree with databases": lambda: documents_agree(root),
    }
    report: dict[str, dict] = {}
    for kind, run in kinds.items():
        try:
            found = run()
        except Exception as exc:  # a reader that cannot open its file is a violation to fix, not a crash
            found = [f"could not be checked: {exc!r}"]
        report[kind] = {"violations": sum(records(f) for f in found), "examples": found[:SHOWN]}
    return {
        "kinds": report,
        "planted": [f"{k.get('kind')}: {k.get('what')} (tasks {', '.join(k.get('tasks', []))})" for k in kept],
        "violations": sum(k["violations"] for k in report.values()),
    }
