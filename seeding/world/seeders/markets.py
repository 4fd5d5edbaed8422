"""``markets``: BatBucks' securities, quotes, daily price history, tax lots, watchlists and funding, and
OddsMarket's market catalog, daily prices, trades, settlements and funding.

Prices are deterministic walks pinned to what the spec fixes (each order's fill price, OddsMarket's
stated prices), so a holding's P&L and a three-month chart can be read off the data; closes run up to the
anchor and never past it.
"""

import datetime as dt
import math

from ..core import stable_id

# ticker -> (name, kind, sector, exchange, price at the anchor, yearly volatility, dividend yield, expense ratio)
SECURITIES = {
    "GME": ("GameStop Corp.", "stock", "Consumer Discretionary", "NYSE", 24.85, 0.75, None, None),
    "SBUX": ("Starbucks Corporation", "stock", "Consumer Discretionary", "NASDAQ", 91.40, 0.28, 0.026, None),
    "DIS": ("The Walt Disney Company", "stock", "Communication Services", "NYSE", 104.20, 0.26, 0.009, None),
    "VTI": ("Vanguard Total Stock Market ETF", "etf", "Broad Market", "NYSE Arca", 268.30, 0.16, 0.013, 0.0003),
    "RIVN": ("Rivian Automotive, Inc.", "stock", "Consumer Discretionary", "NASDAQ", 13.05, 0.62, None, None),
    "VOO": ("Vanguard S&P 500 ETF", "etf", "Large Blend", "NYSE Arca", 541.70, 0.15, 0.013, 0.0003),
    "SPY": ("SPDR S&P 500 ETF Trust", "etf", "Large Blend", "NYSE Arca", 589.40, 0.15, 0.012, 0.0009),
    "QQQ": ("Invesco QQQ Trust", "etf", "Large Growth", "NASDAQ", 497.60, 0.21, 0.006, 0.002),
    "IVV": ("iShares Core S&P 500 ETF", "etf", "Large Blend", "NYSE Arca", 592.10, 0.15, 0.013, 0.0003),
    "VXUS": (
        "Vanguard Total International Stock ETF",
        "etf",
        "Foreign Large Blend",
        "NASDAQ",
        64.20,
        0.15,
        0.031,
        0.0005,
    ),
    "BND": ("Vanguard Total Bond Market ETF", "etf", "Intermediate Bond", "NASDAQ", 73.10, 0.06, 0.036, 0.0003),
    "SCHD": ("Schwab U.S. Dividend Equity ETF", "etf", "Large Value", "NYSE Arca", 27.90, 0.13, 0.037, 0.0006),
    "AMC": ("AMC Entertainment Holdings", "stock", "Communication Services", "NYSE", 3.42, 0.85, None, None),
    "TSLA": ("Tesla, Inc.", "stock", "Consumer Discretionary", "NASDAQ", 258.90, 0.55, None, None),
    "NFLX": ("Netflix, Inc.", "stock", "Communication Services", "NASDAQ", 981.30, 0.33, None, None),
    "AAPL": ("Apple Inc.", "stock", "Information Technology", "NASDAQ", 224.60, 0.25, 0.005, None),
    "KO": ("The Coca-Cola Company", "stock", "Consumer Staples", "NYSE", 70.15, 0.15, 0.029, None),
    "CMG": ("Chipotle Mexican Grill", "stock", "Consumer Discretionary", "NYSE", 51.30, 0.30, None, None),
}
WATCHLISTS = {
    "Watchlist": [("AMC", "Kevin says this is the next GME"), ("TSLA", None), ("NFLX", None), ("CMG", None)],
    "Index funds (Oscar)": [("VOO", "Oscar: boring is good"), ("SCHD", None), ("BND", None)],
}
HISTORY_DAYS = 365
# The app keeps a year of daily prices for what the user holds, watches or traded, a quarter for the rest.
BROWSED_DAYS = 92


def _trading_days(start: dt.date, end: dt.date) -> list[dt.date]:
    days, day = [], start
    while day <= end:
        if day.weekday() < 5:
            days.append(day)
        day += dt.timedelta(days=1)
    return days


