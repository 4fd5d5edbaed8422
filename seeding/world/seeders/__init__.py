"""The seeders, one module each, and their registry: ``SEEDERS``, run in dependency order (``ordered``) by
``seeding.world.build``.

For: spec sections (``profiles``, ``catalogs``, ``derived`` paystubs, ``trips``, ``cross_app_events``,
``shopping``, ``plants`` for planted contradictions and dependencies), the routine fillers up to the volumes
(``routine``, with the service mail each sends composed by ``receipts``), what the shops and travel apps hold
around those records (``storefronts``, ``travel``), and the seeders that own a data surface: Gringotts (``bank``,
and ``banking`` around its ledger), ``chat``, ``mail``, ``calendar`` (``calendar_people`` for guests, reminders and
colours), BatBucks (``markets``), OddsMarket (``predictions``), SpeedTax (``taxes``), SprintBoard (``workspace``),
LockedIn (``network``), ``firefox``, the office documents (``office``), and files, databases and summary
(``files``).
A seeder is a function of the build ``Context``; it adds rows, files and events, or queues intents for the
seeder that owns a surface (charges, messages, calendar entries, visits).
May use: ``seeding.world.core``, ``apps``, ``fanout`` and the office libraries; a seeder may use another's
public helpers (``derived.paystub``, ``shopping.emit_hoolishop_charge_and_mail``).
Exports: ``Seeder``, ``SEEDERS``, ``ordered``; ``firefox``'s profile constants and ``url_hash`` (read by ``check``).

Adding a persona needs no change here (a persona is one JSON file); adding a data surface is one module and
one entry.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from . import (
    bank,
    banking,
    calendar,
    calendar_people,
    catalogs,
    chat,
    cross_app_events,
    derived,
    files,
    firefox,
    mail,
    markets,
    network,
    office,
    plants,
    predictions,
    profiles,
    routine,
    shopping,
    storefronts,
    taxes,
    travel,
    trips,
    workspace,
)


@dataclass(frozen=True)
class Seeder:
    id: str
    run: Callable
    after: tuple[str, ...] = field(default=())


SEEDERS = [
    Seeder("profiles", profiles.seed_profiles),
    Seeder("catalogs", catalogs.seed_catalogs, ("profiles",)),
    Seeder("derived", derived.seed_derived, ("catalogs",)),
    Seeder("trips", trips.seed_trips, ("catalogs",)),
    Seeder("cross_app_events", cross_app_events.seed_cross_app_events, ("catalogs",)),
    Seeder("shopping", shopping.seed_shopping, ("catalogs",)),
    Seeder("plants", plants.seed_plants, ("catalogs",)),
    Seeder("markets", markets.seed_markets, ("profiles",)),
    Seeder("predictions", predictions.seed_predictions, ("profiles",)),
    Seeder("taxes", taxes.seed_taxes, ("profiles",)),
    Seeder("workspace", workspace.seed_workspace, ("profiles",)),
    Seeder("network", network.seed_network, ("profiles",)),
    Seeder("routine.rides", routine.fill_rides, ("trips", "cross_app_events", "plants")),
    Seeder("routine.food", routine.fill_food, ("cross_app_events", "plants")),
    Seeder("routine.retail", routine.fill_retail, ("shopping", "trips", "cross_app_events", "plants")),
    Seeder("routine.grocery", routine.fill_grocery, ("plants",)),
    Seeder("routine.reservations", routine.fill_reservations, ("cross_app_events", "plants")),
    Seeder("routine.recurring", routine.fill_recurring, ("profiles",)),
    Seeder("storefronts", storefronts.seed_storefronts, ("routine.food", "routine.retail", "routine.grocery")),
    Seeder("travel", travel.seed_travel, ("trips", "routine.rides", "routine.reservations")),
    Seeder(
        "vaultbank",
        bank.seed_bank,
        (
            "derived",
            "markets",
            "routine.rides",
            "routine.food",
            "routine.retail",
            "routine.grocery",
            "routine.recurring",
        ),
    ),
    Seeder("chat", chat.seed_chat, ("trips", "cross_app_events", "plants", "vaultbank")),
    Seeder(
        "mail",
        mail.seed_mail,
        (
            "trips",
            "cross_app_events",
            "shopping",
            "plants",
            "routine.rides",
            "routine.food",
            "routine.retail",
            "routine.grocery",
            "routine.reservations",
            "vaultbank",
        ),
    ),
    Seeder("calendar", calendar.seed_calendar, ("trips", "cross_app_events", "plants")),
    Seeder("calendar_people", calendar_people.seed_calendar_people, ("calendar",)),
    Seeder("banking", banking.seed_banking, ("vaultbank",)),
    Seeder("firefox", firefox.seed_firefox, ("trips", "cross_app_events", "plants")),
    Seeder("documents", files.seed_documents, ("derived",)),
    Seeder("office", office.seed_office, ("vaultbank", "calendar", "documents", "taxes")),
    Seeder(
        "databases",
        files.seed_databases,
        (
            "vaultbank",
            "banking",
            "chat",
            "mail",
            "calendar",
            "calendar_people",
            "markets",
            "predictions",
            "taxes",
            "workspace",
            "network",
            "storefronts",
            "travel",
        ),
    ),
    Seeder("summary", files.seed_summary, ("databases", "documents", "office", "firefox")),
]


def ordered(seeders=None):
    """Seeders sorted so each runs after everything it names in ``after`` (stable for ties)."""
    seeders = list(seeders or SEEDERS)
    by_id = {s.id: s for s in seeders}
    for s in seeders:
        missing = [a for a in s.after if a not in by_id]
        if missing:
            raise ValueError(f"seeder {s.id!r} runs after unknown seeder(s) {missing}")
    done: set[str] = set()
    result: list[Seeder] = []
    while len(result) < len(seeders):
        ready = [s for s in seeders if s.id not in done and all(a in done for a in s.after)]
        if not ready:
            raise ValueError(
                "seeders depend on each other in a cycle: " + ", ".join(s.id for s in seeders if s.id not in done)
            )
        result.append(ready[0])
        done.add(ready[0].id)
    return result
