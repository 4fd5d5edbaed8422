"""Rubric templates: rubric items that name a world value, rendered from a world variant's answer key.

A rubric item such as "identifies Cooper's Seafood House as Michael's top delivery restaurant" names a value
of the canonical world; in world variant 3 the top restaurant may be another. A template (one reviewable
JSON file per task in ``seeding/answer_keys/rubric_templates/<task id>.json``, beside the task's answer key)
says which spans of which items are which answer-key facts::

    {"task": "preference_inference-f004",
     "values": {"f1_r1_name": {"fact": 1, "row": 1, "column": "name", "form": "text"}},
     "items": [{"position": 1, "canonical": "Agent identifies Cooper's Seafood House as ...",
                "template": "Agent identifies {f1_r1_name} as ..."}]}

``fact`` and ``row`` count from 1 (the key's fact, the row its query returns), ``column`` names the query's
column and ``form`` how the value is written: ``text`` as stored, ``money`` with two decimals and thousands
commas, ``clock`` as "9:22" from a time or timestamp. Rendering a template with the canonical world's
answer key gives back ``canonical`` byte for byte (``check_canonical``); items a template does not name are
unchanged. ``derive`` writes templates from the answer keys resolved on variants 0..3: a value of variant
0 that an item's text names and that differs in another variant is a placeholder.

``python -m seeding.world.rubric_templates derive WORLD0 WORLD1 [WORLD ...]`` writes the templates;
``render WORLD TASK`` prints a task's rubric for the variant built in WORLD.
"""

import argparse
import datetime as dt
import json
import re
import sys
from pathlib import Path

from .answer_keys import KEYS_DIR, load_keys, load_task_files, resolve

TEMPLATES_DIR = KEYS_DIR / "rubric_templates"
FORMS = ("text", "money", "clock")
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")
ORDERED = re.compile(r"\border\s+by\b", re.I)
MIN_TEXT = 3  # shorter values (a count of 2, "NY") name nothing in particular
CLOCK = re.compile(r"(?:^|[ T])(\d{2}):(\d{2})")


class RubricTemplateError(ValueError):
    """A template that cannot be used, or a variant whose answer key cannot fill it; the message says which."""


def write_value(value, form: str) -> str | None:
    """``value`` as a rubric writes it in ``form``; None when it cannot be written so."""
    if value is None or isinstance(value, bool):
        return None
    if form == "text":
        return str(value)
    if form == "money":
        return f"{value:,.2f}" if isinstance(value, int | float) else None
    if form == "clock":
        found = CLOCK.search(str(value)) if isinstance(value, str) else None
        if not found:
            return None
        hour, minute = int(found.group(1)), found.group(2)
        return f"{hour % 12 or 12}:{minute}"
    raise RubricTemplateError(f"form {form!r} is not one of {FORMS}")


def cell(resolved_task: dict, where: dict):
    """The value a placeholder names in one resolved answer key (``resolve``'s per-task entry)."""
    facts = resolved_task.get("facts", [])
    if not 1 <= where["fact"] <= len(facts):
        raise RubricTemplateError(f"fact {where['fact']}: the key has {len(facts)} fact(s)")
    fact = facts[where["fact"] - 1]
    columns, rows = fact.get("columns", []), fact.get("rows", [])
    if where["column"] not in columns:
        raise RubricTemplateError(f"fact {where['fact']}: no column {where['column']!r}")
    if not 1 <= where["row"] <= len(rows):
        raise RubricTemplateError(f"fact {where['fact']}: row {where['row']} of {len(rows)} not found")
    return rows[where["row"] - 1][columns.index(where["column"])]


def validate(template, name: str) -> dict:
    """``template`` if usable, else ``RubricTemplateError`` naming the file and what is wrong."""
    if not isinstance(template, dict) or not isinstance(template.get("task"), str):
        raise RubricTemplateError(f"{name}: a template is an object with the 'task' it serves")
    values, items = template.get("values"), template.get("items")
    if not isinstance(values, dict) or not isinstance(items, list) or not items:
        raise RubricTemplateError(f"{name}: needs 'values' (an object) and 'items' (a non-empty list)")
    for key, where in values.items():
        if not PLACEHOLDER.fullmatch("{" + key + "}"):
            raise RubricTemplateError(f"{name}: value name {key!r} is not lower_case")
        if not isinstance(where, dict) or where.get("form") not in FORMS or not isinstance(where.get("column"), str):
            raise RubricTemplateError(f"{name}: value {key!r} needs 'fact', 'row', 'column' and a 'form' of {FORMS}")
        if not all(isinstance(where.get(k), int) and where[k] >= 1 for k in ("fact", "row")):
            raise RubricTemplateError(f"{name}: value {key!r}: 'fact' and 'row' are whole numbers from 1")
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("position"), int):
            raise RubricTemplateError(f"{name}: each item needs its 'position' (from 1)")
        if not isinstance(item.get("canonical"), str) or not isinstance(item.get("template"), str):
            raise RubricTemplateError(f"{name}: item {item.get('position')} needs 'canonical' and 'template' text")
        unknown = set(PLACEHOLDER.findall(item["template"])) - set(values)
        if unknown:
            raise RubricTemplateError(f"{name}: item {item['position']} names unknown value(s) {sorted(unknown)}")
    return template


