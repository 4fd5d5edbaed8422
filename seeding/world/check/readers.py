"""The readers of ``check``: validate a built world with independent readers.

Checks: the manifest's hashes; every event's records agree across the apps it names (dates, amounts,
codes); app dates lie in the build window; bank balances add up (opening + transactions = balance,
running balances, statements); the Maildir parses with the standard library's ``mailbox``/``email`` and
matches HooliMail; the .ics parses with ``icalendar`` and matches HooliCalendar; the Firefox databases
have Firefox's schema versions, tables, url hashes and consistent counts. The figures (answer keys, the
released world's facts, text, invariants, volume) are in the sibling modules; ``check`` in this package's
``__init__`` runs them all.
"""

import email
import email.policy
import json
import mailbox
import sqlite3
import urllib.parse
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import icalendar

from ..apps import APPS, EVENT_TABLES, canonical, db_path
from ..core import BINARY_DOCUMENTS, read_only, sha256_file
from ..seeders.firefox import COOKIES_VERSION, FORMHISTORY_VERSION, PLACES_VERSION, PROFILE, url_hash

MONEY_TOLERANCE = 0.011


@dataclass
class Report:
    problems: dict = field(default_factory=dict)  # check name -> list of problems
    passed: dict = field(default_factory=dict)  # check name -> what was verified
    figures: dict = field(default_factory=dict)  # figure name -> its report (check.json)
    missed: list = field(default_factory=list)  # goals missed, in words

    def fail(self, check, message):
        self.problems.setdefault(check, []).append(message)

    @property
    def ok(self):
        return not any(self.problems.values())

    @property
    def met(self):
        """Every reader passed and no goal was missed (the command line's exit status)."""
        return self.ok and not self.missed

    def render(self) -> str:
        lines = []
        for name in sorted(set(self.passed) | set(self.problems)):
            probs = self.problems.get(name, [])
            lines.append(f"[{'FAIL' if probs else 'ok'}] {name}: {self.passed.get(name, '')}")
            lines += [f"    - {p}" for p in probs[:20]]
            if len(probs) > 20:
                lines.append(f"    ... and {len(probs) - 20} more")
        return "\n".join(lines)


def check_manifest(root: Path, report: Report):
    manifest = json.loads((root / "manifest.json").read_text())
    for rel, meta in manifest["files"].items():
        path = root / rel
        if not path.exists():
            report.fail("manifest", f"{rel} is listed but missing")
        elif sha256_file(path) != meta["sha256"]:
            report.fail("manifest", f"{rel} does not match its sha256")
    report.passed["manifest"] = f"{len(manifest['files'])} files hashed"
    return manifest


def _matches(rows: list[dict], want: dict, app: str) -> list[dict]:
    """The rows of ``app``'s event table that show ``want`` (its date, and its amount and code if given)."""
    _, date_col, amount_col, code_col = EVENT_TABLES[app]
    match = [r for r in rows if str(r[date_col])[:10] == want["date"]]
    if "amount" in want and amount_col:
        match = [
            r for r in match if r[amount_col] is not None and abs(r[amount_col] - want["amount"]) < MONEY_TOLERANCE
        ]
    if want.get("code"):
        if code_col:
            match = [r for r in match if r[code_col] == want["code"]]
        elif app == "mail":
            match = [r for r in match if want["code"] in r["body"] or want["code"] in r["subject"]]
    return match


def _check_records(root: Path, event: dict, dbs: dict, report: Report) -> int:
    """Each record ``event`` expects in an app's database; returns how many were compared. A charge dated after
    the anchor is not expected in Gringotts: nothing is posted before it happens."""
    anchor = json.loads((root / "manifest.json").read_text())["anchor"]
    checked = 0
    for app, entries in event.get("expect", {}).items():
        app = canonical(app)
        if app == "browser":
            continue
        table = EVENT_TABLES[app][0]
        con = dbs.setdefault(app, read_only(root / db_path(app)))
        rows = [dict(r) for r in con.execute(f"SELECT * FROM {table} WHERE provenance = ?", (event["id"],))]
        if app == "vaultbank":
            rows = [r for r in rows if r["description"] != "PAYMENT RECEIVED"]
        for want in entries:
            if app == "vaultbank" and want["date"] > anchor:
                continue
            checked += 1
            if not _matches(rows, want, app):
                report.fail(
                    "events", f"{event['id']}: no {APPS.get(app, app)} {table} row on {want['date']} with {want}"
                )
    return checked


