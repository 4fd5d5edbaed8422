"""What result folders hold besides traj.jsonl, read truthfully: gaps (screenshots missing or left as
Git LFS pointer files), problems collected over a whole tree and reported grouped and counted, token
counters summed by kind from usage.json, and the tool calls (command, output, exit status) that
messages.json records for the runner's TOOL_CALL rows. Django-free."""

import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from harness import safejson

LFS_SPEC = b"version https://git-lfs.github.com/spec/v1"
LFS_PROBLEM = "Git LFS pointer, not the file: run `git lfs pull` in the clone it came from"
LFS_SCREENSHOT = "Git LFS pointer, not the image: run `git lfs pull` in the clone it came from"
MISSING_SCREENSHOT = "missing screenshot"
LFS_KIND = "Git LFS pointer"
SHOWN_PER_KIND = 8  # problems listed per kind; the rest are counted


def is_lfs_pointer(head: bytes) -> bool:
    """A Git LFS pointer file (a clone made without ``git lfs pull``) instead of the real content."""
    return head[:200].lstrip().startswith(LFS_SPEC)


@dataclass(frozen=True)
class Gap:
    """Something a step should have and the folder lacks (its screenshot)."""

    kind: str  # MISSING_SCREENSHOT or LFS_KIND
    file: str  # the file named, as the row names it
    problem: str  # in words, for the step and the report
    where: str = ""  # traj.jsonl and line

    def at(self, where: str) -> "Gap":
        return Gap(self.kind, self.file, self.problem, where)


def screenshot_gap(path: Path) -> Gap | None:
    """Why the screenshot at ``path`` cannot be used, or None when the file is there."""
    if not path.is_file():
        return Gap(MISSING_SCREENSHOT, path.name, f"{path.name} is missing from the task folder")
    with open(path, "rb") as handle:
        head = handle.read(200)
    if is_lfs_pointer(head):
        return Gap(LFS_KIND, path.name, f"{path.name}: {LFS_SCREENSHOT}")
    return None


def problem_kind(text: str) -> str:
    """The group a problem is reported under."""
    lowered = text.lower()
    for needle, kind in (
        ("git lfs pointer", LFS_KIND),
        ("missing screenshot", MISSING_SCREENSHOT),
        ("not valid json", "invalid JSON"),
        ("not utf-8", "not UTF-8 text"),
        ("is missing", "missing file"),
        ("not an image", "not an image"),
        ("damaged or truncated", "damaged image"),
        ("appears twice", "duplicate task folder"),
        ("is not a task of suite", "unknown task id"),
    ):
        if needle in lowered:
            return kind
    return "other"


class Problems:
    """Problems found over a whole tree, grouped by kind (first seen first) and counted."""

    def __init__(self):
        self.by_kind: OrderedDict[str, list[str]] = OrderedDict()

    def add(self, where: str, text: str, *, problem: str = "", kind: str = "") -> None:
        kind = kind or problem_kind(problem or text)
        self.by_kind.setdefault(kind, []).append(text if str(where) in text else f"{where}: {text}")

    def __bool__(self) -> bool:
        return any(self.by_kind.values())

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_kind.values())

    def summary(self, hint: str = "") -> str:
        counts = ", ".join(f"{kind} {len(items)}" for kind, items in self.by_kind.items())
        lines = [f"{len(self)} problem{'s' if len(self) != 1 else ''} ({counts}); nothing was imported"]
        for kind, items in self.by_kind.items():
            lines.append(f"{kind} ({len(items)}):")
            lines += [f"  - {item}" for item in items[:SHOWN_PER_KIND]]
            if len(items) > SHOWN_PER_KIND:
                lines.append(f"  ... and {len(items) - SHOWN_PER_KIND} more")
        if hint:
            lines.append(hint)
        return "\n".join(lines)


def gap_problems(gaps: list[Gap]) -> Problems:
    problems = Problems()
    for gap in gaps:
        problems.add(gap.where, gap.problem, kind=gap.kind)
    return problems


# ---------------------------------------------------------------- answers


def answered(steps) -> bool:
    """Whether the agent gave an answer: it stopped on its own (DONE or FAIL) with some text. A
    trajectory that ran out of turns or crashed mid-way has thoughts, not an answer."""
    if not steps:
        return False
    last = steps[-1]
    kind = last.action.get("type") if isinstance(last.action, dict) else None
    if kind not in ("done", "fail") and not (last.done and last.action_text != "PREDICT_CRASH"):
        return False
    return any(step.model_text.strip() for step in steps if step.turn == last.turn)


