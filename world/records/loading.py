"""``load_world``: store a seeding build's manifest, summary, events and an index of every app row.

The whole world is replaced in one transaction, so a failed load leaves the previous world as it was.
"""

import datetime as dt
import json
import re
import sqlite3
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.db import transaction

from leaderboard.scoring import data_version
from seeding.world.apps import APPS, db_path
from seeding.world.persona import PERSONAS_DIR
from world.models import World, WorldEvent, WorldRecord

BATCH = 2000

# Which column names the row, dates it and prices it: the first one present wins.
TITLE_COLUMNS = (
    "subject", "summary", "title", "name", "description", "merchant", "body", "company", "employer",
    "payer", "confirmation", "order_number", "ride_code", "ticker", "number", "key", "kind",
)  # fmt: skip
DATE_COLUMNS = (
    "posted_date", "sent_at", "start_at", "placed_at", "reserved_for", "requested_at", "check_in", "booked_on",
    "departs_at", "pay_date", "placed_on", "paid_on", "due", "deadline", "period_end", "created_at", "first_date",
)  # fmt: skip
AMOUNT_COLUMNS = ("amount", "total", "fare", "gross", "price", "balance", "nightly_rate", "cost_basis", "net_pnl")


class WorldFolderError(ValueError):
    """The folder is not a seeding build (or is an incomplete one)."""


def _amount(value):
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return Decimal(str(value)).quantize(Decimal("0.01"))
    except (InvalidOperation, ValueError):
        return None


def _date(value):
    if not isinstance(value, str):
        return None
    match = re.match(r"\d{4}-\d{2}-\d{2}", value)
    if not match:
        return None
    try:
        return dt.date.fromisoformat(match.group(0))
    except ValueError:
        return None


def _first(row: dict, columns):
    for column in columns:
        if row.get(column) not in (None, ""):
            return row[column]
    return None


def row_index(row: dict) -> dict:
    """Title, search text, date and amount of one database row."""
    title = _first(row, TITLE_COLUMNS)
    title = " ".join(str(title).split()) if title is not None else f"#{row.get('id')}"
    text = " ".join(str(v) for k, v in row.items() if v is not None and k != "provenance").lower()
    return {
        "title": title[:300],
        "text": text,
        "date": _date(_first(row, DATE_COLUMNS)),
        "amount": _amount(_first(row, AMOUNT_COLUMNS)),
    }


