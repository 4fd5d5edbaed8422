"""Read MyPCBench task files (the flat graded file, per-bucket rubric shards, a single task, and the
older rubric variants) into validated, normalised dataclasses. Django-free: the harness uses it too.
"""

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from jsonschema import Draft202012Validator

from harness import safejson

GRADED_FILE = "all_tasks_with_grading.json"
# Files that sit beside task files upstream but are not task files.
NOT_TASK_FILES = {"schema.json", "variables.json", "all_tasks.json", "task_types.json"}
ID_PATTERN = r"^[a-z_]+-[a-z0-9]+$"
CATEGORIES = (
    "retrieval",
    "aggregation",
    "contradiction",
    "situated_action",
    "preference_inference",
    "counterfactual",
    "long_horizon",
    "cua_only",
    "hard_app",
)
DIFFICULTIES = ("easy", "medium", "hard")
# Task keys that become TaskSpec fields; every other key is kept in TaskSpec.extra.
_MAPPED_KEYS = {"id", "app", "instruction", "apps_involved", "category", "difficulty", "grading"}
_GRADING_KEYS = {"type", "rubrics", "rubric_rule"}


class TaskFileError(ValueError):
    """A task (or task-types) file that cannot be imported: which file, where in it, what is wrong
    and what was expected."""

    def __init__(self, file: str, field: str, problem: str, expected: str = "", *, more: int = 0):
        self.file = file
        self.field = field
        self.problem = problem
        self.expected = expected
        self.more = more
        text = f"{file}: {field}: {problem}" if field else f"{file}: {problem}"
        if expected:
            text += f" (expected {expected})"
        if more:
            text += f" [and {more} more problem{'s' if more != 1 else ''} in this file]"
        super().__init__(text)


@dataclass(frozen=True)
class RubricSpec:
    position: int  # 1-based
    rubric_id: str
    criterion: str
    verification: str
    weight: float  # as written, with missing or <= 0 read as 1.0
    normalised_weight: float  # weight / the task's total
    content_hash: str
    # Optional command run on the guest when the trajectory ends: {"command", "expected", "match"}.
    state_check: dict | None = field(default=None, hash=False)


@dataclass(frozen=True)
class TaskSpec:
    id: str
    position: int  # 1-based order across the files read
    category: str
    instruction: str
    bucket: str
    apps_involved: list[str]
    difficulty: str
    rubric_rule: str
    extra: dict
    rubric: list[RubricSpec]
    content_hash: str
    source_file: str = ""

    @property
    def rubric_hash(self) -> str:
        return _hash([item.content_hash for item in self.rubric])


@dataclass
class TaskFile:
    """What one import reads: the tasks in order, the files they came from, and a hash of them all."""

    path: str
    files: list[str]
    sha256: str
    tasks: list[TaskSpec] = field(default_factory=list)


def _hash(value) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def json_kind(value) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "number"


def parse_json_text(data: bytes, file: str):
    """Parse JSON bytes, turning every failure into a TaskFileError with the line and column.
    Bounded like every untrusted JSON read (harness.safejson): size, depth, number length, NaN."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TaskFileError(file, f"byte {exc.start}", "not UTF-8 text", "a UTF-8 JSON file")
    try:
        return safejson.loads(text)
    except safejson.JSONRefused as exc:
        where = f"line {exc.line}, column {exc.column}" if exc.line is not None else ""
        problem = exc.problem.replace("not valid JSON", "not JSON", 1)
        raise TaskFileError(file, where, problem, "valid JSON")


STATE_CHECK_MATCHES = ("exact", "contains", "regex")


def normalise_state_check(raw) -> dict | None:
    """A rubric item's state check with its match rule spelled out (exact unless said), or None."""
    if not raw:
        return None
    return {"command": raw["command"], "expected": raw["expected"], "match": raw.get("match") or "exact"}


