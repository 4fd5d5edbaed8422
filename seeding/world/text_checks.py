"""Two checks on what a built world says in words: how varied its messages are, and whether the spec's
author remarks leaked into anything the user can read.

``text_variety(root, spec)`` measures, per app (mail, buzzchat, workbuzz), the share of distinct message
bodies after numbers, codes, dates, times, money, addresses and names are normalised away, against the
goals (person-to-person mail >= 90%, all mail >= 60%, chat and work messages >= 80% each; the ten most
repeated bodies <= 5% of their app; every contact the spec names writes to the persona at least once).

``leaks(root, spec)`` derives the author's phrases from the spec (remarks in parentheses, ``notes`` /
``backstory`` / ``*_note`` fields, the contacts' ``message_personality`` descriptions) and scans every
user-visible text field for them verbatim: every TEXT column of every app database and of the browser
profile (``provenance`` columns are ours, not the user's), every Maildir message, the .ics and every
document (office files read from their XML). Each hit names the file, table, column and row (or line).
"""

import collections
import re
import sqlite3
import zipfile
from pathlib import Path

from .persona import VERBATIM_KEYS, Persona, author_phrases, spec_strings

APPS = ("mail", "buzzchat", "workbuzz")
GOALS = {
    "person_mail_distinct": 0.90,
    "all_mail_distinct": 0.60,
    "chat_distinct": 0.80,
    "top10_share_max": 0.05,
}
SIGNATURE = re.compile(r"\n--\n.*\Z", re.S)
QUOTED = re.compile(r"^(>.*|On .+ wrote:)$", re.M)
TOKEN_RULES = [
    (re.compile(r"\b\d{1,2}:\d{2}(\s?[ap]\.?m\.?)?", re.I), "<time>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    (
        re.compile(
            r"\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
            re.I,
        ),
        "<date>",
    ),
    (re.compile(r"\$\s?\d[\d,]*(\.\d+)?"), "<money>"),
    (re.compile(r"\b[A-Z0-9]*\d[A-Z0-9]*(-[A-Z0-9]+)+\b"), "<code>"),
    (re.compile(r"\b[A-Z]{2,}\d+[A-Z0-9]*\b"), "<code>"),
    (re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+"), "<email>"),
    (re.compile(r"\d[\d,.]*"), "<n>"),
]


def _names(spec: dict) -> list[str]:
    """Every person's name and first name the spec knows, longest first (so full names go before first names)."""
    names = {spec.get("identity", {}).get("name", "")}
    for contact in spec.get("contacts") or []:
        names.add(contact.get("name", ""))
    for project in (spec.get("work") or {}).get("projects") or []:
        names.update(project.get("collaborators") or [])
    for name in list(names):
        names.update(name.split())
    return sorted((n for n in names if len(n) > 2), key=len, reverse=True)


def normaliser(spec: dict):
    """A function that reduces a body to its shape: names, numbers, codes, dates and times replaced."""
    names = _names(spec)
    name_rule = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b", re.I) if names else None

    def normalise(body: str) -> str:
        text = SIGNATURE.sub("", body or "")
        text = QUOTED.sub("", text)
        if name_rule:
            text = name_rule.sub("<name>", text)
        for rule, token in TOKEN_RULES:
            text = rule.sub(token, text)
        return re.sub(r"\s+", " ", text).strip().lower()

    return normalise


def _figures(bodies: list[str], normalise) -> dict:
    shapes = [normalise(b) for b in bodies]
    counts = collections.Counter(shapes)
    total = len(shapes)
    top = counts.most_common(10)
    return {
        "messages": total,
        "distinct": len(counts),
        "distinct_share": round(len(counts) / total, 4) if total else 1.0,
        "top10_share": round(sum(n for _, n in top) / total, 4) if total else 0.0,
        "top_repeated": [{"body": shape[:120], "count": n} for shape, n in top if n > 1],
    }


def _rows(path: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def text_variety(root, spec: dict) -> dict:
    """Per-app variety figures with pass/fail against each goal, and which named contacts wrote nothing."""
    root = Path(root)
    normalise = normaliser(spec)
    ident = spec.get("identity", {})
    me_addr = (ident.get("email") or "").lower()
    contacts = {(c.get("email") or "").lower(): c["name"] for c in spec.get("contacts") or [] if c.get("email")}
    result: dict = {"apps": {}, "goals": dict(GOALS)}
    mail_db = root / "apps/mail.sqlite"
    if mail_db.exists():
        rows = _rows(mail_db, "SELECT from_addr, to_addr, body FROM messages ORDER BY id")
        person = [body for sender, to, body in rows if sender.lower() in contacts or (sender.lower() == me_addr and to)]
        figures = _figures([r[2] for r in rows], normalise)
        person_figures = _figures(person, normalise)
        figures["person_to_person"] = person_figures
        writers = {sender.lower() for sender, _, _ in rows}
        figures["silent_contacts"] = sorted(name for addr, name in contacts.items() if addr not in writers)
        figures["passes"] = {
            "person_mail_distinct": person_figures["distinct_share"] >= GOALS["person_mail_distinct"],
            "all_mail_distinct": figures["distinct_share"] >= GOALS["all_mail_distinct"],
            "top10_share": figures["top10_share"] <= GOALS["top10_share_max"],
            "every_contact_writes": not figures["silent_contacts"],
        }
        result["apps"]["mail"] = figures
    for app in ("buzzchat", "workbuzz"):
        path = root / f"apps/{app}.sqlite"
        if not path.exists():
            continue
        bodies = [r[0] for r in _rows(path, "SELECT body FROM messages ORDER BY id")]
        figures = _figures(bodies, normalise)
        figures["passes"] = {
            "chat_distinct": figures["distinct_share"] >= GOALS["chat_distinct"],
            "top10_share": figures["top10_share"] <= GOALS["top10_share_max"],
        }
        result["apps"][app] = figures
    result["ok"] = all(all(f["passes"].values()) for f in result["apps"].values())
    return result


# -- leaks ----------------------------------------------------------------------------------------------


def _document_text(path: Path) -> str:
    if path.suffix in {".docx", ".xlsx", ".odt", ".ods"}:
        try:
            with zipfile.ZipFile(path) as archive:
                parts = [archive.read(n).decode("utf-8", "replace") for n in archive.namelist() if n.endswith(".xml")]
        except zipfile.BadZipFile:
            return ""
        return re.sub(r"<[^>]+>", " ", " ".join(parts))
    if path.suffix == ".pdf":
        return path.read_bytes().decode("latin-1")
    return path.read_text(encoding="utf-8", errors="replace")


def leaks(root, spec) -> list[dict]:
    """Every place a spec author remark appears verbatim in user-visible text: file, where, and the phrase.

    ``spec`` is the persona spec as read (a dict) or a loaded ``Persona``, whose ``remarks`` were taken
    before the reading layer removed them from names and purposes."""
    root = Path(root)
    phrases = spec.remarks if isinstance(spec, Persona) else author_phrases(spec)
    if not phrases:
        return []
    lowered = [(p, p.lower()) for p in phrases]
    # What the spec gives word for word as someone's own writing (a document's content, a message's body):
    # a line of it reproduced is that person's text, not the author's note, even where the two share words.
    own_words = [text.lower() for key, text in spec_strings(spec.spec if isinstance(spec, Persona) else spec)
                 if key in VERBATIM_KEYS]  # fmt: skip
    hits: list[dict] = []

    def scan(text: str, where: dict):
        low = text.lower()
        for phrase, needle in lowered:
            if needle in low and not any(low.strip() in own for own in own_words):
                hits.append({**where, "phrase": phrase})

    for db in sorted(root.rglob("*.sqlite")):
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for table in tables:
                info = list(con.execute(f'PRAGMA table_info("{table}")'))
                key = next((r[1] for r in info if r[5]), "rowid")  # the primary key names the row
                for column in (r[1] for r in info if r[1] != "provenance"):
                    sql = f'SELECT "{key}", "{column}" FROM "{table}" WHERE typeof("{column}") = \'text\''
                    for row, value in con.execute(sql):
                        scan(value, {"file": str(db.relative_to(root)), "table": table, "column": column, "row": row})
        finally:
            con.close()
    home = root / "home/user"
    for path in sorted(home.rglob("*")) if home.exists() else []:
        if not path.is_file() or path.suffix == ".sqlite" or ".mozilla" in path.parts:
            continue
        relative = str(path.relative_to(root))
        text = _document_text(path)
        for number, line in enumerate(text.splitlines(), 1):
            if "X-MyPCBench-Provenance" in line or "X-MYPCBENCH-PROVENANCE" in line:
                continue
            scan(line, {"file": relative, "line": number})
    return hits
