"""Read agent result folders (upstream MyPCBench task dirs, the parallel runner's vm<i>/ nesting,
OSWorld-style trees, the legacy context/ layout) into plain dataclasses. Django-free: the harness
writes what this reads, and the site ingests what this returns."""

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from harness import layouts, result_files, safejson
from harness.actions import parse_action
from harness.printable import printable
from harness.tasks import RubricSpec, build_rubric

TIMESTAMP_FORMAT = "%Y%m%d@%H%M%S%f"
TRAJ_FILE = "traj.jsonl"
LAYOUT_MYPCBENCH = "mypcbench"
LAYOUT_OSWORLD = "osworld"
LAYOUT_LEGACY = "legacy-context"
# OSWorld trees are results/<action_space>/<observation_type>/<model>/<domain>/<task_id>/.
OSWORLD_OBSERVATION_TYPES = {"screenshot", "a11y_tree", "screenshot_a11y_tree", "som"}
DEFAULT_TURN_BUDGET = 100
MAX_STEP_NUM = 1_000_000  # far above any turn budget; keeps step numbers inside a database integer
FULL_TRAJ_RESULT = "osworld_full_traj_result.json"
TASK_SCORE_RESULT = "rubric_judge_result.json"
PER_STEP_RESULT = "rubric_result.json"  # the legacy per-step judge (max over steps per item)
STATE_CHECKS_FILE = "state_checks.json"  # ours: rubric items' state checks run when the trajectory ended
STATE_CHECK_STATUSES = ("passed", "failed", "error")
_SKIPPED_DIRS = {"_tasks", "summary", "__pycache__"}
_INFEASIBLE = re.compile(r"\[?infeasible\]?", re.IGNORECASE)
_STOP_FENCE = re.compile(r"```\s*(DONE|FAIL)\s*```\s*$", re.IGNORECASE)
_LEGACY_STEP = re.compile(r"^step_(\d+)(?:_raw_response\.txt|_parsed_actions\.json|\.png)$")


class BundleError(ValueError):
    """A result folder that cannot be read: which file, which line or field, what is wrong and what
    was expected."""

    def __init__(self, path, problem: str, *, line: int | None = None, field: str = "", expected: str = ""):
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem
        self.expected = expected
        # Names come from uploads: control and bidirectional characters are shown escaped.
        where = printable(self.path) + (f", line {line}" if line is not None else "")
        text = f"{where}: {field}: {problem}" if field else f"{where}: {problem}"
        if expected:
            text += f" (expected {expected})"
        super().__init__(text)


@dataclass
class StepRecord:
    index: int  # 1-based, in traj.jsonl row order
    turn: int  # upstream step_num: the model turn; several steps may share one
    tool: str  # computer, bash, editor, control, other
    action: dict
    action_text: str
    model_text: str = ""
    tool_output: str = ""
    done: bool = False
    info: dict = field(default_factory=dict)
    screenshot: Path | None = None
    timestamp: datetime | None = None
    screenshot_gap: str = ""  # why the screenshot the row names is not there (missing, Git LFS pointer)


@dataclass
class RubricVerdict:
    position: int
    verdict: str  # success, failure, error (an API error upstream counted as failure; we keep it apart)
    reasoning: str = ""
    score: float | None = None
    cited_steps: list[int] = field(default_factory=list)


# "step 4", "Steps 2, 3 and 7", "steps 5-8": how judges refer to the numbered action history.
_STEP_REF = re.compile(r"\bsteps?\s+#?(\d+(?:\s*(?:,|and|&|to|-|–)\s*#?\d+)*)", re.IGNORECASE)


def cited_steps_from_text(text: str) -> list[int]:
    """Step numbers a judge's reasoning refers to, in order of first mention (ranges expanded)."""
    found: list[int] = []
    for match in _STEP_REF.finditer(text or ""):
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        parts = re.split(r"\s*(?:to|-|–)\s*", match.group(1))
        if len(numbers) == 2 and len(parts) == 2 and numbers[0] < numbers[1] <= numbers[0] + 200:
            numbers = list(range(numbers[0], numbers[1] + 1))
        found.extend(n for n in numbers if n not in found)
    return found


