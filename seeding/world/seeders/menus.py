"""Restaurant menus for HangryDash and TableFind, with one stable price per item and dated price changes.

``menu_price`` is the only place a delivery's item price comes from: the same dish costs the same at
the same restaurant until its (single, dated) price change, never a random amount per order.
"""

import datetime as dt

from ..core import stable_seed

# restaurant -> (cuisine, neighbourhood, [(section, item, base price, spicy)])
MENUS: dict[str, tuple[str, str, list[tuple[str, str, float, int]]]] = {
    "Chili's Grill & Bar": (
        "American",
        "Dickson City",
        [
            ("Starters", "Awesome Blossom", 12.99, 0),
            ("Starters", "Southwestern Eggrolls", 11.49, 1),
            ("Ribs", "Baby Back Ribs", 21.99, 0),
            ("Ribs", "Baby Back Ribs (half rack)", 16.49, 0),
            ("Burgers", "Oldtimer with Cheese", 13.29, 0),
            ("Fajitas", "Chicken Fajitas", 17.79, 1),
            ("Drinks", "Presidente Margarita", 9.99, 0),
            ("Desserts", "Molten Chocolate Cake", 8.49, 0),
        ],
    ),
    "The Cheesecake Factory": (
        "American",
        "Wilkes-Barre",
        [
            ("Pasta", "Four Cheese Pasta", 21.50, 0),
            ("Pasta", "Fettuccini Alfredo", 20.95, 0),
            ("Specialties", "Chicken Parmesan", 23.95, 0),
            ("Starters", "Fried Macaroni and Cheese", 13.50, 0),
            ("Salads", "Cobb Salad", 18.95, 0),
            ("Cheesecake", "Original Cheesecake", 9.75, 0),
            ("Cheesecake", "Ultimate Red Velvet Cheesecake", 10.95, 0),
        ],
    ),
    "Benihana": (
        "Japanese",
        "Wilkes-Barre",
        [
            ("Hibachi", "Hibachi Chicken", 24.00, 0),
            ("Hibachi", "Hibachi Steak", 31.00, 0),
            ("Hibachi", "Hibachi Shrimp", 28.00, 0),
            ("Sushi", "Spicy Tuna Roll", 9.50, 1),
            ("Sides", "Hibachi Chicken Rice", 5.50, 0),
            ("Desserts", "Green Tea Ice Cream", 5.00, 0),
        ],
    ),
    "Sweetgreen": (
        "Salads",
        "Downtown Scranton",
        [
            ("Bowls", "Harvest Bowl", 15.45, 0),
            ("Salads", "Guacamole Greens", 15.95, 0),
            ("Salads", "Kale Caesar", 13.95, 0),
            ("Bowls", "Chicken Pesto Parm", 15.95, 0),
            ("Bowls", "Shroomami", 14.45, 0),
            ("Salads", "Super Green Goddess", 13.75, 0),
            ("Drinks", "Hibiscus Cooler", 4.25, 0),
        ],
    ),
    "Cooper's Seafood House": (
        "Seafood",
        "Downtown Scranton",
        [
            ("Starters", "New England Clam Chowder", 7.99, 0),
            ("Starters", "Crab Cake Appetizer", 14.99, 0),
            ("Entrees", "Fish and Chips", 19.99, 0),
            ("Entrees", "Broiled Seafood Platter", 32.99, 0),
            ("Entrees", "Shrimp Scampi", 24.99, 0),
            ("Sandwiches", "Lobster Roll", 26.99, 0),
            ("Desserts", "Key Lime Pie", 7.49, 0),
        ],
    ),
    "Coney Island Texas Weiners": (
        "Hot Dogs",
        "Downtown Scranton",
        [
            ("Weiners", "Texas Weiner", 2.95, 1),
            ("Weiners", "Texas Weiners (3)", 8.45, 1),
            ("Sides", "Chili Cheese Fries", 6.25, 1),
            ("Sides", "Onion Rings", 4.95, 0),
            ("Drinks", "Birch Beer", 2.25, 0),
        ],
    ),
    "Alfredo's Pizza Cafe": (
        "Pizza",
        "Downtown Scranton",
        [
            ("Pizza", "Large Cheese Pizza", 15.99, 0),
            ("Pizza", "Large Pepperoni Pizza", 17.99, 0),
            ("Pizza", "Old Forge-Style Tray (12 cuts)", 21.99, 0),
            ("Pasta", "Baked Ziti", 13.49, 0),
            ("Sides", "Garlic Knots", 5.99, 0),
            ("Desserts", "Cannoli", 4.99, 0),
        ],
    ),
    # Away from home: dinner delivered to the Philadelphia hotel.
    "Pat's King of Steaks": (
        "Cheesesteaks",
        "South Philadelphia",
        [
            ("Cheesesteaks", "Cheesesteak Wit Whiz", 15.00, 0),
            ("Cheesesteaks", "Pizza Steak", 15.50, 0),
            ("Sides", "Cheese Fries", 6.50, 0),
            ("Drinks", "Birch Beer", 3.00, 0),
        ],
    ),
}

