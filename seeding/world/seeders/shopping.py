"""``shopping``: the spec's online orders in HooliShop, each with its bank charge and order mail."""

import datetime as dt
from typing import Any

from ..apps import app_domain
from ..core import Event, at
from ..fanout import emit


def emit_hoolishop_charge_and_mail(ctx, ev, order, when, code, total):
    """What a HooliShop order leaves outside the shop: the bank charge and the order email."""
    emit(
        ctx,
        ev,
        {
            "app": "vaultbank",
            "when": when,
            "amount": total,
            "merchant": "HooliShop",
            "description": f"HooliShop order {code}",
            "code": code,
        },
    )
    emit(
        ctx,
        ev,
        {
            "app": "mail",
            "when": when + dt.timedelta(minutes=1),
            "from_name": "HooliShop",
            "from_addr": f"orders@{app_domain('hoolishop')}",
            "subject": f"Your HooliShop order {code}",
            "code": code,
            "body": f"Order {code}\n1 x {order['item']} ${order['price']:.2f}\nTotal: ${total:.2f}\n",
        },
    )


def place_hoolishop_order(ctx, event_id: str, order: dict, when, **row):
    """One HooliShop order as an event: its order row (``row`` adds columns), its card charge and its mail."""
    ev = ctx.add_event(
        Event(event_id, "order", order["item"], when.date().isoformat(), amount=order["price"], merchant="HooliShop")
    )
    code, total = emit(
        ctx, ev, {"app": "hoolishop", "when": when, "item": order["item"], "price": order["price"], **row}
    )
    ev.code = code
    emit_hoolishop_charge_and_mail(ctx, ev, order, when, code, total)


def seed_shopping(ctx):
    rng = ctx.split_rng("shopping")  # the day of an undated order is story, its time of day surface
    for i, order in enumerate(ctx.persona.section("shopping", {}).get("online_orders", [])):
        days_ago = order.get("date_relative_days")
        day = ctx.relative(days_ago) if days_ago is not None else ctx.relative(rng.story.randint(20, 300))
        when = at(day, rng.randint(8, 23), rng.randint(0, 59))
        place_hoolishop_order(
            ctx, f"shopping.online_orders[{i}]", order, when, category=order.get("category", "General")
        )
    seed_last_years_trophy(ctx)


# Last year's Dundies trophy, as the released world has it (one custom trophy, 369 days before today): the
# baseline counterfactual-f003, contradiction-f012, aggregation-f010 and situated_action-f010 compare against.
LAST_YEARS_TROPHY: dict[str, Any] = {"item": "Dundie Award Trophy (Custom)", "price": 24.99, "days_ago": 369}


def seed_last_years_trophy(ctx):
    order = LAST_YEARS_TROPHY
    day = ctx.relative(order["days_ago"])
    if day < ctx.start:
        return
    place_hoolishop_order(
        ctx, "shopping.last_years_trophy", order, at(day, 14, 5), category="Party Supplies", note="Dundies"
    )