@dataclass
class JudgeRecord:
    """What the source's own judge said about one trajectory."""

    source_file: str
    model: str
    score: float | None = None  # task score 0..1, if reported
    rubric: list[RubricSpec] = field(default_factory=list)  # the items it judged (empty for a score only)
    verdicts: list[RubricVerdict] = field(default_factory=list)
    error: str = ""  # the judge itself failed; never a failed rubric item
    settings: dict = field(default_factory=dict)


@dataclass
class TrajectoryBundle:
    task_id: str
    layout: str
    path: Path
    attempt: int = 0
    steps: list[StepRecord] = field(default_factory=list)
    ended_by: str = "unknown"  # done, fail, infeasible, budget, error, unknown
    final_answer: str = ""
    error: str = ""
    usage: dict = field(default_factory=dict)
    messages_path: Path | None = None
    rubric: list[RubricSpec] | None = None  # rubric_bundle.json grading_manifest.rubrics
    judges: list[JudgeRecord] = field(default_factory=list)
    completed: bool | None = None  # result.txt marker (upstream: 1.0 finished, 0.0 errored)
    model: str = ""  # the <model> segment of an OSWorld path
    traj_sha256: str = ""
    warnings: list[str] = field(default_factory=list)
    state_checks: list[dict] = field(default_factory=list)  # state_checks.json rows, checked
    kind: str = ""  # layouts.KIND_OSWORLD or KIND_MYPCBENCH: how result.txt was read
    domain: str = ""  # the OSWorld domain folder, when there is one
    attempt_source: str = ""  # the folder that numbered the attempt
    gaps: list[result_files.Gap] = field(default_factory=list)  # missing screenshots and the like
    answered: bool = False  # the agent gave a final answer (not only thoughts)

    @property
    def n_turns(self) -> int:
        return len({step.turn for step in self.steps})

    @property
    def screenshots(self) -> list[Path]:
        return [step.screenshot for step in self.steps if step.screenshot is not None]


@dataclass
class ResultsTree:
    root: Path
    bundles: list[TrajectoryBundle]
    scores: dict = field(default_factory=dict)  # task id -> scores.json row
    warnings: list[str] = field(default_factory=list)

    @property
    def gaps(self) -> list:
        return [gap for bundle in self.bundles for gap in bundle.gaps]

    @property
    def sha256(self) -> str:
        """One hash over every trajectory file read, in task-id order."""
        digest = hashlib.sha256()
        for bundle in sorted(self.bundles, key=lambda b: b.task_id):
            digest.update(f"{bundle.task_id}:{bundle.traj_sha256}\n".encode())
        return digest.hexdigest()


# ---------------------------------------------------------------- helpers


OSWORLD_TIMESTAMP_FORMAT = "%Y%m%d@%H%M%S"  # OSWorld's lib_run_single: seconds, no fraction


def parse_timestamp(value) -> datetime | None:
    """``20260411@123456123456`` (MyPCBench) or ``20260411@123456`` (OSWorld) -> a naive datetime;
    None when absent or in neither format."""
    if not isinstance(value, str) or not value:
        return None
    # Six digits after the @ are OSWorld's seconds; %f would otherwise take the last one as a fraction.
    seconds_only = len(value.partition("@")[2]) == 6
    for fmt in (OSWORLD_TIMESTAMP_FORMAT,) if seconds_only else (TIMESTAMP_FORMAT,):
        try:
            return datetime.strptime(value, fmt)
        except ValueError:
            continue
    return None


def _read_json(path: Path):
    # Bounded in size, depth and number length; NaN and Infinity refused (see harness.safejson).
    try:
        data = safejson.read_bytes(path)
        if result_files.is_lfs_pointer(data):
            raise BundleError(path, result_files.LFS_PROBLEM)
        return safejson.loads(data)
    except safejson.JSONRefused as exc:
        column = f" at column {exc.column}" if exc.column is not None else ""
        raise BundleError(path, exc.problem + column, line=exc.line, expected="a UTF-8 JSON file")


def _inside(task_dir: Path, name: str, path_for_error: Path, line: int | None, field_name: str) -> Path:
    candidate = (task_dir / name).resolve()
    if not candidate.is_relative_to(task_dir.resolve()):
        raise BundleError(
            path_for_error,
            f"{name!r} points outside the task folder {task_dir}",
            line=line,
            field=field_name,
            expected="a file name inside the task folder",
        )
    return candidate


