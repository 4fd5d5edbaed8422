"""An agent for open-weight models served behind an OpenAI-compatible chat endpoint (vLLM): the tools
are declared in the system prompt and the model answers with Qwen-style ``<tool_call>`` blocks (XML
parameters or JSON), parsed here; a ``bash`` tool runs in the guest. Coordinates follow one of the two
Qwen conventions (``coordinate_type``): "relative", Qwen3-VL's 0-999 grid over the screenshot, or
"absolute", Qwen2.5-VL's pixels of the screenshot resized by smart_resize (1280x800 is sent as 1260x784)
and scaled back to the screen.

Thinking models: tool calls are read only after the last ``</think>`` (drafts inside the thought never
run), and only the answer after it stays in the conversation. The server is expected to be vLLM with
``--reasoning-parser qwen3`` (the thought then comes apart in ``reasoning``) and WITHOUT
``--enable-auto-tool-choice`` / ``--tool-call-parser`` (the calls must stay in the content, where this
agent parses them); the README's agents section gives the full launch line."""

import json
import re

from harness import safejson
from harness.actions import (
    QWEN_ACTIONS,
    QWEN_COORDINATE_TYPES,
    QWEN_MAX_SCROLL_PIXELS,
    SCROLL_PIXELS_PER_CLICK,
    TranslationError,
    from_qwen,
    qwen_model_size,
)
from harness.agents.base import AgentError
from harness.agents.common import ProviderAgent, ProviderCallError, b64, images_to_drop, png_at, strip_images

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
                "text": {
                    "type": "string",
                    "description": 'for type and answer; for a click, keys held during it (e.g. "ctrl" or '
                    '"ctrl+shift")',
                },
                "coordinate": {"type": "array", "items": {"type": "number"}, "description": coordinate},
                "pixels": {
                    "type": "number",
                    "description": f"for scroll / hscroll: screen pixels, positive up / right; scrolled in mouse-wheel "
                    f"clicks of about {SCROLL_PIXELS_PER_CLICK} px, at most {QWEN_MAX_SCROLL_PIXELS} px per call",
                },
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
_THINK_END = "</think>"
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


def split_thinking(content: str) -> tuple[str, str, bool]:
    """(thought, answer, thinking finished) of a reply whose thought the server left in the content:
    everything up to the last ``</think>`` is thought; an opened ``<think>`` never closed means the
    reply was cut off while thinking."""
    content = content or ""
    if _THINK_END in content:
        thought, _, answer = content.rpartition(_THINK_END)
        return thought.replace("<think>", "", 1).strip(), answer.strip(), True
    if "<think>" in content:
        return content.split("<think>", 1)[1].strip(), "", False
    return "", content, True


def parse_tool_calls(text: str) -> tuple[str, list[tuple[str, dict]]]:
    """(the reply's text outside the calls, [(function name, arguments), ...]). Accepts the XML form and
    the JSON form ``{"name": ..., "arguments": {...}}``. A call that cannot be read is an AgentError."""
    calls = []
    for block in _TOOL_CALL.findall(text):
        block = block.strip()
        if block.startswith("{"):
            try:
                data = safejson.loads(block)
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
                args[key] = safejson.loads(raw)
            except ValueError:
                args[key] = raw
        calls.append((function.group(1), args))
    return _TOOL_CALL.sub("", text).strip(), calls


# Qwen3.5's model card, thinking mode for general tasks: temperature 1.0, top_p 0.95, top_k 20, min_p 0,
# presence_penalty 1.5, and an output budget of 32,768 tokens (81,920 for the hardest problems). Greedy
# decoding (temperature 0, the paper's harness) is advised against for thinking models.
QWEN_SAMPLING = {"top_p": 0.95, "top_k": 20, "min_p": 0.0, "presence_penalty": 1.5}


