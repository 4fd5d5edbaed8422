"""The session format (docs/sessions.md), read and checked in one place: a session folder (``session.json``
and one result folder per agent turn) as ONE trajectory bundle for the ingest path (``read_session_dir``),
and that bundle as the judge's transcript (``read_session_folder``). A bad record is refused naming every
bad field at once. Django-free."""

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from harness.results.judge_files import read_judges, read_rubric_bundle
from harness.results.layouts import KIND_MYPCBENCH, TaskFolder
from harness.results.records import TRAJ_FILE, BundleError, StepRecord, TrajectoryBundle, read_json

SESSION_RECORD = "session.json"
SESSION_ERROR = "session_error.json"
LAYOUT_SESSION = "mypcbench-session"
TERMINAL = ("completed", "inferred", "provided")
OPEN = "open"
ENDINGS = ("final_response", "turn_limit")
MAX_TURNS = 1000


class SessionFolderError(ValueError):
    """A session folder the judge cannot read; the message names the file and what is wrong."""


@dataclass
class UserTurn:
    number: int  # 1-based; turn 1's message is the request
    message: str
    after_step: int  # steps recorded before the user said it (0 for the request)
    agent_message: str = ""  # what the agent said when its turn ended
    settled: dict = field(default_factory=dict)  # intent id -> status, settled after this agent turn


@dataclass
class IntentOutcome:
    intent_id: str
    status: str  # completed | inferred | provided | open
    turn: int | None = None  # the user turn that settled it (None while open)
    step: int | None = None  # the session's step count when it was settled


@dataclass
class SessionInfo:
    turns: list[UserTurn]
    intents: list[IntentOutcome]
    ended_by: str  # final_response | turn_limit
    user_simulator: dict = field(default_factory=dict)  # kind, provider, model, prompt_version
    checklist: dict = field(default_factory=dict)  # item id -> true | false | null
    max_user_turns: int | None = None
    record: dict = field(default_factory=dict)  # session.json as written


@dataclass
class SessionTranscript:
    """What the judge reads of a session: its entries in the order they happened (each ``UserTurn``, the
    request first, then that turn's steps), the steps numbered 1..n across the session."""

    task_id: str
    folder: Path
    record: dict  # session.json as written
    entries: list = field(default_factory=list)  # UserTurn and StepRecord, in the order they happened
    turn_steps: list[list[StepRecord]] = field(default_factory=list)  # each agent turn's steps
    rubric: list = field(default_factory=list)  # the checklist (RubricSpec)

    @property
    def request(self) -> str:
        return self.user_turns[0].message if self.user_turns else ""

    @property
    def user_turns(self) -> list[UserTurn]:
        return [e for e in self.entries if isinstance(e, UserTurn)]

    @property
    def steps(self) -> list[StepRecord]:
        return [e for e in self.entries if isinstance(e, StepRecord)]

    @property
    def final_answer(self) -> str:
        turns = self.record.get("turns") or []
        return str(turns[-1].get("agent") or "") if turns else ""


def is_session_dir(path: Path) -> bool:
    return (path / SESSION_RECORD).is_file() or (path / SESSION_ERROR).is_file()


def _whole(value, low: int = 1) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _turn_folders(raw_turns, problems: list[str]) -> list[str]:
    folders = []
    for n, turn in enumerate(raw_turns, start=1):
        where = f"turns[{n - 1}]"
        if not isinstance(turn, dict):
            problems.append(f"{where}: not an object (expected {{user, folder, ...}})")
            continue
        if not isinstance(turn.get("user"), str) or not turn["user"].strip():
            problems.append(f"{where}.user: missing or empty (expected the user's message that opened the turn)")
        name = turn.get("folder", f"turn_{n}")
        if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", ".."):
            problems.append(f"{where}.folder: {name!r} is not a folder name (expected e.g. turn_{n})")
            continue
        folders.append(name)
    return folders


