"""Rubric templates: the shipped ones give back the upstream rubric text, a variant's values fill their
placeholders, items a template does not name (or an erratum reworded) stay as written, and derivation finds
a rubric value that varies while leaving the story's values (those the instruction names, lists in another
order) alone."""

import json

import pytest

from seeding.world.answer_keys import load_keys
from seeding.world.rubric_templates import (
    RubricTemplateError,
    derive_task,
    fill,
    load_templates,
    render_items,
    validate,
    write_value,
)
from tests.conftest import need_upstream

TOP = {
    "task": "t-1",
    "values": {"f1_r1_name": {"fact": 1, "row": 1, "column": "name", "form": "text"},
               "f1_r1_spend_money": {"fact": 1, "row": 1, "column": "spend", "form": "money"}},
    "items": [{"position": 2, "canonical": "Names Cooper's as top, $1,234.50 spent",
               "template": "Names {f1_r1_name} as top, ${f1_r1_spend_money} spent"}],
}  # fmt: skip


def _entry(*rows, columns=("id", "name", "spend")):
    return {"facts": [{"columns": list(columns), "rows": [list(r) for r in rows], "count": len(rows)}]}


def test_every_shipped_template_gives_back_the_upstream_rubric_text_it_names():
    upstream = json.loads((need_upstream("all_tasks_with_grading.json") / "all_tasks_with_grading.json").read_text())
    rubrics = {t["id"]: [r["criterion"] for r in t["grading"]["rubrics"]] for t in upstream}
    templates = load_templates()
    keys = load_keys()
    assert templates, "no rubric templates shipped"
    for task, template in templates.items():
        assert task in keys
        for item in template["items"]:
            assert rubrics[task][item["position"] - 1] == item["canonical"]
            assert "{" in item["template"]


def test_a_variants_values_fill_the_template_in_their_written_form():
    assert fill(TOP, _entry([7, "Chili's Grill & Bar", 1234.5])) == {
        2: "Names Chili's Grill & Bar as top, $1,234.50 spent"
    }
    assert write_value("2026-04-13 21:05:00", "clock") == "9:05" and write_value("08:30", "clock") == "8:30"
    assert write_value(12, "money") == "12.00" and write_value(None, "text") is None


def test_unnamed_items_and_items_an_erratum_reworded_stay_as_written():
    items = {1: "Opens HangryDash", 2: "Names Cooper's as top, $1,234.50 spent", 3: "Says $5"}
    rendered = render_items(TOP, _entry([7, "Benihana", 99.0]), items)
    assert rendered == {1: "Opens HangryDash", 2: "Names Benihana as top, $99.00 spent", 3: "Says $5"}
    reworded = items | {2: "Names the top restaurant"}
    assert render_items(TOP, _entry([7, "Benihana", 99.0]), reworded) == reworded
    assert render_items(None, None, items) == items


def test_a_variant_without_the_row_is_refused_by_name():
    with pytest.raises(RubricTemplateError, match="row 1 of 0 not found"):
        fill(TOP, _entry())


@pytest.mark.parametrize(
    ("template", "named"),
    [({"task": "t", "values": {}, "items": []}, "non-empty list"),
     ({"task": "t", "values": {"Bad": {"fact": 1, "row": 1, "column": "c", "form": "text"}},
       "items": [{"position": 1, "canonical": "a", "template": "a"}]}, "not lower_case"),
     ({"task": "t", "values": {}, "items": [{"position": 1, "canonical": "a", "template": "{x}"}]}, "unknown value")],
)  # fmt: skip
def test_a_malformed_template_is_refused_by_name(template, named):
    with pytest.raises(RubricTemplateError, match=named):
        validate(template, "t.json")


def test_derivation_templates_the_top_value_that_varies_and_leaves_the_story_alone():
    task = {
        "id": "t-1",
        "instruction": "Compare Sweetgreen with my top place",
        "grading": {"rubrics": [{"criterion": "Says Cooper's Seafood House is the top place"},
                                {"criterion": "Compares Sweetgreen with it"},
                                {"criterion": "Lists Benihana among the places"}]},
    }  # fmt: skip
    key = {"facts": [{"sql": "SELECT id, name FROM r ORDER BY n DESC"}]}
    per_variant = [
        _entry([1, "Cooper's Seafood House"], [2, "Sweetgreen"], [3, "Benihana"], columns=("id", "name")),
        _entry([1, "Cooper's Seafood House"], [3, "Benihana"], [2, "Sweetgreen"], columns=("id", "name")),
        _entry([2, "Sweetgreen"], [1, "Cooper's Seafood House"], [3, "Benihana"], columns=("id", "name")),
    ]
    template = derive_task(task, key, per_variant)
    assert template["items"] == [{"position": 1, "canonical": "Says Cooper's Seafood House is the top place",
                                  "template": "Says {f1_r1_name} is the top place"}]  # fmt: skip
    assert template["values"] == {"f1_r1_name": {"fact": 1, "row": 1, "column": "name", "form": "text"}}
    assert fill(template, per_variant[2]) == {1: "Says Sweetgreen is the top place"}
    unordered = {"facts": [{"sql": "SELECT id, name FROM r"}]}
    assert derive_task(task, unordered, per_variant) is None
