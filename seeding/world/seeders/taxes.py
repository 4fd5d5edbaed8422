"""``taxes``: SpeedTax beyond the spec's current return: the taxpayer, the three prior years' filed returns
(W-2, refunds), the return's steps, state returns, refund account, interest income, uploaded documents,
history and the deduction notes.

The current year's return stays in progress with no refund or amount owed (it is not done); prior years
carry the refunds a filed return shows.
"""

from ..persona import plain_name

STEPS = ["Personal info", "Wages (W-2)", "Other income (1099)", "Deductions", "Credits", "Review"]
PRIOR_WAGES = {1: 136500, 2: 131000, 3: 127000}  # years before the current tax year -> Dunder Mifflin wages


def seed_taxes(ctx):
    spec = ctx.persona.spec
    tax = spec.get("tax_info")
    returns = ctx.rows("speedtax", "returns")
    if not tax or not returns:
        return
    ident = spec["identity"]
    current = returns[0]
    year = int(tax["tax_year"])
    ded = tax.get("deductions", {})
    charitable = round(sum(float(c["amount"]) for c in ded.get("charitable", [])), 2)
    current.update(
        filing_status="single",
        current_step=4,
        home_office_days=ded.get("home_office_wfh_days"),
        charitable_total=charitable,
        federal_refund_amount=None,
        state_refund_amount=None,
        amount_owed=None,
    )
    ctx.add(
        "speedtax",
        "taxpayer",
        {
            "name": ident["name"],
            "ssn_last4": "4417",
            "birth_date": f"{year - int(ident.get('age', 40)) + 1}-03-15",
            "address": f"{ident.get('address')}, {ident.get('city')}, {ident.get('state')}",
            "occupation": "Regional Manager",
            "phone": ident.get("phone"),
            "email": ident.get("email"),
        },
        "identity",
    )
    ctx.add(
        "speedtax",
        "refund_accounts",
        {"bank": "Gringotts", "kind": "checking", "number_last4": "4471", "routing_last4": "0211"},
        "financial",
    )
    w2 = tax.get("w2", {})
    employer = w2.get("employer", ident.get("employer"))
    for back, wages in PRIOR_WAGES.items():
        prior = year - back
        federal = round(wages * 0.2, 2)
        state = round(wages * 0.07, 2)
        agi = wages - 6000 - 2400
        total_tax = round(agi * 0.185 - 650 * back, 2)
        state_tax = round(agi * 0.0307, 2)
        filed = ctx.day(f"{prior + 1}-03-{10 + 4 * back:02d}")
        rid = ctx.add(
            "speedtax",
            "returns",
            {
                "tax_year": prior,
                "state_code": tax.get("state_code"),
                "status": "filed",
                "filing_status": "single",
                "current_step": 6,
                "agi": agi,
                "total_tax": total_tax,
                "federal_refund_amount": round(federal - total_tax, 2),
                "state_refund_amount": round(min(state - state_tax, 400.0 + 35 * back), 2),
                "amount_owed": 0.0,
                "filed_on": filed.isoformat(),
                "home_office_days": 0,
                "charitable_total": 0.0,
            },
            f"tax_info (prior year {prior})",
        )
        ctx.add(
            "speedtax",
            "w2_forms",
            {
                "return_id": rid,
                "employer": employer,
                "gross_wages": wages,
                "federal_withheld": federal,
                "state_withheld": state,
                "pretax_401k": 6000,
                "pretax_health": 2400,
                "net_pay": round(wages - federal - state - 8400, 2),
                "state": w2.get("state"),
            },
            f"tax_info (prior year {prior})",
        )
    for ret in list(ctx.rows("speedtax", "returns")):
        done = 6 if ret["status"] == "filed" else int(ret.get("current_step") or 1)
        for step, name in enumerate(STEPS, 1):
            status = "complete" if step < done or ret["status"] == "filed" else ("current" if step == done else "todo")
            ctx.add(
                "speedtax",
                "return_steps",
                {"return_id": ret["id"], "step": step, "name": name, "status": status},
                "tax_info",
            )
        w2_row = next((w for w in ctx.rows("speedtax", "w2_forms") if w["return_id"] == ret["id"]), None)
        ctx.add(
            "speedtax",
            "state_returns",
            {
                "return_id": ret["id"],
                "state_code": ret.get("state_code") or "PA",
                "taxable_income": w2_row["gross_wages"] if w2_row else None,
                "tax": round(w2_row["gross_wages"] * 0.0307, 2) if w2_row else None,
                "withheld": w2_row["state_withheld"] if w2_row else None,
                "refund": ret.get("state_refund_amount"),
                "status": "filed" if ret["status"] == "filed" else "in_progress",
            },
            "tax_info",
        )
        interest = round(890 * 0.004 * (1 + 0.1 * (year - ret["tax_year"])), 2)
        ctx.add(
            "speedtax",
            "interest_income",
            {"return_id": ret["id"], "payer": "Gringotts", "amount": interest},
            "financial.savings_balance",
        )
        opened = ctx.day(f"{ret['tax_year'] + 1}-02-0{1 + ret['id'] % 8}")
        ctx.add(
            "speedtax",
            "return_history",
            {"return_id": ret["id"], "happened_on": opened.isoformat(), "event": "Return started"},
            "tax_info",
        )
        if ret["status"] == "filed":
            for event in ("E-filed with the IRS", "Accepted by the IRS", "Refund deposited"):
                ctx.add(
                    "speedtax",
                    "return_history",
                    {"return_id": ret["id"], "happened_on": ret["filed_on"], "event": event},
                    "tax_info",
                )
    rid = current["id"]
    docs = [("W-2 Dunder Mifflin.pdf", "W-2"), ("1099-NEC Scranton Improv Academy.pdf", "1099-NEC")]
    docs += [
        (f"Receipt - {plain_name(q['claimed_as'])}.pdf", "receipt")
        for q in ded.get("questionable_deductions", [])
        if q.get("receipt_exists")
    ]
    docs += [
        (f"Donation receipt - {plain_name(c['org'])}.pdf", "receipt")
        for c in ded.get("charitable", [])
        if c.get("receipt_exists")
    ]
    for n, (name, kind) in enumerate(docs):
        ctx.add(
            "speedtax",
            "documents",
            {
                "return_id": rid,
                "name": name,
                "kind": kind,
                "uploaded_on": ctx.day(f"{year + 1}-02-{10 + n:02d}").isoformat(),
            },
            "tax_info",
        )
    note = ctx.persona.override("speedtax").get("deduction_notes")
    if note:
        ctx.add(
            "speedtax",
            "notes",
            {
                "return_id": rid,
                "section": "Deductions",
                "body": "George Foreman Grill entered under medical equipment; the checker flagged it. "
                "Medical deduction: $0.",
            },
            "app_overrides.speedtax.deduction_notes",
        )
    ctx.add(
        "speedtax",
        "notes",
        {
            "return_id": rid,
            "section": "Deductions",
            "body": f"Home office: {ded.get('home_office_wfh_days')} work-from-home days. "
            f"Charitable total ${charitable:,.2f}.",
        },
        "tax_info.deductions",
    )