def _intent_problems(intents, ended_by, n_turns: int) -> list[str]:
    problems = []
    allowed = (*TERMINAL, OPEN) if ended_by == "turn_limit" else TERMINAL
    for intent_id, value in intents.items():
        where = f"intents.{intent_id}"
        entry = value if isinstance(value, dict) else {"status": value}
        status = entry.get("status")
        if status not in allowed:
            note = "; open only when the session ended at its turn limit" if status == OPEN else ""
            problems.append(f"{where}: {status!r} is not a status here (expected {', '.join(allowed)}{note})")
            continue
        for key in ("turn", "step"):
            number = entry.get(key)
            if number is None:
                continue
            if not _whole(number, 0 if key == "step" else 1):
                problems.append(f"{where}.{key}: {number!r} is not a {key} number (expected a whole number or null)")
        turn = entry.get("turn")
        if isinstance(turn, int) and _whole(turn) and turn > n_turns:
            problems.append(f"{where}.turn: {turn} but the session has {n_turns} user turns")
    return problems


def check_record(data, task_id: str) -> list[str]:
    """Every problem of a session record, as 'field: what is wrong (expected ...)'."""
    if not isinstance(data, dict):
        return [f"a JSON {type(data).__name__} (expected one JSON object)"]
    problems = []
    if data.get("task_id") != task_id:
        problems.append(f"task_id: {data.get('task_id')!r} is not this folder's session {task_id!r}")
    turns = data.get("turns")
    if not isinstance(turns, list) or not turns or len(turns) > MAX_TURNS:
        problems.append(f"turns: missing, empty or too long (expected a list of 1 to {MAX_TURNS} user turns)")
        turns = []
    _turn_folders(turns, problems)
    ended_by = data.get("ended_by")
    if ended_by not in ENDINGS:
        problems.append(f"ended_by: {ended_by!r} is not allowed (expected final_response or turn_limit)")
    intents = data.get("intents")
    if not isinstance(intents, dict) or not intents:
        problems.append("intents: missing or empty (expected {intent id: status or {status, turn, step}})")
    else:
        problems += _intent_problems(intents, ended_by, len(turns))
    checklist = data.get("checklist", {})
    if not isinstance(checklist, dict):
        problems.append("checklist: not an object (expected {item id: true | false | null})")
    else:
        problems += [
            f"checklist.{item}: {verdict!r} is not a verdict (expected true, false or null)"
            for item, verdict in checklist.items()
            if verdict is not None and not isinstance(verdict, bool)
        ]
    simulator = data.get("user_simulator", {})
    if not isinstance(simulator, dict) or not all(isinstance(v, str) for v in simulator.values()):
        problems.append("user_simulator: not an object of texts (expected {kind, provider, model, prompt_version})")
    limit = data.get("max_user_turns")
    if limit is not None and not _whole(limit):
        problems.append(f"max_user_turns: {limit!r} is not a whole number >= 1")
    return problems


def _merged_usage(usages: list[dict]) -> dict:
    """Numeric counters summed over the turns (others as the last turn says)."""
    total: dict = {}
    for usage in usages:
        for key, value in usage.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value
            else:
                total[key] = value
    return total


def read_session_dir(task_dir: Path, folder: TaskFolder, read_turn) -> TrajectoryBundle:
    """The session in ``task_dir`` as one bundle; ``read_turn(turn_dir, folder)`` reads one turn's folder
    (harness.results.bundle.read_task_dir)."""
    record_path = task_dir / SESSION_RECORD
    task_id = folder.task_id or task_dir.name
    if not record_path.is_file():
        error = read_json(task_dir / SESSION_ERROR)
        said = error.get("error") if isinstance(error, dict) else None
        raise BundleError(
            task_dir / SESSION_ERROR,
            f"the session stopped with an error and has no {SESSION_RECORD}: {str(said or 'no reason given')[:300]}",
            expected="a finished session; play it again, or leave its folder out",
        )
    data = read_json(record_path)
    problems = check_record(data, task_id)
    if problems:
        raise BundleError(record_path, "; ".join(problems), expected="a session record as docs/sessions.md describes")
    names = _turn_folders(data["turns"], [])
    missing = [name for name in names if not (task_dir / name / TRAJ_FILE).is_file()]
    if missing:
        raise BundleError(
            record_path,
            f"turns name folders without {TRAJ_FILE}: {', '.join(missing)}",
            field="turns",
            expected="one result folder per user turn beside session.json",
        )
    turn_bundles = [read_turn(task_dir / name, dataclasses.replace(folder, rel=folder.rel / name)) for name in names]
    bundle = _merge(task_dir, folder, data, turn_bundles, record_path)
    unlisted = sorted(d.name for d in task_dir.iterdir() if (d / TRAJ_FILE).is_file() and d.name not in names)
    if unlisted:
        bundle.warnings.append(
            f"{record_path}: turn folders its turns do not name were left out: {', '.join(unlisted)}"
        )
    return bundle


