"""Records a trajectory as our bundle (a superset of the upstream result folder: traj.jsonl, step PNGs,
messages.json, usage.json, rubric_bundle.json, result.txt, plus bundle.json) and streams every step to
sinks: the folder writer, or a callback the site uses for live ingest."""

import hashlib
import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Protocol

from harness.control import image_kind
from harness.results import TIMESTAMP_FORMAT, TRAJ_FILE

BUNDLE_FORMAT = "mypcbench-bundle"
BUNDLE_VERSION = 1
HARNESS_VERSION = "0.1"
# Files a rerun of a task replaces (judge outputs too: they judged the old trajectory).
_OWNED = ("traj.jsonl", "messages.json", "usage.json", "rubric_bundle.json", "result.txt", "incomplete.txt",
          "bundle.json", "rubric_judge_result.json", "osworld_full_traj_result.json")  # fmt: skip


def timestamp(now: datetime | None = None) -> str:
    return (now or datetime.now()).strftime(TIMESTAMP_FORMAT)


class Sink(Protocol):
    def begin(self, meta: dict) -> None: ...
    def step(self, row: dict, screenshot: bytes | None) -> None: ...
    def finish(self, summary: dict) -> None: ...


class CallbackSink:
    """Calls ``on_begin(meta)``, ``on_step(row, png)`` and ``on_finish(summary)`` as they happen."""

    def __init__(self, on_step: Callable, on_begin: Callable | None = None, on_finish: Callable | None = None):
        self.on_step, self.on_begin, self.on_finish = on_step, on_begin, on_finish

    def begin(self, meta: dict) -> None:
        if self.on_begin:
            self.on_begin(meta)

    def step(self, row: dict, screenshot: bytes | None) -> None:
        self.on_step(row, screenshot)

    def finish(self, summary: dict) -> None:
        if self.on_finish:
            self.on_finish(summary)


def _write_json(path: Path, data, **kwargs) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2, **kwargs) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class FolderSink:
    """Writes one task folder. traj.jsonl rows are fsync'd as they come, so a killed run keeps every
    step it recorded; result.txt is written last, so its presence means the folder is complete."""

    def __init__(self, task_dir):
        self.task_dir = Path(task_dir)

    def begin(self, meta: dict) -> None:
        self.task_dir.mkdir(parents=True, exist_ok=True)
        for name in _OWNED:
            (self.task_dir / name).unlink(missing_ok=True)
        for pattern in ("step_*.png", "step_*.jpg"):
            for old in self.task_dir.glob(pattern):
                old.unlink()
        (self.task_dir / TRAJ_FILE).touch()

    def step(self, row: dict, screenshot: bytes | None) -> None:
        if screenshot is not None and row.get("screenshot_file"):
            (self.task_dir / row["screenshot_file"]).write_bytes(screenshot)
        with open(self.task_dir / TRAJ_FILE, "a", encoding="utf-8") as traj:
            traj.write(json.dumps(row, ensure_ascii=False) + "\n")
            traj.flush()
            os.fsync(traj.fileno())

    def final_screenshot(self, name: str, screenshot: bytes) -> None:
        (self.task_dir / name).write_bytes(screenshot)

    def finish(self, summary: dict) -> None:
        if summary.get("messages") is not None:
            _write_json(self.task_dir / "messages.json", summary["messages"])
        _write_json(self.task_dir / "usage.json", summary.get("usage") or {})
        if summary.get("rubric_bundle") is not None:
            _write_json(self.task_dir / "rubric_bundle.json", summary["rubric_bundle"], sort_keys=True)
        _write_json(self.task_dir / "bundle.json", summary["bundle"])
        if summary["bundle"]["status"] != "finished":
            detail = summary["bundle"].get("error") or summary["bundle"]["status"]
            (self.task_dir / "incomplete.txt").write_text(f"errored: {detail[:500]}\n", encoding="utf-8")
        marker = "1.0" if summary["bundle"]["status"] == "finished" else "0.0"
        (self.task_dir / "result.txt").write_text(marker + "\n", encoding="utf-8")


