"""The replay experiment: does a blind replay of one recorded run still succeed when the world's surface
changes? ("Computer Use at the Edge of the Statistical Precipice", arXiv 2605.08261.)

The scripted demo agent (seeding/demo_plans.py, careful plans) is recorded on world variant 0 in our local
desktop guest: it finds each element its plan names in the page the guest shows (the DOM, read through
Chromium's DevTools), clicks its centre and types through the guest's Control API, and its actions are
kept as pyautogui lines. Then, on variants 0..9 of the demo world (each variant's world, in its own
interface), two agents play every task:

- **replay**: sends the recorded lines again, in order, without reading anything from the guest;
- **reader**: the same scripted agent, finding its targets again on the variant's page.

A task succeeds when the guest showed every record the task needs, as the demo's state check for that
variant says (``state_check``: resolved from the variant's world, such as "the HooliMail reader shows the
DN1562 booking mail" with its subject and date there). The checks are read from the page by the
experiment after each action, never by the replay agent. ``table`` prints each agent's success per task
and overall with Wilson intervals. Run it with ``bench/bench_replay.py``.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from seeding.demo_plans import PLANS, DemoPlan
from seeding.demo_world_apps import anchor_of, card, chats, events, mails

# The demo tasks of the experiment: every careful plan but demo-d004's, which ends on a key no demo page
# answers (alt+tab) and whose second page depends on the page size by design.
TASKS = ("demo-d001", "demo-d002", "demo-d003", "demo-d005", "demo-d006", "demo-d007", "demo-d008", "demo-d009",
         "demo-d010", "demo-d011", "demo-d012")  # fmt: skip
# What each task needs on screen: a mail found by a search and a text on its row, a calendar event of the
# week so many weeks from the anchor's, a card search's newest charge, a chat found by a search.
NEEDS: dict[str, list[tuple]] = {
    "demo-d001": [("mail", "dinoco", "DN1562")],
    "demo-d002": [("event", 0, "Dentist Appointment")],
    "demo-d003": [("card", "netflix"), ("card", "hulu"), ("card", "disney"), ("card", "peacock")],
    "demo-d005": [("chat", "160", "Jim Halpert")],
    "demo-d006": [("card", "benihana"), ("event", -9, "Date Night - Benihana"), ("chat", "benihana", "Jan Levinson")],
    "demo-d007": [("event", 0, "Improv Class")],
    "demo-d008": [("mail", "tablefind", "Romantic dinner at Cooper")],
    "demo-d009": [("event", -1, "Sensitivity Training")],
    "demo-d010": [("mail", "dinoco", "DN6769"), ("event", 0, "MANDATORY FUN")],
    "demo-d011": [("mail", "montego bay", "SM-88431"), ("card", "sandals")],
    "demo-d012": [("event", 2, "THE DUNDIES")],
}
PANES = ("#reader", "#pop", "#thread", "#rows")  # where the demo apps show a record
FULL_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")  # fmt: skip
SETTLE_SECONDS = 0.3  # after the guest took an action in, before the page is read (both agents wait the same)
INPUT_SECONDS = 5.0  # how long an action's input events may take to reach the page
STABLE_SECONDS = 3.0  # then until two readings 0.15 s apart agree, at most this long
NAVIGATION_SECONDS = 3.0  # how long a step that opened another app waits for the page to load


class ReplayError(RuntimeError):
    """The experiment cannot run: a task without a state check, a record its check names missing."""


@dataclass(frozen=True)
class Step:
    """One recorded action: its pyautogui line, and whether it opened another page in the source run."""

    line: str
    navigates: bool = False


@dataclass(frozen=True)
class Sight:
    """One record a task needs on screen: every text of ``texts`` in the page element ``pane`` at one step."""

    what: str
    pane: str
    texts: tuple[str, ...]


def _norm(text: str) -> str:
    return " ".join(str(text).split()).lower()


def _time_label(hhmm: str) -> str:
    """The calendar's own label of a time: ``19:00`` -> ``7:00pm``."""
    hour, minute = map(int, hhmm.split(":"))
    return f"{hour % 12 or 12}:{minute:02d}{'am' if hour < 12 else 'pm'}"


