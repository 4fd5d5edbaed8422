"""``banking``: Gringotts around the ledger: Zelle and bill payees, scheduled transfers, cards, categories
and monthly budgets, merchants, alert rules and the alerts they sent, a dispute, savings interest and tax
documents. Runs after ``vaultbank`` and reads the accounts and transactions it wrote.
"""

import datetime as dt
from collections import defaultdict

from ..persona import plain_name

CHECKING, SAVINGS, CARD = 1, 2, 3
BUDGETS = {
    "Dining": 600.0,
    "Shopping": 400.0,
    "Entertainment": 150.0,
    "Auto": 200.0,
    "Groceries": 250.0,
    "Transport": 250.0,
}


def seed_banking(ctx):
    spec = ctx.persona.spec
    fin = spec.get("financial", {})
    txns = ctx.rows("vaultbank", "transactions")
    if not txns:
        return
    zelle_paid: dict[str, str] = {}
    for t in txns:
        if t.get("method") == "zelle" and t["merchant"]:
            zelle_paid[t["merchant"]] = max(zelle_paid.get(t["merchant"], ""), t["posted_date"])
    # Zelle payees: every contact with a phone or email Michael could pay; the landlord is the one with history.
    payee_ids = {}
    for n, person in enumerate(spec.get("contacts", [])):
        if not person.get("email"):
            continue
        payee_ids[person["name"]] = ctx.add(
            "vaultbank",
            "payees",
            {
                "name": person["name"],
                "kind": "zelle",
                "email": person.get("email"),
                "phone": person.get("phone"),
                "nickname": person["name"].split()[0],
                "account_hint": None,
                "added_on": (ctx.start + dt.timedelta(days=7 * n)).isoformat(),
                "last_paid_on": zelle_paid.get(person["name"]),
            },
            f"contacts[{n}]",
        )
    for n, charge in enumerate(fin.get("recurring_charges", [])):
        if charge.get("method") != "checking":
            continue
        name = plain_name(charge["name"])
        ctx.add(
            "vaultbank",
            "payees",
            {
                "name": name,
                "kind": "bill_pay",
                "email": None,
                "phone": None,
                "nickname": name.split()[0],
                "account_hint": f"acct ending {1000 + 37 * n}",
                "added_on": ctx.start.isoformat(),
                "last_paid_on": max((t["posted_date"] for t in txns if t["merchant"] == name), default=None),
            },
            f"financial.recurring_charges[{n}]",
        )
    for n, charge in enumerate(fin.get("recurring_charges", [])):
        if charge.get("method") != "zelle" or charge.get("payee") not in payee_ids:
            continue
        next_day = ctx.anchor.replace(day=1)
        while next_day <= ctx.anchor:
            next_day = (next_day + dt.timedelta(days=32)).replace(day=int(charge["day"]))
        ctx.add(
            "vaultbank",
            "scheduled_transfers",
            {
                "from_account_id": CHECKING,
                "payee_id": payee_ids[charge["payee"]],
                "to_account_id": None,
                "amount": charge["amount"],
                "frequency": "monthly",
                "next_date": next_day.isoformat(),
                "memo": plain_name(charge["name"]),
                "status": "active",
            },
            f"financial.recurring_charges[{n}]",
        )
    ctx.add(
        "vaultbank",
        "scheduled_transfers",
        {
            "from_account_id": CHECKING,
            "payee_id": None,
            "to_account_id": SAVINGS,
            "amount": 50.0,
            "frequency": "monthly",
            "next_date": (ctx.anchor + dt.timedelta(days=(15 - ctx.anchor.day) % 30 or 30)).isoformat(),
            "memo": "Save for a rainy day",
            "status": "paused",
        },
        "financial.savings_balance",
    )
    _cards(ctx, fin)
    _ledger_views(ctx, txns)
    _alerts(ctx, txns, fin)
    _extras(ctx, txns, fin)


def _cards(ctx, fin):
    spec = ctx.persona.spec
    name = spec["identity"]["name"].upper()
    expires = f"{(ctx.anchor.month % 12) + 1:02d}/{(ctx.anchor.year + 3) % 100:02d}"
    card_meta = fin.get("card", {})
    ctx.add(
        "vaultbank",
        "cards",
        {
            "account_id": CHECKING,
            "kind": "debit",
            "name_on_card": name,
            "network": "Visa",
            "number_last4": "4471",
            "expires": expires,
            "status": "active",
            "daily_limit": 1500.0,
            "contactless": 1,
        },
        "financial",
    )
    ctx.add(
        "vaultbank",
        "cards",
        {
            "account_id": CARD,
            "kind": "credit",
            "name_on_card": name,
            "network": card_meta.get("network") or "Visa",
            "number_last4": "1932",
            "expires": expires,
            "status": "active",
            "daily_limit": None,
            "contactless": 1,
        },
        "financial.credit_limit",
    )


