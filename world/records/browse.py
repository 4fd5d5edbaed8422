"""Reads of the loaded world for the World pages: the overview, per-app record search and events."""

import datetime as dt
import re
from dataclasses import dataclass

from django.db.models import Count
from django.http import Http404

from seeding.world.apps import APPS
from world.models import World, WorldEvent, WorldRecord

RECORDS_PER_PAGE = 50
EVENTS_PER_PAGE = 50


def current_world() -> World | None:
    return World.objects.order_by("-loaded_at", "-id").first()


def app_name(app: str) -> str:
    return APPS.get(app, app)


def app_list(world: World) -> list[dict]:
    """Every app with its record count per table, in the seeding order."""
    counts: dict[str, list[tuple[str, int]]] = {}
    for row in WorldRecord.objects.filter(world=world).values("app", "kind").annotate(n=Count("id")):
        counts.setdefault(row["app"], []).append((row["kind"], row["n"]))
    return [
        {
            "app": app,
            "name": name,
            "kinds": sorted(counts.get(app, [])),
            "total": sum(n for _, n in counts.get(app, [])),
        }
        for app, name in APPS.items()
    ]


def _parse_date(value: str, label: str, errors: list):
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        errors.append(f"{label} must be a date written YYYY-MM-DD, not {value!r}.")
        return None


@dataclass
class RecordFilters:
    q: str = ""
    kind: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    section: str = ""
    linked: bool = False
    errors: tuple = ()

    @classmethod
    def from_query(cls, query) -> "RecordFilters":
        errors: list[str] = []
        date_from = _parse_date(query.get("from", "").strip(), "From", errors)
        date_to = _parse_date(query.get("to", "").strip(), "To", errors)
        return cls(
            q=query.get("q", "").strip()[:200],
            kind=query.get("kind", "").strip()[:60],
            date_from=date_from,
            date_to=date_to,
            section=query.get("section", "").strip()[:200],
            linked=query.get("linked", "") in ("1", "on", "true"),
            errors=tuple(errors),
        )

    def as_query(self) -> dict:
        query = {
            "q": self.q,
            "kind": self.kind,
            "from": self.date_from.isoformat() if self.date_from else "",
            "to": self.date_to.isoformat() if self.date_to else "",
            "section": self.section,
            "linked": "1" if self.linked else "",
        }
        return {k: v for k, v in query.items() if v}


def search_records(world: World, app: str, filters: RecordFilters):
    """The app's records matching every word of the search and every filter, by date then row."""
    if app not in APPS:
        raise Http404(f"No app named {app!r} in the world.")
    records = WorldRecord.objects.filter(world=world, app=app)
    for word in filters.q.lower().split():
        records = records.filter(text__contains=word)
    if filters.kind:
        records = records.filter(kind=filters.kind)
    if filters.date_from:
        records = records.filter(date__gte=filters.date_from)
    if filters.date_to:
        records = records.filter(date__lte=filters.date_to)
    if filters.section:
        records = records.filter(section__startswith=filters.section)
    if filters.linked:
        records = records.filter(event__isnull=False)
    return records.select_related("event").order_by("-date", "kind", "row_id")


_PART = re.compile(r"^(?P<field>[^\[\]]+)(?:\[(?P<index>\d+)\])?$")
# Tables whose row names the spec item that made it (a contact's chat or work account).
NAME_KINDS = ("users", "contacts")


def _words(field: str) -> str:
    return field.replace("+", " and ").replace("_", " ").replace("-", " ")