def _mail_sight(world_mails: list[dict], query: str, needle: str) -> Sight:
    shown = [m for m in world_mails if query in _norm(f"{m['from']} {m['subject']} {m['body']}")]
    hits = [m for m in shown if _norm(needle) in _norm(f"{m['from']} {m['date']} {m['subject']} {m['body']}")]
    if not hits:
        raise ReplayError(f"no mail matching {query!r} holds {needle!r}")
    mail = hits[0]
    return Sight(f"the HooliMail reader shows {mail['subject']!r}", "#reader",
                 (mail["subject"], f"{mail['date']}, {mail['year']}"))  # fmt: skip


def _week_start(anchor: dt.date, weeks: int) -> dt.date:
    return anchor - dt.timedelta(days=(anchor.weekday() + 1) % 7) + dt.timedelta(weeks=weeks)


def _event_sight(world_events: list[dict], anchor: dt.date, weeks: int, needle: str) -> Sight:
    """The first event of that week holding ``needle``, in the order the week view draws them (day by day,
    by start time), with the day and times its pop-up shows."""
    start = _week_start(anchor, weeks)
    for offset in range(7):
        day = start + dt.timedelta(days=offset)
        js_day = (day.weekday() + 1) % 7
        key = day.isoformat()
        on_day = [e for e in world_events
                  if (e["d"] <= key and js_day in e["weekly"] if "weekly" in e else e["d"] == key)]  # fmt: skip
        for event in sorted(on_day, key=lambda e: e["s"]):
            if _norm(needle) in _norm(event["t"]):
                when = f"{_time_label(event['s'])} \u2013 {_time_label(event['e'])}"
                return Sight(f"the HooliCalendar pop-up shows {event['t']!r} on {day}", "#pop",
                             (event["t"], f"{FULL_MONTHS[day.month - 1]} {day.day}, {day.year}", when))  # fmt: skip
    raise ReplayError(f"no event holding {needle!r} in the week of {start}")


def _card_sight(world_tx: list[list], query: str) -> Sight:
    hits = [t for t in world_tx if query in _norm(f"{t[1]} {t[2]}")]
    if not hits:
        raise ReplayError(f"no card transaction matches {query!r}")
    day, description, _category, amount = hits[0]  # the newest
    return Sight(f"Gringotts lists {description!r} of {day}", "#rows", (description, f"${abs(amount):,.2f}"))


def _chat_sight(world_chats: list[dict], query: str, name: str) -> Sight:
    for chat in world_chats:
        if chat["name"] != name:
            continue
        hits = [m for m in chat["messages"] if query in _norm(f"{m['from']} {m['text']}")]
        last = (hits or chat["messages"])[-1]
        return Sight(f"the HooliChat conversation with {name} shows {last['text'][:40]!r}", "#thread",
                     (name, last["text"]))  # fmt: skip
    raise ReplayError(f"no HooliChat conversation named {name!r}")


@dataclass
class WorldFacts:
    """What the demo apps of one world hold (as demo_world_apps fills them)."""

    anchor: dt.date
    mails: list[dict]
    events: list[dict]
    tx: list[list]
    chats: list[dict]

    @classmethod
    def of(cls, world: Path) -> WorldFacts:
        anchor = anchor_of(world)
        return cls(anchor, mails(world, anchor), events(world, anchor), card(world, anchor)[1], chats(world, anchor))


def state_check(facts: WorldFacts, task_id: str) -> list[Sight]:
    """The demo's state check of ``task_id`` on one world variant: the records the task needs on screen."""
    if task_id not in NEEDS:
        raise ReplayError(f"{task_id}: no state check for the replay experiment")
    sights = []
    for kind, *args in NEEDS[task_id]:
        if kind == "mail":
            sights.append(_mail_sight(facts.mails, *args))
        elif kind == "event":
            sights.append(_event_sight(facts.events, facts.anchor, *args))
        elif kind == "card":
            sights.append(_card_sight(facts.tx, *args))
        else:
            sights.append(_chat_sight(facts.chats, *args))
    return sights


def passed(sights: list[Sight], seen: list[dict[str, str]]) -> bool:
    """Whether every sight held at some step (``seen``: each step's text of each pane)."""
    return all(any(all(_norm(t) in _norm(step.get(s.pane, "")) for t in s.texts) for step in seen) for s in sights)


# ------------------------------------------------------------------ the agents, in the local desktop guest


def _read_panes(page) -> dict[str, str] | None:
    script = "sels => sels.map(s => { const e = document.querySelector(s); return e ? e.innerText : ''; })"
    try:
        page.wait_for_load_state("load")
        return dict(zip(PANES, page.evaluate(script, list(PANES)), strict=True))
    except Exception:  # noqa: BLE001 - a navigation in flight: the caller reads again once it lands
        return None


