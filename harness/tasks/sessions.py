"""Session tasks: a request, the hidden intents the simulated user holds, the checklist, and the sequence
a session belongs to (after pi-Bench's protocol, arXiv 2605.14678). Reads and validates a session file, naming
every bad field, turns its sessions into task specs the suite importer stores, and checks that each
intent's evidence resolves (a persona spec field, a record of a built world, an earlier session).

Django-free: the harness and the site both read session files through here. The format is described in
docs/sessions.md.
"""

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from harness import safejson
from harness.tasks.taskfile import (
    CATEGORIES,
    DIFFICULTIES,
    ID_PATTERN,
    RUBRIC_ITEM_SCHEMA,
    TaskFile,
    TaskFileError,
    TaskSpec,
    build_rubric,
    json_kind,
    parse_json_text,
)

SESSION_FORMAT = "mypcbench-sessions"
SESSION_FORMAT_VERSION = 1
EVIDENCE_KINDS = ("spec", "world", "session")
TERMINAL_STATUSES = ("completed", "inferred", "provided")  # pi-Bench App. C: each intent ends in exactly one
INTENT_ID_PATTERN = r"^I[0-9]+$"
SEQUENCE_ID_PATTERN = r"^[a-z][a-z0-9_]*$"
SQL_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
_RUBRIC_ITEM_VALIDATOR = Draft202012Validator(RUBRIC_ITEM_SCHEMA)


class SessionFileError(TaskFileError):
    """A session file that cannot be imported. ``problems`` lists every (field, problem, expected) found;
    the message shows the first and counts the rest, like every task-file error."""

    def __init__(self, file: str, problems: list[tuple[str, str, str]]):
        self.problems = problems
        where, problem, expected = problems[0]
        super().__init__(file, where, problem, expected, more=len(problems) - 1)

    def all_lines(self) -> list[str]:
        """Every problem, one line each, for reports that show them all."""
        return [f"{w}: {p}" + (f" (expected {e})" if e else "") for w, p, e in self.problems]


@dataclass(frozen=True)
class Evidence:
    """Where an agent could learn an intent: a spec field path, a world record (app, table, the columns
    that pick it), or an earlier session (and optionally which of its intents)."""

    kind: str
    path: str = ""  # spec
    app: str = ""  # world
    table: str = ""
    key: dict = field(default_factory=dict, hash=False)
    session: str = ""  # session
    intent: str = ""

    def as_dict(self) -> dict:
        if self.kind == "spec":
            return {"kind": "spec", "path": self.path}
        if self.kind == "world":
            return {"kind": "world", "app": self.app, "table": self.table, "key": dict(self.key)}
        out = {"kind": "session", "session": self.session}
        return out | ({"intent": self.intent} if self.intent else {})

    def describe(self) -> str:
        """One line a maintainer reads on the task page."""
        if self.kind == "spec":
            return f"persona spec: {self.path}"
        if self.kind == "world":
            picked = ", ".join(f"{k} = {v}" for k, v in self.key.items())
            return f"{self.app} {self.table} where {picked}"
        return f"earlier session {self.session}" + (f" ({self.intent})" if self.intent else "")


@dataclass(frozen=True)
class IntentSpec:
    id: str
    statement: str
    evidence: tuple[Evidence, ...]

    def as_dict(self) -> dict:
        return {"id": self.id, "statement": self.statement, "evidence": [e.as_dict() for e in self.evidence]}


@dataclass(frozen=True)
class SessionSpec:
    id: str
    sequence: str
    position: int  # 1-based within its sequence
    category: str
    request: str
    app: str
    apps_involved: list[str]
    difficulty: str
    depends_on: list[str]
    intents: tuple[IntentSpec, ...]
    checklist: list[dict]  # rubric items as the task format writes them


@dataclass(frozen=True)
class Sequence:
    id: str
    title: str
    description: str


