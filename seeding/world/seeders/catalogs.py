"""``catalogs``: what the apps sell or list beyond the persona's own records (overlay-driven): products,
stores, venues, restaurants, the airline's passenger and routes, rental properties."""

import datetime as dt

from ..core import parse_time_of_day
from ..fanout import lookup


def seed_catalogs(ctx):
    """Products, venues, routes and properties that tasks browse; each list lives in app_overrides."""
    persona = ctx.persona
    for n, item in enumerate(persona.override("hoolishop").get("catalog", [])):
        where = f"app_overrides.hoolishop.catalog[{n}]"
        lookup(
            ctx,
            "hoolishop",
            "products",
            item["item"],
            lambda item=item: {
                "name": item["item"],
                "category": item.get("category", "General"),
                "price": item["price"],
            },
            where,
        )
    kwik = persona.override("kwik-e-mart")
    for n, store in enumerate(kwik.get("favorite_stores", [])):
        lookup(
            ctx,
            "kwik-e-mart",
            "stores",
            store,
            lambda store=store: {"name": store},
            f"app_overrides.kwik-e-mart.favorite_stores[{n}]",
        )
    for n, item in enumerate(kwik.get("catalog", [])):
        ctx.add(
            "kwik-e-mart",
            "products",
            {"name": item["item"], "price": item["price"], "category": item.get("category")},
            f"app_overrides.kwik-e-mart.catalog[{n}]",
        )
    for n, venue in enumerate(persona.override("tablefind").get("venues", [])):
        lookup(
            ctx,
            "tablefind",
            "restaurants",
            venue["name"],
            lambda venue=venue: {
                "name": venue["name"],
                "city": venue.get("city"),
                "cuisine": venue.get("cuisine"),
                "neighborhood": venue.get("neighborhood"),
            },
            f"app_overrides.tablefind.venues[{n}]",
        )
    for n, place in enumerate(persona.override("hangrydash").get("favorite_restaurants", [])):
        lookup(
            ctx,
            "hangrydash",
            "restaurants",
            place["name"],
            lambda place=place: {"name": place["name"], "cuisine": place.get("cuisine")},
            f"app_overrides.hangrydash.favorite_restaurants[{n}]",
        )
    airline = persona.override("dinoco-airlines")
    loyalty = airline.get("loyalty", {})
    ident = persona.spec["identity"]
    lookup(
        ctx,
        "dinoco-airlines",
        "passengers",
        persona.name,
        lambda: {
            "name": persona.name,
            "email": ident.get("email"),
            # The preference as the profile stores it ("aisle"), without the spec's remark after the dash.
            "seat_preference": (airline.get("seat_preference") or "").split(" — ")[0] or None,
            "loyalty_program": loyalty.get("program"),
            "loyalty_tier": loyalty.get("tier"),
            "miles": loyalty.get("miles"),
            "member_number": loyalty.get("member_number"),
        },
        "app_overrides.dinoco-airlines",
    )
    for n, route in enumerate(airline.get("routes", [])):
        hour, minute = parse_time_of_day(route.get("departure", "9:00am"))
        departs = dt.datetime.combine(
            ctx.anchor + dt.timedelta(days=int(route.get("days_ahead", 30))), dt.time(hour, minute)
        )
        ctx.add(
            "dinoco-airlines",
            "flights",
            {
                "number": route["number"],
                "origin": route["from"],
                "destination": route["to"],
                "departs_at": departs.strftime("%Y-%m-%d %H:%M:%S"),
                "gate": route.get("gate"),
            },
            f"app_overrides.dinoco-airlines.routes[{n}]",
        )
    for n, prop in enumerate(persona.override("cheskepdia").get("properties", [])):
        lookup(
            ctx,
            "cheskepdia",
            "properties",
            prop["name"],
            lambda prop=prop: {
                "name": prop["name"],
                "city": prop.get("city"),
                "host": prop.get("host"),
                "amenities": ", ".join(prop.get("amenities", [])) or None,
                "nightly_rate": prop.get("nightly_rate"),
            },
            f"app_overrides.cheskepdia.properties[{n}]",
        )