def _check_searches(places, event: dict, report: Report) -> int:
    """Each search of ``event`` in Firefox's history; returns how many were compared."""
    for search in event.get("searches", []):
        url = "https://www.google.com/search?" + urllib.parse.urlencode({"q": search})
        if not places.execute(
            "SELECT 1 FROM moz_places WHERE url_hash = ? AND url = ?", (url_hash(url), url)
        ).fetchone():
            report.fail("events", f"{event['id']}: search {search!r} is not in Firefox history")
    return len(event.get("searches", []))


def _check_named_apps(events: list, report: Report):
    """Every app the spec names for an event (a trip and its parts together) got at least one record."""
    for event in events:
        family = [e for e in events if e["id"] == event["id"] or e["id"].startswith(event["id"] + ".")]
        reached = {canonical(app) for e in family for app in e.get("expect", {})}
        reached |= {"browser"} if any(e.get("searches") for e in family) else set()
        for app in event.get("named_apps", []):
            if canonical(app) in APPS or app == "browser":
                if canonical(app) not in reached:
                    report.fail("events", f"{event['id']}: the spec names {app} but no {app} record was seeded")


def check_events(root: Path, report: Report):
    events = json.loads((root / "events.json").read_text())
    dbs: dict[str, sqlite3.Connection] = {}
    checked = 0
    places = read_only(root / PROFILE / "places.sqlite")
    for event in events:
        checked += _check_records(root, event, dbs, report)
        checked += _check_searches(places, event, report)
    _check_named_apps(events, report)
    report.passed["events"] = f"{len(events)} events, {checked} cross-app records compared"


def check_dates(root: Path, manifest, report: Report):
    start, end = manifest["window"]
    checked = 0
    for app, (table, date_col, _, _) in EVENT_TABLES.items():
        con = read_only(root / db_path(app))
        # A recurring series (a yearly birthday) starts once; its later occurrences are not rows.
        where = " WHERE rrule IS NULL" if app == "calendar" else ""
        low, high, count = con.execute(
            f"SELECT MIN({date_col}), MAX({date_col}), COUNT(*) FROM {table}{where}"
        ).fetchone()
        checked += count
        if count and (str(low)[:10] < start or str(high)[:10] > end):
            report.fail("dates", f"{APPS[app]} {table}.{date_col} spans {low}..{high}, outside {start}..{end}")
    report.passed["dates"] = f"{checked} dated records within {start}..{end}"


def check_balances(root: Path, report: Report):
    con = read_only(root / db_path("vaultbank"))
    for acc in con.execute("SELECT * FROM accounts"):
        running = acc["opening_balance"]
        for txn in con.execute("SELECT * FROM transactions WHERE account_id = ? ORDER BY id", (acc["id"],)):
            running = round(running + txn["amount"], 2)
            if abs(running - txn["balance_after"]) > MONEY_TOLERANCE:
                report.fail("balances", f"transaction {txn['id']}: balance_after {txn['balance_after']} != {running}")
                break
        if abs(running - acc["balance"]) > MONEY_TOLERANCE:
            report.fail(
                "balances", f"account {acc['name']}: opening + transactions = {running}, balance {acc['balance']}"
            )
    for st in con.execute("SELECT * FROM statements"):
        total = round(st["opening_balance"] + st["total_credits"] + st["total_debits"], 2)
        if abs(total - st["closing_balance"]) > MONEY_TOLERANCE:
            report.fail(
                "balances", f"statement {st['id']}: opening + credits + debits = {total} != {st['closing_balance']}"
            )
    report.passed["balances"] = "accounts, running balances and statements"