def section_label(section: str, names: dict[str, str] | None = None) -> str:
    """The spec section that made a record, in words: "contacts[9]" -> "Contacts: Darryl Philbin"
    (the item's name when ``names`` knows it, else its number: "Contacts: no. 10"),
    "contacts[0].birthday" -> "Contacts: Jim Halpert, birthday", "routines.work_calendar" ->
    "Routines: work calendar". A section that does not parse is returned as it is."""
    names = names or {}
    pieces: list[str] = []
    path = ""
    for part in section.split("."):
        match = _PART.match(part)
        if not match:
            return section
        path = f"{path}.{part}" if path else part
        piece = _words(match["field"])
        if match["index"] is not None:
            item = names.get(path) or f"no. {int(match['index']) + 1}"
            piece = f"{piece} {item}" if pieces else f"{piece}: {item}"
        pieces.append(piece)
    head, rest = pieces[0], pieces[1:]
    head = head[:1].upper() + head[1:]
    if not rest:
        return head
    return f"{head}{', ' if ':' in head else ': '}{', '.join(rest)}"


def made_by_labels(world: World, sections) -> dict[str, str]:
    """``section_label`` of each section, with the names of the spec items behind them (a contact's
    name, from the account row it made)."""
    sections = set(sections)
    items = set()
    for section in sections:
        path = ""
        for part in section.split("."):
            path = f"{path}.{part}" if path else part
            if part.endswith("]"):
                items.add(path)
    names: dict[str, str] = {}
    if items:
        rows = WorldRecord.objects.filter(world=world, section__in=items, kind__in=NAME_KINDS)
        for section, title in rows.order_by("app", "row_id").values_list("section", "title"):
            if title and not title.startswith("#"):
                names.setdefault(section, title)
    return {section: section_label(section, names) for section in sections}


def kinds_of(world: World, app: str) -> list[str]:
    return list(
        WorldRecord.objects.filter(world=world, app=app).values_list("kind", flat=True).distinct().order_by("kind")
    )


def record_detail(world: World, app: str, kind: str, row_id: int) -> WorldRecord:
    record = WorldRecord.objects.filter(world=world, app=app, kind=kind, row_id=row_id).select_related("event").first()
    if record is None:
        raise Http404(f"No {kind} row {row_id} in {app_name(app)}.")
    return record


def event_list(world: World, q: str = "", kind: str = ""):
    events = WorldEvent.objects.filter(world=world).annotate(n_records=Count("records"))
    for word in q.split():
        events = events.filter(title__icontains=word)
    if kind:
        events = events.filter(kind=kind)
    return events.order_by("position")


def event_kinds(world: World) -> list[str]:
    return list(WorldEvent.objects.filter(world=world).values_list("kind", flat=True).distinct().order_by("kind"))


def event_chain(world: World, event_id: str) -> dict:
    """The event and its records grouped by app, in the order the event names its apps."""
    event = WorldEvent.objects.filter(world=world, event_id=event_id).first()
    if event is None:
        raise Http404(f"No event {event_id!r} in the world.")
    by_app: dict[str, list[WorldRecord]] = {}
    for record in event.records.order_by("date", "kind", "row_id"):
        by_app.setdefault(record.app, []).append(record)
    order = [a for a in event.apps if a in by_app] + sorted(a for a in by_app if a not in event.apps)
    steps = [{"app": a, "name": app_name(a), "records": by_app[a]} for a in order]
    # Apps the event names that hold no row of it (the browser, the files) are said plainly.
    named_only = [a for a in event.apps if a not in by_app]
    return {"event": event, "steps": steps, "named_only": [app_name(a) for a in named_only]}


def overview(world: World) -> dict:
    """Contacts, routines and finances from the app databases, beside the summary."""
    contacts = WorldRecord.objects.filter(world=world, app="buzzchat", kind="users").order_by("row_id")
    accounts = WorldRecord.objects.filter(world=world, app="vaultbank", kind="accounts").order_by("row_id")
    recurring = WorldRecord.objects.filter(world=world, app="vaultbank", kind="recurring_payments").order_by("row_id")
    routines = (
        WorldRecord.objects.filter(world=world, section__startswith="routines")
        .values("section", "app")
        .annotate(n=Count("id"))
        .order_by("section", "app")
    )
    return {
        "contacts": [c.data for c in contacts if c.data.get("relationship") != "self"],
        "accounts": [a.data for a in accounts],
        "recurring": [r.data for r in recurring],
        "routines": [dict(r, name=app_name(r["app"])) for r in routines],
    }
