"""``predictions``: OddsMarket's market catalog (held, watched, open and settled markets), daily prices,
trades, settlements, funding and notifications.

The account figures stay the spec's (balance, all-time invested, net P&L); open positions carry a current
price, so per-position P&L can be read, and settled markets carry the realized part of the net P&L.
"""

import datetime as dt

CATEGORIES = ["Entertainment", "Local", "Sports", "Economy", "Pop Culture", "Business", "Science"]
# Current YES price of each held market (the spec gives one; the rest are the market's price today).
CURRENT = {
    "will-office-reboot-yearend": 0.34,
    "KXSCRRENT-YEAREND": 0.27,
    "celeb-engaged-live-tv-this-year": 0.38,
    "will-gme-100-yearend": 0.25,
}
CATEGORY_OF = {
    "will-office-reboot-yearend": "Entertainment",
    "KXSCRRENT-YEAREND": "Local",
    "celeb-engaged-live-tv-this-year": "Pop Culture",
    "will-gme-100-yearend": "Economy",
    "will-nba-expansion-yearend": "Sports",
}
WATCHED = {  # watchlist title -> (ticker, category, yes price)
    "Will an office supply company IPO this year?": ("office-supply-ipo-2026", "Business", 0.11),
    "Will paper usage increase this year?": ("paper-usage-up-2026", "Business", 0.18),
    "Warriors make NBA playoffs this season?": ("KXNBAPLAYOFF-GSW", "Sports", 0.57),
    "Will a new entertainment category be added to the next Olympics?": (
        "olympics-new-category",
        "Entertainment",
        0.09,
    ),
}
# Open markets Michael has neither bought nor watched: (ticker, title, category, source, yes price).
CATALOG = [
    ("KXPAWAGE-2026", "Will Pennsylvania raise its minimum wage this year?", "Local", "kalshi", 0.31),
    ("scranton-snow-40in", "Will Scranton get more than 40 inches of snow this winter?", "Local", "kalshi", 0.44),
    (
        "steamtown-mall-new-anchor",
        "Will the Steamtown mall announce a new anchor store this year?",
        "Local",
        "polymarket",
        0.22,
    ),
    ("KXNBAFINALS-BOS", "Will the Celtics win the NBA Finals?", "Sports", "kalshi", 0.19),
    ("KXNBAMVP-JOKIC", "Will Nikola Jokic win NBA MVP?", "Sports", "kalshi", 0.36),
    ("phillies-world-series", "Will the Phillies win the World Series?", "Sports", "polymarket", 0.12),
    ("eagles-super-bowl-next", "Will the Eagles reach the next Super Bowl?", "Sports", "polymarket", 0.21),
    ("nbc-sitcom-renewals", "Will NBC renew more than three sitcoms this season?", "Entertainment", "polymarket", 0.48),
    (
        "parks-rec-reunion",
        "Will a Parks and Recreation reunion special be announced this year?",
        "Entertainment",
        "polymarket",
        0.07,
    ),
    (
        "oscars-comedy-best-picture",
        "Will a comedy win Best Picture at the next Oscars?",
        "Entertainment",
        "polymarket",
        0.05,
    ),
    ("royal-wedding-2026", "Will there be a royal wedding this year?", "Pop Culture", "polymarket", 0.14),
    (
        "taylor-swift-wedding-date",
        "Will Taylor Swift announce her wedding date this year?",
        "Pop Culture",
        "polymarket",
        0.41,
    ),
    ("bachelor-finale-proposal", "Will the next Bachelor finale end in a proposal?", "Pop Culture", "polymarket", 0.73),
    ("KXFEDCUT-JUN", "Will the Fed cut rates at the June meeting?", "Economy", "kalshi", 0.38),
    ("KXCPI-3PCT", "Will US CPI inflation be above 3% in the next report?", "Economy", "kalshi", 0.29),
    ("paper-prices-up-10", "Will US copy paper prices rise 10% this year?", "Business", "kalshi", 0.16),
    ("staples-store-closures", "Will Staples close more than 50 stores this year?", "Business", "polymarket", 0.33),
    ("mars-sample-return", "Will NASA confirm a Mars sample return date this year?", "Science", "polymarket", 0.1),
]
# Markets Michael bet on that have settled: (ticker, title, category, side, shares, price paid, won, days ago,
# shares sold before the close, their price). Together with the open positions they make the spec's all-time
# invested amount and net P&L.
SETTLED = [
    (
        "dm-acquired-2025",
        "Will Dunder Mifflin be acquired by year-end 2025?",
        "Business",
        "YES",
        2000,
        0.45,
        False,
        104,
        0,
        0,
    ),
    ("scranton-traderjoes", "Will Scranton get a Trader Joe's in 2025?", "Local", "YES", 1000, 0.35, False, 150, 0, 0),
    ("wuphf-series-a", "Will WUPHF.com raise a Series A in 2025?", "Business", "YES", 1500, 0.32, False, 210, 0, 0),
    ("sixers-playoffs-2025", "Will the 76ers miss the 2025 playoffs?", "Sports", "YES", 300, 0.70, True, 300, 0, 0),
    (
        "railriders-title-2025",
        "Will the RailRiders win the 2025 International League title?",
        "Sports",
        "YES",
        950,
        0.57,
        False,
        190,
        150,
        0.13,
    ),
]


