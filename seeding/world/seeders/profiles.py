"""``profiles``: the persona's own records from the spec (contacts, accounts, portfolios, markets, projects,
the LockedIn profile, tax forms, shop wishlist and subscriptions, mail and calendar settings)."""

from ..persona import plain_name


def _chat_users(ctx):
    """The persona and their contacts as HooliChat users (HooliWork: the contacts present there)."""
    spec = ctx.persona.spec
    ident = spec["identity"]
    for app in ("buzzchat", "workbuzz"):
        ctx.add(
            app,
            "users",
            {"name": ident["name"], "email": ident.get("email"), "phone": ident.get("phone"), "relationship": "self"},
            "identity",
        )
        for index, person in enumerate(spec.get("contacts", [])):
            if app == "buzzchat" or app in person.get("apps_present_in", []):
                ctx.add(
                    app,
                    "users",
                    {
                        "name": person["name"],
                        "email": person.get("email"),
                        "phone": person.get("phone"),
                        "relationship": person.get("relationship"),
                    },
                    f"contacts[{index}]",
                )


def _work_status(ctx):
    """HooliWork's status and preferences from the app override."""
    persona = ctx.persona
    work = persona.override("workbuzz")
    if work:
        # His custom status (emoji and text) is one of his settings, beside the others.
        for key in sorted(k for k in work if not k.startswith("_")):
            ctx.add("workbuzz", "preferences", {"key": key, "value": str(work[key])}, "app_overrides.workbuzz")


def _bank_customer(ctx):
    """Gringotts' customer and the spec's recurring charges."""
    spec = ctx.persona.spec
    ident = spec["identity"]
    fin = spec.get("financial", {})
    ctx.add(
        "vaultbank",
        "customers",
        {
            "name": ident["name"],
            "email": ident.get("email"),
            "phone": ident.get("phone"),
            "address": ident.get("address"),
        },
        "identity",
    )
    for number, charge in enumerate(fin.get("recurring_charges", [])):
        ctx.add(
            "vaultbank",
            "recurring_payments",
            {
                "account_id": 3 if charge.get("method") == "credit_card" else 1,
                "name": plain_name(charge["name"]),
                "payee": charge.get("payee") or plain_name(charge["name"]),
                "amount": charge["amount"],
                "day_of_month": charge["day"],
                "method": charge["method"],
                "status": "active",
            },
            f"financial.recurring_charges[{number}]",
        )


def _investments(ctx):
    """BatBucks' cash, holdings, orders and dividends."""
    spec = ctx.persona.spec
    inv = spec.get("investments")
    if inv:
        ctx.add("batbucks", "account", {"cash_balance": inv.get("cash_balance", 0)}, "investments")
        for n, h in enumerate(inv.get("holdings", [])):
            ctx.add(
                "batbucks",
                "holdings",
                {
                    "ticker": h["ticker"],
                    "name": h.get("name"),
                    "shares": h["shares"],
                    "avg_cost": h["avg_cost"],
                    "cost_basis": round(h["shares"] * h["avg_cost"], 2),
                    "note": None,
                },
                f"investments.holdings[{n}]",
            )
        for n, o in enumerate(inv.get("order_history", [])):
            ctx.add(
                "batbucks",
                "orders",
                {
                    "placed_on": ctx.day(o["date"]).isoformat(),
                    "action": o["action"],
                    "ticker": o["ticker"],
                    "shares": o["shares"],
                    "price": o["price"],
                    "total": round(o["shares"] * o["price"], 2),
                },
                f"investments.order_history[{n}]",
            )
        for n, d in enumerate(inv.get("dividends", [])):
            ctx.add(
                "batbucks",
                "dividends",
                {"paid_on": ctx.day(d["date"]).isoformat(), "ticker": d["ticker"], "amount": d["amount"]},
                f"investments.dividends[{n}]",
            )


