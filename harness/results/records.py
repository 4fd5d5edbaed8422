"""The records a result folder is read into (steps, judges' verdicts, a trajectory bundle, a results tree),
the file names and constants of the bundle format, the error every reader raises, and the small readers
the bundle and judge-file readers share (bounded JSON, rubric items). Django-free."""

import hashlib
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from harness import safejson
from harness.results import result_files
from harness.results.safe_names import printable
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
    world_variant: int = 0  # bundle.json's world_variant; 0 (the canonical world) when it says none
    # a recorded session's user turns, intent statuses and user simulator (harness.results.sessions.SessionInfo)
    session: Any = None

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


def read_json(path: Path):
    # Bounded in size, depth and number length; NaN and Infinity refused (see harness.safejson).
    try:
        data = safejson.read_bytes(path)
        if result_files.is_lfs_pointer(data):
            raise BundleError(path, result_files.LFS_PROBLEM)
        return safejson.loads(data)
    except safejson.JSONRefused as exc:
        column = f" at column {exc.column}" if exc.column is not None else ""
        raise BundleError(path, exc.problem + column, line=exc.line, expected="a UTF-8 JSON file")


def inside_task_dir(task_dir: Path, name: str, path_for_error: Path, line: int | None, field_name: str) -> Path:
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


def as_text(value) -> str:
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


def read_object(path: Path) -> dict:
    """A JSON file that must hold an object."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise BundleError(path, f"is a JSON {type(data).__name__}", expected="a JSON object")
    return data
