"""``derived``: paystubs derived from the salary and the W-2, and a payroll deposit per payday."""

import datetime as dt


def paystub(ctx) -> dict:
    """Per-paycheck line items derived from the salary and the W-2 (26 biweekly paychecks)."""
    spec = ctx.persona.spec
    w2 = spec.get("tax_info", {}).get("w2", {})
    gross_year = w2.get("gross_wages") or spec["identity"].get("salary", 0)
    parts = {
        "gross": gross_year,
        "federal_withholding": w2.get("federal_withheld", round(gross_year * 0.2, 2)),
        "state_withholding": w2.get("state_withheld", round(gross_year * 0.07, 2)),
        "retirement_401k": w2.get("pretax_401k", 0),
        "health": w2.get("pretax_health", 0),
    }
    stub = {key: round(value / 26, 2) for key, value in parts.items()}
    stub["net"] = round(stub["gross"] - sum(stub[k] for k in parts if k != "gross"), 2)
    return stub


def seed_derived(ctx):
    stub = paystub(ctx)
    employer = ctx.persona.spec["identity"].get("employer", "Employer")
    ctx.notes["paystub"] = stub
    # Biweekly Friday paydays counted back from the last Friday on or before the anchor.
    day = ctx.anchor - dt.timedelta(days=(ctx.anchor.weekday() - 4) % 7)
    paydays = []
    while day >= ctx.start:
        paydays.append(day)
        day -= dt.timedelta(days=14)
    paydays.sort()
    nets = {day: stub["net"] for day in paydays}
    w2_net = ctx.persona.spec.get("tax_info", {}).get("w2", {}).get("net_deposits_to_bank")
    in_year = [d for d in paydays if ctx.tax_year and ctx.tax_year[0] <= d <= ctx.tax_year[1]]
    if w2_net is not None and len(in_year) == 26:
        # Cents lost to rounding go on the year's last paycheck, so the deposits sum to the W-2 exactly.
        nets[in_year[-1]] = round(w2_net - stub["net"] * 25, 2)
    for payday in paydays:
        stub = {**ctx.notes["paystub"], "net": nets[payday]}
        ctx.add("speedtax", "paystubs", {"pay_date": payday.isoformat(), **stub}, "identity.salary+tax_info.w2")
        ctx.intent(
            "charge",
            {
                "date": payday.isoformat(),
                "amount": stub["net"],
                "merchant": employer,
                "description": f"{employer.upper()} PAYROLL DIRECT DEP",
                "category": "Income",
                "method": "checking",
                "reference": None,
            },
            "identity.salary+tax_info.w2",
        )