@dataclass
class SessionFile:
    path: str
    sha256: str
    suite: str
    suite_version: str
    persona: str
    sequences: list[Sequence]
    sessions: list[SessionSpec]


def is_session_file(path: str | Path) -> bool:
    """Whether ``path`` is a session file (a JSON object whose ``format`` is ``mypcbench-sessions``)."""
    path = Path(path)
    if not path.is_file() or path.suffix != ".json":
        return False
    try:
        head = path.open("rb").read(4096).decode("utf-8-sig", errors="replace")
    except OSError:
        return False
    return re.search(r'"format"\s*:\s*"' + SESSION_FORMAT + '"', head) is not None


# -- validation ------------------------------------------------------------------------------------------


class _Problems:
    def __init__(self):
        self.items: list[tuple[str, str, str]] = []

    def add(self, where: str, problem: str, expected: str = ""):
        self.items.append((where, problem, expected))


def _text(problems: _Problems, obj: dict, key: str, where: str, required: bool = True) -> str:
    value = obj.get(key)
    if value is None:
        if required:
            problems.add(f"{where}.{key}", "missing", "a non-empty string")
        return ""
    if not isinstance(value, str):
        problems.add(f"{where}.{key}", f"found a JSON {json_kind(value)}", "a non-empty string")
        return ""
    if required and not value.strip():
        problems.add(f"{where}.{key}", "empty", "a non-empty string")
    return value


def _unknown_keys(problems: _Problems, obj: dict, allowed: set[str], where: str):
    for key in obj:
        if key not in allowed:
            problems.add(f"{where}.{key}", "unknown field", "one of " + ", ".join(sorted(allowed)))


def _evidence(problems: _Problems, raw, where: str) -> Evidence | None:
    if not isinstance(raw, dict):
        problems.add(where, f"found a JSON {json_kind(raw)}", "an evidence object with a `kind`")
        return None
    kind = raw.get("kind")
    if kind not in EVIDENCE_KINDS:
        shown = json.dumps(kind) if kind is not None else "missing"
        problems.add(f"{where}.kind", f"{shown} is not a kind of evidence", "spec, world or session")
        return None
    if kind == "spec":
        _unknown_keys(problems, raw, {"kind", "path"}, where)
        path = _text(problems, raw, "path", where)
        if path and _parse_spec_path(path) is None:
            problems.add(f"{where}.path", f"{path!r} is not a spec path", "dotted keys with [index] or [key=value]")
        return Evidence("spec", path=path)
    if kind == "world":
        _unknown_keys(problems, raw, {"kind", "app", "table", "key"}, where)
        app = _text(problems, raw, "app", where)
        table = _text(problems, raw, "table", where)
        if table and not re.match(SQL_NAME_PATTERN, table):
            problems.add(f"{where}.table", f"{table!r} is not a table name", "letters, digits and underscores")
        key = raw.get("key")
        if not isinstance(key, dict) or not key:
            problems.add(f"{where}.key", "missing or empty", "an object of column: value picking one record")
            key = {}
        for column, value in key.items():
            if not re.match(SQL_NAME_PATTERN, column):
                problems.add(f"{where}.key.{column}", "not a column name", "letters, digits and underscores")
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                problems.add(f"{where}.key.{column}", f"found a JSON {json_kind(value)}", "a string or a number")
        return Evidence("world", app=app, table=table, key=key)
    _unknown_keys(problems, raw, {"kind", "session", "intent"}, where)
    session = _text(problems, raw, "session", where)
    intent = _text(problems, raw, "intent", where, required=False)
    return Evidence("session", session=session, intent=intent)