# ---------------------------------------------------------------- usage.json


USAGE_KINDS = ("input", "output", "cache_creation", "cache_read")
# Anthropic reports input_tokens without the cached part; these keys say the file does.
_SEPARATE_CACHE_KEYS = {"cache_creation_input_tokens", "cache_read_input_tokens"}


def _usage_kind(key: str) -> str | None:
    key = key.lower()
    if "total" in key or "cost" in key or "request" in key or key.endswith("calls"):
        return None
    if "cache_creation" in key or "cache_write" in key:
        return "cache_creation"
    if "cache_read" in key or "cached" in key:
        return "cache_read"
    if "reasoning" in key:
        return None  # part of the output tokens already
    if "output" in key or "completion" in key or "candidates" in key:
        return "output"
    if "input" in key or "prompt" in key:
        return "input"
    return None


def usage_by_kind(usage) -> dict:
    """Every token counter in a usage.json (flat, per model, per call, nested details) summed by kind:
    ``input`` (everything the model read, cached or not), ``output``, ``cache_creation``,
    ``cache_read``. Counters whose kind is unknown are left out, never guessed."""
    sums = dict.fromkeys(USAGE_KINDS, 0)
    separate_cache = False

    def walk(node, key=""):
        nonlocal separate_cache
        if isinstance(node, dict):
            for k, v in node.items():
                if k in _SEPARATE_CACHE_KEYS:
                    separate_cache = True
                walk(v, str(k))
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, int | float) and not isinstance(node, bool) and node >= 0:
            kind = _usage_kind(key)
            if kind:
                sums[kind] += int(node)

    walk(usage)
    if separate_cache:
        # Anthropic: input_tokens excludes what was written to or read from the cache.
        sums["input"] += sums["cache_creation"] + sums["cache_read"]
    return sums


# ---------------------------------------------------------------- messages.json


@dataclass
class ToolCall:
    tool: str  # bash or editor
    command: str
    output: str = ""
    exit_status: str = ""  # "0", "1", "error", "timeout", "" when the source does not say


_EDITOR_TOOLS = {"str_replace_based_edit_tool", "str_replace_editor", "text_editor"}
_QWEN_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_QWEN_PARAM = re.compile(r"<parameter=(\w+)>\s*(.*?)\s*</parameter>", re.DOTALL)
_QWEN_FUNC = re.compile(r"<function=([\w.-]+)>")
_QWEN_RESPONSE = re.compile(r"<tool_response>\s*(.*?)\s*</tool_response>", re.DOTALL)


def _text_of(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(c) for c in content if not (isinstance(c, dict) and c.get("type") == "image"))
    if isinstance(content, dict):
        if isinstance(content.get("text"), str):
            return content["text"]
        if "content" in content:
            return _text_of(content["content"])
    return ""


def _call_from(name: str, args: dict) -> ToolCall | None:
    if not isinstance(args, dict):
        return None
    if name in _EDITOR_TOOLS:
        what = " ".join(str(args[k]) for k in ("command", "path") if args.get(k))
        return ToolCall("editor", what)
    if name in ("bash", "shell") or "command" in args or "commands" in args:
        command = args.get("command")
        if command is None and isinstance(args.get("commands"), list):
            command = "\n".join(map(str, args["commands"]))
        if command is None and args.get("restart"):
            command = "(restart the shell)"
        return ToolCall("bash", str(command or ""))
    return None


_CALL_KINDS = ("shell_call", "computer_call", "function_call")


def _arguments(text) -> dict:
    """A function call's JSON arguments; text that is not JSON reads as no arguments."""
    try:
        return safejson.loads(text or "{}")
    except ValueError:
        return {}


