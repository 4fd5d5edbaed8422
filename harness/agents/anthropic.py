"""Anthropic computer use over the anthropic SDK: computer, bash and text editor tools, the tool
version and beta header looked up per model in a table a maintainer can extend with a JSON file
(unknown models are refused), screenshots scaled to the declared display and coordinates scaled back,
only the most recent screenshots kept in the conversation (dropped in chunks, so the cached prefix
stays the same for several turns), and optional extended thinking (a token budget, or adaptive), whose
thinking blocks go back to the API unchanged, signature included."""

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.actions import Scale, TranslationError, fit_within, from_anthropic
from harness.agents.base import AgentError
from harness.agents.common import (
    IMAGE_REMOVED,
    ProviderAgent,
    ProviderCallError,
    b64,
    images_to_drop,
    png_at,
    strip_images,
)

MAX_DISPLAY = (1280, 800)  # WXGA: sent unscaled by the API, so the model's pixels are ours up to the factor
# The paper's Claude harness declares 1280x720 and resizes every screenshot to it (formats.md §5.1).
PAPER_DISPLAY = (1280, 720)
TOOLS_VARIABLE = "MYPCBENCH_CLAUDE_TOOLS"
# Extended thinking (Anthropic's rules): a budget of at least 1,024 tokens and below max_tokens, no
# temperature beside it, and each thinking block sent back as it came. The paper's harness thinks with a
# 3,584-token budget, and adaptively on Opus 4.7 and later (formats.md §5.1).
MIN_THINKING_BUDGET = 1024
PAPER_THINKING_BUDGET = 3584
ADAPTIVE_MODELS = ("claude-opus-4-7",)


@dataclass(frozen=True)
class ToolVersions:
    computer: str
    beta: str
    bash: str
    editor: str
    editor_name: str


NEWEST = ToolVersions("computer_20251124", "computer-use-2025-11-24", "bash_20250124", "text_editor_20250728",
                      "str_replace_based_edit_tool")  # fmt: skip
CLAUDE_4 = ToolVersions("computer_20250124", "computer-use-2025-01-24", "bash_20250124", "text_editor_20250728",
                        "str_replace_based_edit_tool")  # fmt: skip
CLAUDE_37 = ToolVersions("computer_20250124", "computer-use-2025-01-24", "bash_20250124", "text_editor_20250124",
                         "str_replace_editor")  # fmt: skip
CLAUDE_35 = ToolVersions("computer_20241022", "computer-use-2024-10-22", "bash_20241022", "text_editor_20241022",
                         "str_replace_editor")  # fmt: skip

# Which tool set each model takes, from Anthropic's computer-use tool page (provider-apis.md §2). A name
# matches its entry exactly or with a release date appended ("claude-sonnet-4-5-20250929").
TOOL_TABLE: dict[str, ToolVersions] = {
    "claude-opus-4-7": NEWEST,
    "claude-opus-4-6": NEWEST,
    "claude-sonnet-4-6": NEWEST,
    "claude-opus-4-5": NEWEST,
    "claude-sonnet-4-5": CLAUDE_4,
    "claude-haiku-4-5": CLAUDE_4,
    "claude-opus-4-1": CLAUDE_4,
    "claude-sonnet-4": CLAUDE_4,
    "claude-sonnet-4-0": CLAUDE_4,
    "claude-opus-4": CLAUDE_4,
    "claude-opus-4-0": CLAUDE_4,
    "claude-3-7-sonnet": CLAUDE_37,
    "claude-3-7-sonnet-latest": CLAUDE_37,
    "claude-3-5-sonnet": CLAUDE_35,
    "claude-3-5-sonnet-latest": CLAUDE_35,
}
_DATED = re.compile(r"^(?P<base>.+?)-\d{8}$")


