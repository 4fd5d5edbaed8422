"""Files under home/user, the app databases, and the Markdown persona summary (written last).

``documents`` writes the spec's filesystem documents with their mtimes set relative to the anchor;
``databases`` writes every app's SQLite file from the rows the other seeders assembled; ``summary``
writes SUMMARY.md (identity, contacts, routines, finances, upcoming events) for reviewers and the judge.
"""

import datetime as dt
import os

from ..apps import APPS, SCHEMAS, db_path
from ..core import ZONE, write_sqlite
from .derived import paystub


def seed_documents(ctx):
    for n, doc in enumerate(ctx.persona.override("filesystem").get("documents", [])):
        relative = doc["path"].lstrip("/")
        if relative.startswith("home/user/"):
            relative = relative[len("home/user/") :]
        if ".." in relative.split("/"):
            raise ValueError(f"app_overrides.filesystem.documents[{n}].path {doc['path']!r} leaves the home folder")
        target = ctx.path(f"home/user/{relative}", f"app_overrides.filesystem.documents[{n}]")
        target.write_text(doc.get("content", ""), encoding="utf-8")
        moment = dt.datetime.combine(ctx.relative(int(doc.get("mtime_days_ago", 0))), dt.time(10, 0))
        stamp = moment.replace(tzinfo=ZONE).timestamp()
        os.utime(target, (stamp, stamp))
    stub = ctx.notes.get("paystub")
    if stub:
        employer = ctx.persona.spec["identity"].get("employer", "Employer")
        lines = [f"{employer} - pay statement (biweekly)", f"Employee: {ctx.persona.name}", ""]
        lines += [f"{key.replace('_', ' ').title():<22} ${value:>10,.2f}" for key, value in stub.items()]
        ctx.path("home/user/Documents/Paystubs/latest_paystub.txt", "derived.paystub").write_text(
            "\n".join(lines) + "\n", encoding="utf-8"
        )


def seed_databases(ctx):
    for app in APPS:
        write_sqlite(ctx.out / db_path(app), SCHEMAS[app], ctx.tables.get(app, {}))
        ctx.files[db_path(app)] = app
    ctx.notes["counts"] = {
        app: {table: len(rows) for table, rows in sorted(tables.items())} for app, tables in sorted(ctx.tables.items())
    }


def _money(value):
    return f"${value:,.2f}"


def seed_summary(ctx):
    spec = ctx.persona.spec
    ident = spec["identity"]
    lines = [
        f"# {ident['name']}",
        "",
        f"World anchored on {ctx.anchor.isoformat()} (spec dates moved by {ctx.shift.days} days).",
        "",
        "## Identity",
        "",
    ]
    for key in ("age", "city", "state", "address", "employer", "role", "email", "phone"):
        if ident.get(key) is not None:
            lines.append(f"- **{key.title()}:** {ident[key]}")
    if ident.get("bio"):
        lines += ["", ident["bio"]]
    lines += ["", "## Contacts", "", "| name | relationship | frequency | email | apps |", "|---|---|---|---|---|"]
    for c in spec.get("contacts", []):
        lines.append(
            f"| {c['name']} | {c.get('relationship', '').replace('_', ' ')} | {c.get('frequency', '')} "
            f"| {c.get('email', '')} | {', '.join(APPS.get(a, a) for a in c.get('apps_present_in', []))} |"
        )
    routines = spec.get("routines", {})
    lines += ["", "## Routines", ""]
    commute = routines.get("commute")
    if commute:
        lines.append(
            f"- Commute by {commute.get('mode')} on {', '.join(commute.get('days', []))} at "
            f"{commute.get('typical_departure')}; works from home on {', '.join(commute.get('wfh_days', []))}."
        )
    lunch = routines.get("meals", {}).get("lunch", {})
    if lunch:
        lines.append(
            f"- Lunch: {lunch.get('typical_restaurant')} ({lunch.get('typical_order')}), {lunch.get('frequency')}."
        )
    improv = routines.get("improv_class")
    if improv:
        lines.append(f"- Improv class every {improv.get('day')} at {improv.get('time')}, {improv.get('location')}.")
    fin = spec.get("financial", {})
    stub = ctx.notes.get("paystub", paystub(ctx))
    accounts = ctx.rows("vaultbank", "accounts")
    lines += ["", "## Finances", ""]
    for acc in accounts:
        lines.append(
            f"- {acc['name']}: {_money(acc['balance'])}"
            + (f" (limit {_money(acc['credit_limit'])})" if acc.get("credit_limit") else "")
        )
    lines.append(
        f"- Salary {_money(ident.get('salary', 0))}; "
        f"biweekly paystub: gross {_money(stub['gross'])}, net {_money(stub['net'])}."
    )
    if fin.get("recurring_charges"):
        lines += ["", "| recurring charge | amount | day | method |", "|---|---|---|---|"]
        lines += [
            f"| {r['name']} | {_money(r['amount'])} | {r['day']} | {r['method']} |" for r in fin["recurring_charges"]
        ]
    lines += ["", "## Upcoming events", ""]
    upcoming = sorted((e for e in ctx.events if e.date >= ctx.anchor.isoformat()), key=lambda e: (e.date, e.id))
    for e in upcoming:
        extra = ", ".join(x for x in (e.code, _money(e.amount) if e.amount is not None else None) if x)
        lines.append(f"- {e.date}: {e.title}" + (f" ({extra})" if extra else "") + f" - `{e.id}`")
    if not upcoming:
        lines.append("- none")
    lines += ["", "## Record counts", ""]
    counts = ctx.notes.get("counts", {})
    lines += [
        f"- {APPS.get(app, app)}: " + ", ".join(f"{table} {n}" for table, n in sorted(tables.items()))
        for app, tables in sorted(counts.items())
    ]
    ctx.path("SUMMARY.md", "summary").write_text("\n".join(lines) + "\n", encoding="utf-8")
