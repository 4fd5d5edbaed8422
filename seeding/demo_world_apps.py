"""The demo apps filled from a seeded world: HooliMail, HooliCalendar, Gringotts and HooliChat as the
desktop guest shows them, with the persona's records from a build of `python -m seeding build` (its
app databases) instead of the hand-written samples of seeding/demo_apps/. The hand-written pages are
the templates: the same markup and scripts, their data blocks replaced by the world's records around
the build's anchor day. Deterministic: the same build gives byte-identical pages.

Each world variant K also gets its own interface (``interface_of``): a theme and a layout drawn from K,
so the same click coordinates mean different things: the order of the panels and of the table's
columns, the transactions' sort order and page size, where the search box, the buttons and the app
links sit, the labels' wording among synonyms, the text size and the calendar's hour height. Variant 0
renders exactly the hand-written layout. The pages keep their element ids and the records' own words,
so an agent that reads the page finds the same things in every variant.

    python -m seeding demo-apps WORLD_DIR OUT_DIR [--days 70] [--interface K]
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "demo_apps"
PAGES = ("index.html", "hoolimail.html", "hoolicalendar.html", "gringotts.html", "hoolichat.html")
DEFAULT_DAYS = 70  # how far back from the anchor the mail, card and chat pages reach
WEEKS_BEFORE = 10  # how far back the calendar reaches (its week view pages back to then)
WEEKDAYS = {"SU": 0, "MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6}
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class DemoAppsError(ValueError):
    """The folder is not a world build the pages can be made from; says what is missing."""


def _db(world: Path, app: str) -> sqlite3.Connection:
    path = world / "apps" / f"{app}.sqlite"
    if not path.is_file():
        raise DemoAppsError(f"{path} is missing (expected a world built by `python -m seeding build`)")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def anchor_of(world: Path) -> dt.date:
    try:
        return dt.date.fromisoformat(json.loads((world / "manifest.json").read_text(encoding="utf-8"))["anchor"])
    except (OSError, ValueError, KeyError) as exc:
        raise DemoAppsError(f"{world / 'manifest.json'}: no anchor day ({exc})") from exc


def _day(text: str) -> dt.date:
    return dt.date.fromisoformat(text[:10])


def mails(world: Path, anchor: dt.date, days: int = DEFAULT_DAYS) -> list[dict]:
    """Inbox messages of the ``days`` before the anchor (the anchor included), newest first."""
    since, until = (anchor - dt.timedelta(days=days)).isoformat(), (anchor + dt.timedelta(days=1)).isoformat()
    with _db(world, "mail") as conn:
        rows = conn.execute(
            "SELECT id, from_name, from_addr, subject, sent_at, body, is_read FROM messages "
            "WHERE folder = 'INBOX' AND sent_at >= ? AND sent_at < ? ORDER BY sent_at DESC, id DESC",
            (since, until),
        ).fetchall()
    out = []
    for r in rows:
        day = _day(r["sent_at"])
        out.append(
            {
                "id": f"m{r['id']}",
                "from": r["from_name"] or r["from_addr"],
                "addr": r["from_addr"],
                "date": f"{MONTHS[day.month - 1]} {day.day}",
                "year": day.year,
                "unread": not r["is_read"],
                "subject": r["subject"],
                "body": r["body"].strip(),
            }
        )
    return out


def _weekly_days(rrule: str) -> list[int] | None:
    parts = dict(p.split("=", 1) for p in (rrule or "").split(";") if "=" in p)
    if parts.get("FREQ") != "WEEKLY":
        return None
    days = [WEEKDAYS[d[-2:]] for d in parts.get("BYDAY", "").split(",") if d[-2:] in WEEKDAYS]
    return sorted(days) or None


def events(world: Path, anchor: dt.date, weeks_before: int = WEEKS_BEFORE, weeks_after: int = 6) -> list[dict]:
    """Calendar events around the anchor as the week view reads them: one-off events in the window,
    weekly series that run into it (with their weekdays), yearly ones on their day this year; all-day
    events sit at the top of their day."""
    start = anchor - dt.timedelta(weeks=weeks_before)
    end = anchor + dt.timedelta(weeks=weeks_after)
    with _db(world, "calendar") as conn:
        rows = conn.execute(
            "SELECT e.summary, e.description, e.location, e.start_at, e.end_at, e.all_day, e.rrule, c.name AS cal "
            "FROM events e JOIN calendars c ON c.id = e.calendar_id ORDER BY e.start_at, e.id"
        ).fetchall()
    out = []
    for r in rows:
        first = _day(r["start_at"])
        weekly = _weekly_days(r["rrule"])
        if weekly is None and (r["rrule"] or "").startswith("FREQ=YEARLY"):
            try:
                first = first.replace(year=anchor.year)
            except ValueError:  # 29 February
                continue
        if weekly is None and not (start <= first <= end):
            continue
        if weekly is not None and first > end:
            continue
        s, e = ("08:00", "08:30") if r["all_day"] else (r["start_at"][11:16], r["end_at"][11:16])
        if e <= s:  # past midnight: cut at the end of the day shown
            e = "23:59"
        event = {"t": r["summary"] + (" (all day)" if r["all_day"] else ""), "d": first.isoformat(), "s": s, "e": e}
        if weekly is not None:
            event["weekly"] = weekly
        event["k"] = "work" if "work" in (r["cal"] or "").lower() else "personal"
        if r["location"]:
            event["loc"] = r["location"]
        if r["description"]:
            event["desc"] = r["description"]
        out.append(event)
    return out


def card(world: Path, anchor: dt.date, days: int = DEFAULT_DAYS) -> tuple[list[dict], list[list]]:
    """(the accounts as cards, the credit card's transactions of the ``days`` before the anchor, newest
    first, as [date, description, category, amount] with charges positive)."""
    since, until = (anchor - dt.timedelta(days=days)).isoformat(), (anchor + dt.timedelta(days=1)).isoformat()
    with _db(world, "vaultbank") as conn:
        accounts = [dict(r) for r in conn.execute("SELECT * FROM accounts ORDER BY id").fetchall()]
        credit = next((a for a in accounts if a["kind"] == "credit_card"), None)
        if credit is None:
            raise DemoAppsError("the Gringotts database has no credit card account")
        rows = conn.execute(
            "SELECT posted_date, description, category, amount FROM transactions "
            "WHERE account_id = ? AND posted_date >= ? AND posted_date < ? ORDER BY posted_date DESC, id DESC",
            (credit["id"], since, until),
        ).fetchall()
    tx = [[r["posted_date"][:10], r["description"], r["category"] or "Other", round(-r["amount"], 2)] for r in rows]
    return accounts, tx


def chats(world: Path, anchor: dt.date, days: int = DEFAULT_DAYS) -> list[dict]:
    """HooliChat conversations with messages in the ``days`` before the anchor, the most recent
    first, each with its messages in order."""
    since, until = (anchor - dt.timedelta(days=days)).isoformat(), (anchor + dt.timedelta(days=1)).isoformat()
    with _db(world, "buzzchat") as conn:
        rows = conn.execute(
            "SELECT m.channel_id, c.name AS channel, c.kind, u.name AS sender, m.sent_at, m.body FROM messages m "
            "JOIN channels c ON c.id = m.channel_id JOIN users u ON u.id = m.sender_id "
            "WHERE m.sent_at >= ? AND m.sent_at < ? ORDER BY m.sent_at, m.id",
            (since, until),
        ).fetchall()
    channels: dict[int, dict] = {}
    for r in rows:
        channel = channels.setdefault(r["channel_id"], {"id": f"c{r['channel_id']}", "name": r["channel"],
                                                        "kind": r["kind"], "messages": []})  # fmt: skip
        day = _day(r["sent_at"])
        channel["messages"].append(
            {
                "from": r["sender"],
                "when": f"{MONTHS[day.month - 1]} {day.day}, {r['sent_at'][11:16]}",
                "text": r["body"],
            }
        )
    latest = {key: max(r["sent_at"] for r in rows if r["channel_id"] == key) for key in channels}
    return [channels[key] for key in sorted(channels, key=lambda key: (latest[key], key), reverse=True)]


def _js(value) -> str:
    """JSON for an inline script: `</` cannot close the script element."""
    return json.dumps(value, ensure_ascii=False, indent=1).replace("</", "<\\/")


def _replace(page: str, pattern: str, new: str, name: str) -> str:
    result, count = re.subn(pattern, lambda _m: new, page, count=1, flags=re.S)
    if count != 1:
        raise DemoAppsError(f"the template {name} has no block matching {pattern!r}")
    return result


def _money(amount: float) -> str:
    return f"${abs(amount):,.2f}"


# ------------------------------------------------------------------ interface variants

APPS = ("HooliMail", "HooliCalendar", "Gringotts", "HooliChat")
# Theme colours of each app's top bar: the hand-written one first (variant 0), then alternatives.
THEMES = {
    "hoolimail.html": ("#c5362b", "#a23b72", "#b8401f", "#8f2d56"),
    "hoolicalendar.html": ("#1a73e8", "#3949ab", "#00796b", "#5e35b1"),
    "gringotts.html": ("#6b4f1d", "#2e5e4e", "#4a3f6b", "#7a3b2e"),
    "hoolichat.html": ("#2b6cb0", "#00838f", "#6a1b9a", "#2e7d32"),
}
# Words a page shows, each with the synonyms a variant may use instead (the first is variant 0's).
LABELS = {
    "gringotts.html": {
        "&lsaquo; Newer": ("&lsaquo; Newer", "&lsaquo; Previous page", "&lsaquo; Back", "&lsaquo; More recent"),
        "Older &rsaquo;": ("Older &rsaquo;", "Next page &rsaquo;", "More &rsaquo;", "Earlier &rsaquo;"),
        '"Search transactions"': ('"Search transactions"', '"Find a transaction"', '"Filter by merchant or category"'),
        "Credit card transactions": ("Credit card transactions", "Card activity", "Recent card purchases"),
    },
    "hoolimail.html": {
        '"Search mail"': ('"Search mail"', '"Search messages"', '"Find in mail"', '"Search your inbox"'),
        "Select a message to read it.": (
            "Select a message to read it.",
            "Pick a message to open it.",
            "Nothing open. Choose a message on the list.",
        ),
    },
    "hoolicalendar.html": {
        '"today">Today<': ('"today">Today<', '"today">This week<', '"today">Back to today<'),
        "&lsaquo; Prev": ("&lsaquo; Prev", "&lsaquo; Earlier", "&lsaquo; Last week", "&lsaquo; Previous"),
        "Next &rsaquo;": ("Next &rsaquo;", "Later &rsaquo;", "Next week &rsaquo;", "Forward &rsaquo;"),
    },
    "hoolichat.html": {
        '"Search messages"': ('"Search messages"', '"Search chats"', '"Find in conversations"'),
        "Select a conversation to read it.": ("Select a conversation to read it.", "Pick a chat to open it."),
    },
}
COLUMNS = ("Date", "Description", "Category", "Amount")
NOTICES = {
    "hoolimail.html": "You have unread messages in Dundies and Improv Class.",
    "hoolicalendar.html": "Tip: click an event to see its details.",
    "gringotts.html": "Paperless statements are on. Your latest statement is under Statements.",
    "hoolichat.html": "Notifications are paused until 9:00am.",
}
CALENDAR_HOURS = ((8, 40), (8, 36), (8, 34), (7, 34), (7, 32))  # (first hour shown, pixels per hour)


@dataclass(frozen=True)
class Interface:
    """How a world variant's demo apps look and are laid out. ``Interface(0)`` is the hand-written layout."""

    variant: int = 0
    font_px: int = 14
    themes: dict = field(default_factory=lambda: {page: colours[0] for page, colours in THEMES.items()})
    labels: dict = field(default_factory=dict)  # page -> {variant 0's words: this variant's}
    sidebar_right: bool = False
    mail_panels: tuple = ("sidebar", "list", "reader")
    chat_list_right: bool = False
    chat_by_name: bool = False  # conversations listed by name instead of by their latest message
    search_after_name: bool = False  # the top bar's search box after the account name
    search_px: int = 420
    switcher: tuple = APPS
    switcher_left: bool = False
    oldest_first: bool = False  # card transactions
    page_size: int = 10
    columns: tuple = COLUMNS
    cards_below: bool = False
    pager_above: bool = False
    calendar_buttons: tuple = ("today", "prev", "next")
    first_hour: int = 8
    hour_px: int = 40
    topbar_px: int = 56  # the top bar's height: every panel below moves with it
    sidebar_px: int = 200  # the sidebar's width: the content beside it moves with it
    topbar_gap: int = 16
    bar_search_first: bool = False  # Gringotts' search box before the heading
    notice_px: int = 0  # a notice strip under the top bar (0: none), which moves every panel down