def _text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def normalise_rubric(items, path: Path, where: str) -> list[RubricSpec]:
    """Rubric items as a bundle or a judge result states them, checked here and normalised by the
    task-file reader's own rules (so a judged rubric compares and hashes like an imported one)."""
    if not isinstance(items, list):
        raise BundleError(path, f"is {type(items).__name__}", field=where, expected="an array of rubric items")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise BundleError(path, "not an object", field=f"{where}[{i}]", expected="a rubric item object")
        criterion = item.get("criterion") or item.get("requirement")
        if not isinstance(criterion, str) or not criterion.strip():
            raise BundleError(
                path, "missing or empty", field=f"{where}[{i}].criterion", expected="a non-empty criterion text"
            )
        weight = item.get("weight")
        if weight is not None and (
            isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight)
        ):
            raise BundleError(path, f"is {weight!r}", field=f"{where}[{i}].weight", expected="a number")
        if not isinstance(item.get("verification") or "", str):
            raise BundleError(path, "not text", field=f"{where}[{i}].verification", expected="a string")
    return build_rubric(items)


def _clean_answer(text: str) -> str:
    return _STOP_FENCE.sub("", text).strip()


# ---------------------------------------------------------------- walking a tree


def is_task_dir(path: Path) -> bool:
    return (path / TRAJ_FILE).is_file() or (path / "context").is_dir()


def find_task_dirs(root: Path) -> list[Path]:
    """Every task folder under ``root`` (the root itself may be one), walking vm<i>/ and OSWorld
    nesting; folders inside a task folder are not searched."""
    root = Path(root)
    if is_task_dir(root):
        return [root]
    found = []
    for dirpath, dirnames, _filenames in os.walk(root):
        current = Path(dirpath)
        if current != root and is_task_dir(current):
            found.append(current)
            dirnames.clear()
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIPPED_DIRS)
    return found


def read_results(
    root,
    *,
    turn_budget: int = DEFAULT_TURN_BUDGET,
    layout: str | None = None,
    attempts_from_folders: bool = False,
    gaps_hint: str = "",
) -> ResultsTree:
    """Read every task folder under ``root``. Every problem in the tree is collected and reported at
    once (grouped and counted) as a ResultsProblems error. Gaps (missing screenshots) are on the
    bundles for the caller to accept; with ``gaps_hint`` (what to do about them) they are problems too."""
    root = Path(root)
    if not root.exists():
        raise BundleError(root, "does not exist", expected="a result folder")
    if not root.is_dir():
        raise BundleError(root, "is not a folder", expected="a result folder")
    tree = ResultsTree(root=root, bundles=[])
    task_dirs = find_task_dirs(root)
    if not task_dirs:
        raise BundleError(root, "contains no task folders", expected=f"folders holding {TRAJ_FILE} or context/")
    try:
        folders = layouts.detect(
            [d.relative_to(root).as_posix() for d in task_dirs],
            layout=layout,
            attempts_from_folders=attempts_from_folders,
            root_name=root.name,
        )
    except layouts.LayoutError as exc:
        raise BundleError(root, str(exc)) from exc
    problems = result_files.Problems()
    for task_dir, folder in zip(task_dirs, folders, strict=True):
        try:
            tree.bundles.append(read_task_dir(task_dir, turn_budget=turn_budget, folder=folder))
        except BundleError as exc:
            problems.add(exc.path, str(exc), problem=exc.problem)
    for scores_path in sorted(root.rglob("scores.json")):
        if any(scores_path.is_relative_to(b.path) for b in tree.bundles):
            continue
        try:
            tree.scores.update(_read_scores(scores_path, tree.warnings))
        except BundleError as exc:
            problems.add(exc.path, str(exc), problem=exc.problem)
    if gaps_hint and tree.gaps:  # gaps are problems too unless the caller accepts them
        for gap in tree.gaps:
            problems.add(gap.where, gap.problem, kind=gap.kind)
    if problems:
        raise ResultsProblems(root, problems, gaps_hint if tree.gaps else "")
    return tree


class ResultsProblems(BundleError):
    """Every problem found in a result tree, grouped by kind and counted."""

    def __init__(self, root: Path, problems: "result_files.Problems", hint: str = ""):
        self.problems = problems
        super().__init__(root, problems.summary(hint))


