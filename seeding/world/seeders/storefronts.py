"""``storefronts``: what HooliShop, Kwik-E-Mart and HangryDash hold around the orders.

Catalogs of a real shop's size, each store's shelf and prices (with dated price changes), the account's
addresses and cards, carts, wish and shopping lists, reviews, shipments and returns, delivery slots,
menus, favourites, promos and every delivery's tracking steps. Runs after the order seeders, so it
describes the orders they wrote and never changes one.
"""

import datetime as dt

from ..core import DATETIME, stable_id
from ..fanout import lookup
from .menus import MENUS, price_change, spec_priced
from .receipts import carrier_for, delivery_delay, tracking_number
from .storefront_data import (
    DELIVERY_RESTAURANTS,
    GROCERY_PRODUCTS,
    REVIEW_LINES,
    REVIEWERS,
    SHOP_PRODUCTS,
    STORE_EXTRA,
)

STAPLES = {"Dairy", "Produce", "Bakery"}
HOME = ("1725 Slough Ave", "Apt 4B", "Scranton", "PA", "18503")
OFFICE = ("Dunder Mifflin, 1725 Slough Ave", "Suite 200", "Scranton", "PA", "18503")


def _stamp(value: dt.datetime) -> str:
    return value.strftime(DATETIME)


def _when(row: dict, column: str) -> dt.datetime:
    return dt.datetime.strptime(row[column][:19], DATETIME)


def add_cards(ctx, app: str, where: str):
    """The cards an account keeps: the Gringotts credit card (default) and the debit card."""
    for n, (kind, label) in enumerate([("credit_card", "Gringotts Visa"), ("debit_card", "Gringotts Debit")]):
        ctx.add(
            app,
            "payment_methods",
            {
                "kind": kind,
                "label": label,
                "last4": str(4000 + int(stable_id(kind, length=6), 16) % 6000)[-4:],
                "is_default": int(n == 0),
            },
            where,
        )


def seed_storefronts(ctx):
    _hoolishop(ctx)
    _kwik(ctx)
    _hangrydash(ctx)


def _hoolishop(ctx):
    app, rng = "hoolishop", ctx.rng("storefronts.hoolishop")
    where = "catalog.hoolishop"
    for name, category, price in SHOP_PRODUCTS:
        lookup(
            ctx,
            app,
            "products",
            name,
            lambda name=name, category=category, price=price: {"name": name, "category": category, "price": price},
            where,
        )
    products = ctx.rows(app, "products")
    for category in sorted({p["category"] or "General" for p in products}):
        ctx.add(app, "categories", {"name": category}, where)
    sellers = [
        "HooliShop Retail",
        "Dunder Supply Co.",
        "PartyWorld Direct",
        "Scranton Gift & Novelty",
        "Electro Depot",
        "Bookhouse Press",
        "HomeGoods Outlet",
    ]
    for name in sellers:
        ctx.add(app, "sellers", {"name": name, "rating": round(rng.uniform(4.0, 4.9), 1)}, where)
    for p in products:
        changes = rng.randint(1, 4)
        reviews = rng.randint(2, 7)
        ctx.add(
            app,
            "listings",
            {
                "product_id": p["id"],
                "seller_id": 1 + p["id"] % len(sellers),
                "prime_eligible": int("mug" in p["name"].lower() or rng.random() < 0.6),
                "stock": rng.randint(0, 250),
                "rating": round(rng.uniform(3.6, 4.9), 1),
                "review_count": reviews,
            },
            where,
        )
        # Price history: dated changes ending at today's price.
        price = p["price"]
        history = [price]
        for _ in range(changes - 1):
            history.append(round(history[-1] * rng.uniform(0.9, 1.12), 2))
        for k, value in enumerate(reversed(history)):
            day = ctx.anchor - dt.timedelta(days=(changes - k) * 90 - rng.randint(0, 40))
            ctx.add(
                app, "price_history", {"product_id": p["id"], "effective_date": day.isoformat(), "price": value}, where
            )
        for _ in range(reviews):
            rating = rng.choices([5, 4, 3, 2, 1], [45, 30, 12, 7, 6])[0]
            title, body = rng.choice(REVIEW_LINES[rating])
            ctx.add(
                app,
                "reviews",
                {
                    "product_id": p["id"],
                    "author": rng.choice(REVIEWERS),
                    "rating": rating,
                    "title": title,
                    "body": body,
                    "posted_at": _stamp(
                        ctx.anchor - dt.timedelta(days=rng.randint(5, 700), minutes=rng.randint(0, 1400))
                    ),
                    "verified": int(rng.random() < 0.8),
                },
                where,
            )
    _hoolishop_account(ctx, app, rng, where)