def check_maildir(root: Path, report: Report):
    db = read_only(root / db_path("mail"))
    expected = {
        r["message_id"]: dict(r) for r in db.execute("SELECT message_id, subject, folder, in_reply_to FROM messages")
    }
    box = mailbox.Maildir(root / "home/user/Maildir", factory=None, create=False)
    seen = {}
    folders = [("INBOX", box)] + [(name, box.get_folder(name)) for name in box.list_folders()]
    for folder_name, folder in folders:
        for key in folder.iterkeys():
            msg = email.message_from_bytes(folder.get_bytes(key), policy=email.policy.default)
            mid = msg["Message-ID"]
            if not mid or msg["Date"] is None or msg["From"] is None:
                report.fail("maildir", f"{folder_name}/{key}: missing Message-ID, Date or From")
                continue
            seen[mid] = (folder_name, msg)
    missing = set(expected) - set(seen)
    extra = set(seen) - set(expected)
    for mid in sorted(missing)[:10]:
        report.fail("maildir", f"{mid} is in HooliMail but not in the Maildir")
    for mid in sorted(extra)[:10]:
        report.fail("maildir", f"{mid} is in the Maildir but not in HooliMail")
    for mid, (folder_name, msg) in seen.items():
        row = expected.get(mid)
        if not row:
            continue
        if str(msg["Subject"]) != row["subject"]:
            report.fail("maildir", f"{mid}: subject {msg['Subject']!r} != HooliMail {row['subject']!r}")
        wanted_folder = "Sent" if row["folder"] == "Sent" else "INBOX"
        if folder_name.strip(".") != wanted_folder:
            report.fail("maildir", f"{mid}: in folder {folder_name}, HooliMail says {row['folder']}")
        if row["in_reply_to"] and row["in_reply_to"] not in expected:
            report.fail("maildir", f"{mid}: replies to unknown {row['in_reply_to']}")
    report.passed["maildir"] = f"{len(seen)} messages parsed in {len(folders)} folders"


def check_calendar(root: Path, report: Report):
    db = read_only(root / db_path("calendar"))
    rows = {r["uid"]: dict(r) for r in db.execute("SELECT uid, summary, rrule, start_at FROM events")}
    cal = icalendar.Calendar.from_ical((root / "home/user/Calendar/personal.ics").read_bytes())
    events = list(cal.walk("VEVENT"))
    uids = {}
    for ev in events:
        uid = str(ev.get("uid"))
        uids[uid] = ev
        row = rows.get(uid)
        if row is None:
            report.fail("calendar", f"{uid} is in the .ics but not in HooliCalendar")
            continue
        if str(ev.get("summary")) != row["summary"]:
            report.fail("calendar", f"{uid}: summary differs from HooliCalendar")
        start = ev.decoded("dtstart")
        if start.isoformat()[:10] != row["start_at"][:10]:
            report.fail("calendar", f"{uid}: DTSTART {start} != HooliCalendar {row['start_at']}")
        rule = ev.get("rrule")
        if bool(rule) != bool(row["rrule"]):
            report.fail("calendar", f"{uid}: RRULE present in one of .ics / HooliCalendar only")
    for uid in set(rows) - set(uids):
        report.fail("calendar", f"{uid} is in HooliCalendar but not in the .ics")
    weekly = sum(1 for ev in events if ev.get("rrule") and "WEEKLY" in ev.get("rrule").to_ical().decode())
    report.passed["calendar"] = f"{len(events)} VEVENTs parsed, {weekly} weekly series"


def check_documents(root: Path, report: Report):
    """Office files: zips whose XML parts parse (ODF mimetype first and stored); PDFs whole."""
    import xml.etree.ElementTree as ET

    counts: dict[str, int] = {}
    for path in sorted((root / "home/user/Documents").rglob("*")):
        if path.suffix not in BINARY_DOCUMENTS:
            continue
        counts[path.suffix] = counts.get(path.suffix, 0) + 1
        rel = path.relative_to(root).as_posix()
        if path.suffix == ".pdf":
            data = path.read_bytes()
            if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-64:]:
                report.fail("documents", f"{rel} is not a complete PDF")
            continue
        try:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
                if path.suffix in (".odt", ".ods"):
                    first = archive.infolist()[0]
                    if first.filename != "mimetype" or first.compress_type != zipfile.ZIP_STORED:
                        report.fail("documents", f"{rel}: ODF mimetype is not the first, stored entry")
                for name in names:
                    if name.endswith(".xml"):
                        ET.fromstring(archive.read(name))
        except (zipfile.BadZipFile, ET.ParseError) as exc:
            report.fail("documents", f"{rel}: {exc}")
    report.passed["documents"] = ", ".join(f"{n} {suffix}" for suffix, n in sorted(counts.items())) or "none"


