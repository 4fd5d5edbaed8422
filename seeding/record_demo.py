"""Record the demo trajectories: a scripted (non-LLM) agent drives Chromium over the static demo apps and
each run is written as an upstream MyPCBench result folder with real screenshots and scripted verdicts.

Run: ``.venv/bin/python -m seeding.record_demo [--out DIR]`` (default ``seeding/demo_results``).
"""

import argparse
import functools
import http.server
import io
import json
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from PIL import Image

from harness.chromium import launch_options

SEEDING = Path(__file__).resolve().parent
DEMO_APPS = SEEDING / "demo_apps"
DEMO_SUITE = SEEDING / "demo_suite.json"
DEFAULT_OUT = SEEDING / "demo_results"

VIEWPORT = {"width": 1280, "height": 800}

# Fixed clock so that re-recording writes byte-identical JSON.
BASE_TIME = datetime(2026, 4, 13, 9, 0, 0)
TASK_SPACING = timedelta(minutes=15)
ACTION_SPACING = timedelta(seconds=4, microseconds=250000)
TIMESTAMP_FORMAT = "%Y%m%d@%H%M%S%f"

AGENT_TAG = "[Scripted demo agent: a fixed script, not a model]"
VERDICT_MODEL = "scripted-demo-verdicts"
VERDICT_TAG = "Scripted demo verdict written with the demo script, not by an LLM judge."


@dataclass(frozen=True)
class Action:
    """One scripted GUI action. ``target`` is a Playwright selector; ``to`` is the drop target of a drag."""

    kind: str  # click, double_click, type, hotkey, drag, done, fail
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


def type_text(text):
    return Action("type", text=text)


def hotkey(*keys):
    return Action("hotkey", keys=keys)


DONE = Action("done")
FAIL = Action("fail")

