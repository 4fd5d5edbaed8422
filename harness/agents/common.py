"""What the provider computer-use agents share: API keys checked at construction, the shell and text
editor run through the guest's Control API, screenshot scaling, the screenshot window, usage counters,
and provider errors turned into the "Error code: ..." replies the loop counts."""

import base64
import dataclasses
import io
import json
import os

from PIL import Image

from harness.agents.base import AgentError, AgentState
from harness.agents.prompts import Environment, stop_signal, system_prompt
from harness.control import ControlError

STRIPPED = "<stripped:base64 image>"
IMAGE_REMOVED = "[image removed]"
DEFAULT_OUTPUT_LIMIT = 10_000


class MissingApiKey(AgentError):
    """The agent cannot start: no key in the environment and none given."""


class TruncatedReply(AgentError):
    """The model's reply was cut off at its output limit (even after the retry with a larger budget):
    the trajectory ends as an error, never as a finished task with a half-written answer."""


class ProviderCallError(Exception):
    """A failed provider call, worded as upstream's loop counts it: ``Error code: <status> - <message>``."""

    def __init__(self, status, message: str):
        self.status = status
        super().__init__(f"Error code: {status if status is not None else 'connection'} - {message}")


def resolve_api_key(agent: str, variables: tuple[str, ...], api_key: str | None, environ=None) -> str:
    if api_key:
        return api_key
    environ = os.environ if environ is None else environ
    for name in variables:
        if environ.get(name):
            return environ[name]
    raise MissingApiKey(f"no API key for the {agent} agent: set {' or '.join(variables)} (or pass api_key)")