def _merge(task_dir: Path, folder: TaskFolder, data: dict, turns: list[TrajectoryBundle], record_path: Path):
    first, last = turns[0], turns[-1]
    bundle = TrajectoryBundle(
        task_id=folder.task_id or task_dir.name,
        layout=LAYOUT_SESSION,
        path=task_dir,
        attempt=folder.attempt,
        attempt_source=folder.attempt_source,
        kind=folder.kind,
        model=next((t.model for t in turns if t.model), folder.model),
        world_variant=first.world_variant,
        rubric=first.rubric,
    )
    digest = hashlib.sha256(record_path.read_bytes())
    user_turns, steps_before, turn_offset = [], 0, 0
    for number, (raw, turn) in enumerate(zip(data["turns"], turns, strict=True), start=1):
        user_turns.append(
            UserTurn(number, raw["user"], steps_before, turn.final_answer, dict(raw.get("settled") or {}))
        )
        for step in turn.steps:
            info = {**step.info, "user_turn": number}
            bundle.steps.append(
                dataclasses.replace(step, index=steps_before + step.index, turn=turn_offset + step.turn, info=info)
            )
        steps_before += len(turn.steps)
        turn_offset += max((s.turn for s in turn.steps), default=0)
        digest.update(turn.traj_sha256.encode())
        bundle.warnings += turn.warnings
        bundle.gaps += turn.gaps
        if turn.judges:
            bundle.warnings.append(f"{turn.path}: a judge file of one turn is not used (judge the whole session)")
    bundle.traj_sha256 = digest.hexdigest()
    bundle.ended_by, bundle.final_answer, bundle.answered = last.ended_by, last.final_answer, last.answered
    bundle.error = "\n".join(t.error for t in turns if t.error)
    bundle.usage = _merged_usage([t.usage for t in turns])
    bundle.state_checks = last.state_checks  # checked on the guest when the session's last turn ended
    intents = []
    for intent_id, value in data["intents"].items():
        entry = value if isinstance(value, dict) else {"status": value}
        settled_at: int | None = entry.get("step")
        if settled_at is not None and settled_at > steps_before:
            raise BundleError(
                record_path,
                f"step {settled_at} but the session recorded {steps_before} steps",
                field=f"intents.{intent_id}",
            )
        intents.append(IntentOutcome(str(intent_id), entry["status"], entry.get("turn"), settled_at))
    bundle.session = SessionInfo(
        turns=user_turns,
        intents=intents,
        ended_by=data["ended_by"],
        user_simulator=dict(data.get("user_simulator") or {}),
        checklist=dict(data.get("checklist") or {}),
        max_user_turns=data.get("max_user_turns"),
        record=data,
    )
    # A judge over the whole session writes its files beside session.json.
    read_rubric_bundle(bundle)
    bundle.rubric = bundle.rubric or next((t.rubric for t in turns if t.rubric), first.rubric)
    read_judges(bundle)
    return bundle


def session_transcript(bundle: TrajectoryBundle) -> SessionTranscript:
    """A session's bundle (``read_session_dir``) as the judge's transcript."""
    session = bundle.session
    transcript = SessionTranscript(bundle.task_id, bundle.path, session.record, rubric=list(bundle.rubric or []))
    ends = [t.after_step for t in session.turns[1:]] + [len(bundle.steps)]
    for turn, end in zip(session.turns, ends, strict=True):
        steps = bundle.steps[turn.after_step : end]
        transcript.entries += [turn, *steps]
        transcript.turn_steps.append(steps)
    return transcript


def read_session_folder(folder) -> SessionTranscript:
    """The session in ``folder`` (``<out>/<session id>/``) as the judge's transcript, read and checked as
    the ingest path reads it; SessionFolderError naming the file and every bad field otherwise."""
    from harness.results.bundle import read_task_dir  # bundle reads session folders through this module

    folder = Path(folder)
    if not (folder / SESSION_RECORD).is_file():
        raise SessionFolderError(f"{folder}: no {SESSION_RECORD} (expected a recorded session's folder)")
    try:
        bundle = read_task_dir(folder, folder=TaskFolder(PurePosixPath("."), folder.name, KIND_MYPCBENCH))
    except BundleError as exc:
        raise SessionFolderError(str(exc)) from exc
    return session_transcript(bundle)
