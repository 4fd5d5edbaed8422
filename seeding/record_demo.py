"""Record the demo trajectories: a scripted (non-LLM) agent drives Chromium over the demo apps filled from
the persona world (seeding/demo_world_apps.py over a build of the upstream spec at the demo's anchor day)
and each plan set (seeding/demo_plans.py, data in seeding/demo_plans.json) is written as a folder of
upstream MyPCBench result folders with real screenshots and scripted verdicts: ``demo_results/`` (the
careful plan) and ``demo_results_hasty/``.

Run: ``.venv/bin/python -m seeding.record_demo [--out DIR] [--persona SPEC | --world BUILD]``
(default ``seeding/``; the spec defaults to michael_scott.json in MYPCBENCH_UPSTREAM_DIR or the copy shipped in
upstream/mypcbench/).
"""

import argparse
import datetime as dt
import functools
import http.server
import io
import json
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from PIL import Image

from harness.chromium import launch_options
from seeding.demo_plans import (  # noqa: F401  (re-exported: tests and callers use record_demo.*)
    DONE,
    FAIL,
    HASTY_PLANS,
    PLANS,
    Action,
    DemoPlan,
    Turn,
    Verdict,
    click,
    hotkey,
    switch_to,
    type_text,
)
from seeding.demo_world_apps import DemoAppsError, anchor_of, render
from seeding.world.build import build

SEEDING = Path(__file__).resolve().parent
DEMO_SUITE = SEEDING / "demo_suite.json"
DEFAULT_OUT = SEEDING

VIEWPORT = {"width": 1280, "height": 800}

# The day the demo tasks call "today" (Monday, April 13, 2026): the world is built at this anchor.
DEMO_ANCHOR = dt.date(2026, 4, 13)

# Fixed clock so that re-recording writes byte-identical JSON.
BASE_TIME = datetime(2026, 4, 13, 9, 0, 0)
TASK_SPACING = timedelta(minutes=15)
ACTION_SPACING = timedelta(seconds=4, microseconds=250000)
TIMESTAMP_FORMAT = "%Y%m%d@%H%M%S%f"

AGENT_TAG = "[Scripted demo agent: a fixed script, not a model]"
HASTY_AGENT_TAG = "[Scripted demo agent, hasty plan: a fixed script, not a model]"
VERDICT_MODEL = "scripted-demo-verdicts"
VERDICT_TAG = "Scripted demo verdict written with the demo script, not by an LLM judge."


@dataclass(frozen=True)
class DemoRun:
    """One recorded demo run: the folder (under the output folder) its task folders go to, and its plans."""

    folder: str
    plans: list
    agent_tag: str
    base_time: datetime


RUNS = [
    DemoRun("demo_results", PLANS, AGENT_TAG, BASE_TIME),
    DemoRun("demo_results_hasty", HASTY_PLANS, HASTY_AGENT_TAG, BASE_TIME + timedelta(hours=4)),
]


class RecordError(Exception):
    pass


def load_suite(path=DEMO_SUITE):
    tasks = json.loads(Path(path).read_text(encoding="utf-8"))
    return {task["id"]: task for task in tasks}


def check_plans(plans, suite):
    """Every plan must name a demo task (once per plan set), give one verdict per rubric item, in order, and
    end with its only DONE or FAIL."""
    seen = set()
    for plan in plans:
        if plan.task_id in seen:
            raise RecordError(f"demo plan {plan.task_id}: two plans for the same task in one run")
        seen.add(plan.task_id)
        if plan.task_id not in suite:
            raise RecordError(f"{DEMO_SUITE}: no task {plan.task_id!r} for the demo plan of that name")
        n_rubrics = len(suite[plan.task_id]["grading"]["rubrics"])
        if len(plan.verdicts) != n_rubrics:
            raise RecordError(
                f"demo plan {plan.task_id}: {len(plan.verdicts)} verdicts, expected {n_rubrics} (one per rubric item)"
            )
        if not plan.turns or plan.turns[-1].action.kind not in ("done", "fail"):
            raise RecordError(f"demo plan {plan.task_id}: the last turn must be DONE or FAIL")
        if any(turn.action.kind in ("done", "fail") for turn in plan.turns[:-1]):
            raise RecordError(f"demo plan {plan.task_id}: DONE or FAIL before the last turn")


@functools.cache
def _quiet_handler():
    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    return QuietHandler


def default_persona():
    """The upstream persona spec the demo world is built from (as bin/demo finds it)."""
    upstream = os.environ.get("MYPCBENCH_UPSTREAM_DIR") or str(SEEDING.parent / "upstream" / "mypcbench")
    return Path(upstream) / "michael_scott.json"