def interface_of(variant: int) -> Interface:
    """Variant ``variant``'s interface, drawn deterministically from the variant alone (0: the hand-written one)."""
    if variant == 0:
        return Interface()
    seed = int.from_bytes(hashlib.sha256(f"demo-apps interface {variant}".encode()).digest()[:8], "big")
    rng = random.Random(seed)
    first_hour, hour_px = rng.choice(CALENDAR_HOURS[1:])
    columns = list(COLUMNS)
    while tuple(columns) == COLUMNS:
        rng.shuffle(columns)
    switcher = list(APPS)
    while tuple(switcher) == APPS:
        rng.shuffle(switcher)
    panels = [("sidebar", "list", "reader"), ("sidebar", "reader", "list"), ("list", "reader", "sidebar"),
              ("reader", "list", "sidebar")]  # fmt: skip
    return Interface(
        variant=variant,
        font_px=rng.choice((13, 15, 16)),
        themes={page: rng.choice(colours[1:]) for page, colours in THEMES.items()},
        labels={page: {old: rng.choice(words[1:]) for old, words in pool.items()} for page, pool in LABELS.items()},
        sidebar_right=rng.random() < 0.5,
        mail_panels=rng.choice(panels[1:]),
        chat_list_right=rng.random() < 0.5,
        chat_by_name=rng.random() < 0.5,
        search_after_name=rng.random() < 0.5,
        search_px=rng.choice((300, 360, 480)),
        switcher=tuple(switcher),
        switcher_left=rng.random() < 0.5,
        oldest_first=rng.random() < 0.5,
        page_size=rng.choice((6, 8, 12, 15)),
        columns=tuple(columns),
        cards_below=rng.random() < 0.5,
        pager_above=rng.random() < 0.5,
        calendar_buttons=rng.choice((("prev", "today", "next"), ("prev", "next", "today"), ("today", "next", "prev"))),
        first_hour=first_hour,
        hour_px=hour_px,
        topbar_px=rng.choice((64, 72, 80)),
        notice_px=rng.choice((36, 44, 52)),
        sidebar_px=rng.choice((150, 170, 240, 270)),
        topbar_gap=rng.choice((6, 32, 48)),
        bar_search_first=rng.random() < 0.5,
    )


