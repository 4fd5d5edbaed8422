"""``check``: validate a built world and measure it against the goals.

The readers (``readers``) open every file with independent tools; then the figures: tasks solvable from their
answer keys (``seeding.world.answer_keys``), the released world's facts (``released``), the text variety and
leaks (``seeding.world.text_checks``), the invariants
(``invariants``) and the volume of the app databases. ``check`` writes them all to ``check.json`` beside the
world; the report is not ok when a reader fails or a goal is missed.

A world variant other than 0 is checked the same way except for the released world's facts: the released
image is the canonical world (variant 0), so its facts are claimed for variant 0 only and the check says so.
"""

import json
from pathlib import Path

from ..answer_keys import KEYS_DIR, AnswerKeyError, load_keys, resolve
from ..apps import APPS, db_path
from ..core import read_only
from ..text_checks import leaks, text_variety
from .invariants import invariants
from .readers import Report, run_readers
from .released import KEPT, released_facts

TASKS = Path(__file__).resolve().parents[3] / "upstream" / "mypcbench" / "all_tasks_with_grading.json"
SPEC = TASKS.parent / "michael_scott.json"  # the shipped persona spec, whose author notes must not leak
GOALS = {"solvable": 0.97, "released": 0.90, "tables": 226, "rows": 42_000, "volume_tolerance": 0.10}


def failed_text_goals(variety: dict) -> list[str]:
    """Every goal ``text_variety`` marks as missed, as "app: goal"."""
    return [
        f"{app}: {goal}"
        for app, figures in variety.get("apps", {}).items()
        for goal, met in figures.get("passes", {}).items()
        if not met
    ]


def _numbers(variety, path: str = "") -> list[str]:
    """The numeric figures of ``text_variety``, flattened for printing."""
    if isinstance(variety, dict):
        return [line for key, value in variety.items() for line in _numbers(value, f"{path}.{key}" if path else key)]
    if isinstance(variety, bool) or not isinstance(variety, int | float):
        return []
    return [f"{path} {variety}"]


def volume(root: Path) -> dict:
    """Tables and rows of the app databases, against the paper's ~226 tables and ~42,000 rows."""
    tables = rows = 0
    per_app = {}
    for app in sorted(APPS):
        path = root / db_path(app)
        if not path.exists():
            continue
        con = read_only(path)
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        count = sum(con.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] for name in names)
        con.close()
        per_app[app] = {"tables": len(names), "rows": count}
        tables += len(names)
        rows += count
    return {"databases": len(per_app), "tables": tables, "rows": rows, "per_app": per_app}


def text_figures(root: Path, spec_path: str | Path | None) -> dict:
    """Text variety and author-note leaks (``seeding.world.text_checks``), measured against the spec as
    written (its remarks intact, so a leak is recognised)."""
    spec = json.loads(Path(spec_path or SPEC).read_text(encoding="utf-8"))
    return {"measured": True, "variety": text_variety(root, spec), "leaks": leaks(root, spec)}


def _task_ids(tasks_path: Path) -> list[str]:
    data = json.loads(Path(tasks_path).read_text(encoding="utf-8"))
    tasks = data.get("tasks", data) if isinstance(data, dict) else data
    return sorted(t["task_id"] if "task_id" in t else t["id"] for t in tasks)


def _missed(figures: dict) -> list[str]:
    missed = []
    solvable = figures.get("solvable")
    if solvable and solvable["solvable_rate"] < GOALS["solvable"]:
        missed.append(f"solvable tasks {solvable['solvable_rate']:.1%} < {GOALS['solvable']:.0%}")
    released = figures.get("released")
    if released and released["matched_rate"] < GOALS["released"]:
        missed.append(f"released facts matched {released['matched_rate']:.1%} < {GOALS['released']:.0%}")
    text = figures.get("text", {})
    if text.get("measured"):
        missed += [f"text goal failed: {where}" for where in failed_text_goals(text["variety"])]
        if text["leaks"]:
            missed.append(f"{len(text['leaks'])} author note(s) leak into user data")
    inv = figures.get("invariants")
    if inv:
        for kind, found in inv["kinds"].items():
            if found["violations"]:
                missed.append(f"invariant '{kind}': {found['violations']} violation(s)")
    vol = figures.get("volume")
    if vol:
        for what in ("tables", "rows"):
            ratio = vol[what] / GOALS[what]
            if abs(ratio - 1) > GOALS["volume_tolerance"]:
                missed.append(f"volume {vol[what]:,} {what}, {ratio:.0%} of ~{GOALS[what]:,}")
    return missed


def released_not_claimed(variant: int) -> str:
    """Why the released world's facts are not compared for world variant ``variant`` (> 0)."""
    return (
        f"not claimed for world variant {variant}: the released image is the canonical world (variant 0), "
        "and a variant redraws the amounts, codes and times its facts name"
    )


