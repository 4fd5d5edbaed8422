"""Reads the verdict from the judge's own answer, nothing else: the JSON object that ends it (our
prompt versions), or the final ``Status:`` line (the paper's protocol, ``paper-v1``)."""

import json
import re
from dataclasses import dataclass, field

VERDICTS = ("success", "failure")
REQUIRED_KEYS = ("reasoning", "cited_steps", "verdict")


class AnswerError(ValueError):
    """The judge's answer does not end with a valid verdict; says what was wrong."""


@dataclass
class ParsedAnswer:
    verdict: str
    reasoning: str
    cited_steps: list[int]
    dropped_steps: list = field(default_factory=list)  # cited numbers that are not steps of this trajectory
    malformed_steps: list = field(default_factory=list)  # cited values that are not plain step numbers, as written


def _strip_fence(text: str) -> str:
    text = text.rstrip()
    if text.endswith("```"):
        text = text[:-3].rstrip()
    return text


def _final_object(text: str) -> tuple[dict, str]:
    """The JSON object the answer ends with, and its text. Earlier objects (the judge quoting agent
    text, say) are ignored: only what closes the answer counts."""
    text = _strip_fence(text)
    if not text.endswith("}"):
        raise AnswerError("the answer does not end with a JSON object (expected a final {...} verdict object)")
    decoder = json.JSONDecoder()
    start = text.rfind("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value, end = None, -1
        if end == len(text) and isinstance(value, dict):
            return value, text[start:end]
        start = text.rfind("{", 0, start)
    raise AnswerError("the final {...} is not valid JSON")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text or "")


def copied_from(candidate: str, trajectory_text: str) -> bool:
    """True when ``candidate`` appears word for word (whitespace aside) in the trajectory data: an
    agent's text quoted back must never count as the judge's verdict."""
    squashed = _squash(candidate)
    return bool(squashed) and bool(trajectory_text) and squashed in _squash(trajectory_text)


_STEP_WORDS = re.compile(r"^\s*(?:step|steps|#)?\s*(\d+)\s*$", re.IGNORECASE)


def _step_number(value) -> int | None:
    """A cited value as a step number when it says one plainly (2, "2", 3.0, "Step 3"), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        match = _STEP_WORDS.match(value)
        if match:
            return int(match.group(1))
    return None


def _cited(raw_steps, n_steps: int) -> tuple[list[int], list, list]:
    """(cited steps, numbers out of range, values kept as a note). A malformed list never throws the
    verdict away: cited steps only point the reader at screenshots, they do not decide anything."""
    if not isinstance(raw_steps, list):
        return [], [], [raw_steps]
    cited, dropped, malformed = [], [], []
    for value in raw_steps:
        number = _step_number(value)
        if number is None or not isinstance(value, int) or isinstance(value, bool):
            malformed.append(value)  # kept as written; a plain number is recovered when there is one
        if number is None:
            continue
        if 1 <= number <= n_steps:
            if number not in cited:
                cited.append(number)
        else:
            dropped.append(number)
    return cited, dropped, malformed


def parse_answer(text: str, n_steps: int, trajectory_text: str = "") -> ParsedAnswer:
    """The verdict object ending ``text``. It must hold reasoning, cited_steps and verdict, and must
    not be a copy of an object found in ``trajectory_text`` (the data the judge was shown)."""
    if not isinstance(text, str) or not text.strip():
        raise AnswerError("the answer is empty")
    data, raw = _final_object(text)
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise AnswerError(f"the verdict object lacks {', '.join(missing)} (expected all of {', '.join(REQUIRED_KEYS)})")
    if copied_from(raw, trajectory_text):
        raise AnswerError(
            "the final verdict object appears word for word in the trajectory data (a quoted agent claim)"
        )
    verdict = data.get("verdict")
    if not isinstance(verdict, str) or verdict.strip().lower() not in VERDICTS:
        raise AnswerError(f"verdict is {verdict!r} (expected 'success' or 'failure')")
    reasoning = data.get("reasoning")
    if not isinstance(reasoning, str):
        raise AnswerError(f"reasoning is {type(reasoning).__name__} (expected a string)")
    cited, dropped, malformed = _cited(data.get("cited_steps"), n_steps)
    return ParsedAnswer(verdict.strip().lower(), reasoning.strip(), cited, dropped, malformed)


_STATUS = re.compile(r"^\s*\**\s*status\s*\**\s*:\s*\**\s*[\"'`]?\s*(?P<value>[a-z]+)\s*[\"'`]?\s*\**\s*\.?\s*$", re.I)
_THOUGHTS = re.compile(r"^\s*\**\s*thoughts\s*\**\s*:\s*", re.I)
_STEP_MENTION = re.compile(r"\bsteps?\s+(\d+)", re.I)


def parse_status_answer(text: str, n_steps: int, trajectory_text: str = "") -> ParsedAnswer:
    """The paper protocol's answer: ``Thoughts: ...`` then a last line ``Status: success|failure``.
    Stricter than the released judge (which read anything but success as failure): an answer
    without a final Status line is no verdict, so it is asked again and then recorded as an error.
    Steps the thoughts mention ("step 4") become the cited steps, for the player."""
    if not isinstance(text, str) or not text.strip():
        raise AnswerError("the answer is empty")
    lines = _strip_fence(text).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    match = _STATUS.match(lines[-1]) if lines else None
    if match is None:
        raise AnswerError('the answer does not end with a "Status: success" or "Status: failure" line')
    value = match.group("value").lower()
    if value not in VERDICTS:
        raise AnswerError(f"Status is {value!r} (expected 'success' or 'failure')")
    body = "\n".join(lines[:-1]).strip()
    if copied_from(body + "\n" + lines[-1], trajectory_text) and body:
        raise AnswerError("the answer's thoughts and Status appear word for word in the trajectory data")
    first = _THOUGHTS.search(body)
    reasoning = body[first.end() :].strip() if first else body
    cited = []
    for number in (int(n) for n in _STEP_MENTION.findall(reasoning)):
        if 1 <= number <= n_steps and number not in cited:
            cited.append(number)
    return ParsedAnswer(value, reasoning, cited)