def _read_scores(path: Path, warnings: list[str]) -> dict:
    data = _read_json(path)
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise BundleError(path, "missing or not an array", field="rows", expected="judge_results.py scores.json")
    scores = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("task_id"), str):
            raise BundleError(path, "not an object with a task_id", field=f"rows[{i}]", expected="a score row")
        if row.get("status") == "judge_error":
            warnings.append(
                printable(f"{path}: the source's judge failed on {row['task_id']}: {_text(row.get('error'))[:200]}")
            )
        scores[row["task_id"]] = {**row, "_file": str(path)}
    return scores


# ---------------------------------------------------------------- one task folder


def read_task_dir(
    task_dir, *, turn_budget: int = DEFAULT_TURN_BUDGET, folder: layouts.TaskFolder | None = None
) -> TrajectoryBundle:
    """One task folder. ``folder`` says what its path means (layouts.detect); without it the path is
    classified on its own (an upload's folder), and a folder that fits no layout is refused."""
    task_dir = Path(task_dir)
    if folder is None:
        try:
            folder = layouts.classify(task_dir.resolve().as_posix().lstrip("/"))
        except layouts.LayoutError as exc:
            raise BundleError(task_dir, printable(str(exc))) from exc
    traj = task_dir / TRAJ_FILE
    common = {
        "task_id": folder.task_id or task_dir.name,
        "path": task_dir,
        "model": folder.model,
        "kind": folder.kind,
        "domain": folder.domain,
        "attempt": folder.attempt,
        "attempt_source": folder.attempt_source,
    }
    if traj.is_file():
        # The layout names the folder's shape (an OSWorld results tree, or OSWorld results at all);
        # ``kind`` alone decides how result.txt reads.
        osworld = folder.kind == layouts.KIND_OSWORLD or bool(folder.model)
        layout = LAYOUT_OSWORLD if osworld else LAYOUT_MYPCBENCH
        bundle = TrajectoryBundle(layout=layout, **common)
        _read_traj(bundle, traj)
    elif (task_dir / "context").is_dir():
        bundle = TrajectoryBundle(layout=LAYOUT_LEGACY, **common)
        _read_legacy_context(bundle, task_dir / "context")
    else:
        raise BundleError(task_dir, f"has no {TRAJ_FILE} and no context/ folder", expected="a task result folder")

    _attach_final_screenshot(bundle)
    _read_markers(bundle)
    _fill_tool_calls(bundle)
    _read_rubric_bundle(bundle)
    _read_judges(bundle)
    _read_state_checks(bundle)
    _decide_ending(bundle, turn_budget)
    return bundle


def _read_state_checks(bundle: TrajectoryBundle) -> None:
    """state_checks.json: {"checks": [{"rubric_id", "status": passed|failed|error, ...}]}."""
    path = bundle.path / STATE_CHECKS_FILE
    if not path.is_file():
        return
    data = _read_json(path)
    checks = data.get("checks") if isinstance(data, dict) else None
    if not isinstance(checks, list):
        raise BundleError(path, "missing or not an array", field="checks", expected="an array of state check results")
    for i, row in enumerate(checks):
        if not isinstance(row, dict):
            raise BundleError(path, "not an object", field=f"checks[{i}]", expected="a state check result object")
        if not isinstance(row.get("rubric_id"), str) or not row["rubric_id"]:
            raise BundleError(path, f"is {row.get('rubric_id')!r}", field=f"checks[{i}].rubric_id",
                              expected="the rubric item's id, e.g. R1")  # fmt: skip
        if row.get("status") not in STATE_CHECK_STATUSES:
            raise BundleError(path, f"is {row.get('status')!r}", field=f"checks[{i}].status",
                              expected="one of " + ", ".join(STATE_CHECK_STATUSES))  # fmt: skip
        bundle.state_checks.append(row)