def _ledger_views(ctx, txns):
    # Categories, monthly budgets (what was spent against each), merchants.
    categories = sorted({t["category"] for t in txns if t.get("category")})
    cat_ids = {
        c: ctx.add(
            "vaultbank",
            "categories",
            {"name": c, "kind": "income" if c == "Income" else "transfer" if c == "Transfer" else "spending"},
            "vaultbank ledger",
        )
        for c in categories
    }
    spent: defaultdict[tuple, float] = defaultdict(float)
    for t in txns:
        if t["amount"] < 0 and t.get("category") in BUDGETS:
            spent[(t["category"], t["posted_date"][:7])] += -t["amount"]
    months = sorted({t["posted_date"][:7] for t in txns})[-6:]
    for month in months:
        for category, limit in BUDGETS.items():
            if category in cat_ids:
                ctx.add(
                    "vaultbank",
                    "budgets",
                    {
                        "category_id": cat_ids[category],
                        "month": month,
                        "limit_amount": limit,
                        "spent": round(spent[(category, month)], 2),
                    },
                    "vaultbank budgets",
                )
    merchants: dict[str, dict] = {}
    for t in txns:
        if not t.get("merchant"):
            continue
        m = merchants.setdefault(
            t["merchant"],
            {"category": t.get("category"), "count": 0, "first": t["posted_date"], "last": t["posted_date"]},
        )
        m["count"] += 1
        m["last"] = t["posted_date"]
    for merchant, m in merchants.items():
        ctx.add(
            "vaultbank",
            "merchants",
            {
                "name": merchant,
                "category": m["category"],
                "city": "Scranton, PA",
                "transaction_count": m["count"],
                "first_seen": m["first"],
                "last_seen": m["last"],
            },
            "vaultbank ledger",
        )


def _alerts(ctx, txns, fin):
    # Alerts: low balance, large purchase, card near its limit, payday.
    rules = {
        "large_purchase": ctx.add(
            "vaultbank",
            "alert_rules",
            {"account_id": CARD, "kind": "large_purchase", "threshold": 250.0, "channel": "email", "enabled": 1},
            "vaultbank alerts",
        ),
        "low_balance": ctx.add(
            "vaultbank",
            "alert_rules",
            {"account_id": CHECKING, "kind": "low_balance", "threshold": 500.0, "channel": "push", "enabled": 1},
            "vaultbank alerts",
        ),
        "deposit": ctx.add(
            "vaultbank",
            "alert_rules",
            {"account_id": CHECKING, "kind": "deposit", "threshold": None, "channel": "push", "enabled": 1},
            "vaultbank alerts",
        ),
        "credit_utilization": ctx.add(
            "vaultbank",
            "alert_rules",
            {"account_id": CARD, "kind": "credit_utilization", "threshold": 0.8, "channel": "email", "enabled": 1},
            "vaultbank alerts",
        ),
    }
    limit = float(fin.get("credit_limit") or 0)
    for t in txns:
        when = f"{t['posted_date']} 0{7 + t['id'] % 3}:{t['id'] % 60:02d}:00"
        if t["account_id"] == CARD and t["amount"] <= -250:
            message = f"A ${-t['amount']:,.2f} purchase at {t['merchant']} was made on your card ending 1932."
            rule = rules["large_purchase"]
        elif t["account_id"] == CHECKING and t["amount"] < 0 and t["balance_after"] < 500:
            message = f"Your checking balance is ${t['balance_after']:,.2f}, below your $500.00 alert."
            rule = rules["low_balance"]
        elif t["account_id"] == CHECKING and t.get("category") == "Income":
            message = f"A deposit of ${t['amount']:,.2f} from {t['merchant']} posted to checking."
            rule = rules["deposit"]
        elif t["account_id"] == CARD and limit and -t["balance_after"] >= 0.8 * limit and t["amount"] < 0:
            message = f"Your card balance is {-t['balance_after'] / limit:.0%} of your ${limit:,.0f} limit."
            rule = rules["credit_utilization"]
        else:
            continue
        ctx.add(
            "vaultbank",
            "alerts",
            {
                "rule_id": rule,
                "sent_at": when,
                "message": message,
                "transaction_id": t["id"],
                "read": int(t["posted_date"] < (ctx.anchor - dt.timedelta(days=3)).isoformat()),
            },
            "vaultbank alerts",
        )


def _extras(ctx, txns, fin):
    card_charges = [t for t in txns if t["account_id"] == CARD and t["amount"] < 0 and t.get("category") == "Recurring"]
    if card_charges:
        disputed = card_charges[len(card_charges) // 3]
        opened = dt.date.fromisoformat(disputed["posted_date"]) + dt.timedelta(days=6)
        ctx.add(
            "vaultbank",
            "disputes",
            {
                "transaction_id": disputed["id"],
                "opened_on": opened.isoformat(),
                "reason": "I don't remember signing up for this",
                "status": "denied",
                "resolved_on": (opened + dt.timedelta(days=21)).isoformat(),
            },
            "vaultbank disputes",
        )
    month = ctx.start.replace(day=1)
    while month <= ctx.anchor:
        end = (month + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
        if end <= ctx.anchor:
            ctx.add(
                "vaultbank",
                "interest_payments",
                {
                    "account_id": SAVINGS,
                    "period_end": end.isoformat(),
                    "apy": 0.004,
                    "amount": round(float(fin.get("savings_balance", 0)) * 0.004 / 12, 2),
                },
                "financial.savings_balance",
            )
        month = end + dt.timedelta(days=1)
    tax_year = ctx.persona.section("tax_info", {}).get("tax_year")
    if isinstance(tax_year, int):
        ctx.add(
            "vaultbank",
            "tax_documents",
            {
                "tax_year": tax_year,
                "form": "1099-INT",
                "account_id": SAVINGS,
                "amount": round(float(fin.get("savings_balance", 0)) * 0.004, 2),
                "available_on": ctx.day(f"{tax_year + 1}-01-31").isoformat(),
            },
            "financial.savings_balance",
        )