def _columns(con, table):
    return {r[1] for r in con.execute(f"PRAGMA table_info({table})")}


def check_firefox(root: Path, report: Report):
    profile = root / PROFILE
    con = read_only(profile / "places.sqlite")
    version = con.execute("PRAGMA user_version").fetchone()[0]
    if version != PLACES_VERSION:
        report.fail("firefox", f"places.sqlite user_version {version}, Firefox's is {PLACES_VERSION}")
    if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        report.fail("firefox", "places.sqlite fails integrity_check")
    need = {
        "moz_places": {
            "url",
            "title",
            "rev_host",
            "visit_count",
            "frecency",
            "last_visit_date",
            "guid",
            "url_hash",
            "origin_id",
        },
        "moz_historyvisits": {"place_id", "visit_date", "visit_type", "from_visit"},
        "moz_bookmarks": {"type", "fk", "parent", "position", "title", "guid"},
        "moz_origins": {"prefix", "host", "frecency"},
    }
    for table, cols in need.items():
        missing = cols - _columns(con, table)
        if missing:
            report.fail("firefox", f"places.sqlite {table} lacks {sorted(missing)}")
    bad = con.execute(
        "SELECT COUNT(*) FROM moz_places p "
        "WHERE visit_count != (SELECT COUNT(*) FROM moz_historyvisits v WHERE v.place_id = p.id)"
    ).fetchone()[0]
    if bad:
        report.fail("firefox", f"{bad} places whose visit_count differs from their visits")
    orphans = con.execute(
        "SELECT COUNT(*) FROM moz_historyvisits WHERE place_id NOT IN (SELECT id FROM moz_places)"
    ).fetchone()[0]
    if orphans:
        report.fail("firefox", f"{orphans} visits point at no place")
    wrong_hash = sum(
        1 for url, stored in con.execute("SELECT url, url_hash FROM moz_places") if url_hash(url) != stored
    )
    if wrong_hash:
        report.fail("firefox", f"{wrong_hash} places with a wrong url_hash")
    roots = {r[0] for r in con.execute("SELECT guid FROM moz_bookmarks WHERE type = 2")}
    for guid in ("root________", "menu________", "toolbar_____", "tags________", "unfiled_____", "mobile______"):
        if guid not in roots:
            report.fail("firefox", f"bookmark root {guid} missing")
    visits = con.execute("SELECT COUNT(*) FROM moz_historyvisits").fetchone()[0]
    marks = con.execute("SELECT COUNT(*) FROM moz_bookmarks WHERE type = 1").fetchone()[0]
    cookies = read_only(profile / "cookies.sqlite")
    if cookies.execute("PRAGMA user_version").fetchone()[0] != COOKIES_VERSION:
        report.fail("firefox", "cookies.sqlite has the wrong user_version")
    hosts = {r[0] for r in cookies.execute("SELECT host FROM moz_cookies")}
    for app in APPS:
        if f"{app}.localhost" not in hosts:
            report.fail("firefox", f"no session cookie for {APPS[app]}")
    form = read_only(profile / "formhistory.sqlite")
    if form.execute("PRAGMA user_version").fetchone()[0] != FORMHISTORY_VERSION:
        report.fail("firefox", "formhistory.sqlite has the wrong user_version")
    report.passed["firefox"] = f"places v{version}: {visits} visits, {marks} bookmarks; {len(hosts)} cookies"


def run_readers(root: Path, report: Report) -> dict | None:
    """Every reader check of the world in ``root``; the manifest, or None when ``root`` is not a build."""
    if not (root / "manifest.json").exists():
        report.fail("manifest", f"{root} has no manifest.json: not a built world")
        return None
    manifest = check_manifest(root, report)
    for step in (check_events, check_balances, check_maildir, check_calendar, check_firefox, check_documents):
        try:
            step(root, report)
        except Exception as exc:  # a reader that cannot open the file is a failed check, not a crash
            report.fail(step.__name__.removeprefix("check_"), f"could not be read: {exc!r}")
    check_dates(root, manifest, report)
    return manifest
