"""Reads the verdict from the judge's own answer: the JSON object that ends it, nothing else."""

import json
from dataclasses import dataclass, field

VERDICTS = ("success", "failure")


class AnswerError(ValueError):
    """The judge's answer does not end with a valid verdict object; says what was wrong."""


@dataclass
class ParsedAnswer:
    verdict: str
    reasoning: str
    cited_steps: list[int]
    dropped_steps: list = field(default_factory=list)  # cited numbers that are not steps of this trajectory


def _strip_fence(text: str) -> str:
    text = text.rstrip()
    if text.endswith("```"):
        text = text[:-3].rstrip()
    return text


def _final_object(text: str) -> dict:
    """The JSON object the answer ends with. Earlier objects (the judge quoting agent text, say)
    are ignored: only what closes the answer counts."""
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
            return value
        start = text.rfind("{", 0, start)
    raise AnswerError("the final {...} is not valid JSON")


def parse_answer(text: str, n_steps: int) -> ParsedAnswer:
    if not isinstance(text, str) or not text.strip():
        raise AnswerError("the answer is empty")
    data = _final_object(text)
    verdict = data.get("verdict")
    if not isinstance(verdict, str) or verdict.strip().lower() not in VERDICTS:
        raise AnswerError(f"verdict is {verdict!r} (expected 'success' or 'failure')")
    reasoning = data.get("reasoning", "")
    if not isinstance(reasoning, str):
        raise AnswerError(f"reasoning is {type(reasoning).__name__} (expected a string)")
    raw_steps = data.get("cited_steps", [])
    if not isinstance(raw_steps, list):
        raise AnswerError(f"cited_steps is {type(raw_steps).__name__} (expected a list of step numbers)")
    cited, dropped = [], []
    for value in raw_steps:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, bool) or not isinstance(value, int):
            raise AnswerError(f"cited_steps holds {value!r} (expected integers)")
        if 1 <= value <= n_steps:
            if value not in cited:
                cited.append(value)
        else:
            dropped.append(value)
    return ParsedAnswer(verdict.strip().lower(), reasoning.strip(), cited, dropped)
