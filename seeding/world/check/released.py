"""The released world's facts: each variable of the released image's ``variables.json`` looked up in a build.

The keys (``seeding/answer_keys/released/variables.json``) give, per variable, a read-only query (or a file) and
a comparison rule, or why the variable does not apply. Each variable comes out **matched**, **differs** (the
build should reproduce it and does not), **kept different** (on purpose, with the key's reason: a Figure 1
count kept, or the spec's own value), or **not applicable** (a note, a runtime value, what the file calls a
seeding bug, where the released image departs from the spec the world is built from, or a fact the spec does
not fix, such as the last generated routine order). The figure is matched / (matched + differs): what is kept
different on purpose is listed with its reason and left out of the figure.
"""

import datetime as dt
import json
import re
import sqlite3
from pathlib import Path

from ..apps import APPS, db_path
from ..core import read_only
from ..seeders.firefox import PROFILE

SEEDING = Path(__file__).resolve().parents[2]
VARIABLES = SEEDING.parent / "upstream" / "mypcbench" / "variables.json"
VARIABLE_KEYS = SEEDING / "answer_keys" / "released" / "variables.json"
RULES = {"equal", "money", "date", "clock", "text", "set", "records", "record", "none", "file", "file_contains"}
RELATIVE = re.compile(r"^\$\{TODAY([+-]\d+)?\}$")
CENT = 0.011
KEPT = "kept different"


class VariableKeyError(ValueError):
    """A variable key that cannot be used; the message names the variable and the field."""


def load_variable_keys(path: Path = VARIABLE_KEYS) -> list[dict]:
    entries = json.loads(Path(path).read_text(encoding="utf-8"))["entries"]
    for entry in entries:
        name = entry.get("var", "?")
        if "not_applicable" in entry:
            continue
        if entry.get("rule") not in RULES:
            raise VariableKeyError(f"{name}: rule {entry.get('rule')!r} is not one of {sorted(RULES)}")
        if entry["rule"] not in ("file", "file_contains") and (entry.get("app") not in {*APPS, "firefox"}):
            raise VariableKeyError(f"{name}: app {entry.get('app')!r} is not a world app")
    return entries


def _expected_date(value: str, anchor: dt.date) -> str:
    match = RELATIVE.match(value)
    if not match:
        return value[:10]
    return (anchor + dt.timedelta(days=int(match.group(1) or 0))).isoformat()


def _clock(value: str) -> str:
    """'6:00am' or '2026-05-16 06:00:00' as 'HH:MM' (24 h)."""
    text = str(value).strip().lower()
    match = re.search(r"(\d{1,2}):(\d{2})\s*(am|pm)?", text)
    if not match:
        return text
    hour, minute, half = int(match.group(1)), match.group(2), match.group(3)
    if half == "pm" and hour != 12:
        hour += 12
    if half == "am" and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute}"