# Where a trip's first evening meal comes from when it is a city Michael drives to (no flight, no resort).
TRIP_DINNERS = {"Philadelphia": ("Pat's King of Steaks", ["Cheesesteak Wit Whiz", "Cheese Fries"])}

# The spec's usual orders, as the dishes a menu lists (its own wording carries remarks, not dish names).
USUALS = {
    "Chili's Grill & Bar": ["Awesome Blossom", "Baby Back Ribs", "Presidente Margarita"],
    "The Cheesecake Factory": ["Four Cheese Pasta", "Original Cheesecake"],
    "Benihana": ["Hibachi Chicken"],
    "Sweetgreen": ["Harvest Bowl"],
    "Cooper's Seafood House": ["Fish and Chips"],
    "Coney Island Texas Weiners": ["Texas Weiners (3)", "Chili Cheese Fries"],
    "Alfredo's Pizza Cafe": ["Large Pepperoni Pizza", "Garlic Knots"],
}


def spec_priced(ctx) -> dict[tuple[str, str], dt.date]:
    """(restaurant, dish) -> the last day a spec order priced it; a dated change comes after that day."""
    names = {r["id"]: r["name"] for r in ctx.rows("hangrydash", "restaurants")}
    # Orders the spec prices itself; routine and trip meals take their price from the menu.
    orders = {
        o["id"]: o
        for o in ctx.rows("hangrydash", "orders")
        if not o["provenance"].startswith("routines") and not o["provenance"].endswith(".meals")
    }
    last: dict[tuple[str, str], dt.date] = {}
    for item in ctx.rows("hangrydash", "order_items"):
        order = orders.get(item["order_id"])
        if order:
            key = (names.get(order["restaurant_id"], ""), item["name"])
            day = dt.date.fromisoformat(order["placed_at"][:10])
            last[key] = max(last.get(key, day), day)
    return last


def price_change(anchor: dt.date, restaurant: str, item: str, base: float, pinned: dt.date | None = None):
    """The item's one dated price change, or None: (effective date, new price); after ``pinned`` if given."""
    seed = stable_seed("menu-price", restaurant, item)
    if seed % 3:
        return None
    effective = anchor - dt.timedelta(days=30 + seed % 240)
    if pinned and effective <= pinned:
        if pinned >= anchor - dt.timedelta(days=1):
            return None
        effective = pinned + dt.timedelta(days=1)
    return effective, round(base + 0.5 + (seed >> 8) % 3 * 0.5, 2)


def menu_price(anchor: dt.date, restaurant: str, item: str, base: float, day: dt.date, pinned=None) -> float:
    """What ``item`` cost at ``restaurant`` on ``day``: its base price, or the new one after its change."""
    change = price_change(anchor, restaurant, item, base, pinned)
    if change and day >= change[0]:
        return change[1]
    return base


def dish(restaurant: str, item: str) -> tuple[str, float, int] | None:
    """(section, base price, spicy) of a menu item, or None."""
    for section, name, price, spicy in MENUS.get(restaurant, ("", "", []))[2]:
        if name == item:
            return section, price, spicy
    return None
