"""Which result layout a task folder belongs to, decided from its path alone (so a folder on disk and
a member list of an archive are read the same way), and how side-by-side attempts are numbered.

Layouts recognised:

* OSWorld ``run.py`` trees: ``results/<action space>/<observation>/<model>/<domain>/<task id>/``, where
  the model id may itself contain ``/`` (``ByteDance-Seed/UI-TARS-1.5-7B``);
* the archive layout of published OSWorld rollouts: ``<run>/<domain>/<task id>/`` (UUID task ids);
* upstream MyPCBench folders: ``<task id>/``, the parallel runner's ``vm<i>/<task id>/``, the legacy
  ``context/`` variant, and attempt folders.

An OSWorld ``result.txt`` is the evaluator's score; a MyPCBench one only says whether the loop finished.
The two are never guessed: a folder that fits neither is refused with the flag that settles it.
Django-free."""

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from harness.tasks import UUID

KIND_OSWORLD = "osworld"
KIND_MYPCBENCH = "mypcbench"
KINDS = (KIND_OSWORLD, KIND_MYPCBENCH)
OBSERVATION_TYPES = {"screenshot", "a11y_tree", "screenshot_a11y_tree", "som"}
# The domains of OSWorld's test_all.json (Ubuntu and Windows sets).
OSWORLD_DOMAINS = {
    "chrome",
    "gimp",
    "libreoffice_calc",
    "libreoffice_impress",
    "libreoffice_writer",
    "multi_apps",
    "os",
    "thunderbird",
    "vlc",
    "vs_code",
    "excel",
    "word",
    "ppt",
    "windows_calc",
    "file_explorer",
    "msedge",
}
MYPCBENCH_ID = re.compile(r"^[a-z_]+-[a-z0-9]+$")
# Folders that hold one attempt each: attempt_<n> (inside or above the task folder) and G<n> groups.
ATTEMPT_FOLDER = re.compile(r"^attempt[_-]?(\d{1,4})$")
GROUP_FOLDER = re.compile(r"^G(\d{1,4})$")
LAYOUT_FLAG = "--layout osworld|mypcbench"
ATTEMPTS_FLAG = "--attempts-from-folders"


class LayoutError(ValueError):
    """A tree whose layout or attempts cannot be told apart without help; names the flag that settles it."""


@dataclass
class TaskFolder:
    rel: PurePosixPath  # relative to the imported root ("." for the root itself)
    task_id: str
    kind: str  # KIND_OSWORLD or KIND_MYPCBENCH: how result.txt is read
    model: str = ""  # the <model> segment(s) of an OSWorld tree
    domain: str = ""  # the OSWorld domain folder, when there is one
    attempt: int = 0
    attempt_source: str = ""  # the folder that numbered the attempt (G1, attempt_2, run-b/...)
    notes: list[str] = field(default_factory=list)


def _observation_index(parts: tuple[str, ...]) -> int | None:
    """Index of the observation-type segment of an OSWorld tree (an action space before it, at least
    a model, a domain and the task id after it), else None."""
    for i in range(len(parts) - 4, 0, -1):
        if parts[i] in OBSERVATION_TYPES:
            return i
    return None


def classify(rel, *, layout: str | None = None, root_name: str = "") -> TaskFolder:
    """What the task folder at ``rel`` (relative to the imported root) is. ``layout`` forces the kind.
    ``root_name`` is the imported folder's own name, used when ``rel`` is the root itself."""
    rel = PurePosixPath(rel)
    parts = tuple(p for p in rel.parts if p not in ("", "."))
    if not parts:
        parts = (root_name,) if root_name else ()
    attempt, attempt_source = 0, ""
    match = ATTEMPT_FOLDER.match(parts[-1]) if parts else None
    if match and len(parts) >= 2:
        attempt, attempt_source = int(match.group(1)), parts[-1]
        parts = parts[:-1]
    task_id = parts[-1] if parts else ""
    for segment in parts[:-1]:
        group = GROUP_FOLDER.match(segment) or ATTEMPT_FOLDER.match(segment)
        if group and not attempt_source:
            attempt, attempt_source = int(group.group(1)), segment
    folder = TaskFolder(rel=rel, task_id=task_id, kind="", attempt=attempt, attempt_source=attempt_source)
    obs = _observation_index(parts)
    if obs is not None:
        folder.model = "/".join(parts[obs + 1 : -2])
        folder.domain = parts[-2]
    elif len(parts) >= 2 and (parts[-2] in OSWORLD_DOMAINS or UUID.match(task_id)):
        folder.domain = parts[-2]
    if layout:
        if layout not in KINDS:
            raise LayoutError(f"--layout: {layout!r} is not a layout (expected one of {', '.join(KINDS)})")
        folder.kind = layout
    elif obs is not None or UUID.match(task_id):
        folder.kind = KIND_OSWORLD
    elif MYPCBENCH_ID.match(task_id):
        folder.kind = KIND_MYPCBENCH
    elif folder.domain:
        folder.kind = KIND_OSWORLD
    else:
        raise LayoutError(
            f"{rel}: cannot tell whether this is an OSWorld or a MyPCBench result folder (the task id "
            f"{task_id!r} is neither a UUID nor a MyPCBench id, and no OSWorld results/<action space>/"
            f"<observation>/<model>/<domain>/ path or known domain sits above it); its result.txt would "
            f"mean a score (OSWorld) or only 'finished' (MyPCBench): pass {LAYOUT_FLAG} to say which"
        )
    return folder