def _norm(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _same(rule: str, want, got, anchor: dt.date) -> bool:
    if rule == "money":
        try:
            return abs(float(want) - float(got)) < CENT
        except (TypeError, ValueError):
            return False
    if rule == "date":
        return got is not None and str(got)[:10] == _expected_date(str(want), anchor)
    if rule == "clock":
        return got is not None and _clock(got) == _clock(want)
    if rule == "text":
        a, b = str(want).strip().lower(), str(got or "").strip().lower()
        return bool(b) and (a in b or b in a)
    if isinstance(want, str) and isinstance(got, str) and RELATIVE.match(want):
        return got[:10] == _expected_date(want, anchor)
    return _norm(want) == _norm(got)


def _rule_for(key: str, want) -> str:
    return "date" if key == "date" else "money" if isinstance(want, float) else "equal"


def _records_match(want: list, rows: list[dict], anchor: dt.date) -> bool:
    if len(want) != len(rows):
        return False
    left = list(rows)
    for item in want:
        keys = [k for k in item if rows and k in rows[0]]
        same = [row for row in left if all(_same(_rule_for(k, item[k]), item[k], row[k], anchor) for k in keys)]
        hit = same[0] if same else None
        if hit is None:
            return False
        left.remove(hit)
    return True


def _compare(entry: dict, want, rows: list[dict], columns: list[str], anchor: dt.date) -> tuple[bool, object]:
    rule = entry["rule"]
    if rule == "none":
        found = [r for r in rows if any(v is not None for v in r.values())]
        return (not found), [list(r.values()) for r in found][:5]
    if rule == "set":
        got = [r[columns[0]] for r in rows]
        return sorted(map(str, got)) == sorted(map(str, want)), got
    if rule == "records":
        return _records_match(want, rows, anchor), rows[:10]
    if not rows:
        return False, None
    if rule == "record":
        row = rows[0]
        keys = [k for k in want if k in row]
        ok = bool(keys) and all(_same(_rule_for(k, want[k]), want[k], row[k], anchor) for k in keys)
        return ok, row
    got = rows[0][columns[0]]
    return _same(rule, want, got, anchor), got


def _lookup(root: Path, entry: dict, anchor: str, connections: dict) -> tuple[list[dict], list[str]]:
    app = entry["app"]
    if app not in connections:
        path = root / (PROFILE + "/places.sqlite" if app == "firefox" else db_path(app))
        connections[app] = read_only(path) if path.exists() else None
    con = connections[app]
    if con is None:
        raise sqlite3.OperationalError(f"{app} is not in the build")
    cursor = con.execute(entry["sql"], {"anchor": anchor})
    columns = [d[0] for d in cursor.description or ()]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()], columns


def _file_result(root: Path, entry: dict, want) -> tuple[bool, object]:
    if entry["rule"] == "file":
        relative = str(want).lstrip("/")
        return (root / relative).is_file(), relative
    text = (root / entry["file"]).read_text(encoding="utf-8") if (root / entry["file"]).is_file() else ""
    return str(want) in text, entry["file"]


def released_facts(root: Path | str, variables_path: Path = VARIABLES, keys_path: Path = VARIABLE_KEYS) -> dict:
    """Each variable matched / differs / kept different / not applicable in the world in ``root``; the figure."""
    root = Path(root)
    variables = json.loads(Path(variables_path).read_text(encoding="utf-8"))
    anchor = json.loads((root / "manifest.json").read_text(encoding="utf-8"))["anchor"]
    anchor_day = dt.date.fromisoformat(anchor)
    per_variable: dict[str, dict] = {}
    connections: dict = {}
    try:
        for entry in load_variable_keys(keys_path):
            name = entry["var"]
            want = variables.get(name)
            if "not_applicable" in entry:
                per_variable[name] = {"status": "not applicable", "why": entry["not_applicable"]}
                continue
            where = entry.get("file") or entry.get("app")
            try:
                if entry["rule"] in ("file", "file_contains"):
                    ok, got = _file_result(root, entry, want)
                else:
                    rows, columns = _lookup(root, entry, anchor, connections)
                    ok, got = _compare(entry, want, rows, columns, anchor_day)
            except sqlite3.Error as exc:
                ok, got = False, f"lookup failed: {exc}"
            result = {"where": where, "expected": want, "found": got, "rule": entry["rule"]}
            if entry.get("spec_silent"):
                per_variable[name] = result | {"status": "not applicable", "why": entry["spec_silent"]}
            elif ok:
                per_variable[name] = result | {"status": "matched"}
            elif entry.get("spec_departs"):
                why = f"the released image departs from the spec: {entry['spec_departs']}"
                per_variable[name] = result | {"status": "not applicable", "why": why}
            elif entry.get("kept_different"):
                per_variable[name] = result | {"status": KEPT, "why": entry["kept_different"]}
            else:
                why = "no reason recorded: the build should reproduce it"
                per_variable[name] = result | {"status": "differs", "why": why}
    finally:
        for con in connections.values():
            if con is not None:
                con.close()
    counts: dict[str, int] = {}
    for item in per_variable.values():
        counts[item["status"]] = counts.get(item["status"], 0) + 1
    compared = counts.get("matched", 0) + counts.get("differs", 0)
    return {
        "variables": len(per_variable),
        "counts": counts,
        "matched_rate": round(counts.get("matched", 0) / compared, 4) if compared else 0.0,
        "per_variable": per_variable,
    }