def _intent(problems: _Problems, raw, where: str) -> IntentSpec | None:
    if not isinstance(raw, dict):
        problems.add(where, f"found a JSON {json_kind(raw)}", "an intent object {id, statement, evidence}")
        return None
    _unknown_keys(problems, raw, {"id", "statement", "evidence"}, where)
    intent_id = _text(problems, raw, "id", where)
    if intent_id and not re.match(INTENT_ID_PATTERN, intent_id):
        problems.add(f"{where}.id", f"{intent_id!r} is not an intent id", "I1, I2, ...")
    statement = _text(problems, raw, "statement", where)
    evidence_raw = raw.get("evidence")
    if not isinstance(evidence_raw, list) or not evidence_raw:
        problems.add(f"{where}.evidence", "missing or empty", "a non-empty array of evidence objects")
        evidence_raw = []
    evidence = [_evidence(problems, e, f"{where}.evidence[{i}]") for i, e in enumerate(evidence_raw)]
    return IntentSpec(intent_id, statement, tuple(e for e in evidence if e is not None))


def _checklist(problems: _Problems, raw, where: str) -> list[dict]:
    if not isinstance(raw, list) or not raw:
        problems.add(where, "missing or empty", "a non-empty array of rubric items")
        return []
    for i, item in enumerate(raw):
        for error in _RUBRIC_ITEM_VALIDATOR.iter_errors(item):
            sub = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
            expected = error.schema.get("expected", "") if isinstance(error.schema, dict) else ""
            problem = f"found a JSON {json_kind(error.instance)}" if error.validator == "type" else error.message
            problems.add(f"{where}[{i}]{sub}", problem, expected)
    return raw


_SESSION_KEYS = {
    "id",
    "sequence",
    "position",
    "category",
    "request",
    "app",
    "apps_involved",
    "difficulty",
    "depends_on",
    "intents",
    "checklist",
}


def _session(problems: _Problems, raw, where: str, sequences: set[str]) -> SessionSpec | None:
    if not isinstance(raw, dict):
        problems.add(where, f"found a JSON {json_kind(raw)}", "a session object")
        return None
    _unknown_keys(problems, raw, _SESSION_KEYS, where)
    session_id = _text(problems, raw, "id", where)
    if session_id and not re.match(ID_PATTERN, session_id):
        problems.add(f"{where}.id", f"{session_id!r} is not a task id", f"an id matching {ID_PATTERN}")
    sequence = _text(problems, raw, "sequence", where)
    if sequence and sequence not in sequences:
        problems.add(f"{where}.sequence", f"{sequence!r} is not a sequence of this file", "an id under `sequences`")
    position = raw.get("position")
    if not isinstance(position, int) or isinstance(position, bool) or position < 1:
        problems.add(f"{where}.position", f"{json.dumps(position)} is not a position", "a whole number from 1")
        position = 0
    category = raw.get("category")
    if category not in CATEGORIES:
        problems.add(f"{where}.category", f"{json.dumps(category)} is not allowed", "one of " + ", ".join(CATEGORIES))
    difficulty = raw.get("difficulty", "")
    if difficulty not in ("", *DIFFICULTIES):
        problems.add(f"{where}.difficulty", f"{json.dumps(difficulty)} is not allowed", "easy, medium or hard")
    request = _text(problems, raw, "request", where)
    app = _text(problems, raw, "app", where, required=False)
    apps = raw.get("apps_involved", [])
    if not isinstance(apps, list) or not all(isinstance(a, str) and a.strip() for a in apps):
        problems.add(f"{where}.apps_involved", "not a list of names", "an array of app names")
        apps = []
    depends = raw.get("depends_on", [])
    if not isinstance(depends, list) or not all(isinstance(d, str) for d in depends):
        problems.add(f"{where}.depends_on", "not a list of session ids", "an array of earlier session ids")
        depends = []
    intents_raw = raw.get("intents")
    if not isinstance(intents_raw, list) or not intents_raw:
        problems.add(f"{where}.intents", "missing or empty", "a non-empty array of hidden intents")
        intents_raw = []
    intents = [_intent(problems, x, f"{where}.intents[{i}]") for i, x in enumerate(intents_raw)]
    seen: set[str] = set()
    for i, intent in enumerate(intents):
        if intent is not None and intent.id:
            if intent.id in seen:
                problems.add(f"{where}.intents[{i}].id", f"duplicate intent id {intent.id!r}", "each id once")
            seen.add(intent.id)
    checklist = _checklist(problems, raw.get("checklist"), f"{where}.checklist")
    return SessionSpec(
        id=session_id,
        sequence=sequence,
        position=position,
        category=category if isinstance(category, str) else "",
        request=request,
        app=app,
        apps_involved=list(apps),
        difficulty=difficulty if isinstance(difficulty, str) else "",
        depends_on=list(depends),
        intents=tuple(i for i in intents if i is not None),
        checklist=checklist,
    )