def _read_traj(bundle: TrajectoryBundle, traj: Path) -> None:
    try:
        data = safejson.read_bytes(traj)
    except safejson.JSONRefused as exc:
        raise BundleError(traj, exc.problem, expected="UTF-8 JSON lines")
    if result_files.is_lfs_pointer(data):
        raise BundleError(traj, result_files.LFS_PROBLEM)
    bundle.traj_sha256 = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BundleError(traj, f"not UTF-8 text ({exc.reason} at byte {exc.start})", expected="UTF-8 JSON lines")
    errors = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = safejson.loads(line)
        except safejson.JSONRefused as exc:
            column = f" at column {exc.column}" if exc.column is not None else ""
            raise BundleError(traj, exc.problem + column, line=line_no, expected="one JSON object")
        if not isinstance(row, dict):
            raise BundleError(traj, f"a JSON {type(row).__name__}", line=line_no, expected="one JSON object per line")
        if "Error" in row and "step_num" not in row:
            # OSWorld writes {"Error": ...} when a step raised; it ends the trajectory, it is not a step.
            errors.append(_text(row["Error"]))
            continue
        bundle.steps.append(_step_from_row(bundle, traj, line_no, row))
    if errors:
        bundle.error = "\n".join(errors)


def _step_from_row(bundle: TrajectoryBundle, traj: Path, line_no: int, row: dict) -> StepRecord:
    step_num = row.get("step_num")
    if isinstance(step_num, bool) or not isinstance(step_num, int) or not 0 <= step_num <= MAX_STEP_NUM:
        raise BundleError(
            traj, f"is {step_num!r}", line=line_no, field="step_num", expected=f"an integer from 0 to {MAX_STEP_NUM}"
        )
    raw_action = row.get("action")
    action_text = raw_action if isinstance(raw_action, str) else json.dumps(raw_action, ensure_ascii=False)
    info = row.get("info")
    info = info if isinstance(info, dict) else ({} if info in (None, "") else {"value": info})
    timestamp = parse_timestamp(row.get("action_timestamp"))
    if row.get("action_timestamp") and timestamp is None:
        bundle.warnings.append(
            f"{printable(traj)}, line {line_no}: action_timestamp {row['action_timestamp']!r} is not {TIMESTAMP_FORMAT}"
        )

    tool, tool_output = "computer", ""
    if action_text == "TOOL_CALL":
        # A model turn spent on bash/editor tools: the runner records the round, not the command.
        tool, action = "bash", {"type": "bash"}
    elif action_text == "PREDICT_CRASH":
        tool, action = "control", {"type": "other", "text": "PREDICT_CRASH"}
        tool_output = _text(info.get("error"))
    elif action_text in ("WAIT", "DONE", "FAIL"):
        tool, action = "control", parse_action(action_text)
    else:
        action = parse_action(raw_action)
        if problem := safejson.unstorable(action):  # e.g. click(1e999, 5): shown as text, never stored as a number
            bundle.warnings.append(printable(f"{traj}, line {line_no}: action {problem}, kept as text only"))
            action = {"type": "other", "text": action_text}

    screenshot, gap_text = None, ""
    if "screenshot_file" in row:
        name = row["screenshot_file"]
        if name not in (None, ""):
            if not isinstance(name, str):
                raise BundleError(traj, f"is {name!r}", line=line_no, field="screenshot_file", expected="a file name")
            screenshot = _inside(bundle.path, name, traj, line_no, "screenshot_file")
            gap = result_files.screenshot_gap(screenshot)
            if gap is not None:
                # A gap, not a refusal: the caller decides (--allow-missing-screenshots).
                bundle.gaps.append(gap.at(f"{traj}, line {line_no}"))
                gap_text, screenshot = gap.problem, None
    elif isinstance(row.get("action_timestamp"), str):
        # Older rows name no file; the runner's own naming finds it.
        guess = bundle.path / f"step_{step_num}_{row['action_timestamp']}.png"
        screenshot = guess if guess.is_file() else None

    return StepRecord(
        index=len(bundle.steps) + 1,
        turn=step_num,
        tool=tool,
        action=action,
        action_text=action_text,
        model_text=_text(row.get("response")),
        tool_output=tool_output,
        done=bool(row.get("done")),
        info=info,
        screenshot=screenshot,
        timestamp=timestamp,
        screenshot_gap=gap_text,
    )