# Our own schema for one task, in the spirit of upstream's tasks/schema.json but accepting the
# older rubric variants. "expected" texts are what error messages quote.
_NON_EMPTY = {"type": "string", "minLength": 1, "pattern": r"\S", "expected": "a non-empty string"}
RUBRIC_ITEM_SCHEMA = {
    "type": "object",
    "expected": "a rubric item object with a `criterion` (or `requirement`)",
    "properties": {
        "criterion": _NON_EMPTY,
        "requirement": _NON_EMPTY,
        "rubric_id": {"type": ["string", "integer"], "expected": "a string such as R1"},
        "id": {"type": ["string", "integer"], "expected": "a string such as R1"},
        "verification": {"type": "string", "expected": "a string"},
        "type": {"enum": ["llm_judge"], "expected": '"llm_judge"'},
        "weight": {"type": ["number", "null"], "expected": "a number (missing or <= 0 counts as 1.0)"},
        "state_check": {
            "type": "object",
            "expected": 'an object {"command", "expected", "match": "exact"|"contains"|"regex"}',
            "required": ["command", "expected"],
            "additionalProperties": False,
            "properties": {
                "command": {
                    "type": ["string", "array"],
                    "minLength": 1,
                    "minItems": 1,
                    "items": {"type": "string"},
                    "expected": "a shell command (string) or an argv (array of strings)",
                },
                "expected": {"type": "string", "expected": "the output the command should print (a string)"},
                "match": {"enum": list(STATE_CHECK_MATCHES), "expected": '"exact", "contains" or "regex"'},
            },
        },
    },
    "anyOf": [{"required": ["criterion"]}, {"required": ["requirement"]}],
}
TASK_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "expected": "a task object",
    "required": ["id", "category", "instruction", "grading"],
    "properties": {
        "id": {"type": "string", "pattern": ID_PATTERN, "expected": f"a task id matching {ID_PATTERN}"},
        "category": {"enum": list(CATEGORIES), "expected": "one of " + ", ".join(CATEGORIES)},
        "instruction": _NON_EMPTY,
        "app": {"type": "string", "expected": "a bucket name (string)"},
        "apps_involved": {
            "type": "array",
            "items": _NON_EMPTY,
            "expected": "an array of app names",
        },
        "difficulty": {"enum": list(DIFFICULTIES), "expected": "one of " + ", ".join(DIFFICULTIES)},
        "persona": {"type": "string", "expected": "a string"},
        "horizon": {"type": "string", "expected": "a string such as H2"},
        "time_limit_seconds": {"type": "integer", "minimum": 0, "expected": "a whole number of seconds"},
        "grading": {
            "type": "object",
            "expected": "an object with `rubrics`",
            "required": ["rubrics"],
            "properties": {
                "type": {"enum": ["llm_judge"], "expected": '"llm_judge"'},
                "rubric_rule": {"type": "string", "expected": "a string"},
                "rubrics": {
                    "type": "array",
                    "minItems": 1,
                    "items": RUBRIC_ITEM_SCHEMA,
                    "expected": "a non-empty array of rubric items",
                },
            },
        },
    },
}
_VALIDATOR = Draft202012Validator(TASK_SCHEMA)


def _json_path(parts) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _describe(error) -> tuple[str, str, str]:
    """(field path, problem, expected) for one jsonschema error."""
    path = list(error.absolute_path)
    kind = error.validator
    if kind == "required":
        missing = error.message.split("'")[1]
        sub = error.schema.get("properties", {}).get(missing, {})
        return _json_path(path + [missing]), "missing", sub.get("expected", "this field")
    if kind == "anyOf":
        return _json_path(path), "has neither `criterion` nor `requirement`", "a non-empty `criterion`"
    expected = error.schema.get("expected", str(error.validator_value))
    value = error.instance
    if kind == "type":
        return _json_path(path), f"found a JSON {json_kind(value)}", expected
    if kind in ("minLength", "pattern") and isinstance(value, str) and not value.strip():
        return _json_path(path), "empty", expected
    if kind == "minItems":
        return _json_path(path), "empty array", expected
    shown = json.dumps(value, ensure_ascii=False)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return _json_path(path), f"{shown} is not allowed", expected


