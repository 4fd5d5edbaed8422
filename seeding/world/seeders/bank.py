"""Gringotts: accounts, every queued charge and deposit, card payments, routine purchases, statements.

Balances are built backwards from the spec's balances at the anchor, so the final balance of each
account is the spec's and every ``balance_after`` and statement adds up.
"""

import datetime as dt
from collections import defaultdict

from ..apps import target
from ..persona import plain_name

CHECKING, SAVINGS, CARD = 1, 2, 3
PURCHASES = [
    ("Dunkin' Donuts", "Dining", 4, 14),
    ("Sunoco Gas", "Auto", 25, 60),
    ("Chili's Grill & Bar", "Dining", 18, 55),
    ("CVS Pharmacy", "Health", 6, 40),
    ("Steamtown Mall", "Shopping", 15, 90),
    ("Dollar General", "Shopping", 5, 30),
    ("Poor Richard's Pub", "Dining", 12, 48),
    ("Cinemark Theatres", "Entertainment", 12, 30),
    ("Wawa", "Dining", 5, 18),
    ("Barnes & Noble", "Books", 10, 40),
]


def _month_end(day: dt.date) -> dt.date:
    return (day.replace(day=1) + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)


DONATION_DAYS = ("06-14", "11-20", "12-10")  # when in the tax year each listed gift was made


def _donations(ctx) -> list[dict]:
    """The tax return's charitable gifts, charged to the card in the tax year (the bank is their only record)."""
    gifts = ctx.persona.section("tax_info", {}).get("deductions", {}).get("charitable", [])
    year = ctx.persona.section("tax_info", {}).get("tax_year")
    if not isinstance(year, int):
        return []
    records = []
    for n, gift in enumerate(gifts):
        day = ctx.day(f"{year}-{DONATION_DAYS[n % len(DONATION_DAYS)]}")
        org = plain_name(gift["org"])
        records.append(
            {
                "date": day.isoformat(),
                "amount": -float(gift["amount"]),
                "merchant": org,
                "description": f"DONATION {org.upper()}"[:80],
                "category": "Charity",
                "method": "credit_card",
                "reference": None,
                "provenance": f"tax_info.deductions.charitable[{n}]",
            }
        )
    return records


CHECKING_FLOOR = 150.0  # checking never dips below this: there is no overdraft fee in the ledger
CARD_CEILING = 0.95  # the card's balance stays under this share of its limit until the spec's final balance


def _card_payments(ctx, rng, txns, spend, fin) -> list[tuple[dt.date, float]]:
    """A payment on the 9th of each month for the month before, sized so the card stays inside its limit and ends
    at the spec's balance: most months pay it down to about half the limit, the last months let it climb."""
    limit = float(fin.get("credit_limit") or 0) or None
    final = -float(fin.get("credit_used", 0))
    months = {}
    for month in sorted(spend):
        pay_day = (dt.date.fromisoformat(month + "-01") + dt.timedelta(days=40)).replace(day=9)
        if pay_day <= ctx.anchor:
            months[pay_day] = month
    days = list(months)
    if not days:
        return []
    charges = sorted((dt.date.fromisoformat(d), row["amount"]) for d, account, row, _ in txns if account == CARD)

    def between(after: dt.date | None, until: dt.date | None) -> float:
        return sum(a for d, a in charges if (after is None or d > after) and (until is None or d <= until))

    if limit is None:  # no limit to respect: pay what was spent
        return [(day, round(-spend[months[day]] * 0.97, 2)) for day in days]
    after_last = final - between(days[-1], None)  # the balance right after the last payment
    balance, previous, payments = -limit * 0.55, None, []
    for k, day in enumerate(days):
        balance += between(previous, day)
        if k == len(days) - 1:
            target = after_last
        else:
            coming = -between(day, days[k + 1])  # what will be charged before the next payment
            target = -limit * rng.uniform(0.42, 0.6)
            if k == len(days) - 2:  # low enough that the last payment still pays something
                target = min(target, after_last - 25.0 + coming)
            target = max(target, -limit * CARD_CEILING + coming)
        amount = round(max(25.0, target - balance), 2)
        payments.append((day, amount))
        balance += amount
        previous = day
    return payments


def _keep_checking_above(txns, final: float, floor: float):
    """Move routine debit spending later where checking would dip below ``floor``: a balance only depends on
    what flows after it (it ends at the spec's), so more spending after a dip lifts it."""
    for _ in range(40):
        flows = sorted(
            ((t[0], n, t) for n, t in enumerate(txns) if t[1] == CHECKING), key=lambda item: (item[0], item[1])
        )
        balance, lowest, where = final, final, None
        for position in range(len(flows) - 1, -1, -1):
            if balance < lowest:
                lowest, where = balance, position
            balance -= flows[position][2][2]["amount"]
        if where is None or lowest >= floor:
            return
        later = [item[2] for item in flows[where + 1 :] if item[2][3] == "financial+routines"]
        if not later:
            return
        extra = (floor - lowest + 25.0) / len(later)
        for t in later:
            t[2]["amount"] = round(t[2]["amount"] - extra, 2)