def rubric_bundle(task, rows: list[dict], meta: dict) -> dict | None:
    """rubric_bundle.json as upstream's offline judge reads it (formats.md 2.6)."""
    rubric = list(getattr(task, "rubric", []) or [])
    if not rubric:
        return None
    items = [{"id": r.rubric_id, "criterion": r.criterion, "verification": r.verification, "weight": r.weight}
             for r in rubric]  # fmt: skip
    steps = []
    for row in rows:
        step = {
            "step_num": row["step_num"],
            "raw_response_text": row["response"],
            "parsed_action_obj": {"action": row["action"], "reward": row["reward"], "done": row["done"]},
        }
        if row.get("screenshot_file"):
            step["screenshot"] = row["screenshot_file"]
        steps.append(step)
    persona = meta.get("persona", "michael_scott")
    return {
        "task": {
            "id": task.id,
            "category": task.category,
            "language": "en",
            "instruction": task.instruction,
            "persona": (task.extra or {}).get("persona"),
            "apps_involved": list(task.apps_involved or []),
            "difficulty": task.difficulty,
        },
        "environment": {
            "env_language": "en",
            "snapshot_name": None,
            "persona": persona,
            "world": meta.get("world", "scranton-office"),
            "vm_id": persona,
            "actor_id": None,
        },  # fmt: skip
        "grading_manifest": {
            "task_id": task.id,
            "category": task.category,
            "grading_type": "llm_judge",
            "has_programmatic_checks": False,
            "has_rubrics": True,
            "checks": [],
            "rubrics": items,
            "notes": "Rubric bundle for offline grading (written by the MyPCBench site harness)",
        },
        "artifacts": {
            "context_dir": None,
            "chat_log": None,
            "token_usage": None,
            "screenshots": [],
            "raw_responses": [],
            "parsed_actions": [],
            "steps": steps,
            "counts": {"screenshots": 0, "raw_responses": 0, "parsed_actions": 0, "steps": len(steps)},
        },
    }


class Recorder:
    """Builds traj.jsonl rows (upstream keys first, our extra keys after) and fans them out to sinks."""

    def __init__(self, task, sinks: list, meta: dict | None = None):
        self.task = task
        self.sinks = list(sinks)
        self.meta = dict(meta or {})
        self.rows: list[dict] = []
        self.started_at = datetime.now()

    @classmethod
    def to_folder(cls, task, task_dir, meta=None, extra_sinks=()) -> "Recorder":
        return cls(task, [FolderSink(task_dir), *extra_sinks], meta)

    def begin(self) -> None:
        for sink in self.sinks:
            sink.begin({"task_id": self.task.id, **self.meta})

    def step(
        self,
        step_num: int,
        action: str,
        response: str,
        *,
        done: bool = False,
        info: dict | None = None,
        screenshot: bytes | None = None,
        when: datetime | None = None,
        extra: dict | None = None,
    ) -> dict:
        stamp = timestamp(when)
        # Guests answer PNG (upstream) or JPEG (OSWorld allows it); the file name says which.
        suffix = ".jpg" if screenshot is not None and image_kind(screenshot) == "jpeg" else ".png"
        name = f"step_{step_num}_{stamp}{suffix}" if screenshot is not None else ""
        if name and any(r["screenshot_file"] == name for r in self.rows):
            name = f"step_{step_num}_{stamp}_{len(self.rows) + 1}{suffix}"
        row = {
            "step_num": step_num,
            "action_timestamp": stamp,
            "action": action if isinstance(action, str) else str(action),
            "response": response if isinstance(response, str) else str(response),
            "reward": 0,
            "done": bool(done),
            "info": info or {},
            "screenshot_file": name,
            **(extra or {}),
        }
        if screenshot is not None:
            row["screenshot_sha256"] = hashlib.sha256(screenshot).hexdigest()
        self.rows.append(row)
        for sink in self.sinks:
            sink.step(row, screenshot)
        return row

    def finish(self, *, status: str, ended_by: str, final_answer: str, error: str = "", turns: int = 0,
               messages=None, usage=None, notes: list[str] | None = None) -> dict:  # fmt: skip
        bundle = {
            "format": BUNDLE_FORMAT,
            "version": BUNDLE_VERSION,
            "harness_version": HARNESS_VERSION,
            "task_id": self.task.id,
            **self.meta,
            "status": status,
            "ended_by": ended_by,
            "turns": turns,
            "steps": len(self.rows),
            "final_answer": final_answer,
            "error": error,
            "notes": notes or [],
            "started_at": self.started_at.isoformat(timespec="seconds"),
            "finished_at": datetime.now().isoformat(timespec="seconds"),
        }
        summary = {
            "bundle": bundle,
            "messages": messages,
            "usage": usage,
            "rubric_bundle": rubric_bundle(self.task, self.rows, self.meta),
        }
        for sink in self.sinks:
            sink.finish(summary)
        return summary