def load_tool_table(path=None, environ=None) -> dict[str, ToolVersions]:
    """The shipped table with the entries of a JSON file merged over it: the file named by ``path``, else
    by $MYPCBENCH_CLAUDE_TOOLS. An entry is ``"model": "known-model"`` (same tools as that one) or
    ``"model": {"computer", "beta", "bash", "editor", "editor_name"}``."""
    environ = os.environ if environ is None else environ
    path = path or environ.get(TOOLS_VARIABLE) or ""
    table = dict(TOOL_TABLE)
    if not path:
        return table
    where = f"Claude tool table {path}"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise AgentError(f"{where}: cannot be read ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise AgentError(f"{where}: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise AgentError(f"{where}: expected an object of model name -> tool set")
    fields = list(ToolVersions.__dataclass_fields__)
    for model, entry in data.items():
        if isinstance(entry, str):
            if entry not in table:
                raise AgentError(f"{where}: {model!r} refers to {entry!r}, which the table does not know")
            table[model] = table[entry]
        elif isinstance(entry, dict) and set(entry) == set(fields) and all(isinstance(v, str) for v in entry.values()):
            table[model] = ToolVersions(**entry)
        else:
            raise AgentError(f"{where}: {model!r} must be a known model name or an object with exactly the "
                             f"string fields {', '.join(fields)}")  # fmt: skip
    return table


def tool_versions(model: str, table: dict[str, ToolVersions] | None = None) -> ToolVersions:
    """The tool set of ``model``; an unknown model is refused with the list of known ones."""
    table = TOOL_TABLE if table is None else table
    dated = _DATED.match(model)
    for name in (model, dated.group("base") if dated else None):
        if name in table:
            return table[name]
    raise AgentError(
        f"unknown Claude model {model!r}: its computer-use tool version is not known. Known models: "
        f"{', '.join(sorted(table))}. Add it in a JSON file named by ${TOOLS_VARIABLE} or --claude-tools "
        '(e.g. {"' + model + '": "claude-opus-4-7"} for the same tools as that model).'
    )


def parse_thinking(value, model: str) -> dict | None:
    """The request's ``thinking`` object: None / "off" -> None (no thinking); an integer (or its text) ->
    a budget; "adaptive"; "paper" -> the paper's harness (adaptive on Opus 4.7+, else 3,584 tokens)."""
    if value is None or value is False or (isinstance(value, str) and value.strip().lower() in ("", "off", "none")):
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "paper":
            dated = _DATED.match(model)
            base = dated.group("base") if dated else model
            return {"type": "adaptive"} if base in ADAPTIVE_MODELS else parse_thinking(PAPER_THINKING_BUDGET, model)
        if text == "adaptive":
            return {"type": "adaptive"}
        if not text.isdigit():
            raise AgentError(f"thinking {value!r} (expected off, adaptive, paper or a token budget such as 4096)")
        value = int(text)
    if isinstance(value, bool) or not isinstance(value, int):
        raise AgentError(f"thinking {value!r} (expected off, adaptive, paper or a token budget such as 4096)")
    if value < MIN_THINKING_BUDGET:
        raise AgentError(f"thinking budget {value}: the API takes at least {MIN_THINKING_BUDGET} tokens")
    return {"type": "enabled", "budget_tokens": value}


def parse_display(value) -> tuple[int, int] | None:
    """``"1280x720"`` or (1280, 720) -> (1280, 720); ``"fit"`` -> None (the screen fitted within 1280x800)."""
    if value is None or value == "fit":
        return None
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", value)
        if not match:
            raise AgentError(f"display {value!r} (expected WIDTHxHEIGHT such as 1280x720, or fit)")
        value = (int(match.group(1)), int(match.group(2)))
    width, height = value
    if width < 1 or height < 1:
        raise AgentError(f"display {width}x{height}: both sides must be at least 1 pixel")
    return int(width), int(height)


class AnthropicAgent(ProviderAgent):
    name = "anthropic"
    default_model = "claude-sonnet-4-6"
    key_variables = ("ANTHROPIC_API_KEY",)
    # 8,192 output tokens as the paper's harness; a reply cut off there is asked again at 32,000 (every
    # Claude 4 model takes at least that much output). Effort is the API's output_config.effort.
    defaults = {"max_output_tokens": 8192, "retry_output_tokens": 32000, "reasoning_effort": None,
                "temperature": None}  # fmt: skip
    reasoning_efforts = ("low", "medium", "high", "xhigh", "max")
    # The Messages API of the pinned SDK takes no sampling parameters (current models refuse them).
    takes_temperature = False

    def __init__(self, model=None, *, display: tuple[int, int] | str | None = PAPER_DISPLAY,
                 image_drop_chunk: int = 1, tool_table: dict | None = None, claude_tools: str | None = None,
                 thinking=None, **kwargs):  # fmt: skip
        """``display``: the size declared to the model: the paper's 1280x720 (default), any WxH, or "fit"
        (the screen fitted within 1280x800, keeping its shape). ``image_drop_chunk``: screenshots beyond
        the window leave this many at a time (1, the paper's harness). ``claude_tools``: a JSON file of
        extra model -> tool set entries (else $MYPCBENCH_CLAUDE_TOOLS). ``thinking``: off (default), a
        token budget, "adaptive" or "paper" (see parse_thinking); the output budgets must exceed it."""
        super().__init__(model, **kwargs)
        self.thinking = parse_thinking(thinking, self.model)
        budget = (self.thinking or {}).get("budget_tokens")
        if budget is not None:
            for name in ("max_output_tokens", "retry_output_tokens"):
                limit = getattr(self, name)
                if limit and limit <= budget:
                    raise AgentError(f"thinking budget {budget}: {name} ({limit}) must be larger (max_tokens counts "
                                     "the thinking too)")  # fmt: skip
        table = tool_table if tool_table is not None else load_tool_table(claude_tools, kwargs.get("environ"))
        self.tools_version = tool_versions(self.model, table)
        self.display = parse_display(display)
        if image_drop_chunk < 1:
            raise AgentError(f"image drop chunk: {image_drop_chunk} (expected at least 1)")
        self.image_drop_chunk = int(image_drop_chunk)
        import anthropic

        self.sdk = anthropic
        self.client = anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                          max_retries=self.max_retries)  # fmt: skip
        self.reset_conversation()

    def protocol(self) -> dict:
        return {
            **super().protocol(),
            "display": f"{self.display[0]}x{self.display[1]}" if self.display else "fit",
            "image_drop_chunk": self.image_drop_chunk,
            "tools": asdict(self.tools_version),
            "thinking": self.thinking or "off",
        }

    def reset_conversation(self) -> None:
        self.history: list[dict] = []
        # (tool_use id, kind, text result, is_error) owed a reply
        self.pending: list[tuple[str, str, str | None, bool]] = []

    def display_for(self, screen) -> tuple[int, int]:
        return self.display or fit_within(tuple(screen), MAX_DISPLAY)

    def tools(self, display) -> list[dict]:
        versions = self.tools_version
        return [
            {
                "type": versions.computer,
                "name": "computer",
                "display_width_px": display[0],
                "display_height_px": display[1],
            },  # fmt: skip
            {"type": versions.bash, "name": "bash"},
            {"type": versions.editor, "name": versions.editor_name},
        ]

    # ------------------------------------------------------------ one turn

    def _next_user_message(self, instruction, screenshot: bytes) -> dict:
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(screenshot)}}
        if not self.history:
            return {"role": "user", "content": [{"type": "text", "text": instruction}, image]}
        results: list[dict] = []
        gave_image = False
        for tool_id, kind, text, is_error in self.pending:
            if kind == "computer" and not gave_image:
                # One screenshot, taken after the whole batch, answers the last computer call; the others
                # get a short note so each tool_use has its tool_result.
                results.append({"type": "tool_result", "tool_use_id": tool_id, "content": [image]})
                gave_image = True
            elif kind == "computer":
                results.append({"type": "tool_result", "tool_use_id": tool_id,
                                "content": [{"type": "text", "text": "done; see the next screenshot"}]})  # fmt: skip
            else:
                result: dict = {"type": "tool_result", "tool_use_id": tool_id,
                          "content": [{"type": "text", "text": text or "(no output)"}]}  # fmt: skip
                if is_error:
                    result["is_error"] = True  # the model is told the call failed, and why
                results.append(result)
        # A resumed session: the user's words come after every tool_result (the API wants those first).
        told = [{"type": "text", "text": self.user_message}] if self.user_message else []
        if gave_image:
            # the screenshot answers the last computer call: move it last so it is the freshest block
            results.sort(key=lambda block: block["content"][0]["type"] == "image")
            results += told
        else:
            results += [*told, image]
        return {"role": "user", "content": results}

    def _windowed(self, messages: list[dict]) -> list[dict]:
        """A copy where the oldest images beyond ``screenshot_window`` become a note, dropped
        ``image_drop_chunk`` at a time (see images_to_drop)."""

        def is_image(item) -> bool:
            return isinstance(item, dict) and item.get("type") == "image"

        total = 0
        for message in messages:
            if message["role"] == "user" and not isinstance(message["content"], str):
                for block in message["content"]:
                    total += is_image(block)
                    if block.get("type") == "tool_result":
                        total += sum(is_image(item) for item in block.get("content", []))
        drop = images_to_drop(total, self.screenshot_window, min(self.image_drop_chunk, self.screenshot_window))
        removed = {"type": "text", "text": IMAGE_REMOVED}

        def keep_or_drop(item):
            nonlocal drop
            if is_image(item) and drop > 0:
                drop -= 1
                return dict(removed)
            return item

        out = []
        for message in messages:
            content = message["content"]
            if isinstance(content, str) or message["role"] != "user":
                out.append(message)
                continue
            blocks = []
            for block in content:
                if block.get("type") == "tool_result":
                    block = {**block, "content": [keep_or_drop(item) for item in block.get("content", [])]}
                else:
                    block = keep_or_drop(block)
                blocks.append(block)
            out.append({**message, "content": blocks})
        # cache the conversation up to the newest user block: the next turn re-reads that prefix
        last = out[-1]["content"][-1]
        out[-1]["content"][-1] = {**last, "cache_control": {"type": "ephemeral"}}
        return out

    def take_turn(self, instruction, observation):
        screen = tuple(observation["screen_size"])
        display = self.display_for(screen)
        user = self._next_user_message(instruction, png_at(observation["screenshot"], display))
        messages = self._windowed([*self.history, user])
        system = [{"type": "text", "text": self.system_prompt(display), "cache_control": {"type": "ephemeral"}}]
        options: dict = {}
        if self.reasoning_effort:
            options["output_config"] = {"effort": self.reasoning_effort}
        if self.thinking:
            options["thinking"] = dict(self.thinking)  # never beside a temperature (the agent sends none)

        def call(budget):
            try:
                # The SDK types system, tools and messages as TypedDicts; ours are built as plain dicts.
                reply = self.client.beta.messages.create(
                    model=self.model, max_tokens=budget, system=system, tools=self.tools(display),  # type: ignore[arg-type]
                    messages=messages, betas=[self.tools_version.beta], **options,  # type: ignore[arg-type]
                )  # fmt: skip
            except self.sdk.APIStatusError as exc:
                raise ProviderCallError(exc.status_code, _message(exc)) from exc
            except self.sdk.APIConnectionError as exc:
                raise ProviderCallError(None, f"{type(exc).__name__}: {exc}") from exc
            usage = reply.usage
            read = usage.cache_read_input_tokens or 0
            write = usage.cache_creation_input_tokens or 0
            self.add_usage(input_tokens=usage.input_tokens + read + write, cached_tokens=read,
                           cache_write_tokens=write, output_tokens=usage.output_tokens, api_calls=1)  # fmt: skip
            return reply

        def truncated(reply) -> str:
            # a tool call cut off mid-input would run with half its arguments; a text cut off is half an answer
            if reply.stop_reason in ("max_tokens", "model_context_window_exceeded"):
                return f"stop_reason {reply.stop_reason}"
            return ""

        reply = self.call_within_budget(call, truncated)
        self.messages.append({"role": "user", "content": strip_images(user["content"])})
        assistant = [block.model_dump(exclude_none=True) for block in reply.content]
        self.history += [user, {"role": "assistant", "content": assistant}]
        self.user_message = ""  # sent: it is in the history now
        return self._act(reply.content, Scale.between(display, screen))

    def _act(self, blocks, scale: Scale) -> tuple[str, list[str]]:
        texts, actions, self.pending = [], [], []
        for block in blocks:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                tool_input = dict(block.input or {})
                if block.name == "computer":
                    try:
                        actions += from_anthropic(tool_input, scale)
                        self.pending.append((block.id, "computer", None, False))
                    except (TranslationError, KeyError, TypeError, ValueError) as exc:
                        self.pending.append((block.id, "tool", f"error: the action was not run: {exc}", True))
                elif block.name == "bash":
                    self.pending.append((block.id, "bash", self._bash(tool_input), False))
                elif block.name == self.tools_version.editor_name:
                    output, code = self.run_editor(tool_input)
                    self.pending.append((block.id, "editor", output if code == 0 else f"error: {output}", code != 0))
                else:
                    self.pending.append((block.id, "tool", f"error: there is no tool named {block.name!r}", True))
        return self.finish_turn("\n".join(texts), actions, len(self.pending))

    def _bash(self, tool_input: dict) -> str:
        if tool_input.get("restart"):
            return "the shell was restarted (each command runs in a fresh shell)"
        output, code = self.run_shell(str(tool_input.get("command", "")))
        return output if code == 0 else f"{output}\n[exit code {code}]"


def _message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return f"{error.get('type', '')}: {error['message']}".strip(": ")
    return str(exc)