PLANS = [
    DemoPlan(
        task_id="demo-d001",
        page="hoolimail.html",
        turns=[
            Turn(
                "I need the Dinoco booking mail for the Jamaica flight. I click the HooliMail search box.",
                click("#search"),
            ),
            Turn("I search the inbox for the airline's name.", type_text("Dinoco\n")),
            Turn(
                "Two Dinoco bookings match: one to New York (DN6769) and one to Montego Bay (DN1562). "
                "Jamaica is Montego Bay, so I open that one.",
                click(".mail:has-text('Montego Bay (MBJ)')"),
            ),
            Turn(
                "Found it. Your Jamaica flight is Dinoco DN1562 from Scranton (AVP) to Montego Bay (MBJ) on Saturday, "
                "May 16, 2026, leaving at 6:00am (seat 22C). The confirmation code is DN-83823.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent opened the Dinoco mail for DN1562 to MBJ, not the New York booking (step 3)."),
            Verdict(True, "The final answer gives DN-83823, matching the open mail (steps 3, 4)."),
            Verdict(True, "The final answer names flight DN1562 (steps 3, 4)."),
            Verdict(True, "The final answer says 6:00am from AVP on May 16, 2026 (steps 3, 4)."),
            Verdict(
                True,
                "The agent only searched and opened a message; nothing was sent, moved or deleted (steps 1, 2, 3).",
            ),
        ],
    ),
    DemoPlan(
        task_id="demo-d002",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "This week's calendar shows a 'Dentist Appointment' early on Tuesday. I open it for the details.",
                click(".ev:has-text('Dentist Appointment')"),
            ),
            Turn(
                "Your dentist appointment is on Tuesday, April 14, 2026, from 8:00am to 9:00am, "
                "at Dr. Chen, 450 Linden St, Scranton.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent opened the 'Dentist Appointment' event (step 1)."),
            Verdict(True, "The answer says Tuesday, April 14, 2026, as shown in the event panel (steps 1, 2)."),
            Verdict(True, "The answer gives 8:00am to 9:00am (steps 1, 2)."),
            Verdict(True, "The answer gives Dr. Chen, 450 Linden St, Scranton (steps 1, 2)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d003",
        page="gringotts.html",
        turns=[
            Turn(
                "I will look up each streaming service in the card transactions. First the search box.",
                click("#search"),
            ),
            Turn("Searching for Netflix.", type_text("Netflix\n")),
            Turn("Netflix Premium is $22.99 a month. Next, Hulu: I select the search text.", hotkey("ctrl", "a")),
            Turn("Searching for Hulu.", type_text("Hulu\n")),
            Turn("Hulu (No Ads) is $17.99. Next, Disney+.", hotkey("ctrl", "a")),
            Turn("Searching for Disney.", type_text("Disney\n")),
            Turn("Disney+ Bundle is $19.99. Next, Peacock.", hotkey("ctrl", "a")),
            Turn("Searching for Peacock.", type_text("Peacock\n")),
            Turn(
                "Your TV streaming subscriptions: Netflix Premium $22.99, Hulu (No Ads) $17.99, "
                "Disney+ Bundle $19.99 and Peacock Premium $13.99. Total: $74.96 a month.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(True, "Netflix Premium at $22.99 was found and listed (steps 2, 9)."),
            Verdict(True, "Hulu (No Ads) at $17.99 was found and listed (steps 4, 9)."),
            Verdict(True, "Disney+ Bundle at $19.99 was found and listed (steps 6, 9)."),
            Verdict(True, "Peacock Premium at $13.99 was found and listed (steps 8, 9)."),
            Verdict(
                False,
                "The agent only searched for the four services it already knew and never browsed the full list, "
                "so the $11.99 Paramount+ charge is missing from the answer (step 9).",
            ),
            Verdict(True, "No non-streaming charge was counted in the total (step 9)."),
            Verdict(False, "The reported total is $74.96, not $86.95, because Paramount+ is missing (step 9)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d009",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "The overdue Sensitivity Training is not in this week's view. I go back one week to find it.",
                click("#prev"),
            ),
            Turn(
                "There it is on Thursday, April 9 at 9:00am. I open the event to reschedule it.",
                click(".ev:has-text('Sensitivity Training')"),
            ),
            Turn(
                "The panel only has a Close button. I try double-clicking the event to get an edit dialog.",
                Action("double_click", target=".ev:has-text('Sensitivity Training')"),
            ),
            Turn(
                "The calendar says its events are read-only and offers no edit, move or drag control, so I cannot "
                "move Sensitivity Training to Wednesday, April 15 at 10:30am. I am giving up on this task.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent found and opened 'Sensitivity Training (OVERDUE)' on April 9 (steps 1, 2)."),
            Verdict(False, "The event was never moved; the agent gave up (steps 3, 4)."),
            Verdict(False, "No new time was set; the agent named 10:30am but could not apply it (step 4)."),
            Verdict(False, "Nothing was rescheduled, so the requirement about one moved event is not met (step 4)."),
        ],
    ),
]


class RecordError(Exception):
    pass


def load_suite(path=DEMO_SUITE):
    tasks = json.loads(Path(path).read_text(encoding="utf-8"))
    return {task["id"]: task for task in tasks}


def check_plans(plans, suite):
    """Every plan must name a demo task and give one verdict per rubric item, in order."""
    for plan in plans:
        if plan.task_id not in suite:
            raise RecordError(f"{DEMO_SUITE}: no task {plan.task_id!r} for the demo plan of that name")
        n_rubrics = len(suite[plan.task_id]["grading"]["rubrics"])
        if len(plan.verdicts) != n_rubrics:
            raise RecordError(
                f"demo plan {plan.task_id}: {len(plan.verdicts)} verdicts, expected {n_rubrics} (one per rubric item)"
            )
        if plan.turns[-1].action.kind not in ("done", "fail"):
            raise RecordError(f"demo plan {plan.task_id}: the last turn must be DONE or FAIL")


@functools.cache
def _quiet_handler():
    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    return QuietHandler


def serve_demo_apps():
    """Serve demo_apps on a free loopback port from a daemon thread; returns the server."""
    handler = functools.partial(_quiet_handler(), directory=str(DEMO_APPS))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _center(page, selector):
    box = page.locator(selector).first.bounding_box()
    if box is None:
        raise RecordError(f"selector {selector!r} is not visible on {page.url}")
    return round(box["x"] + box["width"] / 2), round(box["y"] + box["height"] / 2)


_PLAYWRIGHT_KEYS = {"ctrl": "Control", "shift": "Shift", "alt": "Alt", "enter": "Enter"}


def perform(page, action):
    """Do one action in the browser; return the equivalent pyautogui line (or DONE / FAIL)."""
    if action.kind == "click":
        x, y = _center(page, action.target)
        page.mouse.click(x, y)
        return f"pyautogui.click({x}, {y})"
    if action.kind == "double_click":
        x, y = _center(page, action.target)
        page.mouse.dblclick(x, y)
        return f"pyautogui.doubleClick({x}, {y})"
    if action.kind == "type":
        for i, chunk in enumerate(action.text.split("\n")):
            if i:
                page.keyboard.press("Enter")
            if chunk:
                page.keyboard.type(chunk)
        return f"pyautogui.typewrite({action.text!r})"
    if action.kind == "hotkey":
        page.keyboard.press("+".join(_PLAYWRIGHT_KEYS.get(k, k) for k in action.keys))
        return "pyautogui.hotkey(" + ", ".join(repr(k) for k in action.keys) + ")"
    if action.kind == "done":
        return "DONE"
    if action.kind == "fail":
        return "FAIL"
    raise RecordError(f"unknown scripted action kind {action.kind!r}")


def screenshot_png(page):
    """A viewport screenshot, re-encoded losslessly with PNG optimisation to keep the committed folder small."""
    page.wait_for_timeout(200)
    raw = page.screenshot(type="png", caret="hide", animations="disabled")
    out = io.BytesIO()
    Image.open(io.BytesIO(raw)).save(out, format="PNG", optimize=True)
    return out.getvalue()


def rubric_bundle(task, steps):
    """The bundle the upstream runner writes beside a trajectory (formats.md 2.6)."""
    return {
        "task": {
            "id": task["id"],
            "category": task["category"],
            "language": "en",
            "instruction": task["instruction"],
            "persona": task.get("persona"),
            "apps_involved": task.get("apps_involved") or [],
            "difficulty": task.get("difficulty"),
        },
        "environment": {
            "env_language": "en",
            "snapshot_name": None,
            "persona": "michael_scott",
            "world": "scranton-office",
            "vm_id": "michael_scott",
            "actor_id": None,
        },
        "grading_manifest": {
            "task_id": task["id"],
            "category": task["category"],
            "grading_type": "llm_judge",
            "has_programmatic_checks": False,
            "has_rubrics": True,
            "checks": [],
            "rubrics": task["grading"]["rubrics"],
            "notes": "Rubric bundle of a scripted demo trajectory (written by seeding/record_demo.py)",
        },
        "artifacts": {
            "context_dir": None,
            "chat_log": None,
            "token_usage": None,
            "screenshots": [],
            "raw_responses": [],
            "parsed_actions": [],
            "steps": [
                {
                    "step_num": row["step_num"],
                    "raw_response_text": row["response"],
                    "parsed_action_obj": {"action": row["action"], "reward": row["reward"], "done": row["done"]},
                    "screenshot": row["screenshot_file"],
                }
                for row in steps
            ],
            "counts": {"screenshots": 0, "raw_responses": 0, "parsed_actions": 0, "steps": len(steps)},
        },
    }


def verdict_result(task, plan, n_steps):
    """The judge output file (formats.md 6.1), filled from the plan's own verdicts instead of a model."""
    rubrics = task["grading"]["rubrics"]
    results = []
    for i, (item, verdict) in enumerate(zip(rubrics, plan.verdicts, strict=True), start=1):
        results.append(
            {
                "rubric_id": item.get("rubric_id") or item.get("id") or f"R{i}",
                "criterion": item.get("criterion") or item.get("requirement"),
                "verification": item.get("verification"),
                "weight": item["weight"],
                "success": verdict.success,
                "score": 1.0 if verdict.success else 0.0,
                "reasoning": f"{VERDICT_TAG} {verdict.reasoning}",
            }
        )
    total = sum(r["weight"] for r in results)
    fraction = sum(r["weight"] for r in results if r["success"]) / total
    score = int(round(100 * min(max(fraction, 0.0), 1.0)))
    passed_count = sum(r["success"] for r in results)
    return {
        "score": score,
        "passed": score >= 100,
        "reasoning": (
            f"{passed_count}/{len(results)} rubrics passed; weighted fraction={round(fraction, 6)} "
            "(scripted demo verdicts, not an LLM judge)"
        ),
        "model": VERDICT_MODEL,
        "max_images": 200,
        "concurrency": 1,
        "n_steps_total": n_steps,
        "n_screenshots_sent": n_steps,
        "final_fraction": round(fraction, 6),
        "rubric_results": results,
        "rubric_count": len(results),
    }


def _write_json(path, data, **kwargs):
    path.write_text(json.dumps(data, ensure_ascii=False, **kwargs) + "\n", encoding="utf-8")


def record_plan(browser, base_url, plan, task, task_dir, start):
    """Play one plan in a fresh browser page and write its result folder into ``task_dir``."""
    task_dir.mkdir(parents=True)
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(f"{base_url}/{plan.page}")
        page.wait_for_load_state("load")
        rows = []
        for step_num, turn in enumerate(plan.turns, start=1):
            timestamp = (start + ACTION_SPACING * (step_num - 1)).strftime(TIMESTAMP_FORMAT)
            action_line = perform(page, turn.action)
            screenshot_file = f"step_{step_num}_{timestamp}.png"
            (task_dir / screenshot_file).write_bytes(screenshot_png(page))
            rows.append(
                {
                    "step_num": step_num,
                    "action_timestamp": timestamp,
                    "action": action_line,
                    "response": f"{AGENT_TAG} {turn.response}",
                    "reward": 0,
                    "done": action_line in ("DONE", "FAIL"),
                    "info": {},
                    "screenshot_file": screenshot_file,
                }
            )
    finally:
        context.close()
    with (task_dir / "traj.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    _write_json(task_dir / "rubric_bundle.json", rubric_bundle(task, rows), sort_keys=True, indent=2)
    _write_json(task_dir / "osworld_full_traj_result.json", verdict_result(task, plan, len(rows)), indent=2)
    (task_dir / "result.txt").write_text("1.0\n", encoding="utf-8")


def record_all(out_dir=DEFAULT_OUT, plans=PLANS):
    """Record every plan into a scratch folder, then swap each task folder into ``out_dir``.

    Nothing in ``out_dir`` changes unless every plan recorded cleanly.
    """
    from playwright.sync_api import sync_playwright

    suite = load_suite()
    check_plans(plans, suite)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".record-", dir=out_dir.parent))
    server = serve_demo_apps()
    try:
        base_url = f"http://127.0.0.1:{server.server_address[1]}"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**launch_options(), headless=True)
            try:
                for index, plan in enumerate(plans):
                    start = BASE_TIME + TASK_SPACING * index
                    record_plan(browser, base_url, plan, suite[plan.task_id], scratch / plan.task_id, start)
            finally:
                browser.close()
        for plan in plans:
            target = out_dir / plan.task_id
            if target.exists():
                shutil.rmtree(target)
            shutil.move(str(scratch / plan.task_id), str(target))
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(scratch, ignore_errors=True)
    return [out_dir / plan.task_id for plan in plans]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="folder for the result folders (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        folders = record_all(args.out)
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for folder in folders:
        result = json.loads((folder / "osworld_full_traj_result.json").read_text(encoding="utf-8"))
        n_steps = sum(1 for _ in (folder / "traj.jsonl").open(encoding="utf-8"))
        print(f"{folder}: {n_steps} steps, scripted score {result['score']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