def _released_lines(released: dict | None, variant: int = 0) -> list[str]:
    """The released world's facts: the figure, then what differs and what is kept different on purpose."""
    if variant:
        return [f"Released world's facts: {released_not_claimed(variant)}"]
    if not released:
        return []
    counts = released["counts"]
    lines = [
        f"Released world's facts: {counts.get('matched', 0)} matched, {counts.get('differs', 0)} differ, "
        f"{counts.get(KEPT, 0)} kept different on purpose, "
        f"{counts.get('not applicable', 0)} not applicable of {released['variables']} "
        f"({released['matched_rate']:.1%} matched of matched + differ; goal {GOALS['released']:.0%})"
    ]
    for status, heading in (("differs", "Differ"), (KEPT, "Kept different on purpose")):
        shown = [(name, item) for name, item in released["per_variable"].items() if item["status"] == status]
        if shown:
            lines.append(f" {heading} ({len(shown)}):")
        for name, item in shown:
            found = str(item["found"])[:80]
            lines.append(f"  {name}: expected {item['expected']!r}, found {found} ({item['why']})")
    return lines


def render_figures(report: Report, listed: int = 40) -> str:
    """The figures of ``report`` as the command line prints them."""
    figures, lines = report.figures, [""]
    solvable = figures.get("solvable")
    if solvable:
        counts = solvable["counts"]
        lines.append(
            f"Solvable tasks: {counts.get('solvable', 0)}/{solvable['tasks']} ({solvable['solvable_rate']:.1%}; "
            f"goal {GOALS['solvable']:.0%})"
            + "".join(f"; {n} {verdict}" for verdict, n in sorted(counts.items()) if verdict != "solvable")
        )
        shown = 0
        for task_id, entry in solvable["per_task"].items():
            if entry["verdict"] == "solvable" or shown >= listed:
                continue
            shown += 1
            if entry["verdict"] == "exception":
                lines.append(f"  {task_id}: exception ({entry['exception']})")
                continue
            missing = [f"{f['need']} ({f.get('why', '')})" for f in entry["facts"] if not f["found"]]
            lines.append(f"  {task_id}: {entry['verdict']}" + (f": missing {'; '.join(missing)}" if missing else ""))
        rest = sum(1 for e in solvable["per_task"].values() if e["verdict"] != "solvable") - shown
        if rest > 0:
            lines.append(f"  ... and {rest} more (check.json lists them all)")
    lines += _released_lines(figures.get("released"), figures.get("variant", 0))
    text = figures.get("text", {})
    if text.get("measured"):
        lines.append("Text variety:")
        lines += [f"  {line}" for line in _numbers(text["variety"])[:listed]]
        lines.append(f"Leaks: {len(text['leaks'])}")
        lines += [f"  {leak}" for leak in text["leaks"][:listed]]
    elif text:
        lines.append(f"Text variety and leaks: not measured ({text['why']})")
    inv = figures.get("invariants")
    if inv:
        lines.append(f"Invariant violations: {inv['violations']} (planted on purpose: {inv['planted'] or 'none'})")
        for kind, found in inv["kinds"].items():
            lines.append(f"  {kind}: {found['violations']}")
            lines += [f"    - {example}" for example in found["examples"][:5]]
    vol = figures.get("volume")
    if vol:
        lines.append(
            f"Volume: {vol['tables']} tables and {vol['rows']:,} rows in {vol['databases']} app databases "
            f"(goal ~{GOALS['tables']} tables, ~{GOALS['rows']:,} rows, within 10%)"
        )
    if report.missed:
        lines.append("")
        lines.append("Goals missed:")
        lines += [f"  - {m}" for m in report.missed]
    return "\n".join(lines)


def check(directory, tasks_path=TASKS, keys_dir=KEYS_DIR, spec_path: str | None = None) -> Report:
    """Every reader check and figure of the world in ``directory``; writes ``check.json`` beside it."""
    root = Path(directory)
    report = Report()
    manifest = run_readers(root, report)
    if manifest is None:
        return report
    variant = manifest.get("variant", 0)
    figures: dict = {"anchor": manifest["anchor"], "variant": variant}
    try:
        keys = load_keys(keys_dir)
    except AnswerKeyError as exc:
        report.fail("answer keys", str(exc))
        keys = {}
    task_ids = _task_ids(Path(tasks_path)) if tasks_path else None
    figures["solvable"] = resolve(root, keys, task_ids)
    if variant:
        figures["released_not_claimed"] = released_not_claimed(variant)
    else:
        figures["released"] = released_facts(root)
    figures["text"] = text_figures(root, spec_path)
    figures["invariants"] = invariants(root)
    figures["volume"] = volume(root)
    report.figures = figures
    report.missed = _missed(figures)
    figures["goals_missed"] = report.missed
    figures["readers"] = {"passed": report.passed, "problems": report.problems}
    (root / "check.json").write_text(json.dumps(figures, indent=1, sort_keys=True, default=str) + "\n")
    return report