def _validate_task(raw, index: int, file: str, top_is_list: bool) -> None:
    # Schema order puts the most telling fields (id, category, instruction) first; one report per field.
    by_field: dict[tuple, Any] = {}
    for error in _VALIDATOR.iter_errors(raw):
        by_field.setdefault(tuple(error.absolute_path), error)
    errors = list(by_field.values())
    if not errors:
        return
    # Report the first problem precisely; the count of the others tells the author how far off it is.
    where, problem, expected = _describe(errors[0])
    prefix = f"[{index}]" if top_is_list else ""
    field_path = prefix + ("." + where if where and not where.startswith("[") else where)
    task_id = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(task_id, str) and task_id and not where.startswith("id"):
        field_path += f" (task {task_id})"
    raise TaskFileError(file, field_path or "(top level)", problem, expected, more=len(errors) - 1)


def rubric_weight(raw_weight) -> float:
    """A rubric item's weight as written; missing or <= 0 means 1.0 (the upstream judges' rule)."""
    if raw_weight is None or raw_weight <= 0:
        return 1.0
    return float(raw_weight)


def build_rubric(raw_items: list[dict]) -> list[RubricSpec]:
    """Normalised rubric items from any upstream variant (criterion or requirement; optional
    id/rubric_id, verification, weight). Callers check the shape first; this is the one place that
    decides ids, weights, normalised weights and content hashes."""
    weights = [rubric_weight(item.get("weight")) for item in raw_items]
    total = sum(weights)
    items = []
    for i, (item, weight) in enumerate(zip(raw_items, weights, strict=True)):
        rubric_id = item.get("id", item.get("rubric_id"))
        rubric_id = str(rubric_id) if rubric_id not in (None, "") else f"R{i + 1}"
        criterion = cast(str, item.get("criterion") or item.get("requirement"))  # callers check the shape first
        verification = item.get("verification") or ""
        content = {"rubric_id": rubric_id, "criterion": criterion, "verification": verification, "weight": weight}
        state_check = normalise_state_check(item.get("state_check"))
        if state_check:
            # Only items that carry a check hash it, so upstream rubrics keep their hashes.
            content["state_check"] = state_check
        items.append(
            RubricSpec(
                position=i + 1,
                rubric_id=rubric_id,
                criterion=criterion,
                verification=verification,
                weight=weight,
                normalised_weight=weight / total,
                content_hash=_hash(content),
                state_check=state_check,
            )
        )
    return items


def _rubric(raw_items: list, file: str, where: str) -> list[RubricSpec]:
    for i, item in enumerate(raw_items):
        weight = item.get("weight")
        if isinstance(weight, float) and not math.isfinite(weight):
            raise TaskFileError(file, f"{where}.grading.rubrics[{i}].weight", "not a finite number", "a number")
        check = item.get("state_check") or {}
        if check.get("match") == "regex":
            try:
                re.compile(check["expected"])
            except re.error as exc:
                raise TaskFileError(
                    file,
                    f"{where}.grading.rubrics[{i}].state_check.expected",
                    f"not a valid regex ({exc})",
                    "a Python regular expression",
                ) from exc
    return build_rubric(raw_items)


def _spec(raw: dict, position: int, file: str, where: str, bucket_hint: str) -> TaskSpec:
    grading = raw["grading"]
    rubric = _rubric(grading["rubrics"], file, where)
    extra = {k: v for k, v in raw.items() if k not in _MAPPED_KEYS}
    grading_extra = {k: v for k, v in grading.items() if k not in _GRADING_KEYS}
    if grading_extra:
        extra["grading"] = grading_extra
    meta = {
        "id": raw["id"],
        "category": raw["category"],
        "instruction": raw["instruction"],
        "bucket": raw.get("app") or bucket_hint,
        "apps_involved": list(raw.get("apps_involved", [])),
        "difficulty": raw.get("difficulty", ""),
        "rubric_rule": grading.get("rubric_rule", ""),
        "extra": extra,
    }
    return TaskSpec(
        position=position,
        rubric=rubric,
        content_hash=_hash(meta | {"rubric": [item.content_hash for item in rubric]}),
        source_file=file,
        **meta,
    )


