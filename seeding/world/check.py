"""``check``: validate a built world with independent readers, and report task coverage.

Checks: the manifest's hashes; every event's records agree across the apps it names (dates, amounts,
codes); app dates lie in the build window; bank balances add up (opening + transactions = balance,
running balances, statements); the Maildir parses with the standard library's ``mailbox``/``email`` and
matches HooliMail; the .ics parses with ``icalendar`` and matches HooliCalendar; the Firefox databases
have Firefox's schema versions, tables, url hashes and consistent counts. The coverage report extracts the
named entities of each task (people, places, merchants, codes, amounts, dates) and looks them up in the
world's text and numbers.
"""

import datetime as dt
import email
import email.policy
import json
import mailbox
import re
import sqlite3
import urllib.parse
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import icalendar

from .apps import APPS, EVENT_TABLES, canonical, db_path
from .core import sha256_file
from .seeders.firefox import COOKIES_VERSION, FORMHISTORY_VERSION, PLACES_VERSION, PROFILE, url_hash

MONEY_TOLERANCE = 0.011
BINARY_DOCUMENTS = {".odt", ".ods", ".xlsx", ".docx", ".pdf"}


@dataclass
class Report:
    problems: dict = field(default_factory=dict)  # check name -> list of problems
    passed: dict = field(default_factory=dict)  # check name -> what was verified
    coverage: dict | None = None

    def fail(self, check, message):
        self.problems.setdefault(check, []).append(message)

    @property
    def ok(self):
        return not any(self.problems.values())

    def render(self, misses=40) -> str:
        lines = []
        for name in sorted(set(self.passed) | set(self.problems)):
            probs = self.problems.get(name, [])
            lines.append(f"[{'FAIL' if probs else 'ok'}] {name}: {self.passed.get(name, '')}")
            lines += [f"    - {p}" for p in probs[:20]]
            if len(probs) > 20:
                lines.append(f"    ... and {len(probs) - 20} more")
        cov = self.coverage
        if cov:
            lines.append("")
            lines.append(
                f"Task coverage: {cov['tasks_fully_covered']}/{cov['tasks']} tasks have every named entity in the "
                f"world ({cov['task_rate']:.1%}); {cov['entities_found']}/{cov['entities']} entities found "
                f"({cov['entity_rate']:.1%}); {cov['agent_created']} names the tasks ask the agent to create "
                "are left out (overlay coverage_ignore)."
            )
            missing = [t for t in cov["by_task"] if t["missing"]]
            for task in missing[:misses]:
                lines.append(f"  {task['id']}: missing {', '.join(task['missing'])}")
            if len(missing) > misses:
                lines.append(f"  ... and {len(missing) - misses} more tasks with misses (--misses N to list)")
        return "\n".join(lines)