def _read_legacy_context(bundle: TrajectoryBundle, context: Path) -> None:
    numbers: dict[int, dict[str, Path]] = {}
    for entry in sorted(context.iterdir()):
        match = _LEGACY_STEP.match(entry.name)
        if match and entry.is_file():
            kind = "png" if entry.suffix == ".png" else ("response" if entry.suffix == ".txt" else "actions")
            numbers.setdefault(int(match.group(1)), {})[kind] = entry
    digest = hashlib.sha256()
    for number in sorted(numbers):
        files = numbers[number]
        model_text = ""
        if "response" in files:
            raw = files["response"].read_bytes()
            digest.update(raw)
            model_text = raw.decode("utf-8", errors="replace")
        actions: list = []
        if "actions" in files:
            digest.update(files["actions"].read_bytes())
            parsed = _read_json(files["actions"])
            actions = parsed if isinstance(parsed, list) else [parsed]
        texts = [a if isinstance(a, str) else json.dumps(a, ensure_ascii=False) for a in actions]
        parsed_actions = [parse_action(a) for a in actions]
        if not parsed_actions:
            action = {"type": "other", "text": ""}
        elif len(parsed_actions) == 1:
            action = parsed_actions[0]
        else:
            action = {**parsed_actions[0], "actions": parsed_actions}
        if safejson.unstorable(action):  # as in traj.jsonl: numbers no JSON column holds stay text
            action = {"type": "other", "text": "\n".join(texts)}
        control = set(texts) & {"DONE", "FAIL", "WAIT"}
        bundle.steps.append(
            StepRecord(
                index=len(bundle.steps) + 1,
                turn=number,
                tool="control" if control and len(texts) == 1 else "computer",
                action=action,
                action_text="\n".join(texts),
                model_text=model_text,
                done=bool(control & {"DONE", "FAIL"}),
                screenshot=files.get("png"),
            )
        )
    if not bundle.steps:
        raise BundleError(context, "holds no step_NNN files", expected="step_NNN.png / step_NNN_*.txt|json")
    bundle.traj_sha256 = digest.hexdigest()
    chat_log = context / "chat_log.json"
    bundle.messages_path = chat_log if chat_log.is_file() else None
    usage = context / "token_usage.json"
    if usage.is_file():
        bundle.usage = _object(usage)


def _object(path: Path) -> dict:
    data = _read_json(path)
    if not isinstance(data, dict):
        raise BundleError(path, f"is a JSON {type(data).__name__}", expected="a JSON object")
    return data


def _attach_final_screenshot(bundle: TrajectoryBundle) -> None:
    finals = sorted(bundle.path.glob("step_final_*.png"))
    if not finals:
        return
    if bundle.steps and bundle.steps[-1].screenshot is None:
        bundle.steps[-1].screenshot = finals[-1]
    else:
        bundle.warnings.append(
            printable(f"{finals[-1]}: final screenshot not attached (the last step already has one)")
        )


def _read_markers(bundle: TrajectoryBundle) -> None:
    if bundle.messages_path is None and (bundle.path / "messages.json").is_file():
        bundle.messages_path = bundle.path / "messages.json"
    own = bundle.path / "bundle.json"  # our harness's: which agent and model ran
    if own.is_file() and not bundle.model:
        data = _object(own)
        if isinstance(data.get("model"), str) and data["model"].strip():
            bundle.model = data["model"].strip()
    usage = bundle.path / "usage.json"
    if usage.is_file():
        bundle.usage = _object(usage)
    incomplete = bundle.path / "incomplete.txt"
    if incomplete.is_file():
        detail = incomplete.read_text(encoding="utf-8", errors="replace").strip()
        bundle.error = "\n".join(filter(None, [bundle.error, detail]))
    result = bundle.path / "result.txt"
    if not result.is_file():
        return
    raw = result.read_text(encoding="utf-8", errors="replace").strip()
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):  # NaN and inf read as floats but are no result (and cannot be stored)
        raise BundleError(result, f"holds {raw[:40]!r}", expected="a finite number such as 1.0")
    if bundle.kind == layouts.KIND_OSWORLD:
        # OSWorld's result.txt is its evaluator's score; MyPCBench's is only a completion marker.
        bundle.judges.append(
            JudgeRecord(source_file="result.txt", model="OSWorld evaluator", score=min(max(value, 0.0), 1.0))
        )
    else:
        bundle.completed = value >= 1.0


def _read_rubric_bundle(bundle: TrajectoryBundle) -> None:
    path = bundle.path / "rubric_bundle.json"
    if not path.is_file():
        return
    data = _object(path)
    manifest = data.get("grading_manifest")
    if not isinstance(manifest, dict):
        raise BundleError(path, "missing or not an object", field="grading_manifest", expected="the grading manifest")
    bundle.rubric = normalise_rubric(manifest.get("rubrics"), path, "grading_manifest.rubrics")
    task = data.get("task")
    named = task.get("id") if isinstance(task, dict) else None
    if named and named != bundle.task_id:
        bundle.warnings.append(printable(f"{path}: task.id is {named!r} but the folder is named {bundle.task_id!r}"))


