"""A recorded session read as one transcript for the judge: the session record (``session.json``) and its
turns' result folders (``turn_<n>/``), in the order things happened: the user's message opening each turn,
then the agent's steps of that turn. Steps are numbered 1..n across the whole session (and their model
turns made distinct), so a judge's cited step and the site's player speak of the same step. The judge
reads a session through ``read_session_folder``; the site imports one through ``sessions`` (one bundle)."""

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from harness import safejson
from harness.results.bundle import read_task_dir
from harness.results.layouts import KIND_MYPCBENCH, TaskFolder
from harness.results.records import BundleError, StepRecord

SESSION_RECORD = "session.json"
TURN_FOLDER = re.compile(r"^turn_[1-9][0-9]{0,3}$")


class SessionFolderError(ValueError):
    """A session folder that cannot be read as a transcript; the message names the file and what is wrong."""


@dataclass(frozen=True)
class UserTurn:
    """The user's message opening agent turn ``turn`` (turn 1: the request), spoken after ``after_step``
    steps of the session."""

    turn: int
    text: str
    after_step: int


@dataclass
class SessionTranscript:
    task_id: str
    folder: Path
    record: dict  # session.json as written
    entries: list = field(default_factory=list)  # UserTurn and StepRecord, in the order they happened
    turn_steps: list[list[StepRecord]] = field(default_factory=list)  # each agent turn's steps
    rubric: list = field(default_factory=list)  # the checklist as the turn folders hold it (RubricSpec)

    @property
    def request(self) -> str:
        return self.user_turns[0].text if self.user_turns else ""

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


def read_session_folder(folder) -> SessionTranscript:
    """The session in ``folder`` (``<out>/<session id>/``) as one transcript; SessionFolderError when its
    record is missing or malformed or a turn folder it names is missing or unreadable."""
    folder = Path(folder)
    path = folder / SESSION_RECORD
    try:
        record = safejson.load_file(path)
    except (OSError, ValueError) as exc:
        raise SessionFolderError(f"{path}: cannot read the session record: {exc}") from exc
    turns = record.get("turns") if isinstance(record, dict) else None
    if not isinstance(turns, list) or not turns or not all(isinstance(t, dict) for t in turns):
        raise SessionFolderError(f"{path}: turns: expected a non-empty list of turn objects")
    task_id = str(record.get("task_id") or folder.name)
    transcript = SessionTranscript(task_id, folder, record)
    index = model_turns = 0
    for number, turn in enumerate(turns, start=1):
        name = str(turn.get("folder") or f"turn_{number}")
        if not TURN_FOLDER.match(name):
            raise SessionFolderError(f"{path}: turns[{number - 1}].folder: {name!r} is not a turn folder (turn_<n>)")
        try:
            bundle = read_task_dir(folder / name, folder=TaskFolder(PurePosixPath("."), task_id, KIND_MYPCBENCH))
        except BundleError as exc:
            raise SessionFolderError(f"{folder / name}: {exc}") from exc
        transcript.entries.append(UserTurn(number, str(turn.get("user") or ""), index))
        steps = []
        for step in bundle.steps:
            index += 1
            steps.append(dataclasses.replace(step, index=index, turn=model_turns + step.turn))
        model_turns = max([model_turns, *(s.turn for s in steps)])
        transcript.entries += steps
        transcript.turn_steps.append(steps)
        transcript.rubric = transcript.rubric or list(bundle.rubric or [])
    return transcript