def _history(rng, start_price: float, end_price: float, days: int) -> list[float]:
    """A bounded daily price path from ``start_price`` to ``end_price`` over ``days`` days."""
    path, noise = [], 0.0
    steps = [rng.gauss(0, 0.018) for _ in range(days)]
    total = sum(steps)
    for k in range(days):
        noise += steps[k]
        frac = (k + 1) / days
        value = start_price + (end_price - start_price) * frac + noise - total * frac
        path.append(round(min(0.99, max(0.01, value)), 2))
    path[-1] = end_price
    return path


def seed_predictions(ctx):
    pm = ctx.persona.section("prediction_markets", {})
    if not pm:
        return
    rng = ctx.rng("predictions")
    cats = {name: ctx.add("oddsmarket", "categories", {"name": name}, "prediction_markets") for name in CATEGORIES}
    markets = {m["ticker"]: m for m in ctx.rows("oddsmarket", "markets")}
    positions = {p["market_id"]: p for p in ctx.rows("oddsmarket", "positions")}
    year_end = dt.date(ctx.anchor.year, 12, 31).isoformat()
    priced: list[tuple[int, float, float, int]] = []  # market id, start price, end price, days listed

    def detail(mid, category, status, price, closes_on, outcome=None, volume=None):
        ctx.add(
            "oddsmarket",
            "market_details",
            {
                "market_id": mid,
                "category_id": cats[category],
                "status": status,
                "closes_on": closes_on,
                "resolved_outcome": outcome,
                "yes_price": price,
                "no_price": round(1 - price, 2),
                "volume": volume or rng.randrange(20_000, 2_500_000),
                "rules": "Resolves YES if the named event happens by the close date, per the listed source.",
            },
            "prediction_markets",
        )

    for n, pos in enumerate(pm.get("active_positions", [])):
        market = markets[pos["market_ticker"]]
        current = float(pos.get("current_price", CURRENT.get(pos["market_ticker"], pos["avg_price"])))
        row = positions[market["id"]]
        opened = ctx.anchor - dt.timedelta(days=30 + 17 * n)
        cost = round(row["shares"] * row["avg_price"], 2)
        value = round(row["shares"] * current, 2)
        row.update(
            current_price=current,
            cost_basis=cost,
            market_value=value,
            unrealized_pnl=round(value - cost, 2),
            pnl_pct=round((value - cost) / cost * 100, 1),
            opened_on=opened.isoformat(),
            status="open",
        )
        detail(market["id"], CATEGORY_OF.get(pos["market_ticker"], "Entertainment"), "open", current, year_end)
        priced.append((market["id"], float(pos["avg_price"]), current, (ctx.anchor - opened).days + 1))
        lots = [row["shares"] // 2, row["shares"] - row["shares"] // 2] if row["shares"] >= 200 else [row["shares"]]
        for k, shares in enumerate(lots):
            ctx.add(
                "oddsmarket",
                "trades",
                {
                    "market_id": market["id"],
                    "placed_at": f"{(opened + dt.timedelta(days=9 * k)).isoformat()} {19 + k}:1{n}:00",
                    "action": "buy",
                    "side": row["side"],
                    "shares": shares,
                    "price": row["avg_price"],
                    "total": round(shares * row["avg_price"], 2),
                },
                f"prediction_markets.active_positions[{n}]",
            )
    watch_rows = {w["title"]: w for w in ctx.rows("oddsmarket", "watchlist")}
    for n, (title, (ticker, category, price)) in enumerate(WATCHED.items()):
        mid = ctx.add(
            "oddsmarket",
            "markets",
            {"ticker": ticker, "title": title, "source": "polymarket"},
            f"prediction_markets.watchlist[{n}]",
        )
        detail(mid, category, "open", price, year_end)
        priced.append((mid, round(min(0.95, price * rng.uniform(0.7, 1.4)), 2), price, 120))
        if title in watch_rows:
            watch_rows[title].update(market_id=mid, added_on=(ctx.anchor - dt.timedelta(days=60 - 11 * n)).isoformat())
    for ticker, title, category, source, price in CATALOG:
        mid = ctx.add(
            "oddsmarket", "markets", {"ticker": ticker, "title": title, "source": source}, "prediction_markets"
        )
        detail(mid, category, "open", price, year_end)
        priced.append((mid, round(min(0.95, price * rng.uniform(0.6, 1.5)), 2), price, 120))
    realized = []
    for ticker, title, category, side, shares, paid, won, ago, sold, sold_price in SETTLED:
        mid = ctx.add(
            "oddsmarket", "markets", {"ticker": ticker, "title": title, "source": "polymarket"}, "prediction_markets"
        )
        settled_on = ctx.anchor - dt.timedelta(days=ago)
        yes_won = won if side == "YES" else not won
        detail(mid, category, "resolved", 1.0 if yes_won else 0.0, settled_on.isoformat(), "YES" if yes_won else "NO")
        cost = round(shares * paid, 2)
        payout = round((shares - sold if won else 0) + sold * sold_price, 2)
        realized.append(payout - cost)
        ctx.add(
            "oddsmarket",
            "trades",
            {
                "market_id": mid,
                "placed_at": f"{(settled_on - dt.timedelta(days=75)).isoformat()} 21:05:00",
                "action": "buy",
                "side": side,
                "shares": shares,
                "price": paid,
                "total": cost,
            },
            "prediction_markets.net_pnl",
        )
        if sold:
            ctx.add(
                "oddsmarket",
                "trades",
                {
                    "market_id": mid,
                    "placed_at": f"{(settled_on - dt.timedelta(days=20)).isoformat()} 22:40:00",
                    "action": "sell",
                    "side": side,
                    "shares": sold,
                    "price": sold_price,
                    "total": round(sold * sold_price, 2),
                },
                "prediction_markets.net_pnl",
            )
        ctx.add(
            "oddsmarket",
            "settlements",
            {
                "market_id": mid,
                "side": side,
                "shares": shares,
                "cost": cost,
                "payout": payout,
                "realized_pnl": round(payout - cost, 2),
                "settled_on": settled_on.isoformat(),
            },
            "prediction_markets.net_pnl",
        )
        ctx.add(
            "oddsmarket",
            "notifications",
            {
                "market_id": mid,
                "sent_at": f"{settled_on.isoformat()} 09:00:00",
                "message": f"Market resolved {'YES' if yes_won else 'NO'}: {title}",
            },
            "prediction_markets.net_pnl",
        )
    for mid, start, end, listed in priced:
        path = _history(rng, start, end, listed)
        for k, price in enumerate(path):
            day = ctx.anchor - dt.timedelta(days=listed - 1 - k)
            ctx.add(
                "oddsmarket",
                "market_prices",
                {"market_id": mid, "day": day.isoformat(), "yes_price": price, "volume": rng.randrange(500, 90_000)},
                "prediction_markets",
            )
    # Deposits that fund what the account shows: balance = deposits - everything bought + payouts.
    bought = sum(t["total"] for t in ctx.rows("oddsmarket", "trades") if t["action"] == "buy")
    payouts = sum(s["payout"] for s in ctx.rows("oddsmarket", "settlements"))
    deposits = round(float(pm.get("balance", 0)) + bought - payouts, 2)
    parts = [round(deposits * share, 2) for share in (0.4, 0.25, 0.2)]
    parts.append(round(deposits - sum(parts), 2))
    for k, amount in enumerate(parts):
        ctx.add(
            "oddsmarket",
            "funding",
            {
                "kind": "deposit",
                "amount": amount,
                "method": "Gringotts debit card",
                "created_on": (ctx.anchor - dt.timedelta(days=330 - 80 * k)).isoformat(),
            },
            "prediction_markets.balance",
        )
    for mid, start, end, _listed in priced[: len(pm.get("active_positions", []))]:
        move = round((end - start) * 100)
        ctx.add(
            "oddsmarket",
            "notifications",
            {
                "market_id": mid,
                "sent_at": f"{(ctx.anchor - dt.timedelta(days=2)).isoformat()} 08:30:00",
                "message": f"A market you hold moved {move:+d} cents since you bought in.",
            },
            "prediction_markets",
        )
    ctx.notes["oddsmarket.realized"] = round(sum(realized), 2)