def _hoolishop_account(ctx, app, rng, where):
    for label, (line1, line2, city, state, zip_code), default in [("Home", HOME, 1), ("Work", OFFICE, 0)]:
        ctx.add(
            app,
            "addresses",
            {
                "label": label,
                "recipient": ctx.persona.name,
                "line1": line1,
                "line2": line2,
                "city": city,
                "state": state,
                "zip": zip_code,
                "is_default": default,
            },
            where,
        )
    add_cards(ctx, app, where)
    ctx.add(
        app, "carts", {"status": "active", "updated_at": _stamp(ctx.anchor - dt.timedelta(days=3, hours=-10))}, where
    )
    ctx.add(
        app,
        "wish_lists",
        {"name": "Wish List", "is_public": 0, "created_at": _stamp(ctx.start + dt.timedelta(hours=20))},
        "shopping.wishlist",
    )
    for code, text, pct, qty, days in [
        ("SUBSAVE5", "Subscribe & Save: 5% off every subscription delivery", 5, None, 365),
        ("BULK10", "10% off 12 or more of the same item", 10, 12, 120),
        ("SPRING15", "15% off party supplies", 15, None, 20),
    ]:
        ctx.add(
            app,
            "coupons",
            {
                "code": code,
                "description": text,
                "percent_off": pct,
                "min_quantity": qty,
                "expires_on": (ctx.anchor + dt.timedelta(days=days)).isoformat(),
            },
            where,
        )
    _hoolishop_shipping(ctx, app, rng, where)


def _hoolishop_shipping(ctx, app, rng, where):
    for order in ctx.rows(app, "orders"):
        placed = _when(order, "placed_at")
        shipped = placed + dt.timedelta(hours=rng.randint(6, 30))
        delivered = shipped + dt.timedelta(days=rng.randint(1, 4), hours=rng.randint(0, 8))
        done = delivered.date() < ctx.anchor
        sent = shipped.date() <= ctx.anchor
        carrier = carrier_for(order["id"])  # the carrier and tracking number the order's mail names
        sid = ctx.add(
            app,
            "shipments",
            {
                "order_id": order["id"],
                "address_id": 1,
                "carrier": carrier,
                "tracking": tracking_number(carrier, order["order_number"]),
                "shipped_at": _stamp(shipped) if sent else None,
                "delivered_at": _stamp(delivered) if done else None,
                "status": "delivered" if done else "in_transit" if sent else "preparing",
            },
            order["provenance"],
        )
        steps = [
            (placed, "Order placed", None),
            (shipped, "Shipped", "Allentown, PA"),
            (delivered - dt.timedelta(hours=5), "Out for delivery", "Scranton, PA"),
        ]
        if done:
            steps.append((delivered, "Delivered", "Front door"))
        for moment, status, location in steps:
            if moment.date() <= ctx.anchor:
                ctx.add(
                    app,
                    "shipment_events",
                    {"shipment_id": sid, "happened_at": _stamp(moment), "status": status, "location": location},
                    order["provenance"],
                )
    # Returns: a few routine purchases that did not work out.
    items = {row["order_id"]: row for row in ctx.rows(app, "order_items")}
    routine = [o for o in ctx.rows(app, "orders") if o["provenance"] == "routines.shopping"]
    for order in rng.sample(routine, min(4, len(routine))):
        item = items.get(order["id"])
        requested = _when(order, "placed_at") + dt.timedelta(days=rng.randint(5, 20))
        if item and requested.date() < ctx.anchor:
            ctx.add(
                app,
                "returns",
                {
                    "order_id": order["id"],
                    "product_id": item["product_id"],
                    "requested_at": _stamp(requested),
                    "reason": rng.choice(["Arrived damaged", "Not as described", "No longer needed"]),
                    "status": "refunded",
                    "refund": item["price"],
                },
                order["provenance"],
            )