def _observe(page) -> dict[str, str]:
    """The text of each pane once the page has stopped changing (the experiment's reading; no agent gets it)."""
    last = None
    deadline = time.monotonic() + STABLE_SECONDS
    while time.monotonic() < deadline:
        now = _read_panes(page)
        if now is not None and now == last:
            return now
        last = now
        time.sleep(0.15)
    return last or {}


def _line_of(page, action) -> str | None:
    """The pyautogui line of one plan action, its target found on the page (None: not on the page)."""
    if action.kind in ("click", "switch_app", "double_click"):
        try:
            box = page.locator(action.target).first.bounding_box(timeout=2000)
        except Exception:  # noqa: BLE001 - Playwright's timeout: the target is not on this page
            box = None
        if box is None:
            return None
        x, y = round(box["x"] + box["width"] / 2), round(box["y"] + box["height"] / 2)
        return f"pyautogui.{'doubleClick' if action.kind == 'double_click' else 'click'}({x}, {y})"
    if action.kind == "type":
        return f"pyautogui.typewrite({action.text!r})"
    if action.kind == "hotkey":
        return "pyautogui.hotkey(" + ", ".join(repr(k) for k in action.keys) + ")"
    return action.kind.upper()  # DONE or FAIL


# The experiment counts the input events a page has handled (mouse-ups and key-ups), to know when the
# guest has taken in an action before it reads the page; no agent reads the count.
COUNT_INPUTS = """(() => { if (window.__replayInputs === undefined) { window.__replayInputs = 0;
  for (const kind of ["mouseup", "keyup"]) addEventListener(kind, () => { window.__replayInputs += 1; }, true); }
  return window.__replayInputs; })()"""


def _inputs_of(line: str) -> int:
    """How many mouse-ups and key-ups a pyautogui line makes (at least)."""
    if line.startswith("pyautogui.click("):
        return 1
    if line.startswith("pyautogui.doubleClick("):
        return 2
    typed = re.fullmatch(r"pyautogui\.typewrite\((.*)\)", line, re.S)
    if typed:
        return len(ast.literal_eval(typed.group(1)))
    if line.startswith("pyautogui.hotkey("):
        return line.count(",") + 1
    return 0


def _count(page) -> int:
    try:
        return int(page.evaluate(COUNT_INPUTS))
    except Exception:  # noqa: BLE001 - a navigation in flight
        return 0


def _painted(page) -> None:
    """Wait until a freshly loaded page has drawn two frames, so the guest's next click reaches it."""
    page.wait_for_load_state("load")
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    time.sleep(SETTLE_SECONDS)


def _act(env, page, line: str, navigates: bool = False) -> dict[str, str]:
    """Send one line through the guest's Control API, let the guest take it in (a step that opened another
    app in the source run waits for a page to load, up to NAVIGATION_SECONDS; any other waits until the
    page has handled the line's input events, up to INPUT_SECONDS), then read the panes."""
    if navigates:
        try:
            with page.expect_navigation(wait_until="load", timeout=NAVIGATION_SECONDS * 1000):
                env.run_action(line)
        except Exception:  # noqa: BLE001 - Playwright's timeout: the click opened nothing this time
            pass
        else:
            _painted(page)
    else:
        before = _count(page)
        env.run_action(line)
        deadline = time.monotonic() + INPUT_SECONDS
        while _count(page) < before + _inputs_of(line) and time.monotonic() < deadline:
            time.sleep(0.05)
    time.sleep(SETTLE_SECONDS)
    return _observe(page)


def play_reader(env, page, plan: DemoPlan) -> tuple[list[Step], list[dict[str, str]]]:
    """The scripted agent reading the page: each target found anew. Returns its steps and what was seen."""
    steps, seen = [], []
    for turn in plan.turns:
        line = _line_of(page, turn.action)
        if line is None:
            continue  # the target is not on the page: the agent moves on to its next step
        step = Step(line, turn.action.kind == "switch_app")
        steps.append(step)
        seen.append(_act(env, page, step.line, step.navigates))
    return steps, seen


def play_replay(env, page, steps: list[Step]) -> list[dict[str, str]]:
    """The blind replay: the recorded lines again, in order, with the source's waits; nothing read."""
    return [_act(env, page, step.line, step.navigates) for step in steps]