def _cross_checks(problems: _Problems, sessions: list[tuple[int, SessionSpec]]):
    """Ids once; positions 1..n in each sequence; dependencies and session evidence point back in time."""
    index: dict[str, tuple[int, SessionSpec]] = {}
    for i, s in sessions:
        if s.id in index:
            problems.add(f"sessions[{i}].id", f"duplicate session id {s.id!r}", "each session id once")
        else:
            index[s.id] = (i, s)
    by_sequence: dict[str, list[tuple[int, SessionSpec]]] = {}
    for i, s in sessions:
        by_sequence.setdefault(s.sequence, []).append((i, s))
    for sequence, members in by_sequence.items():
        positions = sorted(s.position for _, s in members)
        if positions != list(range(1, len(members) + 1)):
            problems.add(
                f"sequences.{sequence}",
                f"positions are {positions}",
                f"each of 1..{len(members)} once (the order sessions are held in)",
            )
    for i, s in sessions:
        for j, dep in enumerate(s.depends_on):
            found = index.get(dep)
            if found is None:
                problems.add(
                    f"sessions[{i}].depends_on[{j}]", f"no session {dep!r} in this file", "an earlier session id"
                )
            elif found[1].sequence != s.sequence or found[1].position >= s.position:
                problems.add(
                    f"sessions[{i}].depends_on[{j}]",
                    f"{dep!r} is not earlier in sequence {s.sequence!r}",
                    "a session held before this one in the same sequence",
                )
        for k, intent in enumerate(s.intents):
            for m, e in enumerate(intent.evidence):
                if e.kind != "session" or not e.session:
                    continue
                where = f"sessions[{i}].intents[{k}].evidence[{m}]"
                if e.session not in s.depends_on:
                    problems.add(
                        f"{where}.session", f"{e.session!r} is not in this session's depends_on", "a dependency"
                    )
                    continue
                earlier = index.get(e.session)
                if earlier and e.intent and e.intent not in {x.id for x in earlier[1].intents}:
                    problems.add(
                        f"{where}.intent", f"session {e.session!r} has no intent {e.intent!r}", "its intent id"
                    )


