"""Loads a persona spec (upstream JSON shape) and applies our overlay file after it.

The spec is read-only input. The overlay is a JSON file of ours, read after the spec, whose entries add
what tasks name but the spec lacks; each entry cites the task ids it serves, so every addition can be
traced to a reason. Overlay shape::

    {"persona": "michael_scott", "reference_date": "2026-04-13",
     "entries": [{"tasks": ["retrieval-f001"], "path": "contacts", "op": "append", "value": {...}},
                 {"tasks": [...], "path": "cross_app_events.0.details", "op": "set", "value": {...}}]}

``path`` is dot-separated keys and list indexes into the spec; ``op`` is ``set`` (replace or create the
last key), ``append`` (add to a list) or ``merge`` (update an object).
"""

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

REQUIRED_SECTIONS = ("identity", "contacts")
# Fields whose text the spec gives as the user's own words (a document's content, a message body): their
# parentheses are the user's, not the author's.
VERBATIM_KEYS = {"content", "body", "text", "message", "subject", "title", "messages", "lines", "quote"}
NOTE_KEYS = re.compile(r"(^|_)(notes?|backstory|message_personality|personality|comment|reason)$")
MIN_PHRASE_WORDS = 3
# Fields seeders copy into what the user sees: an author's parenthesised remark is taken out of them on reading
# (a calendar description or a profile's about keeps what the user typed, not the author's aside on it).
CLEANED_KEYS = {"name", "merchant", "purpose", "item", "description", "about"}
PERSONAS_DIR = Path(__file__).resolve().parent.parent / "personas"  # our overlays: <stem>.overlay.json
OVERLAY_OPS = ("set", "append", "merge")


class PersonaError(ValueError):
    """A persona or overlay file that cannot be used; the message names the file and what is wrong."""


@dataclass
class Persona:
    """The persona document after the overlay, plus what the overlay changed (for provenance)."""

    spec: dict
    source: str
    overlay_source: str | None = None
    reference_date: str | None = None
    overlay_entries: list = field(default_factory=list)
    coverage_ignore: list = field(default_factory=list)
    remarks: list = field(default_factory=list)  # the author's remarks, found before they were removed

    @property
    def name(self) -> str:
        return self.spec["identity"]["name"]

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "_", self.name.lower()).strip("_")

    def section(self, key, default=None):
        value = self.spec.get(key)
        return copy.deepcopy(default) if value is None else value

    def override(self, app: str) -> dict:
        return self.spec.get("app_overrides", {}).get(app, {}) or {}


def spec_strings(node, key=""):
    """(key, string) for every string in the spec, with the key it sits under (list items keep their key)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from spec_strings(v, k)
    elif isinstance(node, list):
        for item in node:
            yield from spec_strings(item, key)
    elif isinstance(node, str):
        yield key, node


def _is_name_or_size(phrase: str) -> bool:
    """A parenthesised proper name ("Scranton Improv Academy") or pack size ("Set of 3") is data, not a remark."""
    words = phrase.split()
    return all(w[:1].isupper() or w[:1].isdigit() or w in ("&", "-") for w in words) or bool(
        re.fullmatch(r"(set|pack|box|case) of \d+", phrase, re.I)
    )


def author_phrases(spec: dict) -> list[str]:
    """The author's remarks in a spec: parenthesised asides and note/backstory fields (3+ words each)."""
    phrases = set()
    for key, text in spec_strings(spec):
        if NOTE_KEYS.search(key):
            phrases.add(text.strip())
            continue
        if key in VERBATIM_KEYS:
            continue
        for inner in re.findall(r"\(([^()]+)\)", text):
            phrases.add(inner.strip())
    return sorted(p for p in phrases if len(p.split()) >= MIN_PHRASE_WORDS and not _is_name_or_size(p))


def scrub(text: str, phrases: list[str]) -> str:
    """``text`` without the author's remarks: a parenthesised remark goes with its parentheses."""
    for phrase in phrases:
        if phrase in text:
            text = text.replace(f" ({phrase})", "").replace(f"({phrase})", "").replace(phrase, "")
    return text


def clean_remarks(node, phrases: list[str], key=""):
    """Remove parenthesised author remarks from the fields seeders copy verbatim (names, merchants,
    purposes, items), in place: "Paramount+ (forgot he signed up)" is read as "Paramount+"."""
    if isinstance(node, dict):
        for k, value in node.items():
            if isinstance(value, str) and k in CLEANED_KEYS and "(" in value:
                node[k] = scrub(value, phrases).strip()
            else:
                clean_remarks(value, phrases, k)
    elif isinstance(node, list):
        for item in node:
            clean_remarks(item, phrases, key)


