"""Anthropic computer use over the anthropic SDK: computer, bash and text editor tools, the tool
version and beta header chosen per model, screenshots scaled to the declared display and coordinates
scaled back, only the most recent screenshots kept in the conversation."""

import re
from dataclasses import dataclass

from harness.agents.common import IMAGE_REMOVED, ProviderAgent, ProviderCallError, b64, png_at, strip_images
from harness.translate import Scale, TranslationError, fit_within, from_anthropic

MAX_DISPLAY = (1280, 800)  # WXGA: sent unscaled by the API, so the model's pixels are ours up to the factor


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

# Sonnet 4.5, Haiku 4.5, Opus 4.1 and the first Claude 4 models take the 2025-01-24 tools; Opus 4.5+
# and Sonnet 4.6+ (and any model this table does not know yet) the newest.
_CLAUDE_4 = re.compile(r"claude-(?:(?:sonnet|haiku)-4-5|opus-4-1|(?:sonnet|opus)-4(?:-0)?(?:-\d{8}|$))")


def tool_versions(model: str) -> ToolVersions:
    name = model.lower()
    if "3-5" in name or "3.5" in name:
        return CLAUDE_35
    if "3-7" in name or "3.7" in name:
        return CLAUDE_37
    if _CLAUDE_4.search(name):
        return CLAUDE_4
    return NEWEST


class AnthropicAgent(ProviderAgent):
    name = "anthropic"
    default_model = "claude-sonnet-4-6"
    key_variables = ("ANTHROPIC_API_KEY",)

    def __init__(self, model=None, *, display: tuple[int, int] | None = None, **kwargs):
        """``display``: the size declared to the model; by default the screen fitted within 1280x800."""
        super().__init__(model, **kwargs)
        import anthropic

        self.sdk = anthropic
        self.client = anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                          max_retries=self.max_retries)  # fmt: skip
        self.tools_version = tool_versions(self.model)
        self.display = tuple(display) if display else None
        self.reset_conversation()

    def reset_conversation(self) -> None:
        self.history: list[dict] = []
        self.pending: list[tuple[str, str, str | None]] = []  # (tool_use id, kind, text result) owed a reply

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
        results = []
        gave_image = False
        for tool_id, kind, text in self.pending:
            if kind == "computer" and not gave_image:
                # One screenshot, taken after the whole batch, answers the last computer call; the others
                # get a short note so each tool_use has its tool_result.
                results.append({"type": "tool_result", "tool_use_id": tool_id, "content": [image]})
                gave_image = True
            elif kind == "computer":
                results.append({"type": "tool_result", "tool_use_id": tool_id,
                                "content": [{"type": "text", "text": "done; see the next screenshot"}]})  # fmt: skip
            else:
                results.append({"type": "tool_result", "tool_use_id": tool_id,
                                "content": [{"type": "text", "text": text or "(no output)"}]})  # fmt: skip
        if gave_image:
            # the screenshot answers the last computer call: move it last so it is the freshest block
            results.sort(key=lambda block: block["content"][0]["type"] == "image")
        else:
            results.append(image)
        return {"role": "user", "content": results}

    def _windowed(self, messages: list[dict]) -> list[dict]:
        """A copy where only the ``screenshot_window`` newest images remain; older ones become a note."""
        keep = self.screenshot_window
        out = []
        for message in reversed(messages):
            content = message["content"]
            if isinstance(content, str) or message["role"] != "user":
                out.append(message)
                continue
            blocks = []
            for block in reversed(content):
                if block.get("type") == "image":
                    block = block if keep > 0 else {"type": "text", "text": IMAGE_REMOVED}
                    keep -= block.get("type") == "image"
                elif block.get("type") == "tool_result":
                    inner = []
                    for item in block.get("content", []):
                        if item.get("type") == "image":
                            item = item if keep > 0 else {"type": "text", "text": IMAGE_REMOVED}
                            keep -= item.get("type") == "image"
                        inner.append(item)
                    block = {**block, "content": inner}
                blocks.append(block)
            out.append({**message, "content": list(reversed(blocks))})
        out.reverse()
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
        try:
            reply = self.client.beta.messages.create(
                model=self.model, max_tokens=self.max_output_tokens, system=system, tools=self.tools(display),
                messages=messages, betas=[self.tools_version.beta],
            )  # fmt: skip
        except self.sdk.APIStatusError as exc:
            raise ProviderCallError(exc.status_code, _message(exc)) from exc
        except self.sdk.APIConnectionError as exc:
            raise ProviderCallError(None, f"{type(exc).__name__}: {exc}") from exc
        self.messages.append({"role": "user", "content": strip_images(user["content"])})
        usage = reply.usage
        read = usage.cache_read_input_tokens or 0
        write = usage.cache_creation_input_tokens or 0
        self.add_usage(input_tokens=usage.input_tokens + read + write, cached_tokens=read, cache_write_tokens=write,
                       output_tokens=usage.output_tokens, api_calls=1)  # fmt: skip
        assistant = [block.model_dump(exclude_none=True) for block in reply.content]
        self.history += [user, {"role": "assistant", "content": assistant}]
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
                        self.pending.append((block.id, "computer", None))
                    except (TranslationError, KeyError, TypeError, ValueError) as exc:
                        self.pending.append((block.id, "tool", f"error: {exc}"))
                elif block.name == "bash":
                    self.pending.append((block.id, "bash", self._bash(tool_input)))
                elif block.name == self.tools_version.editor_name:
                    output, code = self.run_editor(tool_input)
                    self.pending.append((block.id, "editor", output if code == 0 else f"error: {output}"))
                else:
                    self.pending.append((block.id, "tool", f"error: there is no tool named {block.name!r}"))
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