def number_attempts(folders: list[TaskFolder], *, attempts_from_folders: bool = False) -> list[TaskFolder]:
    """Give every folder its attempt number. Folders named attempt_<n> or under G<n> carry theirs. The
    same task id in several other folders is a set of attempts only with ``attempts_from_folders``
    (numbered by their parent folders' sorted names); otherwise it is refused. Attempt numbers must be
    contiguous from the first (G0, G1, G2 or attempt_1, attempt_2); they are stored from 0."""
    by_task: dict[str, list[TaskFolder]] = {}
    for folder in folders:
        by_task.setdefault(folder.task_id, []).append(folder)
    for task_id, group in by_task.items():
        numbered = [f for f in group if f.attempt_source]
        plain = [f for f in group if not f.attempt_source]
        if numbered and plain and len(plain) > 1:
            raise LayoutError(
                f"task {task_id!r}: some folders name their attempt ({numbered[0].rel}) and several do not "
                f"({', '.join(str(f.rel) for f in plain)}) (expected every attempt in an attempt_<n> or G<n> folder)"
            )
        if len(plain) > 1 and not numbered:
            if not attempts_from_folders:
                raise LayoutError(
                    f"task {task_id!r} appears in {len(plain)} folders: {', '.join(str(f.rel) for f in plain)}; "
                    f"pass {ATTEMPTS_FLAG} to import them as attempts of one run (numbered by their parent "
                    "folders' names), or import each folder as its own run"
                )
            for n, folder in enumerate(sorted(plain, key=lambda f: str(f.rel.parent))):
                folder.attempt, folder.attempt_source = n, str(folder.rel.parent)
        seen: dict[int, TaskFolder] = {}
        for folder in group:
            if folder.attempt in seen:
                raise LayoutError(
                    f"task {task_id!r} attempt {folder.attempt} appears twice: in {seen[folder.attempt].rel} and "
                    f"in {folder.rel} (expected each attempt once)"
                )
            seen[folder.attempt] = folder
    if not folders:
        return folders
    first = min(f.attempt for f in folders)
    for task_id, group in by_task.items():
        numbers = sorted(f.attempt for f in group)
        expected = list(range(first, first + len(numbers)))
        if numbers != expected:
            missing = sorted(set(range(first, max(numbers) + 1)) - set(numbers))
            raise LayoutError(
                f"task {task_id!r}: attempts {', '.join(map(str, numbers))} are not contiguous from the first "
                f"attempt {first} (missing {', '.join(map(str, missing))}; expected {', '.join(map(str, expected))})"
            )
    for folder in folders:
        folder.attempt -= first
    return folders


def detect(rel_dirs, *, layout: str | None = None, attempts_from_folders: bool = False, root_name: str = ""):
    """Classify every task folder (paths relative to the imported root) and number their attempts.
    Folders of both kinds in one tree are refused: a run is one kind of result."""
    folders, unsure = [], []
    for rel in rel_dirs:
        try:
            folders.append(classify(rel, layout=layout, root_name=root_name))
        except LayoutError as exc:
            unsure.append((rel, exc))
    kinds = {f.kind for f in folders}
    if unsure:
        if len(kinds) != 1:
            raise unsure[0][1]
        # A folder whose own path cannot tell takes the kind every other folder of the tree has.
        (kind,) = kinds
        folders += [classify(rel, layout=kind, root_name=root_name) for rel, _exc in unsure]
        order = {str(PurePosixPath(rel)): i for i, rel in enumerate(rel_dirs)}
        folders.sort(key=lambda f: order[str(f.rel)])
    if len(kinds) > 1:
        example = {f.kind: f.rel for f in folders}
        raise LayoutError(
            f"this tree mixes OSWorld folders ({example[KIND_OSWORLD]}) and MyPCBench folders "
            f"({example[KIND_MYPCBENCH]}); pass {LAYOUT_FLAG} to read them all one way, or import them separately"
        )
    return number_attempts(folders, attempts_from_folders=attempts_from_folders)