def _connect(path: Path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    return con


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
    """Each record ``event`` expects in an app's database; returns how many were compared."""
    checked = 0
    for app, entries in event.get("expect", {}).items():
        app = canonical(app)
        if app == "browser":
            continue
        table = EVENT_TABLES[app][0]
        con = dbs.setdefault(app, _connect(root / db_path(app)))
        rows = [dict(r) for r in con.execute(f"SELECT * FROM {table} WHERE provenance = ?", (event["id"],))]
        if app == "vaultbank":
            rows = [r for r in rows if r["description"] != "PAYMENT RECEIVED"]
        for want in entries:
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
    places = _connect(root / PROFILE / "places.sqlite")
    for event in events:
        checked += _check_records(root, event, dbs, report)
        checked += _check_searches(places, event, report)
    _check_named_apps(events, report)
    report.passed["events"] = f"{len(events)} events, {checked} cross-app records compared"


def check_dates(root: Path, manifest, report: Report):
    start, end = manifest["window"]
    checked = 0
    for app, (table, date_col, _, _) in EVENT_TABLES.items():
        con = _connect(root / db_path(app))
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
    con = _connect(root / db_path("vaultbank"))
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
    db = _connect(root / db_path("mail"))
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
    db = _connect(root / db_path("calendar"))
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
    con = _connect(profile / "places.sqlite")
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
    cookies = _connect(profile / "cookies.sqlite")
    if cookies.execute("PRAGMA user_version").fetchone()[0] != COOKIES_VERSION:
        report.fail("firefox", "cookies.sqlite has the wrong user_version")
    hosts = {r[0] for r in cookies.execute("SELECT host FROM moz_cookies")}
    for app in APPS:
        if f"{app}.localhost" not in hosts:
            report.fail("firefox", f"no session cookie for {APPS[app]}")
    form = _connect(profile / "formhistory.sqlite")
    if form.execute("PRAGMA user_version").fetchone()[0] != FORMHISTORY_VERSION:
        report.fail("firefox", "formhistory.sqlite has the wrong user_version")
    report.passed["firefox"] = f"places v{version}: {visits} visits, {marks} bookmarks; {len(hosts)} cookies"


# -- task coverage ---------------------------------------------------------------------------------------
# Capitalised words that name no entity: function words, UI verbs, app and office vocabulary.
GENERIC = set(
    """
agent the a an i if it in on for and or to of my me is this that then when what which who how do does did be
use using make find check book also any all each every no not please can could would should after before with
from at by as so but one two three libreoffice calc writer impress files file firefox terminal documents
desktop downloads pdf csv monday tuesday wednesday thursday friday saturday sunday january february march
april may june july august september october november december today tomorrow yesterday economy business total
report summary note notes email emails draft vm ui api id ids url eod usd faq ok yes new next last first
second dm dms q1 q2 q3 q4 am pm gui xlsx docx odt ods txt md json michael scott open pull send throw order
compose reorder continue save scope alternate states opens invitation document type spreadsheet suite meta
maildir png sku fyi ooo pto qbr pnl english percent change go-tos primebadge cancel reply forward archive
delete create add remove update review confirm list show tell give write read look search select click set
move copy schedule plan
mondays tuesdays wednesdays thursdays fridays saturdays sundays upcoming weekly monthly daily
""".split()
)
CONTRACTIONS = re.compile(r"^(i|you|we|they|he|she|it|that|there)'(m|ve|d|ll|re|s)$", re.I)
APP_WORDS = {w.lower() for name in APPS.values() for w in name.split()} | {"hooli"}
MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        1,
    )
}
WORD = r"[A-Z][A-Za-z0-9'&.\-]*[A-Za-z0-9]"
PHRASE = re.compile(rf"\b{WORD}(?:\s+(?:of|the|&|de|at)?\s*{WORD})*")
HYPHENATED = re.compile(r"\b[\w']+(?:-[\w']+)+\b")
CODE = re.compile(r"\b[A-Z]{2,4}-\d{3,6}\b|\b[A-Z]{2}\d{3,4}\b|\b[A-Z]{3}\b")
MONEY = re.compile(r"\$\s?(\d[\d,]*(?:\.\d{1,2})?)(\s?[kK])?")
ISO_DATE = re.compile(r"\b(20\d\d-\d\d-\d\d)\b")
MONTH_DAY = re.compile(r"\b(" + "|".join(m.title() for m in MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?\b")


def _norm(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").lower()


def extract_entities(text: str) -> dict:
    """Named entities of a task text: names/places/merchants, codes, amounts, dates."""
    text = text.replace("\u2019", "'")
    found: dict[str, set] = {"names": set(), "codes": set(), "amounts": set(), "dates": set()}
    for match in CODE.finditer(text):
        token = match.group(0)
        if token.lower() not in GENERIC and token.lower() not in APP_WORDS:
            found["codes"].add(token)
    for match in MONEY.finditer(text):
        value = float(match.group(1).replace(",", "")) * (1000 if match.group(2) else 1)
        found["amounts"].add(round(value, 2))
    for match in ISO_DATE.finditer(text):
        found["dates"].add(match.group(1))
    for match in MONTH_DAY.finditer(text):
        found["dates"].add(f"{MONTHS[match.group(1).lower()]:02d}-{int(match.group(2)):02d}")
    # Hyphenated compounds ("AVP-to-JFK", "Dundies-planning") are descriptions, not names: break there.
    prose = HYPHENATED.sub(lambda m: m.group(0) if CODE.fullmatch(m.group(0)) else " | ", text)
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n|\(|\)|\"|,|\|", prose):
        for match in PHRASE.finditer(sentence):
            words = [w for w in match.group(0).split() if not CONTRACTIONS.match(w)]
            # Drop a sentence-initial capital unless the phrase has more proper words after it.
            if match.start() == len(sentence) - len(sentence.lstrip()) and len(words) == 1:
                continue
            while words and (
                words[0].lower().removesuffix("'s") in GENERIC or words[0].lower().removesuffix("'s") in APP_WORDS
            ):
                words = words[1:]
            while words and (
                words[-1].lower() in GENERIC
                or words[-1].lower() in APP_WORDS
                or words[-1].lower() in ("of", "the", "and", "&", "at")
            ):
                words = words[:-1]
            phrase = " ".join(words).strip("'.")
            if len(phrase) < 3 or phrase.isupper() and len(phrase) <= 4:
                continue
            if all(w.lower() in GENERIC or w.lower() in APP_WORDS for w in words):
                continue
            found["names"].add(phrase.removesuffix("'s"))
    return found


def _app_values(root: Path, texts: list, numbers: set):
    """Every text and number in the apps' databases."""
    for app in APPS:
        con = _connect(root / db_path(app))
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            for row in con.execute(f"SELECT * FROM {table}"):
                for value in row:
                    if isinstance(value, str):
                        texts.append(value)
                    elif isinstance(value, (int, float)):
                        numbers.add(round(float(value), 2))


def _file_texts(root: Path) -> list[str]:
    """The text files under home/user and every file's name (mail and the Firefox profile are read elsewhere)."""
    texts = []
    for path in sorted((root / "home/user").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and "/Maildir/" not in rel and "/.mozilla/" not in rel:
            if path.suffix not in BINARY_DOCUMENTS:  # office files restate the app rows they come from
                texts.append(path.read_text(errors="replace"))
            texts.append(path.stem.replace("_", " "))  # "Motivational_Quotes_Collection.txt" names a document
    return texts


def _authoring_dates(dates: set, shift_days: int) -> set:
    """World dates moved back by the build's shift, as YYYY-MM-DD and MM-DD."""
    shift = dt.timedelta(days=shift_days)
    result = set()
    for value in dates:
        try:
            day = dt.date.fromisoformat(value) - shift
        except ValueError:
            continue
        result.add(day.isoformat())
        result.add(day.isoformat()[5:])
    return result


class World:
    """Text, numbers and dates of the built world, for coverage lookups."""

    def __init__(self, root: Path, shift_days: int):
        texts: list[str] = []
        numbers: set[float] = set()
        _app_values(root, texts, numbers)
        texts += _file_texts(root)
        places = _connect(root / PROFILE / "places.sqlite")
        for url, title in places.execute("SELECT url, title FROM moz_places"):
            texts.append(urllib.parse.unquote_plus(url))
            texts.append(title or "")
        # SUMMARY.md is left out on purpose: it restates the spec, and coverage is about the seeded apps and files.
        self.blob = _norm("\n".join(texts))
        for match in re.finditer(r"\$?(\d[\d,]*\.\d{2}|\d[\d,]*)", self.blob):
            try:
                numbers.add(round(float(match.group(1).replace(",", "")), 2))
            except ValueError:
                pass
        self.numbers = numbers
        # Tasks speak in the spec's authoring-time dates: move world dates back by the build's shift.
        self.dates = _authoring_dates({m.group(1) for m in ISO_DATE.finditer(self.blob)}, shift_days)

    def has_name(self, name):
        """The phrase, or two adjacent entities run together ("Greenwich Hotel NYC")."""
        if _norm(name) in self.blob:
            return True
        words = name.split()
        return any(
            _norm(" ".join(words[:i])) in self.blob and _norm(" ".join(words[i:])) in self.blob
            for i in range(1, len(words))
        )

    def has_code(self, code):
        return _norm(code) in self.blob

    def has_amount(self, value):
        return round(value, 2) in self.numbers

    def has_date(self, value):
        return value in self.dates


def coverage(root: Path, tasks_path: Path, shift_days: int) -> dict:
    tasks = json.loads(Path(tasks_path).read_text())
    world = World(root, shift_days)
    # Names a task asks the agent to create (a new watchlist, a new document title) are not world facts;
    # the overlay lists them per task, and they are reported apart from the misses.
    manifest = json.loads((root / "manifest.json").read_text())
    ignored: dict[str, set[str]] = {}
    for entry in manifest.get("coverage_ignore", []):
        for task_id in entry["tasks"]:
            ignored.setdefault(task_id, set()).add(entry["entity"])
    by_task, entities, found = [], 0, 0
    for task in tasks:
        text = (
            task.get("instruction", "")
            + "\n"
            + "\n".join(r.get("criterion", "") for r in task.get("grading", {}).get("rubrics", []))
        )
        ents = extract_entities(text)
        missing = []
        checks = [(n, world.has_name) for n in sorted(ents["names"])] + [
            (c, world.has_code) for c in sorted(ents["codes"])
        ]
        checks += [(a, world.has_amount) for a in sorted(ents["amounts"])] + [
            (d, world.has_date) for d in sorted(ents["dates"])
        ]
        label = lambda v: f"${v:,.2f}" if isinstance(v, float) else str(v)  # noqa: E731
        skipped = [label(v) for v, _ in checks if label(v) in ignored.get(task["id"], ())]
        checks = [(v, t) for v, t in checks if label(v) not in ignored.get(task["id"], ())]
        for value, test in checks:
            entities += 1
            if test(value):
                found += 1
            else:
                missing.append(label(value))
        by_task.append({"id": task["id"], "entities": len(checks), "missing": missing, "agent_created": skipped})
    full = sum(1 for t in by_task if not t["missing"])
    return {
        "tasks": len(by_task),
        "tasks_fully_covered": full,
        "task_rate": full / len(by_task) if by_task else 0.0,
        "entities": entities,
        "entities_found": found,
        "entity_rate": found / entities if entities else 0.0,
        "agent_created": sum(len(t["agent_created"]) for t in by_task),
        "by_task": by_task,
    }


def check(directory, tasks_path=None) -> Report:
    root = Path(directory)
    report = Report()
    if not (root / "manifest.json").exists():
        report.fail("manifest", f"{root} has no manifest.json: not a built world")
        return report
    manifest = check_manifest(root, report)
    for step in (check_events, check_balances, check_maildir, check_calendar, check_firefox, check_documents):
        try:
            step(root, report)
        except Exception as exc:  # a reader that cannot open the file is a failed check, not a crash
            report.fail(step.__name__.removeprefix("check_"), f"could not be read: {exc!r}")
    check_dates(root, manifest, report)
    if tasks_path:
        report.coverage = coverage(root, tasks_path, manifest.get("shift_days", 0))
        (root / "coverage.json").write_text(json.dumps(report.coverage, indent=1, sort_keys=True) + "\n")
        report.passed["coverage"] = f"{report.coverage['task_rate']:.1%} of tasks fully covered (see coverage.json)"
    return report