def _layout_css(face: Interface, name: str) -> str:
    """The style a variant adds after a page's own: theme, text size and the order of its panels."""
    rules = [f"body {{ font-size: {face.font_px}px; }}", f".topbar {{ background: {face.themes.get(name, '')}; }}"]
    if face.switcher_left:
        rules.append(".demo-apps { right: auto; left: 16px; }")
    if face.search_after_name:
        rules.append(".topbar input { order: 3; } .topbar .who { margin-left: auto; }")
    rules.append(f".topbar {{ height: {face.topbar_px}px; gap: {face.topbar_gap}px; }}")
    notice = "padding: 0 20px; background: #eef3fb; color: #30455f; border-bottom: 1px solid #d5dfee; font-size: 13px;"
    rules.append(f".notice {{ height: {face.notice_px}px; line-height: {face.notice_px}px; {notice} }}")
    rules.append(f".topbar input {{ width: {face.search_px}px; }} .sidebar {{ width: {face.sidebar_px}px; }}")
    if face.sidebar_right:
        rules.append(".sidebar { order: 9; border-right: 0; border-left: 1px solid #e2e4e8; }")
    if name == "hoolimail.html":
        rules.append(" ".join(f".main > .{panel} {{ order: {i}; }}" for i, panel in enumerate(face.mail_panels)))
    if name == "hoolichat.html" and face.chat_list_right:
        rules.append(".list { order: 2; border-left: 1px solid #e2e4e8; }")
    if name == "gringotts.html":
        rules.append(".content { display: flex; flex-direction: column; }")
        rules.append(f".cards {{ order: {3 if face.cards_below else 0}; }} .bar {{ order: 1; }} table {{ order: 2; }}")
        rules.append(f".pager {{ order: {1 if face.pager_above else 2}; }}")
        if face.bar_search_first:
            rules.append(".bar input { order: -1; margin-left: 0; } .bar h2 { margin-left: auto; }")
    if name == "hoolicalendar.html":
        rules.append(" ".join(f"#{button} {{ order: {i}; }}" for i, button in enumerate(face.calendar_buttons)))
        rules.append(".toolbar h2 { order: 5; }")
        line = face.hour_px - 1
        rules.append(f".hour {{ height: {face.hour_px}px; }} .day {{ background: "
                     f"repeating-linear-gradient(#fff 0 {line}px, #eceef1 {line}px {face.hour_px}px); }}")  # fmt: skip
    return "<style>/* interface of world variant " + str(face.variant) + " */\n  " + "\n  ".join(rules) + "\n</style>\n"


