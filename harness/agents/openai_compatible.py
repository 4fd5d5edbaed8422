"""An agent for open-weight models served behind an OpenAI-compatible chat endpoint (vLLM): the tools
are declared in the system prompt and the model answers with Qwen-style ``<tool_call>`` blocks (XML
parameters or JSON), parsed here; coordinates are on a relative 0-999 grid; a ``bash`` tool runs in the guest."""

import json
import re

from harness.agents.base import AgentError
from harness.agents.common import ProviderAgent, ProviderCallError, b64, strip_images
from harness.translate import QWEN_ACTIONS, TranslationError, from_qwen

COLLAPSED = "This screenshot has been collapsed."
COMPUTER_USE = {
    "name": "computer_use",
    "description": "Use the mouse and keyboard on the computer's screen. Coordinates are on a 0-999 grid "
    "relative to the screenshot: (0, 0) is the top left corner, (999, 999) the bottom right.",
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": sorted(QWEN_ACTIONS)},
            "keys": {"type": "array", "items": {"type": "string"}, "description": "for key"},
            "text": {"type": "string", "description": "for type and answer"},
            "coordinate": {"type": "array", "items": {"type": "number"}, "description": "[x, y] on the 0-999 grid"},
            "pixels": {"type": "number", "description": "for scroll / hscroll: positive up / right"},
            "time": {"type": "number", "description": "for wait: seconds"},
            "status": {"type": "string", "enum": ["success", "failure"], "description": "for terminate"},
        },
        "required": ["action"],
    },
}
BASH = {
    "name": "bash",
    "description": "Run a non-interactive shell command on the computer and return its output.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
}
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_FUNCTION = re.compile(r"<function=([^>\s]+)>(.*?)(?:</function>|$)", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\s]+)>(.*?)</parameter>", re.DOTALL)


def tools_prompt(tools: list[dict]) -> str:
    listed = "\n".join(json.dumps({"type": "function", "function": tool}) for tool in tools)
    return (
        "# Tools\n\nYou may call one or more functions. They are listed here:\n<tools>\n"
        f"{listed}\n</tools>\n\nTo call a function, write:\n<tool_call>\n<function=NAME>\n"
        "<parameter=NAME>\nVALUE\n</parameter>\n</function>\n</tool_call>\n"
        "Values that are lists or numbers are written as JSON."
    )


def parse_tool_calls(text: str) -> tuple[str, list[tuple[str, dict]]]:
    """(the reply's text outside the calls, [(function name, arguments), ...]). Accepts the XML form and
    the JSON form ``{"name": ..., "arguments": {...}}``. A call that cannot be read is an AgentError."""
    calls = []
    for block in _TOOL_CALL.findall(text):
        block = block.strip()
        if block.startswith("{"):
            try:
                data = json.loads(block)
                calls.append((str(data["name"]), dict(data.get("arguments") or {})))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise AgentError(f"unreadable JSON tool call {block[:200]!r}: {exc}") from exc
            continue
        function = _FUNCTION.search(block)
        if function is None:
            raise AgentError(f"tool call without <function=...>: {block[:200]!r}")
        args = {}
        for key, raw in _PARAMETER.findall(function.group(2)):
            raw = raw.strip()
            try:
                args[key] = json.loads(raw)
            except json.JSONDecodeError:
                args[key] = raw
        calls.append((function.group(1), args))
    return _TOOL_CALL.sub("", text).strip(), calls


class OpenAICompatibleAgent(ProviderAgent):
    name = "openai_compatible"
    default_model = ""
    key_variables = ("OPENAI_COMPATIBLE_API_KEY",)

    def __init__(self, model=None, *, api_key=None, base_url=None, temperature: float = 0.0, environ=None,
                 **kwargs):  # fmt: skip
        import os

        environ = os.environ if environ is None else environ
        base_url = base_url or environ.get("OPENAI_BASE_URL")
        if not base_url:
            raise AgentError("the openai_compatible agent needs the server's URL: --base-url (or OPENAI_BASE_URL)")
        # vLLM takes any key unless started with --api-key; a missing one is not an error here.
        api_key = api_key or environ.get("OPENAI_COMPATIBLE_API_KEY") or "none"
        super().__init__(model, api_key=api_key, base_url=base_url, environ=environ, **kwargs)
        import openai

        self.sdk = openai
        self.client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                    max_retries=self.max_retries)  # fmt: skip
        self.temperature = temperature
        self.reset_conversation()

    def reset_conversation(self) -> None:
        self.history: list[dict] = []
        self.tool_responses: list[str] = []

    def _user_message(self, instruction, screenshot: bytes) -> dict:
        image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(screenshot)}"}}
        if not self.history:
            return {"role": "user", "content": [{"type": "text", "text": instruction}, image]}
        texts = [{"type": "text", "text": f"<tool_response>\n{r}\n</tool_response>"} for r in self.tool_responses]
        return {"role": "user", "content": [*texts, image]}

    def _windowed(self, messages: list[dict]) -> list[dict]:
        keep = self.screenshot_window
        out = []
        for message in reversed(messages):
            if isinstance(message["content"], str):
                out.append(message)
                continue
            parts = []
            for part in reversed(message["content"]):
                if part.get("type") == "image_url":
                    part = part if keep > 0 else {"type": "text", "text": COLLAPSED}
                    keep -= part.get("type") == "image_url"
                parts.append(part)
            out.append({**message, "content": list(reversed(parts))})
        return list(reversed(out))

    def take_turn(self, instruction, observation):
        screen = tuple(observation["screen_size"])
        user = self._user_message(instruction, observation["screenshot"])
        system = f"{self.system_prompt(screen)}\n\n{tools_prompt([COMPUTER_USE, BASH])}"
        messages = [{"role": "system", "content": system}, *self._windowed([*self.history, user])]
        try:
            completion = self.client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=self.max_output_tokens, temperature=self.temperature
            )
        except self.sdk.APIStatusError as exc:
            raise ProviderCallError(exc.status_code, _message(exc)) from exc
        except self.sdk.APIConnectionError as exc:
            raise ProviderCallError(None, f"{type(exc).__name__}: {exc}") from exc
        self.messages.append({"role": "user", "content": strip_images(user["content"])})
        usage = completion.usage
        if usage is not None:
            details = usage.prompt_tokens_details
            self.add_usage(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens,
                           cached_tokens=(details.cached_tokens if details else 0) or 0)  # fmt: skip
        self.add_usage(api_calls=1)
        reply = (completion.choices[0].message.content or "") if completion.choices else ""
        self.history += [user, {"role": "assistant", "content": reply}]
        return self._act(reply, screen)

    def _act(self, reply: str, screen) -> tuple[str, list[str]]:
        self.tool_responses = []
        try:
            text, calls = parse_tool_calls(reply)
        except AgentError as exc:
            self.tool_responses.append(f"error: {exc}")
            return self.finish_turn(reply, [], 1)
        actions = []
        for name, args in calls:
            if name == "bash":
                output, code = self.run_shell(str(args.get("command", "")))
                self.tool_responses.append(output if code == 0 else f"{output}\n[exit code {code}]")
            elif name == "computer_use":
                try:
                    actions += from_qwen(args, screen)
                except (TranslationError, KeyError, TypeError, ValueError) as exc:
                    self.tool_responses.append(f"error: {exc}")
                if args.get("action") == "answer" and args.get("text"):
                    text = f"{text}\n{args['text']}".strip()
            else:
                self.tool_responses.append(f"error: there is no function named {name!r} (computer_use, bash)")
        return self.finish_turn(text, actions, len(calls))


def _message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc)