def seed_bank(ctx):
    rng = ctx.rng("vaultbank")
    fin = ctx.persona.section("financial", {})
    txns = []  # (date, seq, account, row)
    for rec in [*ctx.pending("charge"), *_donations(ctx)]:
        if rec["date"] > ctx.anchor.isoformat():
            continue  # a charge is posted when it happens: nothing after "today"
        account = CHECKING if rec.get("method") in ("checking", "zelle", "debit_card") else CARD
        row = {k: rec[k] for k in ("amount", "merchant", "description", "category", "method", "reference")}
        row["merchant"], row["description"] = plain_name(row["merchant"]), plain_name(row["description"])
        if (row["description"] or "").startswith("Zelle to "):
            row["method"] = "zelle"
        txns.append([rec["date"], account, row, rec["provenance"]])
    # Card bill paid from checking each month: last month's card spend.
    spend: defaultdict[str, float] = defaultdict(float)
    for date, account, row, _ in txns:
        if account == CARD:
            spend[date[:7]] += row["amount"]
    for pay_day, amount in _card_payments(ctx, rng, txns, spend, fin):
        txns.append(
            [
                pay_day.isoformat(),
                CHECKING,
                {
                    "amount": -amount,
                    "merchant": "Gringotts Card",
                    "description": "CARD PAYMENT - THANK YOU",
                    "category": "Transfer",
                    "method": "transfer",
                    "reference": None,
                },
                "financial.credit_used",
            ]
        )
        txns.append(
            [
                pay_day.isoformat(),
                CARD,
                {
                    "amount": amount,
                    "merchant": "Gringotts Card",
                    "description": "PAYMENT RECEIVED",
                    "category": "Transfer",
                    "method": "transfer",
                    "reference": None,
                },
                "financial.credit_used",
            ]
        )
    # Routine debit purchases absorb what income leaves over, so checking starts from a plausible balance.
    need = target(ctx, "bank_transactions") - len(txns)
    if need > 0:
        surplus = sum(row["amount"] for _, account, row, _ in txns if account == CHECKING)
        budget = max(surplus - 1500.0, need * 8.0)
        picks = [
            (rng.choice(PURCHASES), ctx.start + dt.timedelta(days=rng.randrange((ctx.anchor - ctx.start).days + 1)))
            for _ in range(need)
        ]
        weights = [rng.uniform(low, high) for (_, _, low, high), _ in picks]
        scale = budget / sum(weights)
        for ((merchant, category, _, _), day), weight in zip(picks, weights, strict=True):
            txns.append(
                [
                    day.isoformat(),
                    CHECKING,
                    {
                        "amount": -round(weight * scale, 2),
                        "merchant": merchant,
                        "description": f"DEBIT CARD {merchant.upper()}",
                        "category": category,
                        "method": "debit_card",
                        "reference": None,
                    },
                    "financial+routines",
                ]
            )
    _keep_checking_above(txns, float(fin.get("checking_balance", 0)), CHECKING_FLOOR)
    txns.sort(key=lambda t: (t[0], t[1]))
    finals = {
        CHECKING: float(fin.get("checking_balance", 0)),
        SAVINGS: float(fin.get("savings_balance", 0)),
        CARD: -float(fin.get("credit_used", 0)),
    }
    totals: defaultdict[int, float] = defaultdict(float)
    for _, account, row, _ in txns:
        totals[account] += row["amount"]
    opening = {acc: round(finals[acc] - totals[acc], 2) for acc in finals}
    name = ctx.persona.name
    card = fin.get("card", {})
    last4 = {CHECKING: "4471", SAVINGS: "8820", CARD: "1932"}
    for acc, kind, label in (
        (CHECKING, "checking", "Everyday Checking"),
        (SAVINGS, "savings", "Vault Savings"),
        (CARD, "credit_card", card.get("name", "Gringotts Gold Card")),
    ):
        ctx.add(
            "vaultbank",
            "accounts",
            {
                "customer_id": 1,
                "kind": kind,
                "name": f"{label} ({name})",
                "network": card.get("network") if acc == CARD else None,
                "number_last4": last4[acc],
                "opening_balance": opening[acc],
                "balance": round(finals[acc], 2),
                "credit_limit": fin.get("credit_limit") if acc == CARD else None,
            },
            "financial",
        )
    running = dict(opening)
    monthly: defaultdict[tuple, dict[str, float]] = defaultdict(lambda: {"credits": 0.0, "debits": 0.0})
    first_balance: dict[tuple, float] = {}
    for date, account, row, prov in txns:
        key = (account, date[:7])
        first_balance.setdefault(key, running[account])
        running[account] = round(running[account] + row["amount"], 2)
        monthly[key]["credits" if row["amount"] > 0 else "debits"] += row["amount"]
        monthly[key]["closing"] = running[account]
        ctx.add(
            "vaultbank",
            "transactions",
            {"account_id": account, "posted_date": date, **row, "balance_after": running[account]},
            prov,
        )
    for (account, month), figures in sorted(monthly.items()):
        start = dt.date.fromisoformat(month + "-01")
        ctx.add(
            "vaultbank",
            "statements",
            {
                "account_id": account,
                "period_start": start.isoformat(),
                "period_end": _month_end(start).isoformat(),
                "opening_balance": first_balance[(account, month)],
                "closing_balance": figures["closing"],
                "total_credits": round(figures["credits"], 2),
                "total_debits": round(figures["debits"], 2),
            },
            "financial",
        )