@dataclass
class Outcome:
    """Every run of the experiment: (agent, task, variant) -> success, and the source run's lines."""

    variants: list[int]
    tasks: list[str]
    results: dict[tuple[str, str, int], bool] = field(default_factory=dict)
    recorded: dict[str, list[Step]] = field(default_factory=dict)


def _play_task(env, page, plan: DemoPlan, sights: list[Sight], variant: int, agents: list[str],
               outcome: Outcome) -> None:  # fmt: skip
    for agent in agents:
        page.goto(f"{env.demo_worlds.base_url}/{plan.page}")
        _painted(page)
        if agent == "replay":
            seen = play_replay(env, page, outcome.recorded[plan.task_id])
        else:
            steps, seen = play_reader(env, page, plan)
            if agent == "source":
                outcome.recorded[plan.task_id] = steps
        outcome.results[(agent, plan.task_id, variant)] = passed(sights, seen)


def run_experiment(variants: list[int], tasks: list[str] | None = None, cache: Path | None = None,
                   log=print) -> Outcome:  # fmt: skip
    """Record the source on variant 0, then play replay and reader on each of ``variants`` in the local
    desktop guest (worlds and pages built once into ``cache``, default a temporary folder)."""
    import socket

    from playwright.sync_api import sync_playwright

    from harness.backends.local import LocalEnv

    plans = {plan.task_id: plan for plan in PLANS}
    outcome = Outcome(list(variants), list(tasks or TASKS))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = LocalEnv(start_url="index.html", demo_cache=cache, devtools_port=port)
    env.start()
    try:
        with sync_playwright() as pw:
            for variant in dict.fromkeys([0, *variants]):
                env.use_world_variant(variant)
                try:
                    env.reset()  # a fresh Chromium on the variant's demo apps
                except RuntimeError:  # Chromium did not come up (a loaded machine): once more
                    time.sleep(2.0)
                    env.reset()
                if env.demo_worlds is None:
                    raise ReplayError("the local desktop guest serves no demo world")
                facts = WorldFacts.of(env.demo_worlds.cache / f"world-{variant}")
                browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                try:
                    page = browser.contexts[0].pages[0]
                    for task in outcome.tasks:
                        agents = ["source"] if variant == 0 else []
                        agents += ["replay", "reader"] if variant in outcome.variants else []
                        _play_task(env, page, plans[task], state_check(facts, task), variant, agents, outcome)
                        if log:
                            done = [f"{a} {'yes' if outcome.results[(a, task, variant)] else 'no'}" for a in agents]
                            log(f"variant {variant} {task}: " + ", ".join(done))
                finally:
                    browser.close()
    finally:
        env.stop()
    return outcome


# ------------------------------------------------------------------ the table


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes in n (0..1)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _cell(k: int, n: int) -> str:
    if n == 0:
        return "n/a"
    low, high = wilson(k, n)
    return f"{k}/{n} [{low:.2f}, {high:.2f}]"


def count(outcome: Outcome, agent: str, variants: list[int], tasks: list[str] | None = None) -> tuple[int, int]:
    keys = [(agent, t, v) for t in (tasks or outcome.tasks) for v in variants if (agent, t, v) in outcome.results]
    return sum(outcome.results[k] for k in keys), len(keys)


def table(outcome: Outcome) -> str:
    """Per task and overall: the source on variant 0, replay on variant 0, replay and reader on the other
    variants, as successes of runs with 95% Wilson intervals."""
    others = [v for v in outcome.variants if v != 0]
    contiguous = others == list(range(others[0], others[-1] + 1)) if others else False
    span = f"K={others[0]}..{others[-1]}" if contiguous and len(others) > 1 else "K=" + ",".join(map(str, others))
    span = span if others else "K>0"
    head = ("task", "source K=0", "replay K=0", f"replay {span}", "reader K=0", f"reader {span}")
    rows: list[tuple[str, ...]] = [head]
    for task in [*outcome.tasks, None]:
        tasks = [task] if task else outcome.tasks
        runs = (("source", [0]), ("replay", [0]), ("replay", others), ("reader", [0]), ("reader", others))
        cells = [count(outcome, agent, shown, tasks) for agent, shown in runs]
        rows.append((task or "overall", *(_cell(*kn) for kn in cells)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def parse_variants(text: str) -> list[int]:
    """``0-9`` or ``0,3,5``."""
    found = re.fullmatch(r"(\d+)-(\d+)", text.strip())
    if found:
        return list(range(int(found.group(1)), int(found.group(2)) + 1))
    return [int(part) for part in text.split(",") if part.strip()]
