"""The 17 web apps: internal names, display names, hosts, and the SQLite schema of each (ours, in ``schemas/``).

Every data table has a ``provenance`` column naming the spec section or event that produced the row.
``EVENT_TABLES`` says, per app, where a fanned-out event lands and which columns hold its date, amount
and confirmation code, so the checker can compare an event across apps.
"""

from pathlib import Path

APPS = {
    "vaultbank": "Gringotts",
    "buzzchat": "HooliChat",
    "workbuzz": "HooliWork",
    "mail": "HooliMail",
    "calendar": "HooliCalendar",
    "dinoco-airlines": "Dinoco Airlines",
    "kwik-e-mart": "Kwik-E-Mart",
    "hoolishop": "HooliShop",
    "hangrydash": "HangryDash",
    "tablefind": "TableFind",
    "etaxi": "eTaxi",
    "cheskepdia": "Cheskepdia",
    "oddsmarket": "OddsMarket",
    "sprintboard": "SprintBoard",
    "lockedin": "LockedIn",
    "batbucks": "BatBucks",
    "speedtax": "SpeedTax",
}
# Spec aliases for the same app.
ALIASES = {"hoolicalendar": "calendar", "email": "mail"}


def canonical(app: str) -> str:
    return ALIASES.get(app, app)


def host(app: str) -> str:
    """Each app gets its own host name, so cookies stay per app (ports would share one cookie jar)."""
    return f"{app}.localhost"


def app_domain(app: str) -> str:
    """The mail domain an app's messages come from (``noreply@<app>.example``)."""
    return f"{app}.example"


def db_path(app: str) -> str:
    return f"apps/{app}.sqlite"


SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
# Each app's SQLite schema, one reviewable SQL file per app in ``schemas/<internal name>.sql``.
SCHEMAS = {app: (SCHEMA_DIR / f"{app}.sql").read_text(encoding="utf-8") for app in APPS}

# app -> (table, date column, amount column or None, code column or None)
EVENT_TABLES = {
    "vaultbank": ("transactions", "posted_date", "amount", None),
    "buzzchat": ("messages", "sent_at", None, None),
    "workbuzz": ("messages", "sent_at", None, None),
    "mail": ("messages", "sent_at", None, None),
    "calendar": ("events", "start_at", None, None),
    "dinoco-airlines": ("bookings", "booked_on", "fare", "confirmation"),
    "kwik-e-mart": ("orders", "placed_at", "total", "order_number"),
    "hoolishop": ("orders", "placed_at", "total", "order_number"),
    "hangrydash": ("orders", "placed_at", "total", "order_number"),
    "tablefind": ("reservations", "reserved_for", None, "confirmation"),
    "etaxi": ("rides", "requested_at", "total", "ride_code"),
    "cheskepdia": ("bookings", "check_in", "total", "confirmation"),
}

# Figure 1 of the paper: record volumes of the seeded world. metric -> (target, where counted).
TARGETS = {
    "bank_transactions": (1812, [("vaultbank", "transactions")]),
    "emails": (2398, [("mail", "messages")]),
    "calendar_events": (679, [("calendar", "events")]),
    "chat_and_workplace_messages": (2526, [("buzzchat", "messages"), ("workbuzz", "messages")]),
    "rideshare_requests": (126, [("etaxi", "rides")]),
    "food_delivery_orders": (402, [("hangrydash", "orders")]),
    "retail_orders": (155, [("hoolishop", "orders")]),
    "grocery_orders": (29, [("kwik-e-mart", "orders")]),
    "restaurant_reservations": (32, [("tablefind", "reservations")]),
    "bookmarks": (35, [("firefox", "bookmarks")]),
    "history_visits": (10746, [("firefox", "visits")]),
}


def target(ctx, metric: str) -> int:
    """The volume a build aims at for ``metric``: the spec's ``volume`` entry, else Figure 1's."""
    volume = ctx.persona.spec.get("volume", {})
    return int(volume.get(metric, TARGETS[metric][0]))