def _prediction_markets(ctx):
    """OddsMarket's account, positions and watchlist."""
    spec = ctx.persona.spec
    pm = spec.get("prediction_markets")
    if pm:
        ctx.add(
            "oddsmarket",
            "account",
            {
                "balance": pm.get("balance", 0),
                "total_invested": pm.get("total_invested", 0),
                "net_pnl": pm.get("net_pnl", 0),
            },
            "prediction_markets",
        )
        for n, pos in enumerate(pm.get("active_positions", [])):
            mid = ctx.add(
                "oddsmarket",
                "markets",
                {"ticker": pos["market_ticker"], "title": pos["title"], "source": pos.get("source")},
                f"prediction_markets.active_positions[{n}]",
            )
            ctx.add(
                "oddsmarket",
                "positions",
                {
                    "market_id": mid,
                    "side": pos["side"],
                    "shares": pos["shares"],
                    "avg_price": pos["avg_price"],
                    "note": None,
                },
                f"prediction_markets.active_positions[{n}]",
            )
        for n, title in enumerate(pm.get("watchlist", [])):
            ctx.add("oddsmarket", "watchlist", {"title": title}, f"prediction_markets.watchlist[{n}]")


def _projects(ctx):
    """SprintBoard's projects, members and tasks."""
    spec = ctx.persona.spec
    ident = spec["identity"]
    for p, project in enumerate(spec.get("work", {}).get("projects", [])):
        where = f"work.projects[{p}]"
        pid = ctx.add(
            "sprintboard",
            "projects",
            {
                "name": project["name"],
                "status": project.get("status", "in_progress"),
                "deadline": ctx.day(project["deadline"]).isoformat() if project.get("deadline") else None,
            },
            where,
        )
        for name in [ident["name"], *project.get("collaborators", [])]:
            ctx.add("sprintboard", "members", {"project_id": pid, "name": name}, where)
        for t, task in enumerate(project.get("sprintboard_tasks", [])):
            ctx.add(
                "sprintboard",
                "tasks",
                {
                    "project_id": pid,
                    "title": plain_name(task["title"], lowercase_remarks=False),
                    "assignee": task.get("assignee"),
                    "status": task["status"],
                    "due": ctx.day(task["due"]).isoformat() if task.get("due") else None,
                    "estimate": str(task["estimate"]) if task.get("estimate") is not None else None,
                },
                f"{where}.sprintboard_tasks[{t}]",
            )


def _lockedin_profile(ctx):
    """LockedIn's profile, experience and connections."""
    persona = ctx.persona
    spec = ctx.persona.spec
    ident = spec["identity"]
    li = persona.override("lockedin")
    ctx.add(
        "lockedin",
        "profile",
        {
            "name": ident["name"],
            "headline": li.get("headline", ident.get("role")),
            "about": li.get("about", ident.get("bio")),
            "location": ident.get("city"),
        },
        "app_overrides.lockedin" if li else "identity",
    )
    ctx.add(
        "lockedin", "experience", {"company": ident.get("employer", ""), "title": ident.get("role", "")}, "identity"
    )
    for index, person in enumerate(spec.get("contacts", [])):
        if "lockedin" in person.get("apps_present_in", []) or person.get("relationship", "").startswith("office"):
            ctx.add(
                "lockedin",
                "connections",
                {"name": person["name"], "relationship": person.get("relationship")},
                f"contacts[{index}]",
            )