_ROW_CELLS = {
    "Date": "<td></td>",
    "Description": "<td></td>",
    "Category": '<td><span class=\\"tag\\"></span></td>',
    "Amount": '<td class=\\"num\\"></td>',
}


def _card_columns(page: str, face: Interface) -> str:
    """Gringotts' table with its columns in the variant's order (header and the rows the script draws)."""
    heads = {"Date": "<th>Date</th>", "Description": "<th>Description</th>", "Category": "<th>Category</th>",
             "Amount": '<th class="num">Amount</th>'}  # fmt: skip
    head = "<thead><tr>" + "".join(heads[c] for c in face.columns) + "</tr></thead>"
    page = _replace(page, r"<thead><tr>.*?</tr></thead>", head, "gringotts.html")
    at = {column: i for i, column in enumerate(face.columns)}
    cells = (
        f'    tr.innerHTML = "{"".join(_ROW_CELLS[c] for c in face.columns)}";\n'
        f'    tr.children[{at["Date"]}].textContent = MONTHS[m - 1] + " " + d + ", " + y;\n'
        f"    tr.children[{at['Description']}].textContent = desc;\n"
        '    tr.querySelector(".tag").textContent = cat;\n'
        f'    tr.children[{at["Amount"]}].textContent = (amount < 0 ? "+" : "\\u2212") + money(Math.abs(amount));\n'
    )
    return _replace(page, r"    tr\.innerHTML = .*?\n(?=    body\.appendChild\(tr\);)", cells, "gringotts.html")