def load_templates(directory: Path | str = TEMPLATES_DIR) -> dict[str, dict]:
    """Every ``<task id>.json`` template in ``directory``, validated, by task id."""
    return load_task_files(directory, validate, RubricTemplateError)


def fill(template: dict, resolved_task: dict) -> dict[int, str]:
    """Each templated item's text (by position) with the values of one resolved answer key."""
    values = {}
    for key, where in template["values"].items():
        written = write_value(cell(resolved_task, where), where["form"])
        if written is None:
            raise RubricTemplateError(f"{template['task']}: {key} cannot be written as {where['form']}")
        values[key] = written

    def put(match):
        return values[match.group(1)] if match.group(1) in values else match.group(0)

    return {item["position"]: PLACEHOLDER.sub(put, item["template"]) for item in template["items"]}


def render_items(template: dict | None, resolved_task: dict | None, items: dict[int, str]) -> dict[int, str]:
    """The rubric ``items`` (text by position) as the variant behind ``resolved_task`` words them: an item the
    template names is rendered when its text is still the template's canonical one (an erratum that reworded
    it leaves it as written); every other item is unchanged."""
    if not template or resolved_task is None:
        return dict(items)
    rendered = fill(template, resolved_task)
    canonical = {item["position"]: item["canonical"] for item in template["items"]}
    return {
        position: rendered[position] if canonical.get(position) == text else text for position, text in items.items()
    }


def check_canonical(template: dict, canonical_task: dict) -> list[str]:
    """Items whose template, filled from the canonical world's key, is not their canonical text (empty: good)."""
    rendered = fill(template, canonical_task)
    return [f"item {i['position']}" for i in template["items"] if rendered[i["position"]] != i["canonical"]]


def variant_world(cache_dir: Path | str, variant: int, persona: Path | str, anchor: dt.date) -> Path:
    """The folder of world variant ``variant`` at ``anchor``, built once under ``cache_dir`` and reused
    (a build takes a few seconds; a folder whose manifest names another anchor or variant is rebuilt)."""
    out = Path(cache_dir) / f"world-{anchor.isoformat()}-v{variant}"
    manifest = out / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_text(encoding="utf-8"))
        if data.get("anchor") == anchor.isoformat() and data.get("variant", 0) == variant:
            return out
    from .build import build  # only when a variant is missing: importing the seeders takes time

    build(persona, out, anchor, variant=variant)
    return out


def _boundary(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum() or (after in ".," and text[end + 1 : end + 2].isdigit()))


def _spans(text: str, written: str):
    start = text.find(written)
    while start != -1:
        if _boundary(text, start, start + len(written)):
            yield start, start + len(written)
        start = text.find(written, start + 1)


def _candidates(key: dict, per_variant: list[dict], instruction: str = ""):
    """(name, where, written at variant 0) for every cell of variant 0 that some variant changes. A value the
    instruction names is the story's (the instruction is the same in every variant); a value every variant
    still holds counts only as the first row of an ordered query (the top one, which a rubric may name)."""
    base = per_variant[0]
    for f, fact in enumerate(base["facts"], 1):
        sql = key["facts"][f - 1].get("sql", "")
        for r, row in enumerate(fact.get("rows", []), 1):
            for column, value in zip(fact["columns"], row, strict=True):
                if column == "id" or column.endswith("_id"):
                    continue
                where = {"fact": f, "row": r, "column": column}
                try:
                    others = [cell(v, where) for v in per_variant]
                except RubricTemplateError:
                    continue  # a row some variant does not have cannot be rendered there
                if all(o == value for o in others):
                    continue
                # a row past the rows an answer key shows may still hold it: counted as kept
                kept = all(value in _column(v, f, column) or v["facts"][f - 1]["count"] > len(v["facts"][f - 1]["rows"])
                           for v in per_variant)  # fmt: skip
                if kept and (r != 1 or not ORDERED.search(sql)):
                    continue  # a list in another order: the same values
                for form in FORMS:
                    written = write_value(value, form)
                    if written is None or len(written) < MIN_TEXT or written in instruction:
                        continue
                    if all(write_value(o, form) for o in others):
                        name = f"f{f}_r{r}_" + (re.sub(r"[^a-z0-9]+", "_", column.lower()).strip("_") or "value")
                        yield name + ("" if form == "text" else f"_{form}"), where | {"form": form}, written