def _tax_return(ctx):
    """SpeedTax's return: W-2, 1099s and deductions."""
    spec = ctx.persona.spec
    tax = spec.get("tax_info")
    if tax:
        rid = ctx.add(
            "speedtax",
            "returns",
            {"tax_year": tax.get("tax_year"), "state_code": tax.get("state_code"), "status": "in_progress"},
            "tax_info",
        )
        w2 = tax.get("w2")
        if w2:
            ctx.add(
                "speedtax",
                "w2_forms",
                {
                    "return_id": rid,
                    "employer": w2["employer"],
                    "gross_wages": w2["gross_wages"],
                    "federal_withheld": w2["federal_withheld"],
                    "state_withheld": w2["state_withheld"],
                    "pretax_401k": w2.get("pretax_401k", 0),
                    "pretax_health": w2.get("pretax_health", 0),
                    "net_pay": w2.get(
                        "net_deposits_to_bank",
                        round(
                            w2["gross_wages"]
                            - w2["federal_withheld"]
                            - w2["state_withheld"]
                            - w2.get("pretax_401k", 0)
                            - w2.get("pretax_health", 0),
                            2,
                        ),
                    ),
                    "state": w2.get("state"),
                },
                "tax_info.w2",
            )
        for n, f in enumerate(tax.get("freelance_1099", [])):
            ctx.add(
                "speedtax",
                "forms_1099",
                {"return_id": rid, "payer": f["payer"], "amount": f["amount"], "paid_via": f.get("paid_via")},
                f"tax_info.freelance_1099[{n}]",
            )
        ded = tax.get("deductions", {})
        if "home_office_wfh_days" in ded:
            ctx.add(
                "speedtax",
                "deductions",
                {
                    "return_id": rid,
                    "kind": "home_office",
                    "description": f"{ded['home_office_wfh_days']} work-from-home days",
                    "amount": None,
                    "receipt_exists": None,
                },
                "tax_info.deductions.home_office_wfh_days",
            )
        for n, c in enumerate(ded.get("charitable", [])):
            ctx.add(
                "speedtax",
                "deductions",
                {
                    "return_id": rid,
                    "kind": "charitable",
                    "description": plain_name(c["org"]),
                    "amount": c["amount"],
                    "receipt_exists": int(bool(c.get("receipt_exists"))),
                },
                f"tax_info.deductions.charitable[{n}]",
            )
        for n, q in enumerate(ded.get("questionable_deductions", [])):
            ctx.add(
                "speedtax",
                "deductions",
                {
                    "return_id": rid,
                    "kind": "claimed",
                    "description": q["claimed_as"],
                    "amount": q["amount"],
                    "receipt_exists": int(bool(q.get("receipt_exists"))),
                },
                f"tax_info.deductions.questionable_deductions[{n}]",
            )


def _shop_lists(ctx):
    """HooliShop's wishlist and Subscribe & Save products."""
    spec = ctx.persona.spec
    persona = ctx.persona
    shop = spec.get("shopping", {})
    for n, wish in enumerate(shop.get("wishlist", [])):
        prod = ctx.add(
            "hoolishop",
            "products",
            {"name": wish["item"], "category": wish.get("category", "Wishlist"), "price": wish["price"]},
            f"shopping.wishlist[{n}]",
        )
        ctx.notes.setdefault(("index", "hoolishop", "products"), {})[wish["item"]] = prod
        # The spec's note on a wish is the author's comment on why it is there, not one the user typed.
        note = None if wish.get("note") in persona.remarks else wish.get("note")
        ctx.add("hoolishop", "wishlist", {"product_id": prod, "note": note}, f"shopping.wishlist[{n}]")
    for n, sub in enumerate(persona.override("hoolishop").get("subscribe_save", [])):
        prod = ctx.add(
            "hoolishop",
            "products",
            {"name": sub["item"], "category": "Subscribe & Save", "price": sub["price"]},
            f"app_overrides.hoolishop.subscribe_save[{n}]",
        )
        ctx.notes.setdefault(("index", "hoolishop", "products"), {})[sub["item"]] = prod
        ctx.add(
            "hoolishop",
            "subscriptions",
            {
                "product_id": prod,
                "frequency": sub.get("frequency", "monthly"),
                "price": sub["price"],
                "status": "active",
            },
            f"app_overrides.hoolishop.subscribe_save[{n}]",
        )


def _mail_and_calendar_settings(ctx):
    """HooliMail's labels and settings, HooliCalendar's settings."""
    persona = ctx.persona
    mail = persona.override("mail")
    for n, label in enumerate(mail.get("labels", [])):
        ctx.add("mail", "labels", {"name": label}, f"app_overrides.mail.labels[{n}]")
    for key in ("signature", "vacation_responder"):
        if key in mail:
            ctx.add("mail", "settings", {"key": key, "value": mail[key]}, "app_overrides.mail")
    for key, value in sorted(persona.override("hoolicalendar").items()):
        if not key.startswith("_"):
            ctx.add("calendar", "settings", {"key": key, "value": str(value)}, "app_overrides.hoolicalendar")


PARTS = (
    _chat_users,
    _work_status,
    _bank_customer,
    _investments,
    _prediction_markets,
    _projects,
    _lockedin_profile,
    _tax_return,
    _shop_lists,
    _mail_and_calendar_settings,
)


def seed_profiles(ctx):
    """Every part of the profiles, in this order (row ids follow it)."""
    for part in PARTS:
        part(ctx)