def read_session_data(data, file: str, sha256: str = "") -> SessionFile:
    """Validate parsed session-file JSON; raise SessionFileError listing every bad field."""
    problems = _Problems()
    if not isinstance(data, dict):
        raise SessionFileError(file, [("(top level)", f"found a JSON {json_kind(data)}", "a session-file object")])
    _unknown_keys(
        problems, data, {"format", "version", "suite", "suite_version", "persona", "sequences", "sessions"}, ""
    )
    if data.get("format") != SESSION_FORMAT:
        problems.add("format", f"{json.dumps(data.get('format'))} is not allowed", f'"{SESSION_FORMAT}"')
    if data.get("version") != SESSION_FORMAT_VERSION:
        problems.add("version", f"{json.dumps(data.get('version'))} is not supported", str(SESSION_FORMAT_VERSION))
    suite = _text(problems, data, "suite", "")
    suite_version = _text(problems, data, "suite_version", "")
    persona = _text(problems, data, "persona", "")
    sequences: list[Sequence] = []
    raw_sequences = data.get("sequences")
    if not isinstance(raw_sequences, list) or not raw_sequences:
        problems.add("sequences", "missing or empty", "a non-empty array of {id, title, description}")
        raw_sequences = []
    for i, raw in enumerate(raw_sequences):
        where = f"sequences[{i}]"
        if not isinstance(raw, dict):
            problems.add(where, f"found a JSON {json_kind(raw)}", "a sequence object")
            continue
        _unknown_keys(problems, raw, {"id", "title", "description"}, where)
        seq_id = _text(problems, raw, "id", where)
        if seq_id and not re.match(SEQUENCE_ID_PATTERN, seq_id):
            problems.add(f"{where}.id", f"{seq_id!r} is not a sequence id", "lower-case letters, digits, underscores")
        if seq_id in {s.id for s in sequences}:
            problems.add(f"{where}.id", f"duplicate sequence id {seq_id!r}", "each sequence id once")
        sequences.append(
            Sequence(seq_id, _text(problems, raw, "title", where), _text(problems, raw, "description", where, False))
        )
    raw_sessions = data.get("sessions")
    if not isinstance(raw_sessions, list) or not raw_sessions:
        problems.add("sessions", "missing or empty", "a non-empty array of sessions")
        raw_sessions = []
    known = {s.id for s in sequences}
    parsed = [(i, _session(problems, raw, f"sessions[{i}]", known)) for i, raw in enumerate(raw_sessions)]
    sessions = [(i, s) for i, s in parsed if s is not None]
    _cross_checks(problems, sessions)
    if problems.items:
        raise SessionFileError(file, [(w.lstrip("."), p, e) for w, p, e in problems.items])
    ordered = sorted((s for _, s in sessions), key=lambda s: ([q.id for q in sequences].index(s.sequence), s.position))
    return SessionFile(file, sha256, suite, suite_version, persona, sequences, ordered)


def load_sessions(path: str | Path) -> SessionFile:
    """Read and validate the session file at ``path``."""
    path = Path(path)
    file = str(path)
    if not path.is_file():
        raise SessionFileError(file, [("", "no such file", "a session file (JSON)")])
    try:
        raw = safejson.read_bytes(path)
    except safejson.JSONRefused as exc:
        raise SessionFileError(file, [("", exc.problem, "")])
    data = parse_json_text(raw, file)
    return read_session_data(data, file, hashlib.sha256(raw).hexdigest())


# -- as tasks --------------------------------------------------------------------------------------------


def session_record(session: SessionSpec) -> dict:
    """What a stored task keeps of its session (``Task.extra["session"]``)."""
    return {
        "sequence": session.sequence,
        "position": session.position,
        "depends_on": list(session.depends_on),
        "intents": [i.as_dict() for i in session.intents],
    }


def session_tasks(sessions: SessionFile) -> TaskFile:
    """The sessions as task specs (request as instruction, checklist as rubric, the rest in ``extra``),
    so the suite importer stores them like any task."""
    specs = []
    for position, s in enumerate(sessions.sessions, start=1):
        rubric = build_rubric(s.checklist)
        extra = {"session": session_record(s), "persona": sessions.persona}
        meta: dict[str, Any] = {
            "id": s.id,
            "category": s.category,
            "instruction": s.request,
            "bucket": s.app,
            "apps_involved": list(s.apps_involved),
            "difficulty": s.difficulty,
            "rubric_rule": "",
            "extra": extra,
        }
        text = json.dumps(meta | {"rubric": [i.content_hash for i in rubric]}, sort_keys=True, ensure_ascii=False)
        specs.append(
            TaskSpec(
                position=position,
                rubric=rubric,
                content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                source_file=sessions.path,
                **meta,
            )
        )
    return TaskFile(path=sessions.path, files=[sessions.path], sha256=sessions.sha256, tasks=specs)


# -- evidence --------------------------------------------------------------------------------------------

