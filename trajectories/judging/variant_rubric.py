"""The rubric as a world variant words it: items that name a world value (``seeding``'s rubric templates) are
rendered from the variant's answer key; every other item, and every item on the canonical world, is judged as
written. The variant's world is built once under the var dir (``world-variants/``) and reused."""

import datetime as dt
import os
from functools import lru_cache
from pathlib import Path

from django.conf import settings

from seeding.world.answer_keys import load_keys, resolve
from seeding.world.rubric_templates import load_templates, render_items, variant_world
from world.models import World

DEMO_ANCHOR = dt.date(2026, 4, 13)  # the demo world's "today", used when no world is loaded
SHIPPED_SPEC = Path(settings.BASE_DIR) / "upstream" / "mypcbench" / "michael_scott.json"


@lru_cache(maxsize=1)
def templates() -> dict[str, dict]:
    return load_templates()


def _anchor() -> dt.date:
    loaded = World.objects.order_by("-loaded_at").values_list("anchor", flat=True).first()
    return loaded or DEMO_ANCHOR


def _spec() -> Path:
    upstream = os.environ.get("MYPCBENCH_UPSTREAM_DIR")
    if upstream and (Path(upstream) / "michael_scott.json").exists():
        return Path(upstream) / "michael_scott.json"
    return SHIPPED_SPEC


def variants_dir() -> Path:
    return Path(getattr(settings, "MYPCBENCH_WORLD_VARIANTS_DIR", "") or Path(settings.VAR_DIR) / "world-variants")


def rubric_for_variant(task_id: str, variant: int, items: dict[int, str]) -> dict[int, str]:
    """``items`` (criterion text by position) as world variant ``variant`` words them."""
    template = templates().get(task_id)
    if not variant or template is None:
        return dict(items)
    world = variant_world(variants_dir(), variant, _spec(), _anchor())
    key = load_keys()
    entry = resolve(world, {task_id: key[task_id]}, [task_id])["per_task"][task_id]
    return render_items(template, entry, items)