def _switcher(face: Interface) -> str:
    links = {app: f'<a href="{app.lower()}.html">{app}</a>' for app in APPS}
    return '<nav class="demo-apps">Demo apps: ' + " ".join(links[app] for app in face.switcher) + "</nav>"


def dress(name: str, text: str, face: Interface) -> str:
    """A rendered page in the variant's interface (variant 0: unchanged)."""
    if face.variant == 0:
        return text
    text = re.sub(r'<nav class="demo-apps">.*?</nav>', lambda _m: _switcher(face), text, count=1)
    for old, new in face.labels.get(name, {}).items():
        text = text.replace(old, new)
    if name == "gringotts.html":
        text = _replace(text, r"const PAGE_SIZE = \d+;", f"const PAGE_SIZE = {face.page_size};", name)
        text = _card_columns(text, face)
    if name == "hoolicalendar.html":
        hours = f"const FIRST_HOUR = {face.first_hour}, LAST_HOUR = 22, HOUR_PX = {face.hour_px};"
        text = _replace(text, r"const FIRST_HOUR = \d+, LAST_HOUR = 22, HOUR_PX = \d+;", hours, name)
    if name in NOTICES:
        notice = f'<div class="notice" role="status">{NOTICES[name]}</div>\n<div class="main">'
        text = text.replace('<div class="main">', notice, 1)
    return text.replace("</head>", _layout_css(face, name) + "</head>", 1)


def world_variant(world: Path) -> int:
    """The world variant a build says it is (its manifest's ``variant``; none means the canonical world, 0)."""
    try:
        return int(json.loads((Path(world) / "manifest.json").read_text(encoding="utf-8")).get("variant") or 0)
    except (OSError, ValueError) as exc:
        raise DemoAppsError(f"{Path(world) / 'manifest.json'}: unreadable ({exc})") from exc