def png_at(png: bytes, size: tuple[int, int]) -> bytes:
    """The screenshot resized to ``size`` (LANCZOS) for a model that declared that display; unchanged if equal."""
    with Image.open(io.BytesIO(png)) as image:
        if image.size == tuple(size):
            return png
        resized = image.convert("RGB").resize((size[0], size[1]), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    resized.save(out, format="PNG")
    return out.getvalue()


def images_to_drop(total: int, keep: int, chunk: int = 1) -> int:
    """How many of the oldest ``total`` screenshots leave the conversation so at most ``keep`` remain,
    dropped ``chunk`` at a time: with chunk 1 one more image goes every turn once the window is full
    (the paper's Claude harness), which changes the cached prompt prefix every turn; with chunk 10 the
    prefix stays the same for ten turns, between ``keep - chunk + 1`` and ``keep`` images being sent."""
    if chunk < 1:
        raise AgentError(f"image drop chunk: {chunk} (expected at least 1)")
    over = total - keep
    if over <= 0:
        return 0
    return min(total, -(-over // chunk) * chunk)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... output truncated: {len(text) - limit} more characters]"


def strip_images(value):
    """A JSON-safe copy of a request fragment with every base64 payload replaced, for messages.json."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("data", "image_url", "url") and isinstance(item, str | bytes) and _looks_binary(item):
                out[key] = STRIPPED
            else:
                out[key] = strip_images(item)
        return out
    if isinstance(value, list | tuple):
        return [strip_images(v) for v in value]
    if isinstance(value, bytes):
        return STRIPPED
    return value


def _looks_binary(item) -> bool:
    return isinstance(item, bytes) or item.startswith("data:") or len(item) > 512


# The text editor tool (view / create / str_replace / insert) as a small program run in the guest, so
# it edits the guest's files, never the harness machine's. Arguments travel base64-encoded in argv.
EDITOR_PROGRAM = r"""
import base64, json, os, sys
a = json.loads(base64.b64decode(sys.argv[1]))
cmd, path = a.get("command"), a.get("path", "")
def fail(msg):
    print(msg); sys.exit(1)
if not os.path.isabs(path):
    fail(f"path {path!r} is not absolute")
if cmd == "view":
    if os.path.isdir(path):
        for root, dirs, files in os.walk(path):
            if root[len(path):].count(os.sep) >= 2: dirs[:] = []
            for n in sorted(dirs + files): print(os.path.join(root, n))
        sys.exit(0)
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    lo, hi = (a.get("view_range") or [1, -1])
    hi = len(lines) if hi == -1 else hi
    for i in range(max(1, lo), min(hi, len(lines)) + 1): print(f"{i:6}\t{lines[i-1]}")
elif cmd == "create":
    if os.path.dirname(path): os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w", encoding="utf-8").write(a.get("file_text", "")); print(f"created {path}")
elif cmd == "str_replace":
    text = open(path, encoding="utf-8").read(); old = a.get("old_str", "")
    n = text.count(old)
    if n != 1: fail(f"old_str occurs {n} times in {path} (it must occur exactly once)")
    open(path, "w", encoding="utf-8").write(text.replace(old, a.get("new_str") or "")); print(f"edited {path}")
elif cmd == "insert":
    lines = open(path, encoding="utf-8").read().split("\n"); at = int(a.get("insert_line", 0))
    if not 0 <= at <= len(lines): fail(f"insert_line {at} is outside 0..{len(lines)}")
    lines[at:at] = a.get("insert_text", a.get("new_str", "")).split("\n")
    open(path, "w", encoding="utf-8").write("\n".join(lines)); print(f"inserted into {path}")
else:
    fail(f"command {cmd!r} is not supported (view, create, str_replace, insert)")
"""


def check_settings(agent: str, efforts: tuple[str, ...], *, max_output_tokens, retry_output_tokens,
                   reasoning_effort, temperature) -> None:  # fmt: skip
    """Refuses an output budget, reasoning effort or temperature the ``agent`` cannot send, naming it."""
    if max_output_tokens is not None and int(max_output_tokens) < 1:
        raise AgentError(f"max_output_tokens: {max_output_tokens} (expected at least 1)")
    if retry_output_tokens is not None and int(retry_output_tokens) < 0:
        raise AgentError(f"retry_output_tokens: {retry_output_tokens} (expected 0 = no retry, or a token budget)")
    if reasoning_effort is not None and reasoning_effort not in efforts:
        expected = ", ".join(efforts) if efforts else "none: this agent takes no reasoning effort"
        raise AgentError(f"reasoning effort {reasoning_effort!r} for the {agent} agent (expected one of: {expected})")
    if temperature is not None and not 0.0 <= float(temperature) <= 2.0:
        raise AgentError(f"temperature: {temperature} (expected 0 to 2)")


class ProviderAgent(AgentState):
    """Base of the agents that call a model: ``attach(env)`` gives them the guest's shell; ``predict``
    never raises for a provider failure, it answers ``"Error code: ..."`` with no actions instead.

    Sampling settings (``max_output_tokens``, ``retry_output_tokens``, ``reasoning_effort``,
    ``temperature``) left at None take the agent's ``defaults``, chosen from each model's documentation
    (see the subclasses); ``protocol()`` records what was in effect."""

    name = ""
    default_model = ""
    key_variables: tuple[str, ...] = ()
    # max_output_tokens: the first request's budget; retry_output_tokens: the budget of the one retry of
    # a reply cut off at that limit (0: no retry, the trajectory ends as an error).
    defaults: dict = {"max_output_tokens": 8192, "retry_output_tokens": 32768, "reasoning_effort": None,
                      "temperature": None}  # fmt: skip
    reasoning_efforts: tuple[str, ...] = ()
    takes_temperature = True
    # The paper's harness gives the OpenAI and Qwen agents the screen-or-shell hint, not Claude (formats.md §5).
    paper_dual_tool_hint = False

    def __init__(self, model: str | None = None, *, api_key: str | None = None, base_url: str | None = None,
                 screenshot_window: int = 20, environment: Environment | None = None,
                 max_output_tokens: int | None = None, retry_output_tokens: int | None = None,
                 reasoning_effort: str | None = None, temperature: float | None = None,
                 dual_tool_hint: bool | None = None, output_limit: int = DEFAULT_OUTPUT_LIMIT,
                 timeout: float = 300.0, max_retries: int = 2, environ=None):  # fmt: skip
        super().__init__()
        if temperature is not None and not self.takes_temperature:
            raise AgentError(f"temperature: the {self.name} API takes no sampling temperature for these models")
        check_settings(self.name, self.reasoning_efforts, max_output_tokens=max_output_tokens,
                       retry_output_tokens=retry_output_tokens, reasoning_effort=reasoning_effort,
                       temperature=temperature)  # fmt: skip
        self.model = model or self.default_model
        if not self.model:
            raise AgentError(f"the {self.name} agent needs a model name (--model)")
        self.api_key = resolve_api_key(self.name, self.key_variables, api_key, environ)
        self.base_url = base_url or None
        if screenshot_window < 1:
            raise AgentError(f"screenshot_window: {screenshot_window} (expected at least 1)")
        self.screenshot_window = screenshot_window
        hint = self.paper_dual_tool_hint if dual_tool_hint is None else bool(dual_tool_hint)
        self.environment = environment or Environment(dual_tool_hint=hint)
        self.max_output_tokens = int(max_output_tokens or self.defaults["max_output_tokens"])
        retry = self.defaults["retry_output_tokens"] if retry_output_tokens is None else retry_output_tokens
        self.retry_output_tokens = int(retry or 0)
        self.reasoning_effort = reasoning_effort or self.defaults["reasoning_effort"]
        self.temperature = self.defaults["temperature"] if temperature is None else float(temperature)
        self.output_limit = output_limit
        self.timeout = timeout
        self.max_retries = max_retries
        self._execute = None
        self.turn = 0

    # ------------------------------------------------------------ settings and truncated replies

    def protocol(self) -> dict:
        """The settings this agent runs with, as recorded in bundle.json (``agent_protocol``)."""
        return {
            "max_output_tokens": self.max_output_tokens,
            "retry_output_tokens": self.retry_output_tokens,
            "reasoning_effort": self.reasoning_effort,
            "temperature": self.temperature,
            "screenshot_window": self.screenshot_window,
            "dual_tool_hint": self.environment.dual_tool_hint,
        }

    def call_within_budget(self, call, truncated):
        """``call(budget)`` once at ``max_output_tokens``; a reply ``truncated(reply)`` calls a reason for
        (a string) is asked again once at ``retry_output_tokens``, and cut off again raises TruncatedReply."""
        budget = self.max_output_tokens
        reply = call(budget)
        reason = truncated(reply)
        if not reason:
            return reply
        self.add_usage(truncated_replies=1)
        self.messages.append({"role": "truncated", "content": f"reply cut off at {budget} output tokens: {reason}"})
        if self.retry_output_tokens > budget:
            budget = self.retry_output_tokens
            reply = call(budget)
            reason = truncated(reply)
            if not reason:
                return reply
            self.add_usage(truncated_replies=1)
        raise TruncatedReply(
            f"the {self.name} model's reply was cut off at its output limit ({budget} tokens; {reason}); "
            "raise --max-output-tokens / --retry-output-tokens"
        )

    # ------------------------------------------------------------ wiring

    def attach(self, env) -> None:
        """The environment whose Control API runs the shell and editor tools."""
        self._execute = env.execute

    def system_prompt(self, screen_size) -> str:
        return system_prompt(dataclasses.replace(self.environment, screen_size=tuple(screen_size)))

    def reset(self, task_id: str = "") -> None:
        AgentState.__init__(self)
        self.turn = 0
        self.reset_conversation()

    def enter_session(self) -> None:
        """The user is at hand from now on (the system prompt says so, the same on every turn)."""
        self.environment = dataclasses.replace(self.environment, user_at_hand=True)

    def resume(self, message: str) -> None:
        """A session's next user turn: the conversation goes on; the next request answers what is owed
        (tool results, with the screen as it is now) and then carries ``message`` as the user's words."""
        self.begin_turn_record(message)
        self.turn = 0

    def reset_conversation(self) -> None:
        raise NotImplementedError

    def predict(self, instruction: str, observation: dict) -> tuple[str, list[str]]:
        self.turn += 1
        try:
            return self.take_turn(instruction, observation)
        except ProviderCallError as exc:
            self.pending_tool_round = False
            self.add_usage(api_errors=1)
            self.messages.append({"role": "error", "content": str(exc)})
            return str(exc), []

    def take_turn(self, instruction: str, observation: dict) -> tuple[str, list[str]]:
        raise NotImplementedError

    # ------------------------------------------------------------ tools run in the guest

    def run_shell(self, command: str) -> tuple[str, int]:
        """(output for the model, exit code); a guest that does not answer is reported, not raised."""
        if self._execute is None:
            return "error: no shell is attached to this agent", 127
        self.tool_commands.append(f"shell: {command}")
        try:
            result = self._execute(command, shell=True)
        except ControlError as exc:
            return f"error: the computer did not run the command: {exc}", 1
        text = result.output or ""
        if result.error:
            text = f"{text}\n{result.error}" if text else result.error
        if result.timed_out:
            text += "\n[the command timed out]"
        return truncate(text, self.output_limit), result.returncode

    def run_editor(self, args: dict) -> tuple[str, int]:
        if self._execute is None:
            return "error: no shell is attached to this agent", 127
        payload = b64(json.dumps(args).encode("utf-8"))
        self.tool_commands.append("editor: " + json.dumps(args, ensure_ascii=False))
        try:
            result = self._execute(["python3", "-c", EDITOR_PROGRAM, payload], shell=False)
        except ControlError as exc:
            return f"error: the computer did not run the edit: {exc}", 1
        text = (result.output or "") + (f"\n{result.error}" if result.error else "")
        return truncate(text.strip(), self.output_limit), result.returncode

    # ------------------------------------------------------------ the end of a turn

    def finish_turn(self, text: str, actions: list[str], tool_calls: int) -> tuple[str, list[str]]:
        """Applies the stop rules: a DONE / FAIL / INFEASIBLE signal in the text ends the task after any
        GUI actions of the same reply; a reply that only ran tools (shell, screenshot) is owed an answer."""
        for i, action in enumerate(actions):
            if action in ("DONE", "FAIL"):
                actions = actions[: i + 1]
                break
        signal = stop_signal(text)
        if signal and not (actions and actions[-1] in ("DONE", "FAIL")):
            actions = [*actions, "DONE" if signal == "done" else "FAIL"]
        self.pending_tool_round = bool(tool_calls) and not actions
        self.messages.append({"role": "assistant", "content": text, "actions": list(actions)})
        return text, actions