def read_build(folder) -> dict:
    """The manifest, summary, events and check report of a build; WorldFolderError naming what is missing."""
    root = Path(folder)
    if not root.is_dir():
        raise WorldFolderError(f"{root} is not a folder.")
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        raise WorldFolderError(
            f"{root} is not a seeding build: it has no manifest.json (build one with `python -m seeding build`)."
        )
    try:
        manifest = json.loads(manifest_path.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise WorldFolderError(f"{manifest_path} is not valid JSON: {exc}")
    if not isinstance(manifest, dict) or not {"persona", "anchor", "counts", "files"} <= set(manifest):
        raise WorldFolderError(f"{manifest_path} is not a seeding manifest: persona, anchor, counts or files missing.")
    if _date(manifest["anchor"]) is None:
        raise WorldFolderError(f"{manifest_path}: anchor {manifest['anchor']!r} is not a date.")
    missing = [db_path(app) for app in APPS if not (root / db_path(app)).is_file()]
    for name in ("SUMMARY.md", "events.json"):
        if not (root / name).is_file():
            missing.append(name)
    if missing:
        raise WorldFolderError(f"{root} is an incomplete seeding build: missing {', '.join(missing)}.")
    try:
        events = json.loads((root / "events.json").read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise WorldFolderError(f"{root / 'events.json'} is not valid JSON: {exc}")
    check_report = {}
    if (root / "check.json").is_file():
        try:
            check_report = json.loads((root / "check.json").read_text())
        except (ValueError, UnicodeDecodeError) as exc:
            raise WorldFolderError(f"{root / 'check.json'} is not valid JSON: {exc}")
        if not isinstance(check_report, dict):
            raise WorldFolderError(f"{root / 'check.json'} is not a check report (a JSON object).")
    return {
        "root": root,
        "manifest": manifest,
        "summary": (root / "SUMMARY.md").read_text(errors="replace"),
        "events": events,
        "check_report": check_report,
    }


def read_overlay(manifest: dict, overlay=None) -> list:
    """Overlay entries (tasks, path, why) from the given file or the build's overlay in seeding/personas."""
    path = Path(overlay) if overlay else None
    if path is None and manifest.get("overlay_file"):
        candidate = PERSONAS_DIR / Path(manifest["overlay_file"]).name
        path = candidate if candidate.is_file() else None
    if path is None:
        return []
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise WorldFolderError(f"overlay {path} could not be read: {exc}")
    entries = data.get("entries", []) if isinstance(data, dict) else []
    return [
        {"tasks": list(e.get("tasks", [])), "path": str(e.get("path", "")), "why": str(e.get("why", ""))}
        for e in entries
        if isinstance(e, dict)
    ]


def bracket_path(path: str) -> str:
    """Overlay paths are dotted (``planted_contradictions.1.plant``); event ids use brackets."""
    return re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", path)


def tasks_citing(event_id: str, overlay_entries: list) -> list:
    """Task ids of overlay entries that add to this event (its path, or a path below it)."""
    found = set()
    for entry in overlay_entries:
        path = bracket_path(entry["path"])
        if path == event_id or (path.startswith(event_id) and path[len(event_id)] in ".["):
            found.update(entry["tasks"])
    return sorted(found)


def _app_rows(root: Path, app: str):
    con = sqlite3.connect(f"file:{root / db_path(app)}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        tables = [
            name
            for (name,) in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
        ]
        for table in tables:
            for row in con.execute(f'SELECT * FROM "{table}" ORDER BY rowid'):
                yield table, dict(row)
    finally:
        con.close()


def load_world(folder, overlay=None, progress=None) -> dict:
    """Replace the stored world with the build in ``folder``. Returns counts per app.

    ``progress(app, n_rows)`` is called after each app's rows are stored.
    """
    build = read_build(folder)
    manifest, root = build["manifest"], build["root"]
    overlay_entries = read_overlay(manifest, overlay)
    # Read every database before touching the stored world: a corrupt file changes nothing.
    rows_by_app = {}
    for app in APPS:
        try:
            rows_by_app[app] = list(_app_rows(root, app))
        except sqlite3.DatabaseError as exc:
            raise WorldFolderError(f"{root / db_path(app)} is not a readable SQLite database: {exc}")
    counts = {}
    with transaction.atomic():
        # task pages show the world behind each task: cached pages are rebuilt once this commits
        transaction.on_commit(data_version.bump_version)
        World.objects.all().delete()
        world = World.objects.create(
            persona=str(manifest["persona"])[:200],
            anchor=_date(manifest["anchor"]),
            source=str(root.resolve())[:500],
            manifest={k: v for k, v in manifest.items() if k != "files"} | {"files": len(manifest["files"])},
            summary=build["summary"],
            check_report=build["check_report"],
            overlay_entries=overlay_entries,
        )
        events = {}
        for position, ev in enumerate(build["events"]):
            if not isinstance(ev, dict) or not ev.get("id"):
                continue
            events[ev["id"]] = WorldEvent.objects.create(
                world=world,
                event_id=str(ev["id"])[:200],
                position=position,
                kind=str(ev.get("kind", ""))[:100],
                title=str(ev.get("title", ev["id"]))[:300],
                date=_date(ev.get("date")),
                amount=_amount(ev.get("amount")),
                code=str(ev.get("code") or "")[:100],
                apps=list(ev.get("apps", [])),
                tasks=tasks_citing(ev["id"], overlay_entries),
                data=ev,
            )
        for app, rows in rows_by_app.items():
            batch = []
            for table, row in rows:
                section = str(row.get("provenance") or "")
                batch.append(
                    WorldRecord(
                        world=world,
                        app=app,
                        kind=table,
                        row_id=row.get("id") or 0,
                        section=section[:200],
                        event=events.get(section),
                        data=row,
                        **row_index(row),
                    )
                )
            WorldRecord.objects.bulk_create(batch, batch_size=BATCH)
            counts[app] = len(batch)
            if progress:
                progress(app, len(batch))
    return {"world": world, "records": counts, "events": len(events)}