def _walk(rng, days: list[dt.date], pins: dict[dt.date, float], vol: float) -> list[float]:
    """Daily closes through ``pins`` (day -> price): a log-space Brownian bridge between pinned days."""
    daily = vol / math.sqrt(252)
    pinned = sorted(pins.items())
    first_day, first_price = pinned[0]
    closes: list[float] = []
    # Before the first pin: walk backwards from it.
    level = math.log(first_price)
    before = [d for d in days if d < first_day]
    back = []
    for _ in before:
        level -= rng.gauss(0, daily)
        back.append(math.exp(level))
    closes.extend(reversed(back))
    for (day_a, price_a), (day_b, price_b) in zip(pinned, pinned[1:], strict=False):
        span = [d for d in days if day_a <= d < day_b]
        steps = len(span)
        noise, path = 0.0, []
        for _ in span:
            path.append(noise)  # the walk's offset on each day, 0 on the pinned day itself
            noise += rng.gauss(0, daily)
        for k, _ in enumerate(span):
            frac = k / steps
            bridge = path[k] - frac * noise
            closes.append(math.exp(math.log(price_a) * (1 - frac) + math.log(price_b) * frac + bridge))
    closes.extend([pinned[-1][1]] * (len(days) - len(closes)))
    return [round(c, 2) for c in closes]


def _on_or_before(days: list[dt.date], day: dt.date) -> dt.date:
    return max((d for d in days if d <= day), default=days[0])


def _batbucks(ctx):
    rng = ctx.rng("markets.batbucks")
    inv = ctx.persona.section("investments", {})
    if not inv:
        return
    days = _trading_days(ctx.anchor - dt.timedelta(days=HISTORY_DAYS), ctx.anchor)
    orders = ctx.rows("batbucks", "orders")
    held = {h["ticker"]: h for h in ctx.rows("batbucks", "holdings")}
    closes: dict[str, list[float]] = {}
    followed = set(held) | {o["ticker"] for o in orders} | {t for items in WATCHLISTS.values() for t, _ in items}
    browsed_from = ctx.anchor - dt.timedelta(days=BROWSED_DAYS)
    for ticker, (name, kind, sector, exchange, price, vol, dividend, expense) in SECURITIES.items():
        ctx.add(
            "batbucks",
            "securities",
            {
                "ticker": ticker,
                "name": name,
                "kind": kind,
                "sector": sector,
                "exchange": exchange,
                "description": f"{name} ({exchange}: {ticker}), {sector.lower()}.",
                "dividend_yield": dividend,
                "expense_ratio": expense,
            },
            "investments.holdings+watchlist",
        )
        pins = {days[-1]: price}
        for order in orders:
            placed = dt.date.fromisoformat(order["placed_on"])
            if order["ticker"] == ticker and placed >= days[0]:
                pins[_on_or_before(days, placed)] = float(order["price"])
        series = _walk(rng, days, pins, vol)
        closes[ticker] = series
        base_volume = rng.randrange(2_000_000, 40_000_000)
        previous = series[0]
        for day, close in zip(days, series, strict=True):
            swing = abs(rng.gauss(0, vol / math.sqrt(252))) * close
            open_ = round(previous * (1 + rng.gauss(0, vol / math.sqrt(252) / 3)), 2)
            volume = int(base_volume * rng.uniform(0.5, 1.8))
            previous = close
            if ticker not in followed and day < browsed_from:
                continue
            ctx.add(
                "batbucks",
                "price_history",
                {
                    "ticker": ticker,
                    "day": day.isoformat(),
                    "open": open_,
                    "high": round(max(open_, close) + swing / 2, 2),
                    "low": round(max(0.01, min(open_, close) - swing / 2), 2),
                    "close": close,
                    "volume": volume,
                },
                "investments.holdings+markets",
            )
        ctx.add(
            "batbucks",
            "quotes",
            {
                "ticker": ticker,
                "as_of": days[-1].isoformat(),
                "price": series[-1],
                "previous_close": series[-2],
                "day_change_pct": round((series[-1] / series[-2] - 1) * 100, 2),
                "week52_low": min(series),
                "week52_high": max(series),
                "volume": int(base_volume * rng.uniform(0.7, 1.3)),
            },
            "investments.holdings+markets",
        )
    _lots_and_lists(ctx, orders, held, closes, days, float(inv.get("cash_balance", 0)))


