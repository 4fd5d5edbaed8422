"""Test helpers: result folders with real PNG screenshots (made by Pillow) in the upstream, parallel
runner, OSWorld and legacy layouts, and a small suite of tasks with rubric items made through the ORM."""

import io
import json
from pathlib import Path

from PIL import Image

RUBRIC = [
    {"criterion": "Opens HooliMail and finds the invoice from Dunder Mifflin", "type": "llm_judge", "weight": 0.5},
    {"criterion": "Replies to the sender with the invoice total", "type": "llm_judge", "weight": 0.3},
    {"criterion": "States the total in the final answer", "type": "llm_judge", "weight": 0.2},
]
JUDGE_MODEL = "gemini-3.1-flash-lite-preview"


def png_bytes(width: int = 64, height: int = 40, colour=(30, 120, 200), fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format=fmt)
    return buffer.getvalue()


def _ts(step: int, sub: int = 0) -> str:
    return f"20260411@1234{step:02d}{sub:06d}"


DEFAULT_ACTIONS = [
    (1, "pyautogui.click(640, 400)"),
    (2, "pyautogui.typewrite('invoice', interval=0.02)"),
    (3, "DONE"),
]


def write_task_dir(
    parent: Path,
    task_id: str,
    *,
    actions=DEFAULT_ACTIONS,
    rubric=RUBRIC,
    full_judge: list[bool] | None = None,
    task_score=None,
    final_text: str = "The invoice total is $1,204.50.\n```DONE```",
    with_response: bool = True,
) -> Path:
    """An upstream MyPCBench task dir: traj.jsonl with one row per (turn, action), a PNG per row,
    result.txt, rubric_bundle.json, usage.json, messages.json; optionally the judge outputs."""
    task_dir = Path(parent) / task_id
    task_dir.mkdir(parents=True)
    rows = []
    for i, (turn, action) in enumerate(actions):
        stamp = _ts(turn, i)
        name = f"step_{turn}_{stamp}.png"
        (task_dir / name).write_bytes(png_bytes(colour=(10 * i % 255, 80, 160)))
        row = {
            "step_num": turn,
            "action_timestamp": stamp,
            "action": action,
            "reward": 0,
            "done": action in ("DONE", "FAIL"),
            "info": {},
            "screenshot_file": name,
        }
        if with_response:
            row["response"] = final_text if i == len(actions) - 1 else f"Thinking about turn {turn}"
        rows.append(row)
    (task_dir / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (task_dir / "result.txt").write_text("1.0\n")
    (task_dir / "usage.json").write_text(json.dumps({"input_tokens": 1200, "output_tokens": 300}))
    (task_dir / "messages.json").write_text(json.dumps([{"role": "user", "content": "go"}]))
    if rubric is not None:
        bundle = {
            "task": {"id": task_id, "instruction": "Find the invoice."},
            "grading_manifest": {"task_id": task_id, "rubrics": rubric},
        }
        (task_dir / "rubric_bundle.json").write_text(json.dumps(bundle, sort_keys=True, indent=2))
    if full_judge is not None:
        results = [
            {
                "rubric_id": f"R{i + 1}",
                "criterion": item["criterion"],
                "verification": "",
                "weight": item["weight"],
                "success": ok,
                "score": 1.0 if ok else 0.0,
                "reasoning": "Seen in step 2." if ok else "Never replied.",
            }
            for i, (item, ok) in enumerate(zip(rubric, full_judge, strict=True))
        ]
        score = round(100 * sum(r["weight"] for r in results if r["success"]) / sum(r["weight"] for r in results))
        (task_dir / "osworld_full_traj_result.json").write_text(
            json.dumps({"score": score, "passed": score >= 100, "model": JUDGE_MODEL, "rubric_results": results})
        )
    if task_score is not None:
        (task_dir / "rubric_judge_result.json").write_text(json.dumps({"bundle_path": "x", "result": task_score}))
    return task_dir


def write_legacy_task_dir(parent: Path, task_id: str, n_steps: int = 2) -> Path:
    """The older layout: context/step_NNN.png with raw responses and parsed actions beside them."""
    context = Path(parent) / task_id / "context"
    context.mkdir(parents=True)
    actions = [["pyautogui.click(10, 20)"]] * (n_steps - 1) + [["DONE"]]
    for n, step_actions in enumerate(actions, start=1):
        (context / f"step_{n:03d}.png").write_bytes(png_bytes())
        (context / f"step_{n:03d}_raw_response.txt").write_text(f"response {n}")
        (context / f"step_{n:03d}_parsed_actions.json").write_text(json.dumps(step_actions))
    (context / "chat_log.json").write_text("[]")
    return context.parent


def make_suite(task_ids, *, slug="mypcbench-eval-round0", rubric=RUBRIC, is_demo=False):
    """A suite whose tasks each carry ``rubric`` as current version 1 (ORM only, no task importer)."""
    from leaderboard.models import RubricItem, Suite, Task

    suite = Suite.objects.create(name=slug, version="eval-round0", slug=slug, is_demo=is_demo)
    total = sum(item["weight"] for item in rubric)
    for position, task_id in enumerate(task_ids, start=1):
        task = Task.objects.create(
            suite=suite,
            task_id=task_id,
            position=position,
            category="retrieval",
            behavioural_type="personal_lookup",
            type_source="derived",
            instruction="Find the invoice.",
            content_hash=f"hash-{task_id}",
        )
        for i, item in enumerate(rubric, start=1):
            RubricItem.objects.create(
                task=task,
                version=1,
                position=i,
                rubric_id=f"R{i}",
                criterion=item["criterion"],
                weight=item["weight"],
                normalised_weight=item["weight"] / total,
                content_hash=f"{task_id}-R{i}",
            )
    return suite


def make_run(suite, *, slug="alpha-run", name="Alpha run", model="Alpha", **fields):
    """A run of ``suite`` by the model named ``model`` (made once), with any other Run fields given."""
    from django.utils.text import slugify

    from leaderboard.models import Model, Run

    row, _ = Model.objects.get_or_create(name=model, defaults={"slug": slugify(model)})
    return Run.objects.create(name=name, slug=slug, suite=suite, model=row, **fields)
