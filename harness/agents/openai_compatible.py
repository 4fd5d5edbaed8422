"""An agent for open-weight models served behind an OpenAI-compatible chat endpoint (vLLM): the tools
are declared in the system prompt and the model answers with Qwen-style ``<tool_call>`` blocks (XML
parameters or JSON), parsed here; a ``bash`` tool runs in the guest. Coordinates follow one of the two
Qwen conventions (``coordinate_type``): "relative", Qwen3-VL's 0-999 grid over the screenshot, or
"absolute", Qwen2.5-VL's pixels of the screenshot resized by smart_resize (1280x800 is sent as 1260x784)
and scaled back to the screen."""

import json
import re

from harness.agents.base import AgentError
from harness.agents.common import ProviderAgent, ProviderCallError, b64, png_at, strip_images
from harness.translate import QWEN_ACTIONS, QWEN_COORDINATE_TYPES, TranslationError, from_qwen, qwen_model_size

COLLAPSED = "This screenshot has been collapsed."


def computer_use_tool(coordinate_type: str = "relative", model_size: tuple[int, int] = (1280, 800)) -> dict:
    """The ``computer_use`` function as declared to the model, its coordinates described in the model's convention."""
    if coordinate_type == "absolute":
        width, height = model_size
        where = (
            f"The screen's resolution is {width}x{height}. Coordinates are pixels of the screenshot: (0, 0) is the "
            f"top left corner, ({width - 1}, {height - 1}) the bottom right."
        )
        coordinate = f"[x, y] in pixels of the {width}x{height} screenshot"
    else:
        where = (
            "Coordinates are on a 0-999 grid relative to the screenshot: (0, 0) is the top left corner, "
            "(999, 999) the bottom right."
        )
        coordinate = "[x, y] on the 0-999 grid"
    return {
        "name": "computer_use",
        "description": f"Use the mouse and keyboard on the computer's screen. {where}",
        "parameters": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": sorted(QWEN_ACTIONS)},
                "keys": {"type": "array", "items": {"type": "string"}, "description": "for key"},
                "text": {"type": "string", "description": "for type and answer"},
                "coordinate": {"type": "array", "items": {"type": "number"}, "description": coordinate},
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

    def __init__(self, model=None, *, api_key=None, base_url=None, temperature: float = 0.0,
                 coordinate_type: str = "relative", environ=None, **kwargs):  # fmt: skip
        """``coordinate_type``: "relative" (Qwen3-VL, 0-999 grid) or "absolute" (Qwen2.5-VL, pixels of the
        smart_resize'd screenshot, which is what the model is then sent)."""
        import os

        if coordinate_type not in QWEN_COORDINATE_TYPES:
            raise AgentError(
                f"coordinate_type {coordinate_type!r} (expected one of: "
                + "; ".join(f"{name} = {what}" for name, what in QWEN_COORDINATE_TYPES.items())
                + ")"
            )
        self.coordinate_type = coordinate_type

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
        # absolute: the model is sent (and answers in pixels of) the screenshot as its processor resizes it
        model_size = qwen_model_size(screen, self.coordinate_type)
        screenshot = observation["screenshot"]
        if self.coordinate_type == "absolute":
            screenshot = png_at(screenshot, model_size)
        user = self._user_message(instruction, screenshot)
        tools = [computer_use_tool(self.coordinate_type, model_size), BASH]
        system = f"{self.system_prompt(model_size)}\n\n{tools_prompt(tools)}"
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
        return self._act(reply, screen, model_size)

    def _act(self, reply: str, screen, model_size) -> tuple[str, list[str]]:
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
                    actions += from_qwen(args, screen, self.coordinate_type, model_size)
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
