"""The build context every seeder shares: anchor dates, keyed RNGs, the in-memory world and its writers.

Determinism rules kept here: every RNG is ``random.Random`` seeded from a sha256 of the persona slug and
the seeder id (never ``hash()``, which changes with PYTHONHASHSEED); no wall-clock time is written; rows
are written in insertion order; SQLite files are VACUUMed with fixed page settings; the manifest is
sorted JSON.

World variants: a build takes a variant number K. The seeders' RNGs and the generated record numbers are
surface draws (``Context.surface``): variant 0 seeds them exactly as before (the canonical world), variant K
adds "variant K" to every seed, so amounts, codes, times and fillers are redrawn while what the spec states
(people, events, dates, planted contradictions) is read as it is. A seeder that draws a story fact the spec
leaves open (the day an undated order was placed, the day a trip was booked) takes ``Context.split_rng``: its
``story`` draws are variant 0's in every variant, its other draws are the variant's.
"""

import datetime as dt
import hashlib
import json
import random
import sqlite3
import zoneinfo
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATE = "%Y-%m-%d"
DATETIME = "%Y-%m-%d %H:%M:%S"
HISTORY_DAYS = 365  # routine records fill the year before the anchor
FUTURE_DAYS = 120  # upcoming bookings and calendar entries may lie this far after it
BINARY_DOCUMENTS = {".odt", ".ods", ".xlsx", ".docx", ".pdf"}  # office files: not read as text
ZONE_NAME = "America/New_York"
ZONE = zoneinfo.ZoneInfo(ZONE_NAME)  # the persona's local time, with daylight saving (EST/EDT)
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


class BuildError(RuntimeError):
    """A build that cannot go on; the message names the seeder and what was wrong."""


def stable_seed(*parts: str) -> int:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def stable_id(*parts: str, length=12) -> str:
    """A short hex id that depends only on its parts (message ids, guids, cookie values)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:length]


def parse_time_of_day(text: str, default=(12, 0)) -> tuple[int, int]:
    """'7:30pm' / '9:15am' / '19:00' -> (hour, minute)."""
    if not text:
        return default
    value = text.strip().lower().replace(" ", "")
    suffix = value[-2:] if value[-2:] in ("am", "pm") else ""
    core = value[: -len(suffix)] if suffix else value
    try:
        hour_text, minute_text = (core.split(":") + ["0"])[:2]
        hour, minute = int(hour_text), int(minute_text)
    except ValueError:
        return default
    if suffix == "pm" and hour < 12:
        hour += 12
    if suffix == "am" and hour == 12:
        hour = 0
    return hour, minute


def local(moment: dt.datetime) -> dt.datetime:
    """A naive local wall-clock time as an aware one in the persona's zone (-05:00 in winter, -04:00 in summer)."""
    return moment.replace(tzinfo=ZONE)


