"""Rubric templates on real world variants: for every templated task, variant 0's answer key gives back the
upstream rubric byte for byte, and variant 3's rendering names the values read from variant 3's own
databases with the key's query run directly (not through the answer-key resolver); the top place
of preference_inference-f004 (most TableFind reservations), read by a query written here, is what each variant
names."""

import json
import sqlite3

import pytest

from seeding.world.answer_keys import load_keys, resolve
from seeding.world.apps import db_path
from seeding.world.rubric_templates import fill, load_templates, variant_world, write_value
from tests.conftest import need_upstream
from tests.seeding.conftest import REAL_ANCHOR

pytestmark = pytest.mark.slow  # builds variants 0, 2 and 3 of the real spec

TOP_TABLEFIND = (  # every restaurant with the most reservations (variant 2 has two)
    "WITH n AS (SELECT restaurant_id, COUNT(*) AS c FROM reservations GROUP BY restaurant_id) "
    "SELECT r.name FROM n JOIN restaurants r ON r.id = n.restaurant_id WHERE n.c = (SELECT MAX(c) FROM n)"
)


@pytest.fixture(scope="module")
def variant_worlds(tmp_path_factory):
    spec = need_upstream("michael_scott.json") / "michael_scott.json"
    cache = tmp_path_factory.mktemp("variants")
    return {k: variant_world(cache, k, spec, REAL_ANCHOR) for k in (0, 2, 3)}


def _direct(world, key_fact: dict, where: dict):
    """The value at the template's row and column, by running the key's query on the variant's database."""
    con = sqlite3.connect(f"file:{world / db_path(key_fact['app'])}?mode=ro", uri=True)
    try:
        cursor = con.execute(key_fact["sql"], {"anchor": REAL_ANCHOR.isoformat()})
        columns = [d[0] for d in cursor.description]
        return cursor.fetchall()[where["row"] - 1][columns.index(where["column"])]
    finally:
        con.close()


def test_variant_0_gives_back_the_rubric_and_variant_3_names_its_own_values(variant_worlds):
    upstream = json.loads((need_upstream("all_tasks_with_grading.json") / "all_tasks_with_grading.json").read_text())
    rubrics = {t["id"]: [r["criterion"] for r in t["grading"]["rubrics"]] for t in upstream}
    templates, keys = load_templates(), load_keys()
    canonical = resolve(variant_worlds[0], keys, sorted(templates))["per_task"]
    third = resolve(variant_worlds[3], keys, sorted(templates))
    assert third["variant"] == 3
    for task, template in templates.items():
        for position, text in fill(template, canonical[task]).items():
            assert text == rubrics[task][position - 1]
        rendered = fill(template, third["per_task"][task])
        for name, where in template["values"].items():
            fact = keys[task]["facts"][where["fact"] - 1]
            value = write_value(_direct(variant_worlds[3], fact, where), where["form"])
            holding = [i["position"] for i in template["items"] if "{" + name + "}" in i["template"]]
            assert all(value in rendered[p] for p in holding), (task, name, value)


def test_the_top_place_the_rubric_names_is_each_variants_own(variant_worlds):
    template = load_templates()["preference_inference-f004"]
    keys = load_keys()
    named = {}
    for variant, world in variant_worlds.items():
        con = sqlite3.connect(f"file:{world / db_path('tablefind')}?mode=ro", uri=True)
        top = {name for (name,) in con.execute(TOP_TABLEFIND)}
        con.close()
        entry = resolve(world, keys, ["preference_inference-f004"])["per_task"]["preference_inference-f004"]
        named[variant] = fill(template, entry)[2]
        assert any(named[variant].startswith(f"Agent identifies {t} as Michael's top") for t in top), (variant, top)
    assert named[0] != named[2]  # variant 2: two places tie at the top and the key's order names the other