def _kwik(ctx):
    app, rng = "kwik-e-mart", ctx.rng("storefronts.kwik")
    where = "catalog.kwik-e-mart"
    for name in STORE_EXTRA:
        lookup(ctx, app, "stores", name, lambda name=name: {"name": name}, where)
    for name, price, category in GROCERY_PRODUCTS:
        lookup(
            ctx,
            app,
            "products",
            name,
            lambda name=name, price=price, category=category: {"name": name, "price": price, "category": category},
            where,
        )
    # Routine groceries are on the shelves too.
    for row in ctx.rows(app, "order_items"):
        lookup(
            ctx,
            app,
            "products",
            row["name"],
            lambda row=row: {"name": row["name"], "price": row["price"], "category": "Grocery"},
            where,
        )
    stores, products = ctx.rows(app, "stores"), ctx.rows(app, "products")
    for store in stores:
        party = store["name"] == "Party City"
        factor = {"Costco": 0.9, "ALDI": 0.88, "Wegmans": 1.05, "Trader Joe's": 1.0}.get(store["name"], 1.0)
        for product in products:
            is_party = product["category"] in ("Party", "Paper Goods")
            if party and not (is_party or product["category"] == "Drinks" or product["category"] == "Frozen"):
                continue
            # Every grocer stocks the staples; the rest of the range varies by store.
            if not party and product["category"] not in STAPLES and rng.random() < 0.2:
                continue
            price = round(product["price"] * factor * rng.uniform(0.95, 1.08), 2)
            spid = ctx.add(
                app,
                "store_products",
                {
                    "store_id": store["id"],
                    "product_id": product["id"],
                    "price": price,
                    "in_stock": int(rng.random() < 0.92),
                    "aisle": f"{rng.randint(1, 18)}",
                },
                where,
            )
            if rng.random() < 0.3:
                day = ctx.anchor - dt.timedelta(days=rng.randint(20, 200))
                old = round(price * rng.uniform(0.88, 0.98), 2)
                ctx.add(
                    app,
                    "price_history",
                    {
                        "store_product_id": spid,
                        "effective_date": (day - dt.timedelta(days=180)).isoformat(),
                        "price": old,
                    },
                    where,
                )
                ctx.add(
                    app,
                    "price_history",
                    {"store_product_id": spid, "effective_date": day.isoformat(), "price": price},
                    where,
                )
    _kwik_account(ctx, app, rng, where)