class _RoundReader:
    """What tool_rounds keeps while it reads a conversation in order: the rounds closed so far, the round
    being read (and whether it took a computer action), and the calls whose outputs may still come."""

    def __init__(self):
        self.rounds: list[list[ToolCall]] = []
        self.by_id: dict[str, ToolCall] = {}
        self.pending_qwen: list[ToolCall] = []
        self.current: list[ToolCall] = []
        self.reading = False  # a round is open
        self.has_gui = False

    def close(self) -> None:
        if self.reading and self.current and not self.has_gui:
            self.rounds.append(self.current)
        self.current, self.reading, self.has_gui = [], False, False

    def _add(self, call_id: str, call: ToolCall | None) -> None:
        if call:
            self.by_id[call_id] = call
            self.current.append(call)

    def assistant(self, message: dict, role, kind, content) -> None:
        """A model turn (or one of its Responses items): the calls it makes."""
        if role == "assistant" and kind not in _CALL_KINDS:
            self.close()
            self.reading = True
        elif not self.reading:
            self.current, self.reading = [], True
        if kind == "shell_call":
            action = message.get("action") or {}
            call = ToolCall("bash", "\n".join(map(str, action.get("commands") or [])))
            self._add(str(message.get("call_id") or message.get("id")), call)
        elif kind == "computer_call":
            self.has_gui = True
        elif kind == "function_call":
            args = _arguments(message.get("arguments"))
            self._add(str(message.get("call_id")), _call_from(str(message.get("name")), args))
        self._tool_use_blocks(content)
        self._chat_tool_calls(message.get("tool_calls") or [])
        self._qwen_calls(_text_of(content) if isinstance(content, str | list) else "")

    def _tool_use_blocks(self, content) -> None:
        """Anthropic content blocks."""
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                if block.get("name") == "computer":
                    self.has_gui = True
                    continue
                self._add(str(block.get("id")), _call_from(str(block.get("name")), block.get("input") or {}))

    def _chat_tool_calls(self, tool_calls) -> None:
        """Chat-completions tool calls."""
        for tool_call in tool_calls:
            function = (tool_call or {}).get("function") or {}
            args = _arguments(function.get("arguments"))
            if function.get("name") == "computer_use":
                self.has_gui = True
                continue
            call = _call_from(str(function.get("name")), args)
            if call:
                self._add(str(tool_call.get("id")), call)

    def _qwen_calls(self, text: str) -> None:
        """Qwen-style <tool_call> text; their outputs come back in order, not by id."""
        for raw in _QWEN_CALL.findall(text):
            func = _QWEN_FUNC.search(raw)
            params = dict(_QWEN_PARAM.findall(raw))
            if func and func.group(1) == "computer_use":
                self.has_gui = True
            elif func:
                call = _call_from(func.group(1), params)
                if call:
                    self.pending_qwen.append(call)
                    self.current.append(call)

    def shell_output(self, message: dict) -> None:
        """An OpenAI Responses shell_call_output: stdout and stderr, and how the command ended."""
        call = self.by_id.get(str(message.get("call_id")))
        if not call:
            return
        outputs = message.get("output") or []
        parts = []
        for out in outputs if isinstance(outputs, list) else [outputs]:
            if isinstance(out, dict):
                parts += [str(out.get("stdout") or ""), str(out.get("stderr") or "")]
                outcome = out.get("outcome") or {}
                if outcome.get("type") == "timeout":
                    call.exit_status = "timeout"
                elif "exit_code" in outcome:
                    call.exit_status = str(outcome["exit_code"])
        call.output = "\n".join(p for p in parts if p)

    def tool_output(self, message: dict, content) -> None:
        """A function_call_output item or a chat-completions tool message."""
        call = self.by_id.get(str(message.get("call_id") or message.get("tool_call_id")))
        if call:
            call.output = _text_of(message.get("output") or content)

    def user(self, content) -> None:
        """A user turn: Anthropic tool results, or Qwen <tool_response> text."""
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                call = self.by_id.get(str(block.get("tool_use_id")))
                if call:
                    call.output = _text_of(block.get("content"))
                    if block.get("is_error"):
                        call.exit_status = "error"
        for raw in _QWEN_RESPONSE.findall(_text_of(content)):
            if self.pending_qwen:
                self.pending_qwen.pop(0).output = raw


def tool_rounds(messages) -> list[list[ToolCall]]:
    """The model turns of a conversation that called only bash/editor tools (no computer action),
    each as its calls with their outputs, in order: what the runner's TOOL_CALL rows stand for.
    Reads Anthropic content blocks, OpenAI Responses items, chat-completions tool calls and
    Qwen-style <tool_call> text."""
    if isinstance(messages, dict):
        messages = messages.get("messages") or messages.get("input") or []
    if not isinstance(messages, list):
        return []
    reader = _RoundReader()
    for message in messages:
        if not isinstance(message, dict):
            continue
        role, kind, content = message.get("role"), message.get("type"), message.get("content")
        if role == "assistant" or kind in ("shell_call", "computer_call", "function_call", "reasoning"):
            reader.assistant(message, role, kind, content)
        elif kind == "shell_call_output":
            reader.shell_output(message)
        elif kind == "function_call_output" or role == "tool":
            reader.tool_output(message, content)
        elif role == "user":
            reader.user(content)
    reader.close()
    return reader.rounds