def _read_json(path: Path, what: str) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PersonaError(f"{what} {path}: cannot be read ({exc.strerror})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PersonaError(f"{what} {path}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise PersonaError(f"{what} {path}: the top level must be a JSON object, got {type(data).__name__}")
    return data


def _walk(doc, parts, path_text, overlay_path):
    node = doc
    for part in parts:
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise PersonaError(f"overlay {overlay_path}: path {path_text!r}: no list item {part!r}")
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node.setdefault(part, {})
        else:
            raise PersonaError(f"overlay {overlay_path}: path {path_text!r}: {part!r} is inside a scalar")
    return node


def apply_overlay(spec: dict, overlay: dict, overlay_path) -> list:
    """Apply overlay entries in order to ``spec`` (mutated); returns the entries applied."""
    entries = overlay.get("entries", [])
    if not isinstance(entries, list):
        raise PersonaError(f"overlay {overlay_path}: 'entries' must be a list")
    for number, entry in enumerate(entries):
        where = f"overlay {overlay_path}: entry {number}"
        if not isinstance(entry, dict):
            raise PersonaError(f"{where}: must be an object")
        tasks = entry.get("tasks")
        if not isinstance(tasks, list) or not tasks or not all(isinstance(t, str) for t in tasks):
            raise PersonaError(f"{where}: 'tasks' must list the task ids the entry serves")
        op, path_text = entry.get("op"), entry.get("path")
        if op not in OVERLAY_OPS:
            raise PersonaError(f"{where}: 'op' must be one of {', '.join(OVERLAY_OPS)}, got {op!r}")
        if not isinstance(path_text, str) or not path_text:
            raise PersonaError(f"{where}: 'path' must be a dot-separated path into the spec")
        if "value" not in entry:
            raise PersonaError(f"{where}: 'value' is missing")
        parts = path_text.split(".")
        parent = _walk(spec, parts[:-1], path_text, overlay_path)
        last: str | int = parts[-1]
        value = copy.deepcopy(entry["value"])
        if isinstance(parent, list):
            if not parts[-1].isdigit() or int(parts[-1]) >= len(parent):
                raise PersonaError(f"{where}: path {path_text!r}: no list item {parts[-1]!r}")
            last = int(parts[-1])
        if op == "set":
            parent[last] = value
        elif op == "append":
            target = parent.setdefault(last, []) if isinstance(parent, dict) else parent[last]
            if not isinstance(target, list):
                raise PersonaError(f"{where}: path {path_text!r} is not a list, cannot append")
            target.extend(value if isinstance(value, list) else [value])
        else:
            target = parent.setdefault(last, {}) if isinstance(parent, dict) else parent[last]
            if not isinstance(target, dict) or not isinstance(value, dict):
                raise PersonaError(f"{where}: merge needs an object at {path_text!r} and an object value")
            target.update(value)
    return entries


def _coverage_ignore(entries, overlay_path) -> list:
    """Entities a task asks the agent to create; each cites its tasks like any overlay entry."""
    if not isinstance(entries, list):
        raise PersonaError(f"overlay {overlay_path}: 'coverage_ignore' must be a list")
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict) or not entry.get("entity") or not entry.get("tasks"):
            raise PersonaError(f"overlay {overlay_path}: coverage_ignore {number} needs 'entity' and 'tasks'")
    return entries


def default_overlay_path(persona_path: Path) -> Path | None:
    """Our overlay for a persona lives in seeding/personas/<stem>.overlay.json."""
    candidate = PERSONAS_DIR / f"{persona_path.stem}.overlay.json"
    return candidate if candidate.exists() else None


def resolve_registry(path: Path, name: str | None = None) -> Path:
    """A persona registry (upstream ``registry.json``) names persona files: pick ``name`` or its default."""
    registry = _read_json(path, "registry")
    personas = registry.get("personas")
    if not isinstance(personas, dict):
        raise PersonaError(f"registry {path}: 'personas' must be an object")
    name = name or registry.get("default_persona")
    if name not in personas:
        raise PersonaError(f"registry {path}: no persona {name!r} (has {', '.join(sorted(personas))})")
    entry = personas[name]
    if not isinstance(entry, dict) or not entry.get("file"):
        raise PersonaError(f"registry {path}: persona {name!r} has no 'file'")
    return path.parent / entry["file"]


def load_persona(path, overlay=None, use_default_overlay=True, name=None) -> Persona:
    """Read the spec at ``path`` (or the one a registry file names) and apply the overlay."""
    path = Path(path)
    spec = _read_json(path, "persona")
    if "personas" in spec and "identity" not in spec:
        path = resolve_registry(path, name)
        spec = _read_json(path, "persona")
    elif name:
        raise PersonaError(f"--name {name!r} needs a registry file as --persona, got the spec {path}")
    for key in REQUIRED_SECTIONS:
        if key not in spec:
            raise PersonaError(f"persona {path}: section {key!r} is missing")
    if not isinstance(spec["identity"], dict) or not spec["identity"].get("name"):
        raise PersonaError(f"persona {path}: identity.name is missing")
    if not isinstance(spec["contacts"], list):
        raise PersonaError(f"persona {path}: contacts must be a list")
    overlay_path = Path(overlay) if overlay else (default_overlay_path(path) if use_default_overlay else None)
    persona = Persona(spec=spec, source=str(path.name))
    if overlay_path:
        data = _read_json(overlay_path, "overlay")
        persona.overlay_entries = apply_overlay(spec, data, overlay_path)
        persona.overlay_source = overlay_path.name
        persona.reference_date = data.get("reference_date")
        persona.coverage_ignore = _coverage_ignore(data.get("coverage_ignore", []), overlay_path)
    persona.reference_date = spec.get("reference_date", persona.reference_date)
    persona.remarks = author_phrases(spec)
    clean_remarks(spec, persona.remarks)
    return persona


# A parenthetical is the spec author's remark, not part of a name, when it starts in lower case or talks about
# the persona in the third person: "Paramount+ (forgot he signed up)", "(active — never cancelled ...)".
_THIRD_PERSON = r"[^)]*\b(?:he|his|him|himself|Michael's)\b"
_REMARK = re.compile(rf"\s*\((?:[a-z]|{_THIRD_PERSON})[^)]*\)")
_THIRD_PERSON_REMARK = re.compile(rf"\s*\({_THIRD_PERSON}[^)]*\)")


def plain_name(text, lowercase_remarks=True):
    """``text`` without the spec author's parenthetical remarks; real qualifiers such as "(No Ads)" stay.
    With ``lowercase_remarks`` off only remarks about the persona in the third person go (for text the persona
    wrote himself, such as task titles, where "(one per cuisine)" is his own)."""
    if not isinstance(text, str):
        return text
    return (_REMARK if lowercase_remarks else _THIRD_PERSON_REMARK).sub("", text).strip()