def _kwik_account(ctx, app, rng, where):
    stores, products = ctx.rows(app, "stores"), ctx.rows(app, "products")
    over = ctx.persona.override(app)
    ctx.add(
        app,
        "addresses",
        {
            "label": "Home",
            "line1": f"{HOME[0]}, {HOME[1]}",
            "city": HOME[2],
            "state": HOME[3],
            "zip": HOME[4],
            "instructions": over.get("delivery_instructions"),
            "is_default": 1,
        },
        where,
    )
    add_cards(ctx, app, where)
    by_name = {p["name"]: p["id"] for p in products}
    store_id = {s["name"]: s["id"] for s in stores}
    lists = [
        (
            "Weekly Essentials",
            "Wegmans",
            ["Milk", "Bread", "Bacon", "Cream (quart)", "Splenda (100ct)", "Eggs (dozen)"],
        ),
        (
            "Party Supplies",
            "Party City",
            [
                "Paper plates (100ct)",
                "Plastic silverware (150ct)",
                "Napkins (250ct)",
                "Party ice (20 lb)",
                "Buzz Cola 12-pack",
            ],
        ),
    ]
    for name, store, names in lists:
        lid = ctx.add(
            app,
            "shopping_lists",
            {
                "name": name,
                "store_id": store_id.get(store),
                "created_at": _stamp(ctx.anchor - dt.timedelta(days=40, hours=-11)),
            },
            where,
        )
        for item in names:
            ctx.add(
                app,
                "shopping_list_items",
                {
                    "list_id": lid,
                    "product_id": by_name.get(item),
                    "name": item,
                    "quantity": 1 if "Party" not in name else 4,
                    "checked": 0,
                },
                where,
            )
    cid = ctx.add(
        app,
        "carts",
        {
            "store_id": store_id.get("Wegmans"),
            "status": "active",
            "updated_at": _stamp(ctx.anchor - dt.timedelta(days=1)),
        },
        where,
    )
    for item, quantity in [("Bananas", 1), ("Coffee beans", 2)]:
        ctx.add(app, "cart_items", {"cart_id": cid, "product_id": by_name[item], "quantity": quantity}, where)
    swaps = {
        "Milk": "Lactaid Milk",
        "Bacon": "Turkey Bacon",
        "Cheese": "Sharp Cheddar Block",
        "Chips": "Pretzels",
        "Bread": "Potato Bread",
        "Ice cream": "Frozen Yogurt",
        "Hot dogs": "Bratwurst (5ct)",
    }
    for row in ctx.rows(app, "order_items"):
        if row["name"] in swaps and rng.random() < 0.15:
            ctx.add(
                app,
                "substitutions",
                {
                    "order_id": row["order_id"],
                    "requested": row["name"],
                    "substituted": swaps[row["name"]],
                    "price_difference": round(rng.uniform(-0.5, 1.5), 2),
                    "accepted": int(rng.random() < 0.8),
                },
                row["provenance"],
            )
    for store in stores:
        for offset in range(8):
            day = ctx.anchor + dt.timedelta(days=offset)
            for start, hours in [(8, 2), (10, 2), (12, 1), (13, 2), (15, 2), (17, 1), (18, 2), (20, 2)]:
                begins = dt.datetime.combine(day, dt.time(start))
                ctx.add(
                    app,
                    "delivery_slots",
                    {
                        "store_id": store["id"],
                        "starts_at": _stamp(begins),
                        "ends_at": _stamp(begins + dt.timedelta(hours=hours)),
                        "fee": 3.99 if hours == 2 else 5.99,
                        "available": int(rng.random() < 0.8),
                    },
                    where,
                )
    for store, title, code, pct in [
        ("Wegmans", "Spring savings: 10% off $75+", "WEG10", 10),
        ("Price Chopper", "AdvantEdge: 5% off produce", None, 5),
        ("Party City", "Party packs 15% off", "PARTY15", 15),
    ]:
        ctx.add(
            app,
            "promotions",
            {
                "store_id": store_id.get(store),
                "title": title,
                "code": code,
                "percent_off": pct,
                "valid_from": (ctx.anchor - dt.timedelta(days=10)).isoformat(),
                "valid_to": (ctx.anchor + dt.timedelta(days=20)).isoformat(),
            },
            where,
        )


def _hangrydash(ctx):
    app, rng = "hangrydash", ctx.rng("storefronts.hangrydash")
    where = "catalog.hangrydash"
    menus = dict(MENUS)
    menus.update(DELIVERY_RESTAURANTS)
    for name, (cuisine, _hood, _menu) in menus.items():
        lookup(
            ctx, app, "restaurants", name, lambda name=name, cuisine=cuisine: {"name": name, "cuisine": cuisine}, where
        )
    restaurants = ctx.rows(app, "restaurants")
    pinned = spec_priced(ctx)
    for row in restaurants:
        if not row.get("cuisine") and row["name"] in menus:
            row["cuisine"] = menus[row["name"]][0]
    for row in restaurants:
        _cuisine, _hood, menu = menus.get(row["name"], ("", "", []))
        for section, item, base, spicy in menu:
            change = price_change(ctx.anchor, row["name"], item, base, pinned.get((row["name"], item)))
            mid = ctx.add(
                app,
                "menu_items",
                {
                    "restaurant_id": row["id"],
                    "section": section,
                    "name": item,
                    "description": None,
                    "price": change[1] if change else base,
                    "calories": rng.randint(180, 1400),
                    "spicy": spicy,
                    "available": 1,
                },
                where,
            )
            if change:
                ctx.add(
                    app,
                    "menu_price_changes",
                    {
                        "menu_item_id": mid,
                        "effective_date": change[0].isoformat(),
                        "old_price": base,
                        "new_price": change[1],
                    },
                    where,
                )
        for n, weekday in enumerate(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]):
            ctx.add(
                app,
                "restaurant_hours",
                {
                    "restaurant_id": row["id"],
                    "weekday": weekday,
                    "opens": "11:00",
                    "closes": "23:00" if n >= 4 else "22:00",
                },
                where,
            )
        for _ in range(rng.randint(3, 8)):
            rating = rng.choices([5, 4, 3, 2, 1], [40, 32, 14, 8, 6])[0]
            ctx.add(
                app,
                "reviews",
                {
                    "restaurant_id": row["id"],
                    "author": rng.choice(REVIEWERS),
                    "rating": rating,
                    "body": rng.choice(REVIEW_LINES[rating])[1],
                    "posted_at": _stamp(ctx.anchor - dt.timedelta(days=rng.randint(3, 500))),
                },
                where,
            )
    _hangrydash_account(ctx, app, rng, where, restaurants)