def _lots_and_lists(ctx, orders, held, closes, days, cash):
    # Tax lots: each buy, then whatever the spec's holding has beyond its buys at the price that makes the average.
    lots: dict[str, list[tuple[dt.date, float, float]]] = {}
    for order in sorted(orders, key=lambda o: o["placed_on"]):
        if order["action"] == "buy":
            lots.setdefault(order["ticker"], []).append(
                (dt.date.fromisoformat(order["placed_on"]), float(order["shares"]), float(order["price"]))
            )
    for ticker, holding in held.items():
        bought = sum(s for _, s, _ in lots.get(ticker, []))
        rest = float(holding["shares"]) - bought
        if rest > 0:
            cost = float(holding["shares"]) * float(holding["avg_cost"]) - sum(
                s * p for _, s, p in lots.get(ticker, [])
            )
            first = min([d for d, _, _ in lots.get(ticker, [])] or [ctx.anchor]) - dt.timedelta(days=200)
            lots.setdefault(ticker, []).insert(0, (first, rest, round(max(cost / rest, 0.01), 2)))
    for ticker in held:
        for day, shares, price in lots.get(ticker, []):
            ctx.add(
                "batbucks",
                "tax_lots",
                {"ticker": ticker, "acquired_on": day.isoformat(), "shares": shares, "price": price},
                "investments.holdings+order_history",
            )
    for name, items in WATCHLISTS.items():
        wid = ctx.add(
            "batbucks",
            "watchlists",
            {"name": name, "created_on": (ctx.anchor - dt.timedelta(days=150)).isoformat()},
            "app_overrides.batbucks",
        )
        for n, (ticker, note) in enumerate(items):
            ctx.add(
                "batbucks",
                "watchlist_items",
                {
                    "watchlist_id": wid,
                    "ticker": ticker,
                    "added_on": (ctx.anchor - dt.timedelta(days=140 - 9 * n)).isoformat(),
                    "note": note,
                },
                "app_overrides.batbucks",
            )
    link = ctx.add(
        "batbucks",
        "linked_accounts",
        {"institution": "Gringotts", "kind": "checking", "number_last4": "4471", "verified": 1},
        "financial",
    )
    for n, order in enumerate(sorted(orders, key=lambda o: o["placed_on"])):
        if order["action"] != "buy" or order["placed_on"] < ctx.start.isoformat():
            continue
        ctx.add(
            "batbucks",
            "transfers",
            {
                "linked_account_id": link,
                "direction": "deposit",
                "amount": order["total"],
                "requested_on": order["placed_on"],
                "status": "completed",
            },
            f"investments.order_history[{n}]",
        )
        ctx.intent(
            "charge",
            {
                "date": order["placed_on"],
                "amount": -float(order["total"]),
                "merchant": "BatBucks",
                "description": f"BatBucks - Buy {order['ticker']}",
                "category": "Investments",
                "method": "checking",
                "reference": f"BB-{stable_id('batbucks', order['placed_on'], order['ticker'], length=8).upper()}",
            },
            "investments.order_history",
        )
    for ticker, condition, factor in (("GME", "above", 1.6), ("GME", "below", 0.8), ("RIVN", "above", 1.3)):
        ctx.add(
            "batbucks",
            "price_alerts",
            {"ticker": ticker, "condition": condition, "price": round(closes[ticker][-1] * factor, 2), "active": 1},
            "investments.holdings",
        )
    _snapshots(ctx, days, closes, lots, cash)


def _snapshots(ctx, days, closes, lots, cash):
    """Daily portfolio value (the app's chart) and a statement per month, from the lots held each day."""
    index = {day: k for k, day in enumerate(days)}
    monthly: dict[str, dict] = {}
    for day in days:
        value = basis = 0.0
        for ticker, entries in lots.items():
            shares = sum(s for d, s, _ in entries if d <= day)
            basis += sum(s * p for d, s, p in entries if d <= day)
            value += shares * closes[ticker][index[day]]
        ctx.add(
            "batbucks",
            "portfolio_snapshots",
            {"day": day.isoformat(), "market_value": round(value, 2), "cost_basis": round(basis, 2), "cash": cash},
            "investments",
        )
        monthly[day.isoformat()[:7]] = {"ending_value": round(value + cash, 2)}
    dividends = ctx.rows("batbucks", "dividends")
    orders = ctx.rows("batbucks", "orders")
    for month, figures in sorted(monthly.items()):
        ctx.add(
            "batbucks",
            "statements",
            {
                "month": month,
                "ending_value": figures["ending_value"],
                "dividends": round(sum(d["amount"] for d in dividends if d["paid_on"][:7] == month), 2),
                "buys": round(
                    sum(o["total"] for o in orders if o["placed_on"][:7] == month and o["action"] == "buy"), 2
                ),
                "sells": round(
                    sum(o["total"] for o in orders if o["placed_on"][:7] == month and o["action"] == "sell"), 2
                ),
            },
            "investments",
        )


def seed_markets(ctx):
    _batbucks(ctx)