def render(world: Path, out: Path, days: int = DEFAULT_DAYS, interface: int | None = None) -> dict[str, int]:
    """Write the demo apps filled from ``world`` into ``out`` (created; earlier pages replaced), in the
    interface of variant ``interface`` (default: the world's own variant); returns how many records each
    page holds."""
    world, out = Path(world), Path(out)
    anchor = anchor_of(world)
    face = interface_of(world_variant(world) if interface is None else interface)
    mail_rows = mails(world, anchor, days)
    event_rows = events(world, anchor)
    accounts, tx = card(world, anchor, days)
    chat_rows = chats(world, anchor, days)
    if face.oldest_first:
        tx = tx[::-1]
    if face.chat_by_name:
        chat_rows = sorted(chat_rows, key=lambda c: (c["name"].lower(), c["id"]))
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(TEMPLATES / "demo.css", out / "demo.css")
    pages = {name: (TEMPLATES / name).read_text(encoding="utf-8") for name in PAGES}
    stamp = f"filled from the seeded world of {anchor.isoformat()}"
    pages["hoolimail.html"] = _replace(pages["hoolimail.html"], r"const MAILS = \[\n.*?\n\];",
                                       f"const MAILS = {_js(mail_rows)};", "hoolimail.html")  # fmt: skip
    js_date = f"new Date({anchor.year}, {anchor.month - 1}, {anchor.day})"
    week_start = anchor - dt.timedelta(days=anchor.weekday() + 1 if anchor.weekday() != 6 else 0)
    cal = pages["hoolicalendar.html"]
    cal = _replace(cal, r"const TODAY = new Date\([^)]*\);", f"const TODAY = {js_date};", "hoolicalendar.html")
    cal = _replace(cal, r"let weekStart = new Date\([^)]*\);",
                   f"let weekStart = new Date({week_start.year}, {week_start.month - 1}, {week_start.day});",
                   "hoolicalendar.html")  # fmt: skip
    cal = _replace(cal, r"const EVENTS = \[\n.*?\n\];", f"const EVENTS = {_js(event_rows)};", "hoolicalendar.html")
    pages["hoolicalendar.html"] = cal
    cards = []
    for account in accounts:
        label = {"checking": "Checking", "savings": "Savings", "credit_card": "Credit card"}.get(account["kind"], "")
        label = f"{label or account['name']} &middot; {account['number_last4']}"
        if account["kind"] == "credit_card":
            limit = f" &middot; limit {_money(account['credit_limit'])}" if account["credit_limit"] else ""
            cards.append(f'      <div class="card active"><div class="label">{label}{limit}</div>\n'
                         f'        <div class="amount">{_money(account["balance"])} used</div></div>')  # fmt: skip
        else:
            cards.append(f'      <div class="card"><div class="label">{label}</div>'
                         f'<div class="amount">{_money(account["balance"])}</div></div>')  # fmt: skip
    bank = pages["gringotts.html"]
    bank = _replace(bank, r'<div class="cards">\n.*?\n    </div>\n    <div class="bar">',
                    '<div class="cards">\n' + "\n".join(cards) + '\n    </div>\n    <div class="bar">',
                    "gringotts.html")  # fmt: skip
    bank = _replace(bank, r"const TX = \[\n.*?\n\];", f"const TX = {_js(tx)};", "gringotts.html")
    pages["gringotts.html"] = bank
    pages["hoolichat.html"] = _replace(pages["hoolichat.html"], r"const CHANNELS = \[\n.*?\n\];",
                                       f"const CHANNELS = {_js(chat_rows)};", "hoolichat.html")  # fmt: skip
    for name, text in pages.items():
        # the recorded demo runs click the hand-written pages' three-app switcher: HooliChat joins it here
        switcher = '<a href="gringotts.html">Gringotts</a>'
        text = text.replace(f"{switcher}</nav>", f'{switcher} <a href="hoolichat.html">HooliChat</a></nav>')
        text = text.replace("<footer class=\"demo-footer\">MyPCBench demo page.",
                            f"<footer class=\"demo-footer\">MyPCBench demo page, {stamp}.")  # fmt: skip
        (out / name).write_text(dress(name, text, face), encoding="utf-8")
    return {"mails": len(mail_rows), "events": len(event_rows), "transactions": len(tx), "chats": len(chat_rows)}