def world_pages(scratch, persona=None, world=None):
    """The demo apps filled from the world, written under ``scratch``: from ``world`` (a build at the demo's
    anchor) or else from a build of ``persona`` (default: the upstream spec) at that anchor."""
    if world is None:
        persona = Path(persona) if persona else default_persona()
        if not persona.is_file():
            raise RecordError(
                f"{persona}: no persona spec to build the demo world from "
                "(pass --persona SPEC or --world BUILD, or set MYPCBENCH_UPSTREAM_DIR)"
            )
        world = Path(scratch) / "world"
        try:
            build(persona, world, DEMO_ANCHOR, log=None)
        except (OSError, ValueError, RuntimeError) as exc:
            raise RecordError(f"building the demo world from {persona} failed: {exc}") from exc
    try:
        anchor = anchor_of(Path(world))
        if anchor != DEMO_ANCHOR:
            raise RecordError(f"{world}: built at {anchor}, but the demo tasks are about {DEMO_ANCHOR}")
        pages = Path(scratch) / "pages"
        render(world, pages)
    except DemoAppsError as exc:
        raise RecordError(str(exc)) from exc
    return pages


def serve_demo_apps(directory):
    """Serve the demo apps in ``directory`` on a free loopback port from a daemon thread; returns the server."""
    handler = functools.partial(_quiet_handler(), directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _center(page, selector):
    box = page.locator(selector).first.bounding_box()
    if box is None:
        raise RecordError(f"selector {selector!r} is not visible on {page.url}")
    return round(box["x"] + box["width"] / 2), round(box["y"] + box["height"] / 2)


_PLAYWRIGHT_KEYS = {"ctrl": "Control", "shift": "Shift", "alt": "Alt", "enter": "Enter", "tab": "Tab"}


def perform(page, action):
    """Do one action in the browser; return the equivalent pyautogui line (or DONE / FAIL)."""
    if action.kind == "click":
        x, y = _center(page, action.target)
        page.mouse.click(x, y)
        return f"pyautogui.click({x}, {y})"
    if action.kind == "switch_app":
        x, y = _center(page, action.target)
        with page.expect_navigation(wait_until="load"):
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


def record_plan(browser, base_url, plan, task, task_dir, start, agent_tag=AGENT_TAG):
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
                    "response": f"{agent_tag} {turn.response}",
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


def record_all(out_dir=DEFAULT_OUT, runs=RUNS, persona=None, world=None):
    """Record every plan of every run on the demo apps filled from the world (see ``world_pages``) into a
    scratch folder, then swap each run's folder into ``out_dir`` (``out_dir/<run.folder>/<task_id>/``).
    Returns the task folders written.

    Nothing in ``out_dir`` changes unless every plan recorded cleanly.
    """
    from playwright.sync_api import sync_playwright

    suite = load_suite()
    for run in runs:
        check_plans(run.plans, suite)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".record-", dir=out_dir))
    server = None
    try:
        server = serve_demo_apps(world_pages(scratch, persona, world))
        base_url = f"http://127.0.0.1:{server.server_address[1]}"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**launch_options(), headless=True)
            try:
                for run in runs:
                    for index, plan in enumerate(run.plans):
                        start = run.base_time + TASK_SPACING * index
                        task_dir = scratch / run.folder / plan.task_id
                        record_plan(browser, base_url, plan, suite[plan.task_id], task_dir, start, run.agent_tag)
            finally:
                browser.close()
        for run in runs:
            target = out_dir / run.folder
            if target.exists():
                shutil.rmtree(target)
            shutil.move(str(scratch / run.folder), str(target))
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
        shutil.rmtree(scratch, ignore_errors=True)
    return [out_dir / run.folder / plan.task_id for run in runs for plan in run.plans]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        default=str(DEFAULT_OUT),
        help="folder to write " + " and ".join(f"{run.folder}/" for run in RUNS) + " into (default: %(default)s)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--persona", help=f"persona spec to build the world from (default: {default_persona()})")
    source.add_argument("--world", help=f"a world already built at {DEMO_ANCHOR} (python -m seeding build)")
    args = parser.parse_args(argv)
    try:
        folders = record_all(args.out, persona=args.persona, world=args.world)
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for folder in folders:
        result = json.loads((folder / "osworld_full_traj_result.json").read_text(encoding="utf-8"))
        n_steps = sum(1 for _ in (folder / "traj.jsonl").open(encoding="utf-8"))
        print(f"{folder.parent.name}/{folder.name}: {n_steps} steps, scripted score {result['score']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
