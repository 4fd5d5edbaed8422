"""Read agent result folders (upstream MyPCBench task dirs, the parallel runner's vm<i>/ nesting,
OSWorld-style trees, the legacy context/ layout) into the plain dataclasses of ``records``: the tree, each
task folder's steps, markers, tool calls and ending here, its judge files in ``judge_files``. Django-free:
the harness writes what this reads, and the site ingests what this returns."""

import hashlib
import json
import math
import os
import re
from pathlib import Path

from harness import safejson
from harness.actions import parse_action
from harness.results import layouts, result_files, sessions
from harness.results.judge_files import read_judges, read_rubric_bundle
from harness.results.records import (
    DEFAULT_TURN_BUDGET,
    LAYOUT_LEGACY,
    LAYOUT_MYPCBENCH,
    LAYOUT_OSWORLD,
    MAX_STEP_NUM,
    STATE_CHECK_STATUSES,
    STATE_CHECKS_FILE,
    TIMESTAMP_FORMAT,
    TRAJ_FILE,
    BundleError,
    JudgeRecord,
    ResultsTree,
    StepRecord,
    TrajectoryBundle,
    as_text,
    inside_task_dir,
    parse_timestamp,
    read_json,
    read_object,
)
from harness.results.safe_names import printable
from harness.results.world_variant import WorldVariantError, world_variant_of

_SKIPPED_DIRS = {"_tasks", "summary", "__pycache__"}
_INFEASIBLE = re.compile(r"\[?infeasible\]?", re.IGNORECASE)
_STOP_FENCE = re.compile(r"```\s*(DONE|FAIL)\s*```\s*$", re.IGNORECASE)
_LEGACY_STEP = re.compile(r"^step_(\d+)(?:_raw_response\.txt|_parsed_actions\.json|\.png)$")


def _clean_answer(text: str) -> str:
    return _STOP_FENCE.sub("", text).strip()


# ---------------------------------------------------------------- walking a tree


def is_task_dir(path: Path) -> bool:
    """A task folder: traj.jsonl, the legacy context/, or a recorded session (its turns inside it)."""
    return (path / TRAJ_FILE).is_file() or (path / "context").is_dir() or sessions.is_session_dir(path)


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
            tree.scores.update(read_scores(scores_path, tree.warnings))
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


def read_scores(path: Path, warnings: list[str]) -> dict:
    """A scores.json of the offline judge (judge_results.py): its rows by task id; a judge error is a warning."""
    data = read_json(path)
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise BundleError(path, "missing or not an array", field="rows", expected="judge_results.py scores.json")
    scores = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("task_id"), str):
            raise BundleError(path, "not an object with a task_id", field=f"rows[{i}]", expected="a score row")
        if row.get("status") == "judge_error":
            warnings.append(
                printable(f"{path}: the source's judge failed on {row['task_id']}: {as_text(row.get('error'))[:200]}")
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
    if sessions.is_session_dir(task_dir):  # one bundle over its turn folders
        return sessions.read_session_dir(
            task_dir,
            folder,
            lambda turn_dir, turn_folder: read_task_dir(turn_dir, turn_budget=turn_budget, folder=turn_folder),
        )
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
    read_rubric_bundle(bundle)
    read_judges(bundle)
    _read_state_checks(bundle)
    _decide_ending(bundle, turn_budget)
    return bundle


def _read_state_checks(bundle: TrajectoryBundle) -> None:
    """state_checks.json: {"checks": [{"rubric_id", "status": passed|failed|error, ...}]}."""
    path = bundle.path / STATE_CHECKS_FILE
    if not path.is_file():
        return
    data = read_json(path)
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
            errors.append(as_text(row["Error"]))
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
        tool_output = as_text(info.get("error"))
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
            screenshot = inside_task_dir(bundle.path, name, traj, line_no, "screenshot_file")
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
        model_text=as_text(row.get("response")),
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
            parsed = read_json(files["actions"])
            actions = parsed if isinstance(parsed, list) else [parsed]
        texts = [a if isinstance(a, str) else json.dumps(a, ensure_ascii=False) for a in actions]
        parsed_actions = [parse_action(a) for a in actions]
        action: dict
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
        bundle.usage = read_object(usage)


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
    own = bundle.path / "bundle.json"  # our harness's: which agent and model ran, on which world variant
    if own.is_file():
        data = read_object(own)
        if not bundle.model and isinstance(data.get("model"), str) and data["model"].strip():
            bundle.model = data["model"].strip()
        try:
            bundle.world_variant = world_variant_of(data, source="bundle.json")
        except WorldVariantError as exc:
            raise BundleError(own, str(exc), expected="a whole number, 0 for the canonical world") from exc
    usage = bundle.path / "usage.json"
    if usage.is_file():
        bundle.usage = read_object(usage)
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


def _fill_tool_calls(bundle: TrajectoryBundle) -> None:
    """TOOL_CALL rows say only that a turn ran bash/editor tools; messages.json says which commands,
    with what output and exit status. Rounds are matched in order; a count mismatch is a warning."""
    rows = [s for s in bundle.steps if s.action_text == "TOOL_CALL"]
    if not rows or bundle.messages_path is None:
        return
    try:
        rounds = result_files.tool_rounds(read_json(bundle.messages_path))
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
