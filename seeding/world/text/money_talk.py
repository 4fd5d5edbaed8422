"""Conversations about money the spec records elsewhere: who Michael talked to about a stock (a holding's
or order's note naming a contact, with what they said in quotes), and the Zelle payments he sends
(the person paid acknowledges it). Each exchange is dated by the record it comes from.
"""

import re

TICKER = re.compile(r"\b([A-Z]{2,5})\b")
CHEERS = ["Diamond hands!", "To the moon.", "The little guy wins.", "This is how fortunes are made.", "Stonks."]


def _quote(text: str) -> str | None:
    match = re.search(r"'([^']{3,})'", text)
    return match.group(1) if match else None


def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


def stock_talks(spec: dict) -> list[dict]:
    """One talk per (contact, ticker) the spec links: {contact, ticker, date, shares, price, said}."""
    contacts = {c["name"].split()[0]: c for c in spec.get("contacts") or []}
    investments = spec.get("investments") or {}
    orders = investments.get("order_history") or []
    first_order: dict[str, dict] = {}
    for order in sorted(orders, key=lambda o: o.get("date", "")):
        first_order.setdefault(order.get("ticker"), order)
    holdings = {h.get("ticker"): h for h in investments.get("holdings") or []}
    # A holding bought before the order history starts: first seen on its earliest dated record (a dividend).
    for node in sorted(_walk(investments), key=lambda n: str(n.get("date", ""))):
        if node.get("ticker") in holdings and node.get("date"):
            first_order.setdefault(node["ticker"], {"date": node["date"]})
    talks: dict[tuple, dict] = {}
    for node in _walk(spec):
        for key, text in node.items():
            if not isinstance(text, str) or "note" not in key:
                continue
            names = [n for n in contacts if re.search(rf"\b{n}\b", text)]
            tickers = [t for t in TICKER.findall(text) if t in holdings] or (
                [node["ticker"]] if node.get("ticker") in holdings else []
            )
            for name in names:
                for ticker in tickers:
                    order = node if node.get("date") and node.get("ticker") == ticker else first_order.get(ticker, {})
                    talk = talks.setdefault((name, ticker), {"contact": contacts[name]["name"], "ticker": ticker})
                    talk.update(
                        date=order.get("date") or talk.get("date"),
                        shares=order.get("shares") or holdings[ticker].get("shares"),
                        price=order.get("price") or holdings[ticker].get("avg_cost"),
                    )
                    talk["said"] = _quote(text) or talk.get("said")
    return [t for _, t in sorted(talks.items()) if t.get("date")]


def stock_exchange(rng, talk: dict, contact: dict) -> list[tuple[bool, str]]:
    """Michael telling the contact about the buy, the contact's answer (their own words when the spec
    quotes them), and Michael's last word."""
    first = talk["contact"].split()[0]
    ticker, shares, price = talk["ticker"], talk["shares"], talk["price"]
    said = talk.get("said")
    opener = rng.choice(
        [
            f"{first}! Just bought {shares} shares of {ticker} at ${price}.",
            f"{first}, guess who owns {shares} shares of {ticker} now. This guy.",
            f"Okay {first}, I did it. {shares} {ticker} at ${price} a share.",
        ]
    )
    if said:
        answer = f"{said[0].upper()}{said[1:]}" + ("" if said.endswith((".", "!", "?")) else "!")
    elif "investment_advice_ignored" in (contact.get("shared_activities") or []):
        answer = f"{ticker} is the only smart buy, Michael. Total market, low fees. Please don't touch anything else."
    else:
        answer = f"{ticker}? Okay. Just don't put everything in it."
    return [(True, opener), (False, answer), (True, rng.choice(CHEERS))]


def zelle_exchange(rng, amount: float, memo: str) -> list[tuple[bool, str]]:
    """Michael saying he sent the money and the payee confirming it arrived."""
    what = memo.lower() if memo else "it"
    return [
        (
            True,
            rng.choice([f"Sent the {what} via Zelle, ${amount:,.2f}.", f"Zelle'd you ${amount:,.2f} for the {what}."]),
        ),
        (False, rng.choice(["Received, thank you Michael.", "Got it, thanks.", "Received. Thank you."])),
    ]
