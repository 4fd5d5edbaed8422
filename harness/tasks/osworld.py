"""Read OSWorld task definitions (``examples/<domain>/<task id>.json`` plus ``test_all.json``, as the
OSWorld repository publishes them under ``evaluation_examples/``) into the same TaskSpec records the
MyPCBench reader gives, so one importer stores both. OSWorld tasks have UUID ids, a domain (the suite's
category), an instruction, related apps and an evaluator (kept for reference: OSWorld runs are scored by
the evaluator's result.txt, not by a rubric). Django-free."""

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from harness.tasks.taskfile import TaskFile, TaskFileError, TaskSpec, parse_json_text

# An OSWorld task id: a UUID, with the _<n> suffix side-by-side attempts of one task add to their folders.
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:_\d+)?$", re.IGNORECASE)
INDEX_FILE = "test_all.json"
EXAMPLES = "examples"
# Keys kept in TaskSpec.extra for reference; the rest of a task file is not needed to show or score it.
_KEPT = ("snapshot", "source", "evaluator", "config", "proxy", "possibility_of_env_change")


def is_osworld_folder(path) -> bool:
    """A folder holding OSWorld's test_all.json and examples/ (the repository's evaluation_examples/)."""
    path = Path(path)
    return path.is_dir() and (path / INDEX_FILE).is_file() and (path / EXAMPLES).is_dir()


def _hash(value) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_osworld_tasks(path) -> TaskFile:
    """Every task test_all.json lists, in its order (domain by domain), read from examples/<domain>/.
    A listed task whose file is missing, an id that is not a UUID or differs from its file name, or a
    task without an instruction is refused, naming the file."""
    root = Path(path)
    if not is_osworld_folder(root):
        raise TaskFileError(str(root), "", "not an OSWorld task folder", f"a folder with {INDEX_FILE} and {EXAMPLES}/")
    index_file = root / INDEX_FILE
    index = parse_json_text(index_file.read_bytes(), str(index_file))
    if not isinstance(index, dict) or not all(isinstance(v, list) for v in index.values()):
        raise TaskFileError(str(index_file), "(top level)", "not an object of domain -> task id lists",
                            '{"chrome": ["<uuid>", ...], ...}')  # fmt: skip
    digest = hashlib.sha256(index_file.read_bytes())
    tasks: list[TaskSpec] = []
    files: list[str] = [str(index_file)]
    seen: dict[str, str] = {}
    for domain, ids in index.items():
        for i, task_id in enumerate(ids):
            where = f"{domain}[{i}]"
            if not isinstance(task_id, str) or not UUID.match(task_id):
                raise TaskFileError(str(index_file), where, f"{task_id!r} is not a task id", "a UUID")
            if task_id in seen:
                raise TaskFileError(str(index_file), where, f"duplicate task id {task_id}, also in {seen[task_id]}",
                                    "each task once")  # fmt: skip
            seen[task_id] = domain
            file = root / EXAMPLES / domain / f"{task_id}.json"
            if not file.is_file():
                raise TaskFileError(str(file), "", "listed in test_all.json but missing", "the task's JSON file")
            data = file.read_bytes()
            digest.update(hashlib.sha256(data).digest())
            raw = parse_json_text(data, str(file))
            tasks.append(_spec(raw, task_id, domain, len(tasks) + 1, str(file)))
            files.append(str(file))
    if not tasks:
        raise TaskFileError(str(index_file), "(top level)", "lists no tasks", "at least one task id")
    return TaskFile(path=str(root), files=files, sha256=digest.hexdigest(), tasks=tasks)


def _spec(raw, task_id: str, domain: str, position: int, file: str) -> TaskSpec:
    if not isinstance(raw, dict):
        raise TaskFileError(file, "(top level)", "not an object", "one OSWorld task object")
    if raw.get("id") != task_id:
        raise TaskFileError(file, "id", f"is {raw.get('id')!r} but the file is named {task_id}", "the same UUID")
    instruction = raw.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise TaskFileError(file, "instruction", "missing or empty", "the task's instruction")
    apps = raw.get("related_apps") or []
    if not isinstance(apps, list) or not all(isinstance(a, str) for a in apps):
        raise TaskFileError(file, "related_apps", f"is {apps!r}", "a list of app names")
    extra = {key: raw[key] for key in _KEPT if key in raw}
    meta: dict[str, Any] = {
        "id": task_id,
        "category": domain,
        "instruction": instruction,
        "bucket": domain,
        "apps_involved": list(apps),
        "difficulty": "",
        "rubric_rule": "",
        "extra": extra,
    }
    return TaskSpec(position=position, rubric=[], content_hash=_hash(meta), source_file=file, **meta)