def _hangrydash_account(ctx, app, rng, where, restaurants):
    for label, (line1, line2, city, state, zip_code), default in [("Home", HOME, 1), ("Work", OFFICE, 0)]:
        ctx.add(
            app,
            "addresses",
            {
                "label": label,
                "line1": f"{line1}, {line2}",
                "city": city,
                "state": state,
                "zip": zip_code,
                "dropoff_note": "Ring the bell" if default else "Front desk",
                "is_default": default,
            },
            where,
        )
    add_cards(ctx, app, where)
    rid = {r["name"]: r["id"] for r in restaurants}
    for n, place in enumerate(ctx.persona.override(app).get("favorite_restaurants", [])):
        ctx.add(
            app,
            "favorites",
            {"restaurant_id": rid[place["name"]], "added_at": _stamp(ctx.start + dt.timedelta(days=3 + n, hours=19))},
            f"app_overrides.hangrydash.favorite_restaurants[{n}]",
        )
    promos = [
        ("LUNCH5", "$5 off lunch orders over $20", None, None, 5.0, 20.0, -30, 30),
        ("SALAD15", "15% off salads and bowls", "Sweetgreen", 15.0, None, 15.0, -5, 25),
        ("SEAFOOD10", "10% off at Cooper's", "Cooper's Seafood House", 10.0, None, 25.0, -60, 15),
        ("WELCOME20", "20% off your first order", None, 20.0, None, 0.0, -400, -340),
    ]
    for code, text, place, pct, off, minimum, begin, end in promos:
        pid = ctx.add(
            app,
            "promos",
            {
                "code": code,
                "description": text,
                "restaurant_id": rid.get(place) if place else None,
                "percent_off": pct,
                "amount_off": off,
                "min_subtotal": minimum,
                "valid_from": (ctx.anchor + dt.timedelta(days=begin)).isoformat(),
                "valid_to": (ctx.anchor + dt.timedelta(days=end)).isoformat(),
            },
            where,
        )
        if code == "WELCOME20" and ctx.rows(app, "orders"):
            first = ctx.rows(app, "orders")[0]
            ctx.add(
                app,
                "promo_redemptions",
                {"promo_id": pid, "order_id": first["id"], "discount": round(first["subtotal"] * 0.2, 2)},
                first["provenance"],
            )
    # An abandoned cart from last night: the pizza he did not order in the end.
    cid = ctx.add(
        app,
        "carts",
        {
            "restaurant_id": rid["Alfredo's Pizza Cafe"],
            "status": "active",
            "updated_at": _stamp(ctx.anchor - dt.timedelta(hours=30)),
        },
        where,
    )
    menu = {(m["restaurant_id"], m["name"]): m["id"] for m in ctx.rows(app, "menu_items")}
    ctx.add(
        app,
        "cart_items",
        {"cart_id": cid, "menu_item_id": menu[(rid["Alfredo's Pizza Cafe"], "Large Pepperoni Pizza")], "quantity": 1},
        where,
    )
    for order in ctx.rows(app, "orders"):
        placed = _when(order, "placed_at")
        for minutes, status in [(0, "placed"), (4, "confirmed"), (22, "picked_up"), (41, "delivered")]:
            moment = placed + dt.timedelta(minutes=minutes + delivery_delay(order["order_number"]))
            if moment.date() <= ctx.anchor:
                ctx.add(
                    app,
                    "delivery_events",
                    {"order_id": order["id"], "happened_at": _stamp(moment), "status": status},
                    order["provenance"],
                )
