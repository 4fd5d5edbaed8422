"""The fixed plans of the scripted demo agent: for each demo task, the GUI actions the script takes on
the demo apps filled from the persona world, the words it "says" at each step, and how each rubric item
comes out (written with the script, not by an LLM judge). Two plan sets, one per demo run: ``PLANS``
(the careful plan) and ``HASTY_PLANS`` (a plan that stops after a partial look). Recorded by
seeding/record_demo.py.

The plans are data, in ``demo_plans.json`` beside this file (``careful`` and ``hasty``): each turn is
``{"say": ..., <action>: <argument>}`` with one action of ``ACTIONS``, each verdict
``{"success": ..., "reasoning": ...}``. The hasty plan is the same kind of script, written to stop after a
partial look; where the partial look happens to be enough (demo-d003: one search by category, two pages,
shows all five) it does better than the careful one.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

PLANS_FILE = Path(__file__).resolve().parent / "demo_plans.json"


@dataclass(frozen=True)
class Action:
    """One scripted GUI action. ``target`` is a Playwright selector; ``to`` is the drop target of a drag."""

    kind: str  # click, switch_app, double_click, type, hotkey, done, fail
    target: str = ""
    text: str = ""
    keys: tuple[str, ...] = ()
    to: str = ""


@dataclass(frozen=True)
class Turn:
    response: str
    action: Action


@dataclass(frozen=True)
class Verdict:
    success: bool
    reasoning: str


@dataclass
class DemoPlan:
    """What the scripted agent does for one demo task, and how its rubric items come out."""

    task_id: str
    page: str
    turns: list[Turn]
    verdicts: list[Verdict] = field(default_factory=list)


def click(target):
    return Action("click", target=target)


def switch_to(app):
    """Open another demo app through the app links in the demo banner (the demo's stand-in for switching windows)."""
    return Action("switch_app", target=f".demo-apps a:has-text('{app}')")


def type_text(text):
    return Action("type", text=text)


def hotkey(*keys):
    return Action("hotkey", keys=keys)


DONE = Action("done")
FAIL = Action("fail")


def double_click(target):
    return Action("double_click", target=target)


def finish(word):
    """The last turn: ``DONE`` or ``FAIL``."""
    return {"DONE": DONE, "FAIL": FAIL}[word]


# The action keys a turn of demo_plans.json may use, and how each becomes an Action.
ACTIONS = {
    "click": click,
    "double_click": double_click,
    "type": type_text,
    "hotkey": lambda keys: hotkey(*keys),
    "switch_to": switch_to,
    "finish": finish,
}


class PlanFileError(ValueError):
    """demo_plans.json holds a turn or verdict this module cannot read."""


def turn_of(data: dict) -> Turn:
    """One turn of demo_plans.json: what the script says, and its one action."""
    actions = [key for key in data if key != "say"]
    if "say" not in data or len(actions) != 1 or actions[0] not in ACTIONS:
        raise PlanFileError(f"a turn needs 'say' and one action of {sorted(ACTIONS)}: {data}")
    return Turn(data["say"], ACTIONS[actions[0]](data[actions[0]]))


def plan_of(data: dict) -> DemoPlan:
    return DemoPlan(
        task_id=data["task_id"],
        page=data["page"],
        turns=[turn_of(turn) for turn in data["turns"]],
        verdicts=[Verdict(bool(v["success"]), v["reasoning"]) for v in data["verdicts"]],
    )


def load_plans(path: Path = PLANS_FILE) -> tuple[list[DemoPlan], list[DemoPlan]]:
    """The careful and the hasty plan sets of ``path``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [plan_of(p) for p in data["careful"]], [plan_of(p) for p in data["hasty"]]


PLANS, HASTY_PLANS = load_plans()