def at(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    """``day`` at ``hour``:``minute``."""
    return dt.datetime.combine(day, dt.time(hour, minute))


class SplitDraws:
    """A seeder's draws when some are story facts (the same in every variant) and the rest surface facts.

    ``draws.story.randint(...)`` draws from the canonical stream; ``draws.randint(...)`` (any ``random.Random``
    method) from the variant's stream, while the canonical stream makes the same call and drops it, so the
    canonical stream goes through the calls of variant 0 and every later story draw is variant 0's. In variant
    0 both are one stream, so the draws are exactly those of a plain ``random.Random``.
    """

    def __init__(self, canonical: random.Random, variant: random.Random | None):
        self.story = canonical
        self.variant = variant

    def __getattr__(self, name: str):
        canonical = getattr(self.story, name)
        if self.variant is None:
            return canonical
        redrawn = getattr(self.variant, name)

        def draw(*args, **kwargs):
            canonical(*args, **kwargs)
            return redrawn(*args, **kwargs)

        return draw


@dataclass
class Event:
    """One real-life event fanned out to several apps; every row it produces carries ``id`` as provenance."""

    id: str
    kind: str
    title: str
    date: str
    time: str | None = None
    end_date: str | None = None
    amount: float | None = None
    merchant: str | None = None
    code: str | None = None
    people: list = field(default_factory=list)
    apps: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def as_json(self):
        data = {k: v for k, v in self.__dict__.items() if k != "extra" and v not in (None, [], {})}
        data.update(self.extra)
        return data


class Context:
    """Shared state for one build: the persona, the anchor, RNGs and the world being assembled."""

    def __init__(self, persona, anchor: dt.date, out: Path, variant: int = 0):
        if isinstance(variant, bool) or not isinstance(variant, int) or variant < 0:
            raise BuildError(f"the world variant must be a whole number 0 or more, got {variant!r}")
        self.persona = persona
        self.anchor = anchor
        self.out = out
        self.variant = variant
        reference = persona.reference_date
        if reference:
            delta = (anchor - dt.date.fromisoformat(reference)).days
            # Shift spec dates by whole weeks so weekday routines ("every Thursday") stay on their day.
            self.shift = dt.timedelta(days=7 * round(delta / 7))
        else:
            self.shift = dt.timedelta(0)
        self.start = anchor - dt.timedelta(days=HISTORY_DAYS)
        tax_year = (persona.spec.get("tax_info") or {}).get("tax_year")
        self.tax_year = None
        if isinstance(tax_year, int):
            # The whole tax year's paychecks must be in the bank (W-2 net vs deposits), so history starts
            # no later than the tax year's first day (moved with the other spec dates).
            first = dt.date(tax_year, 1, 1) + self.shift
            self.tax_year = (first, dt.date(tax_year, 12, 31) + self.shift)
            self.start = min(self.start, first)
        self.end = anchor + dt.timedelta(days=FUTURE_DAYS)
        self.events: list[Event] = []
        self.tables: dict[str, dict[str, list[dict]]] = {}
        self.intents: dict[str, list[dict]] = {}
        self.files: dict[str, str] = {}  # relative path -> what wrote it (provenance)
        self.notes: dict[str | tuple, Any] = {}  # what seeders leave for later ones, and lookup indexes

    # -- randomness and dates -------------------------------------------------------------------
    def surface(self, *parts: str) -> tuple[str, ...]:
        """The seed parts of a surface draw: ``parts`` as they are in the canonical world (variant 0), with
        the variant added otherwise, so each variant redraws them and variant 0 stays byte-identical."""
        return (*parts, f"variant {self.variant}") if self.variant else parts

    def rng(self, seeder_id: str) -> random.Random:
        """The seeder's RNG for this persona and variant."""
        return random.Random(stable_seed(*self.surface(self.persona.slug, seeder_id)))

    def split_rng(self, seeder_id: str) -> SplitDraws:
        """The seeder's draws split into story (``.story``, variant 0's) and surface (the variant's)."""
        canonical = random.Random(stable_seed(self.persona.slug, seeder_id))
        return SplitDraws(canonical, self.rng(seeder_id) if self.variant else None)

    def day(self, iso: str) -> dt.date:
        """A spec date (authoring time) moved to the build's anchor."""
        return dt.date.fromisoformat(iso[:10]) + self.shift

    def moment(self, iso: str, time_text: str | None = None) -> dt.datetime:
        if len(iso) > 10 and "T" in iso:
            base = dt.datetime.fromisoformat(iso)
        else:
            hour, minute = parse_time_of_day(time_text or "", (12, 0))
            base = dt.datetime.fromisoformat(iso[:10]).replace(hour=hour, minute=minute)
        return base + self.shift

    def days(self, until: dt.date | None = None):
        """Every day of the history window up to ``until`` (default the anchor), oldest first."""
        day, last = self.start, until or self.anchor
        while day <= last:
            yield day
            day += dt.timedelta(days=1)

    def relative(self, days_ago: int) -> dt.date:
        return self.anchor - dt.timedelta(days=days_ago)

    # -- the world ------------------------------------------------------------------------------
    def add_event(self, event: Event) -> Event:
        self.events.append(event)
        return event

    def add(self, app: str, table: str, row: dict, provenance: str) -> int:
        """Append a row to an app table; returns its 1-based id (rows keep insertion order)."""
        rows = self.tables.setdefault(app, {}).setdefault(table, [])
        row = dict(row)
        row.setdefault("id", len(rows) + 1)
        row["provenance"] = provenance
        rows.append(row)
        return row["id"]

    def rows(self, app: str, table: str) -> list[dict]:
        return self.tables.get(app, {}).get(table, [])

    def intent(self, kind: str, record: dict, provenance: str):
        """Queue a record for the seeder that owns ``kind`` (bank charges, mails, visits...)."""
        record = dict(record)
        record["provenance"] = provenance
        self.intents.setdefault(kind, []).append(record)

    def pending(self, kind: str) -> list[dict]:
        return self.intents.get(kind, [])

    def path(self, relative: str, writer: str) -> Path:
        target = self.out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        self.files[relative] = writer
        return target


def write_sqlite(path: Path, schema: str, tables: dict[str, list[dict]], user_version: int = 0):
    """Create ``path`` from ``schema`` and insert ``tables`` rows in order, byte-reproducibly."""
    if path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA page_size = 4096")
        con.execute("PRAGMA journal_mode = DELETE")
        con.executescript(schema)
        for table, rows in tables.items():
            if not rows:
                continue
            columns = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
            if not columns:
                raise BuildError(f"{path.name}: table {table!r} is not in the schema")
            present = set().union(*(row.keys() for row in rows))
            unknown = present - set(columns)
            if unknown:
                raise BuildError(f"{path.name}: table {table!r} has no column(s) {sorted(unknown)}")
            # Only the columns the rows fill, so the schema's DEFAULTs apply to the rest.
            columns = [c for c in columns if c in present]
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            con.executemany(sql, [tuple(row.get(c) for c in columns) for row in rows])
        con.execute(f"PRAGMA user_version = {int(user_version)}")
        con.commit()
        con.execute("VACUUM")
    finally:
        con.close()


def read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to a built database, rows as ``sqlite3.Row``."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    return con


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_json(path: Path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