def _read_judges(bundle: TrajectoryBundle) -> None:
    full = bundle.path / FULL_TRAJ_RESULT
    if full.is_file():
        bundle.judges.append(_full_trajectory_judge(full))
    score_file = bundle.path / TASK_SCORE_RESULT
    if score_file.is_file():
        bundle.judges.append(_task_score_judge(score_file, bundle))
    per_step = bundle.path / PER_STEP_RESULT
    if per_step.is_file():
        bundle.judges.append(_per_step_judge(per_step, bundle))


def _full_trajectory_judge(path: Path) -> JudgeRecord:
    data = _object(path)
    results = data.get("rubric_results")
    if not isinstance(results, list):
        raise BundleError(path, "missing or not an array", field="rubric_results", expected="per-rubric results")
    rubric = normalise_rubric(results, path, "rubric_results")
    verdicts = []
    for i, item in enumerate(results):
        success = item.get("success")
        if not isinstance(success, bool):
            raise BundleError(path, f"is {success!r}", field=f"rubric_results[{i}].success", expected="true or false")
        reasoning = _text(item.get("reasoning"))
        if success:
            verdict = "success"
        elif reasoning.startswith("Error judging rubric"):
            verdict = "error"
        else:
            verdict = "failure"
        score = item.get("score")
        verdicts.append(
            RubricVerdict(
                position=i + 1,
                verdict=verdict,
                reasoning=reasoning,
                score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
                cited_steps=_cited(item.get("cited_steps"), reasoning),
            )
        )
    score = data.get("score")
    settings = {k: data[k] for k in ("max_images", "concurrency", "n_steps_total", "n_screenshots_sent") if k in data}
    return JudgeRecord(
        source_file=FULL_TRAJ_RESULT,
        model=_text(data.get("model")) or "unknown model",
        score=_unit_score(score),
        rubric=rubric,
        verdicts=verdicts,
        settings=settings,
    )


def _per_step_judge(path: Path, bundle: TrajectoryBundle) -> JudgeRecord:
    """rubric_result.json of the legacy per-step judge: each step scored 0/1 per rubric item, an
    item passes when any step did (``per_rubric_max``). Cited steps: the steps that satisfied it."""
    data = _object(path)
    rubric = normalise_rubric(data.get("rubrics"), path, "rubrics")
    best = data.get("per_rubric_max")
    if not isinstance(best, list) or len(best) != len(rubric):
        raise BundleError(path, f"is {str(best)[:60]}", field="per_rubric_max",
                          expected=f"one 0/1 value per rubric item ({len(rubric)})")  # fmt: skip
    per_step = data.get("per_step_scores") if isinstance(data.get("per_step_scores"), list) else []
    first_index: dict[int, int] = {}
    for step in bundle.steps:
        first_index.setdefault(step.turn, step.index)
    verdicts = []
    for i, value in enumerate(best):
        satisfied = [
            first_index[row["step_num"]]
            for row in per_step
            if isinstance(row, dict) and isinstance(row.get("scores"), list) and len(row["scores"]) > i
            and row["scores"][i] and row.get("step_num") in first_index
        ]  # fmt: skip
        errored = [row for row in per_step if isinstance(row, dict) and row.get("error")]
        if value:
            verdict, reasoning = "success", f"satisfied at {len(satisfied)} of {len(per_step)} scored steps"
        elif per_step and len(errored) == len(per_step):
            verdict, reasoning = "error", f"the judge failed on every scored step: {str(errored[0]['error'])[:200]}"
        else:
            verdict = "failure"
            reasoning = f"no scored step satisfied it ({len(per_step)} scored"
            reasoning += f", {len(errored)} with judge errors counted as 0)" if errored else ")"
        verdicts.append(RubricVerdict(position=i + 1, verdict=verdict, reasoning=reasoning,
                                      cited_steps=list(dict.fromkeys(satisfied))))  # fmt: skip
    settings = {k: data[k] for k in ("n_steps_total", "n_steps_scored", "concurrency") if k in data}
    return JudgeRecord(
        source_file=PER_STEP_RESULT,
        model=_text(data.get("model")) or "unknown model",
        score=_unit_score(data.get("score")),
        rubric=rubric,
        verdicts=verdicts,
        settings=settings,
    )


