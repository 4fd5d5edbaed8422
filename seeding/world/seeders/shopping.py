"""``shopping``: the spec's online orders in HooliShop, each with its bank charge and order mail."""

import datetime as dt

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


def seed_shopping(ctx):
    rng = ctx.rng("shopping")
    for i, order in enumerate(ctx.persona.section("shopping", {}).get("online_orders", [])):
        days_ago = order.get("date_relative_days")
        day = ctx.relative(days_ago) if days_ago is not None else ctx.relative(rng.randint(20, 300))
        when = at(day, rng.randint(8, 23), rng.randint(0, 59))
        ev = ctx.add_event(
            Event(
                f"shopping.online_orders[{i}]",
                "order",
                order["item"],
                day.isoformat(),
                amount=order["price"],
                merchant="HooliShop",
            )
        )
        code, total = emit(
            ctx,
            ev,
            {
                "app": "hoolishop",
                "when": when,
                "item": order["item"],
                "price": order["price"],
                "category": order.get("category", "General"),
                "note": order.get("note"),
            },
        )
        ev.code = code
        emit_hoolishop_charge_and_mail(ctx, ev, order, when, code, total)
