"""Answer keys: for each task, the facts its instruction and rubric need and where they live in a built world.

A key is a reviewable JSON file per task in ``seeding/answer_keys/<task id>.json`` (the format is in that
folder's README). It names *where* each fact lives (an app's table and a read-only SQL query, or a file and the
text it must hold), never the values: ``resolve`` reads the values from the build, so a key cannot drift from
the world it describes. Each task gets a verdict: solvable (every fact found), partial, not solvable, or an
exception the key declares with its reason (a task about live market data, say).

``python -m seeding.world.answer_keys WORLD [TASK ...]`` prints the verdicts of a built world.

Keys are queries, so they resolve against any world variant (``python -m seeding build --variant K``): the
facts found are that variant's codes, amounts and times.
"""

import argparse
import fnmatch
import json
import re
import sqlite3
import sys
from pathlib import Path

from .apps import APPS, db_path
from .core import BINARY_DOCUMENTS, read_only

KEYS_DIR = Path(__file__).resolve().parent.parent / "answer_keys"
TEXT_SUFFIXES = {".txt", ".md", ".csv", ".ics", ".json", ".eml", ".html", ".tsv", ".log", ""}
SHOWN_ROWS = 20  # rows of evidence kept per fact
QUERY_STEPS = 2_000_000  # SQLite VM steps a key's query may take before it is stopped
FACT_FIELDS = {"need", "app", "sql", "min_rows", "max_rows", "file", "contains", "empty_when"}
KEY_FIELDS = {"task", "facts", "exception", "note"}
SELECT = re.compile(r"^\s*(select|with)\b", re.I)
FIRST_TABLE = re.compile(r"\bfrom\s+\"?([A-Za-z_][A-Za-z0-9_]*)", re.I)


class AnswerKeyError(ValueError):
    """A key file that cannot be used; the message names the file and the field."""


def _fact_problem(fact, where: str) -> str | None:
    if not isinstance(fact, dict):
        return f"{where} is not an object"
    unknown = set(fact) - FACT_FIELDS
    if unknown:
        return f"{where} has unknown field(s) {sorted(unknown)}"
    if not isinstance(fact.get("need"), str) or not fact["need"].strip():
        return f"{where} needs a 'need': what the task needs, in plain words"
    has_sql, has_file = "sql" in fact, "file" in fact
    if has_sql == has_file:
        return f"{where} needs exactly one of 'sql' (with 'app') or 'file'"
    if has_sql:
        if fact.get("app") not in APPS:
            return f"{where} names app {fact.get('app')!r}, not one of {sorted(APPS)}"
        if not isinstance(fact["sql"], str) or not SELECT.match(fact["sql"]):
            return f"{where} 'sql' must be one SELECT (or WITH ... SELECT) query"
    elif not isinstance(fact["file"], str) or fact["file"].startswith("/") or ".." in fact["file"]:
        return f"{where} 'file' must be a path or glob relative to the world folder"
    if "empty_when" in fact and (not has_sql or not isinstance(fact["empty_when"], str) or ";" in fact["empty_when"]):
        return f"{where} 'empty_when' must be one SQL expression over :anchor, on a query fact"
    contains = fact.get("contains", [])
    if not isinstance(contains, list) or not all(isinstance(c, str) and c for c in contains):
        return f"{where} 'contains' must be a list of non-empty strings"
    for bound in ("min_rows", "max_rows"):
        if bound in fact and (not isinstance(fact[bound], int) or fact[bound] < 0):
            return f"{where} '{bound}' must be a whole number >= 0"
    return None