def _bucket_hint(file: Path, root: Path | None) -> str:
    """Shards carry no `app` field: the folder name is the bucket (``<bucket>/<bucket>.rubrics.json``)."""
    if file.name == f"{file.parent.name}.rubrics.json":
        return file.parent.name
    if root is not None and file.parent != root:
        return file.parent.name
    return ""


def _read_file(path: Path, root: Path | None, first_position: int) -> list[TaskSpec]:
    file = str(path)
    try:
        raw = safejson.read_bytes(path)  # refused by size before anything is read
    except safejson.JSONRefused as exc:
        raise TaskFileError(file, "", exc.problem)
    data = parse_json_text(raw, file)
    if isinstance(data, dict):
        if data and all(isinstance(v, str) and re.match(ID_PATTERN, k) for k, v in data.items()):
            raise TaskFileError(
                file,
                "(top level)",
                "this looks like a task-types file ({id: type}), not tasks",
                "a task file; pass a task-types file with --task-types",
            )
        if not {"id", "instruction", "grading"} & set(data):
            keys = ", ".join(list(data)[:5])
            raise TaskFileError(
                file,
                "(top level)",
                f"found an object with keys {keys or '(none)'}",
                "a JSON array of task objects or one task object",
            )
        raws, top_is_list = [data], False
    elif isinstance(data, list):
        raws, top_is_list = data, True
    else:
        raise TaskFileError(
            file, "(top level)", f"found a JSON {json_kind(data)}", "a JSON array of task objects or one task object"
        )
    if not raws:
        raise TaskFileError(file, "(top level)", "no tasks", "at least one task object")
    if all(isinstance(r, dict) and "grading" not in r for r in raws):
        raise TaskFileError(
            file,
            "grading",
            "no task carries a rubric (`grading.rubrics`); a rubric-less list such as all_tasks.json cannot be graded",
            f"the graded file {GRADED_FILE} instead",
        )
    bucket_hint = _bucket_hint(path, root)
    specs = []
    for i, task in enumerate(raws):
        _validate_task(task, i, file, top_is_list)
        where = f"[{i}]" if top_is_list else ""
        specs.append(_spec(task, first_position + i, file, where, bucket_hint))
    return specs


def _task_files(root: Path) -> list[Path]:
    graded = root / GRADED_FILE
    if graded.is_file():
        return [graded]
    files = sorted(p for p in root.rglob("*.json") if p.is_file() and p.name not in NOT_TASK_FILES)
    if not files:
        raise TaskFileError(str(root), "", "no task files (*.json) found", f"{GRADED_FILE} or <bucket>/*.rubrics.json")
    return files


def load_tasks(path: str | Path) -> TaskFile:
    """Read a task file or a directory of them; raise TaskFileError on the first problem.

    A directory holding ``all_tasks_with_grading.json`` is read from that file only (as upstream's
    runner does); otherwise every ``*.json`` below it is read in sorted order (the bucket shards).
    """
    path = Path(path)
    if path.is_dir():
        root, files = path, _task_files(path)
    elif path.is_file():
        root, files = None, [path]
    else:
        raise TaskFileError(str(path), "", "no such file or directory", "a task file or a folder of task files")

    tasks: list[TaskSpec] = []
    seen: dict[str, tuple[str, int]] = {}
    digest = hashlib.sha256()
    for file in files:
        digest.update(str(file.relative_to(root) if root else file.name).encode() + b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())
        for index, spec in enumerate(_read_file(file, root, len(tasks) + 1)):
            if spec.id in seen:
                first_file, first_index = seen[spec.id]
                raise TaskFileError(
                    str(file),
                    f"[{index}].id",
                    f"duplicate task id {spec.id!r}, already used by [{first_index}] in {first_file}",
                    "each task id once",
                )
            seen[spec.id] = (str(file), index)
            tasks.append(spec)
    # A single file's hash is the plain sha256 of its bytes, so it can be checked with sha256sum.
    sha = hashlib.sha256(files[0].read_bytes()).hexdigest() if len(files) == 1 else digest.hexdigest()
    return TaskFile(path=str(path), files=[str(f) for f in files], sha256=sha, tasks=tasks)