_SPEC_TOKEN = re.compile(r"\.?([A-Za-z0-9_\-]+)|\[(\d+)\]|\[([A-Za-z0-9_]+)=([^\]]+)\]")


def _parse_spec_path(path: str) -> list[tuple] | None:
    """``a.b[2].c`` or ``contacts[name=Jim Halpert].birthday`` as steps, or None when it does not parse."""
    steps: list[tuple] = []
    pos = 0
    while pos < len(path):
        match = _SPEC_TOKEN.match(path, pos)
        if match is None or match.end() == pos or (pos == 0 and path.startswith(".")):
            return None
        key, index, sel_key, sel_value = match.groups()
        if key is not None:
            steps.append(("key", key))
        elif index is not None:
            steps.append(("index", int(index)))
        else:
            steps.append(("select", sel_key, sel_value))
        pos = match.end()
    return steps or None


def spec_value(spec: dict, path: str):
    """The value at ``path`` in the persona spec; KeyError naming the first step that is not there."""
    steps = _parse_spec_path(path)
    if steps is None:
        raise KeyError(f"{path!r} is not a spec path")
    node: Any = spec
    walked = ""
    for step in steps:
        if step[0] == "key":
            if not isinstance(node, dict) or step[1] not in node:
                raise KeyError(f"{walked or '(top)'} has no field {step[1]!r}")
            node, walked = node[step[1]], f"{walked}.{step[1]}" if walked else step[1]
        elif step[0] == "index":
            if not isinstance(node, list) or step[1] >= len(node):
                raise KeyError(f"{walked} has no item [{step[1]}]")
            node, walked = node[step[1]], f"{walked}[{step[1]}]"
        else:
            _, sel_key, sel_value = step
            found: list = (
                [x for x in node if isinstance(x, dict) and str(x.get(sel_key)) == sel_value]
                if isinstance(node, list)
                else []
            )
            if not found:
                raise KeyError(f"{walked} has no item with {sel_key} = {sel_value!r}")
            node, walked = found[0], f"{walked}[{sel_key}={sel_value}]"
    return node


def world_record_count(world_dir: str | Path, app: str, table: str, key: dict) -> int:
    """How many rows of ``table`` in the built world's ``apps/<app>.sqlite`` match every column of ``key``;
    LookupError naming the app, table or column that is not there."""
    db = Path(world_dir) / "apps" / f"{app}.sqlite"
    if not re.match(r"^[a-z0-9][a-z0-9\-]*$", app) or not db.is_file():
        raise LookupError(f"the world has no app {app!r}")
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if table not in tables:
            raise LookupError(f"{app} has no table {table!r}")
        columns = {r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}
        for column in key:
            if column not in columns:
                raise LookupError(f"{app}.{table} has no column {column!r}")
        where = " AND ".join(f'"{c}" = ?' for c in key)
        return con.execute(f'SELECT COUNT(*) FROM "{table}" WHERE {where}', list(key.values())).fetchone()[0]
    finally:
        con.close()


def unresolved_evidence(
    sessions: SessionFile, spec: dict | None = None, world_dir: str | Path | None = None
) -> list[str]:
    """Every citation that does not resolve, one line each naming the session, intent and what is missing.
    Spec paths are checked when ``spec`` is given, world records when ``world_dir`` is; session citations
    are checked by the loader."""
    out = []
    for s in sessions.sessions:
        for intent in s.intents:
            for e in intent.evidence:
                where = f"{s.id} {intent.id}"
                if e.kind == "spec" and spec is not None:
                    try:
                        spec_value(spec, e.path)
                    except KeyError as exc:
                        out.append(f"{where}: spec path {e.path}: {exc.args[0]}")
                elif e.kind == "world" and world_dir is not None:
                    try:
                        if world_record_count(world_dir, e.app, e.table, e.key) == 0:
                            out.append(f"{where}: no record in {e.describe()}")
                    except LookupError as exc:
                        out.append(f"{where}: {exc.args[0]}")
    return out