class OpenAICompatibleAgent(ProviderAgent):
    name = "openai_compatible"
    default_model = ""
    key_variables = ("OPENAI_COMPATIBLE_API_KEY",)
    defaults = {"max_output_tokens": 32768, "retry_output_tokens": 81920, "reasoning_effort": None,
                "temperature": 1.0}  # fmt: skip
    # "none" turns thinking off through the chat template (enable_thinking); "on" turns it on.
    reasoning_efforts = ("none", "on")
    paper_dual_tool_hint = True

    def __init__(self, model=None, *, api_key=None, base_url=None, coordinate_type: str = "relative",
                 image_drop_chunk: int = 10, environ=None, **kwargs):  # fmt: skip
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
        if image_drop_chunk < 1:
            raise AgentError(f"image drop chunk: {image_drop_chunk} (expected at least 1)")
        # the paper's Qwen harness folds old screenshots away ten at a time
        self.image_drop_chunk = int(image_drop_chunk)

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
        self.sampling = dict(QWEN_SAMPLING)
        self.reset_conversation()

    def protocol(self) -> dict:
        return {**super().protocol(), **self.sampling, "coordinate_type": self.coordinate_type,
                "image_drop_chunk": self.image_drop_chunk}  # fmt: skip

    def reset_conversation(self) -> None:
        self.history: list[dict] = []
        self.tool_responses: list[str] = []

    def _user_message(self, instruction, screenshot: bytes) -> dict:
        image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(screenshot)}"}}
        if not self.history:
            return {"role": "user", "content": [{"type": "text", "text": instruction}, image]}
        texts = [{"type": "text", "text": f"<tool_response>\n{r}\n</tool_response>"} for r in self.tool_responses]
        if self.user_message:  # a resumed session: the user's words after the tool responses
            texts.append({"type": "text", "text": self.user_message})
        return {"role": "user", "content": [*texts, image]}

    def _windowed(self, messages: list[dict]) -> list[dict]:
        """Screenshots beyond the window collapsed, oldest first, ``image_drop_chunk`` at a time (at most
        the window: the newest screenshot is always sent)."""

        def is_image(part) -> bool:
            return part.get("type") == "image_url"

        total = sum(is_image(part) for m in messages if not isinstance(m["content"], str) for part in m["content"])
        drop = images_to_drop(total, self.screenshot_window, min(self.image_drop_chunk, self.screenshot_window))
        out = []
        for message in messages:
            if isinstance(message["content"], str):
                out.append(message)
                continue
            parts = []
            for part in message["content"]:
                if drop and is_image(part):
                    part, drop = {"type": "text", "text": COLLAPSED}, drop - 1
                parts.append(part)
            out.append({**message, "content": parts})
        return out

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
        extra: dict = {"top_k": self.sampling["top_k"], "min_p": self.sampling["min_p"]}  # vLLM's own sampling fields
        if self.reasoning_effort:
            extra["chat_template_kwargs"] = {"enable_thinking": self.reasoning_effort != "none"}

        def call(budget):
            try:
                # The SDK types messages as TypedDicts; ours are built as plain dicts.
                completion = self.client.chat.completions.create(
                    model=self.model, messages=messages, max_tokens=budget, temperature=self.temperature,  # type: ignore[arg-type]
                    top_p=self.sampling["top_p"], presence_penalty=self.sampling["presence_penalty"],
                    extra_body=extra,
                )  # fmt: skip
            except self.sdk.APIStatusError as exc:
                raise ProviderCallError(exc.status_code, _message(exc)) from exc
            except self.sdk.APIConnectionError as exc:
                raise ProviderCallError(None, f"{type(exc).__name__}: {exc}") from exc
            usage = completion.usage
            if usage is not None:
                details = usage.prompt_tokens_details
                self.add_usage(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens,
                               cached_tokens=(details.cached_tokens if details else 0) or 0)  # fmt: skip
            self.add_usage(api_calls=1)
            return completion

        def truncated(completion) -> str:
            choice = completion.choices[0] if completion.choices else None
            if choice is None:
                return ""
            if choice.finish_reason == "length":
                return "finish_reason length"
            if not split_thinking(choice.message.content or "")[2]:
                return "the thinking was never closed with </think>"
            return ""

        completion = self.call_within_budget(call, truncated)
        self.messages.append({"role": "user", "content": strip_images(user["content"])})
        message = completion.choices[0].message if completion.choices else None
        content = (message.content or "") if message is not None else ""
        thought, answer, _ = split_thinking(content)
        # with vLLM's reasoning parser the thought comes apart, as `reasoning` (older: `reasoning_content`)
        parsed = getattr(message, "reasoning", None) or getattr(message, "reasoning_content", None)
        thought = "\n".join(t for t in (parsed if isinstance(parsed, str) else "", thought) if t)
        if thought:
            self.messages.append({"role": "thinking", "content": thought})
        # only the answer stays in the conversation: the model card asks for history without past thoughts
        self.history += [user, {"role": "assistant", "content": answer}]
        self.user_message = ""  # sent
        return self._act(answer, screen, model_size)

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