def _column(resolved_task: dict, fact: int, column: str) -> list:
    found = resolved_task["facts"][fact - 1]
    index = found["columns"].index(column)
    return [row[index] for row in found.get("rows", [])]


def derive_task(task: dict, key: dict, per_variant: list[dict]) -> dict | None:
    """The template of one task (its upstream entry, its answer key, the key resolved on variants 0..n),
    or None when no item names a value that varies."""
    candidates = sorted(_candidates(key, per_variant, task.get("instruction", "")), key=lambda c: -len(c[2]))
    values: dict[str, dict] = {}
    items = []
    for position, rubric in enumerate(task.get("grading", {}).get("rubrics", []), 1):
        text = rubric.get("criterion", "")
        taken: list[tuple[int, int, str]] = []
        for name, where, written in candidates:
            for start, end in _spans(text, written):
                if all(end <= s or start >= e for s, e, _ in taken):
                    taken.append((start, end, name))
                    values[name] = where
        if not taken or "{" in text or "}" in text:
            continue
        template = text
        for start, end, name in sorted(taken, reverse=True):
            template = template[:start] + "{" + name + "}" + template[end:]
        items.append({"position": position, "canonical": text, "template": template})
    if not items:
        return None
    used = {n for i in items for n in PLACEHOLDER.findall(i["template"])}
    return {"task": task["id"], "values": {n: w for n, w in sorted(values.items()) if n in used}, "items": items}


def derive(worlds: list[Path], tasks_file: Path, out: Path = TEMPLATES_DIR, keys_dir: Path = KEYS_DIR) -> dict:
    """Write a template for every task whose rubric names a value that differs across ``worlds`` (the first is
    variant 0); earlier templates in ``out`` are replaced. Returns what was found, for the summary."""
    keys = load_keys(keys_dir)
    resolved = [resolve(w, keys) for w in worlds]
    if resolved[0]["variant"] != 0:
        raise RubricTemplateError(f"{worlds[0]} is world variant {resolved[0]['variant']}; the first must be 0")
    tasks = json.loads(Path(tasks_file).read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    found: dict = {"tasks": 0, "items": 0, "values": 0, "variants": [r["variant"] for r in resolved]}
    for task in tasks:
        key = keys.get(task["id"])
        if key is None:
            continue
        template = derive_task(task, key, [r["per_task"][task["id"]] for r in resolved])
        if template is None:
            continue
        problems = check_canonical(template, resolved[0]["per_task"][task["id"]])
        if problems:
            raise RubricTemplateError(f"{task['id']}: {problems} do not give back the canonical text")
        (out / f"{task['id']}.json").write_text(json.dumps(template, indent=1, ensure_ascii=False) + "\n", "utf-8")
        found["tasks"] += 1
        found["items"] += len(template["items"])
        found["values"] += len(template["values"])
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m seeding.world.rubric_templates", description=__doc__.splitlines()[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("derive", help="write the templates from worlds built on variant 0 and others")
    d.add_argument("worlds", nargs="+", help="built worlds, variant 0 first")
    d.add_argument("--tasks", required=True, help="the upstream task file (all_tasks_with_grading.json)")
    d.add_argument("--out", default=str(TEMPLATES_DIR), help="folder for the templates (default: %(default)s)")
    r = sub.add_parser("render", help="print a task's rubric items as a built world variant words them")
    r.add_argument("world")
    r.add_argument("task")
    args = parser.parse_args(argv)
    try:
        if args.command == "derive":
            found = derive([Path(w) for w in args.worlds], Path(args.tasks), Path(args.out))
            print(
                f"{found['tasks']} tasks, {found['items']} rubric items, {found['values']} values vary "
                f"across world variants {found['variants']}"
            )
            return 0
        template = load_templates().get(args.task)
        if template is None:
            print(f"{args.task}: no template (no rubric item names a value that varies)")
            return 0
        entry = resolve(args.world, load_keys(), [args.task])
        for position, text in sorted(fill(template, entry["per_task"][args.task]).items()):
            print(f"{position}. {text}")
        return 0
    except RubricTemplateError as exc:
        print(f"rubric templates: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