def validate(key, name: str) -> dict:
    """``key`` if it is a usable answer key, else ``AnswerKeyError`` naming the file and what is wrong."""
    if not isinstance(key, dict):
        raise AnswerKeyError(f"{name}: an answer key is a JSON object")
    unknown = set(key) - KEY_FIELDS
    if unknown:
        raise AnswerKeyError(f"{name}: unknown field(s) {sorted(unknown)}")
    if not isinstance(key.get("task"), str):
        raise AnswerKeyError(f"{name}: 'task' (the task id) is missing")
    facts = key.get("facts")
    if not isinstance(facts, list):
        raise AnswerKeyError(f"{name}: 'facts' must be a list")
    if not facts and not key.get("exception"):
        raise AnswerKeyError(f"{name}: no facts and no 'exception' saying why")
    for number, fact in enumerate(facts, 1):
        problem = _fact_problem(fact, f"fact {number}")
        if problem:
            raise AnswerKeyError(f"{name}: {problem}")
    return key


def load_task_files(directory: Path | str, check, error: type[ValueError]) -> dict[str, dict]:
    """Every ``<task id>.json`` in ``directory`` (answer keys, rubric templates), each passed to
    ``check(data, file name)``, by task id; ``error`` names the file and what is wrong."""
    found = {}
    for path in sorted(Path(directory).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise error(f"{path.name}: not readable JSON ({exc})") from exc
        check(data, path.name)
        if data["task"] != path.stem:
            raise error(f"{path.name}: 'task' is {data['task']!r}, the file must be named after it")
        found[data["task"]] = data
    return found


def load_keys(directory: Path | str = KEYS_DIR) -> dict[str, dict]:
    """Every ``<task id>.json`` in ``directory``, validated, by task id."""
    return load_task_files(directory, validate, AnswerKeyError)


def _calendar_says_empty(con: sqlite3.Connection, condition: str, anchor: str) -> bool:
    """Whether ``condition`` (an SQL expression over ``:anchor``) holds: an empty answer is then the right one."""
    try:
        return bool(con.execute(f"SELECT ({condition})", {"anchor": anchor}).fetchone()[0])
    except sqlite3.Error:
        return False


def _resolve_sql(root: Path, fact: dict, anchor: str, connections: dict) -> dict:
    app = fact["app"]
    if app not in connections:
        path = root / db_path(app)
        connections[app] = read_only(path) if path.exists() else None
    con = connections[app]
    if con is None:
        return {"found": False, "why": f"{db_path(app)} is not in the build"}
    steps = [0]

    def budget():
        steps[0] += 1
        return 1 if steps[0] > QUERY_STEPS // 1000 else 0

    con.set_progress_handler(budget, 1000)
    try:
        cursor = con.execute(fact["sql"], {"anchor": anchor})
        columns = [d[0] for d in cursor.description or ()]
        rows = [list(r) for r in cursor.fetchall()]
    except sqlite3.Error as exc:
        return {"found": False, "why": f"query failed: {exc}"}
    finally:
        con.set_progress_handler(None, 0)
    low, high = fact.get("min_rows", 1), fact.get("max_rows")
    result = {"columns": columns, "count": len(rows), "rows": rows[:SHOWN_ROWS]}
    table = FIRST_TABLE.search(fact["sql"])
    if table:  # the table the ids belong to, so the site can link the records
        result["table"] = table.group(1)
    if "id" in columns:
        index = columns.index("id")
        result["ids"] = [r[index] for r in rows[:SHOWN_ROWS]]
    if not rows and fact.get("empty_when") and _calendar_says_empty(con, fact["empty_when"], anchor):
        # the task's window holds nothing yet by the calendar (on New Year's Day "this year" has no rides)
        return result | {"found": True, "why": f"none, and none is the answer at {anchor} ({fact['empty_when']})"}
    if len(rows) < low:
        return result | {"found": False, "why": f"{len(rows)} row(s), needs at least {low}"}
    if high is not None and len(rows) > high:
        return result | {"found": False, "why": f"{len(rows)} rows, expects at most {high}"}
    text = json.dumps(rows, default=str)
    absent = [c for c in fact.get("contains", []) if c not in text]
    if absent:
        return result | {"found": False, "why": f"rows do not hold {absent}"}
    return result | {"found": True}


def _resolve_file(root: Path, fact: dict, files: list[str]) -> dict:
    matches = [f for f in files if fnmatch.fnmatchcase(f, fact["file"])]
    if not matches:
        return {"found": False, "why": f"no file matches {fact['file']}"}
    wanted = fact.get("contains", [])
    if not wanted:
        return {"found": True, "paths": matches[:SHOWN_ROWS]}
    holding = []
    for relative in matches:
        suffix = Path(relative).suffix.lower()
        if suffix in BINARY_DOCUMENTS or suffix not in TEXT_SUFFIXES:
            continue
        text = (root / relative).read_text(encoding="utf-8", errors="replace")
        if all(c in text for c in wanted):
            holding.append(relative)
    if not holding:
        return {"found": False, "paths": matches[:SHOWN_ROWS], "why": f"no matching text file holds {wanted}"}
    return {"found": True, "paths": holding[:SHOWN_ROWS]}


def verdict(results: list[dict], exception: str | None) -> str:
    if exception:
        return "exception"
    found = sum(1 for r in results if r["found"])
    if results and found == len(results):
        return "solvable"
    return "partial" if found else "not solvable"


def resolve(root: Path | str, keys: dict[str, dict], task_ids: list[str] | None = None) -> dict:
    """Resolve ``keys`` against the world built in ``root``; one entry per task of ``task_ids`` (default: keyed)."""
    root = Path(root)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    anchor = manifest["anchor"]
    files = sorted(manifest.get("files", {}))
    connections: dict = {}
    tasks: dict[str, dict] = {}
    try:
        for task_id in task_ids if task_ids is not None else sorted(keys):
            key = keys.get(task_id)
            if key is None:
                tasks[task_id] = {"verdict": "no key", "facts": []}
                continue
            results = []
            for fact in key["facts"]:
                resolved = (
                    _resolve_sql(root, fact, anchor, connections) if "sql" in fact else _resolve_file(root, fact, files)
                )
                results.append({"need": fact["need"], "where": fact.get("app") or "files"} | resolved)
            entry: dict = {"verdict": verdict(results, key.get("exception")), "facts": results}
            if key.get("exception"):
                entry["exception"] = key["exception"]
            tasks[task_id] = entry
    finally:
        for con in connections.values():
            if con is not None:
                con.close()
    counts: dict[str, int] = {}
    for done in tasks.values():
        counts[done["verdict"]] = counts.get(done["verdict"], 0) + 1
    total = len(tasks)
    return {
        "anchor": anchor,
        "variant": manifest.get("variant", 0),
        "tasks": total,
        "counts": counts,
        "solvable_rate": round(counts.get("solvable", 0) / total, 4) if total else 0.0,
        "per_task": tasks,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m seeding.world.answer_keys", description=__doc__.splitlines()[0])
    parser.add_argument("world", help="a folder written by python -m seeding build")
    parser.add_argument("tasks", nargs="*", help="task ids (default: every task with a key)")
    parser.add_argument("--keys", default=str(KEYS_DIR), help="folder of answer keys (default: %(default)s)")
    parser.add_argument("--verbose", action="store_true", help="print every fact, not only the missing ones")
    args = parser.parse_args(argv)
    try:
        keys = load_keys(args.keys)
    except AnswerKeyError as exc:
        print(f"answer keys: {exc}", file=sys.stderr)
        return 2
    report = resolve(args.world, keys, args.tasks or None)
    for task_id, entry in report["per_task"].items():
        print(f"{task_id}: {entry['verdict']}" + (f" ({entry['exception']})" if entry.get("exception") else ""))
        for fact in entry["facts"]:
            if args.verbose or not fact["found"]:
                mark = "ok " if fact["found"] else "MISSING"
                detail = fact.get("why") or f"{fact.get('count', len(fact.get('paths', [])))} match(es)"
                print(f"  {mark} [{fact['where']}] {fact['need']}: {detail}")
    print(
        f"{report['counts']} of {report['tasks']} tasks; solvable {report['solvable_rate']:.1%} "
        f"(anchor {report['anchor']}, world variant {report['variant']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
