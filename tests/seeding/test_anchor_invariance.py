"""Anchor invariance: the real spec built at 22 anchors (every weekday, month, quarter and year boundaries,
a leap day) gives every task the same answer-key verdict, keeps every invariant that holds at the demo's
anchor (0 violations of each kind is the goal the check reports), and passes every reader check. Facts
relative to "today" move with the anchor; nothing the tasks rely on falls out of the world at a boundary.
The released image's variables are not compared here: some are facts of one day (the last weekday
commute, dividends "year to date"), which a different weekday or year rightly changes."""

import datetime as dt
import json
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from seeding.world.answer_keys import load_keys, resolve
from seeding.world.build import build
from seeding.world.check.invariants import invariants
from seeding.world.check.readers import Report, run_readers
from tests.conftest import need_upstream

pytestmark = pytest.mark.slow  # 22 builds of the real spec, two at a time

BASE = dt.date(2026, 4, 13)  # a Monday: the demo's anchor
ANCHORS = [
    *(BASE + dt.timedelta(days=n) for n in range(1, 7)),  # Tuesday .. Sunday
    dt.date(2026, 4, 30),  # month end
    dt.date(2026, 5, 1),  # month start
    dt.date(2026, 3, 31),  # quarter end
    dt.date(2026, 4, 1),  # quarter start
    dt.date(2026, 6, 30),
    dt.date(2026, 7, 1),
    dt.date(2027, 9, 30),
    dt.date(2025, 12, 31),  # year end
    dt.date(2026, 1, 1),  # year start
    dt.date(2026, 12, 31),
    dt.date(2027, 1, 1),
    dt.date(2026, 2, 28),
    dt.date(2026, 3, 1),
    dt.date(2028, 2, 29),  # leap day
    dt.date(2028, 3, 1),
]


def _upstream():
    return need_upstream("michael_scott.json", "all_tasks_with_grading.json")


def figures_at(anchor: dt.date) -> dict:
    """Build the real spec at ``anchor`` in a scratch folder; its reader problems, answer-key verdicts and
    invariant violations (run in a worker process: seeding is plain Python, no Django)."""
    upstream = _upstream()
    tasks = [task["id"] for task in json.loads((upstream / "all_tasks_with_grading.json").read_text())]
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "world"
        build(upstream / "michael_scott.json", out, anchor)
        report = Report()
        run_readers(out, report)
        solvable = resolve(out, load_keys(), tasks)
        kept = invariants(out)
    return {
        "problems": {name: listed for name, listed in report.problems.items() if listed},
        "verdicts": {task: entry["verdict"] for task, entry in solvable["per_task"].items()},
        "invariants": {kind: found["violations"] for kind, found in kept["kinds"].items()},
    }


@pytest.fixture(scope="module")
def figures() -> dict:
    """Every anchor's figures, built two at a time (the machine's two CPUs)."""
    anchors = [BASE, *ANCHORS]
    with ProcessPoolExecutor(max_workers=2) as pool:
        return dict(zip(anchors, pool.map(figures_at, anchors), strict=True))


def test_there_are_22_anchors_covering_weekdays_boundaries_and_a_leap_day():
    days = [BASE, *ANCHORS]
    assert len(set(days)) == 22
    assert {d.weekday() for d in days} == set(range(7))
    assert any(d.month == 2 and d.day == 29 for d in days)
    assert any(d.month == 1 and d.day == 1 for d in days) and any(d.month == 12 and d.day == 31 for d in days)


@pytest.mark.parametrize("anchor", ANCHORS, ids=str)
def test_every_answer_key_fact_and_invariant_holds_at_the_anchor(anchor, figures):
    base, here = figures[BASE], figures[anchor]
    assert not here["problems"], f"reader checks that fail at {anchor}: {here['problems']}"
    changed = {t: (base["verdicts"][t], v) for t, v in here["verdicts"].items() if v != base["verdicts"].get(t)}
    assert not changed, f"verdicts that change at {anchor}: {changed}"
    broken = {k: n for k, n in here["invariants"].items() if n and not base["invariants"].get(k)}
    assert not broken, f"invariants that hold at {BASE} but not at {anchor}: {broken}"