def _fill_tool_calls(bundle: TrajectoryBundle) -> None:
    """TOOL_CALL rows say only that a turn ran bash/editor tools; messages.json says which commands,
    with what output and exit status. Rounds are matched in order; a count mismatch is a warning."""
    rows = [s for s in bundle.steps if s.action_text == "TOOL_CALL"]
    if not rows or bundle.messages_path is None:
        return
    try:
        rounds = result_files.tool_rounds(_read_json(bundle.messages_path))
    except BundleError as exc:
        bundle.warnings.append(f"{exc}: TOOL_CALL steps left without their commands")
        return
    if len(rounds) != len(rows):
        bundle.warnings.append(
            f"{bundle.messages_path}: {len(rounds)} tool-only model turns for {len(rows)} TOOL_CALL rows; "
            "commands matched in order as far as they go"
        )
    for step, calls in zip(rows, rounds, strict=False):
        step.tool = "editor" if all(c.tool == "editor" for c in calls) else "bash"
        commands = [c.command for c in calls]
        step.action = {"type": step.tool, "command": "\n".join(commands)}
        step.action_text = "\n".join(commands)
        step.tool_output = "\n".join(c.output for c in calls if c.output)
        statuses = [c.exit_status for c in calls if c.exit_status]
        if statuses:
            step.info = {**step.info, "exit_status": statuses[-1] if len(statuses) == 1 else statuses}


def _cited(structured, reasoning: str) -> list[int]:
    """Structured cited steps when the file carries them (our bundle format), else the step
    numbers the reasoning mentions (upstream judges write them only in prose)."""
    if isinstance(structured, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in structured):
        return list(dict.fromkeys(structured))
    return cited_steps_from_text(reasoning)


def _unit_score(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return min(max(value / 100.0, 0.0), 1.0)


def _task_score_judge(path: Path, bundle: TrajectoryBundle) -> JudgeRecord:
    data = _object(path)
    if "result" not in data:
        raise BundleError(path, "missing", field="result", expected="an integer 0-100 or the judge's error list")
    result = data["result"]
    model = next((j.model for j in bundle.judges if j.source_file == FULL_TRAJ_RESULT), "")
    record = JudgeRecord(source_file=TASK_SCORE_RESULT, model=model)
    if isinstance(result, list) and len(result) == 4:
        _command, code, stdout, stderr = (_text(v) for v in result)
        detail = (stderr or stdout).strip().splitlines()
        record.error = f"judge exited with {code}: {detail[-1][:300] if detail else 'no output'}"
    elif _unit_score(result) is not None:
        record.score = _unit_score(result)
    else:
        raise BundleError(path, f"is {result!r}", field="result", expected="an integer 0-100 or a 4-item error list")
    return record


def _decide_ending(bundle: TrajectoryBundle, turn_budget: int) -> None:
    steps = bundle.steps
    crashed = [s for s in steps if s.action_text == "PREDICT_CRASH"]
    if crashed:
        bundle.error = "\n".join(filter(None, [bundle.error, *(s.tool_output for s in crashed)]))
    last_text = next((s.model_text for s in reversed(steps) if s.model_text.strip()), "")
    # An answer is what the agent said when it stopped (DONE/FAIL, or a last turn with no action);
    # a trajectory cut off mid-way has thoughts, not an answer.
    bundle.answered = result_files.answered(steps)
    bundle.final_answer = _clean_answer(last_text) if bundle.answered else ""
    last_action = steps[-1].action.get("type") if steps else None
    errored = bundle.error or bundle.completed is False  # result.txt 0.0: the runner caught an exception
    if crashed or (errored and last_action not in ("done", "fail")):
        bundle.ended_by = "error"
    elif last_action == "done":
        bundle.ended_by = "done"
    elif last_action == "fail":
        bundle.ended_by = "infeasible" if _INFEASIBLE.search(last_text) else "fail"
    elif steps and max(s.turn for s in steps) >= turn_budget:
        bundle.ended_by = "budget"
    else:
        bundle.ended_by = "unknown"
