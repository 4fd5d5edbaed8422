"""OpenAI Responses computer use with the shell tool over the openai SDK: batched actions, pending
safety checks acknowledged, shell results sent back as shell_call_output, turns chained with
previous_response_id (the paper's harness) or the windowed conversation sent whole. Screenshots go at
the screen's own resolution, so coordinates need no scaling."""

from harness.actions import TranslationError, from_openai
from harness.agents.base import AgentError
from harness.agents.common import (
    IMAGE_REMOVED,
    ProviderAgent,
    ProviderCallError,
    b64,
    images_to_drop,
    strip_images,
    truncate,
)

SHELL_OUTPUT_LIMIT = 8192
# How the conversation reaches the model. With previous_response_id the server keeps every screenshot:
# the screenshot window cannot be applied (the API offers only truncation "auto", which drops whole
# turns once the context is full). "windowed" stops chaining and sends the conversation each turn.
CONTEXTS = {
    "chained": "previous_response_id; the server keeps every screenshot (the paper's harness; the screenshot "
    "window is not applied)",
    "windowed": "the whole conversation each turn with only the newest screenshots; an older one answering a "
    "computer call becomes a 1x1 placeholder image (the API takes nothing else there), in a message a note",
}
# A 1x1 grey PNG: what an old computer_call_output shows once its screenshot left the window.
PLACEHOLDER_PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCB3UNq9AAAAABJRU5ErkJggg=="
)


class OpenAIAgent(ProviderAgent):
    name = "openai"
    default_model = "gpt-5.4"
    key_variables = ("OPENAI_API_KEY",)
    # Reasoning tokens count against max_output_tokens: OpenAI's reasoning guide advises reserving at
    # least 25,000 tokens for reasoning and output (the paper's 1,500 cut replies off). Effort "high" as
    # the paper's harness; temperature is not sent (reasoning models refuse it).
    defaults = {"max_output_tokens": 25000, "retry_output_tokens": 64000, "reasoning_effort": "high",
                "temperature": None}  # fmt: skip
    reasoning_efforts = ("none", "minimal", "low", "medium", "high", "xhigh")
    paper_dual_tool_hint = True

    def __init__(self, model=None, *, context: str = "chained", image_drop_chunk: int = 1, **kwargs):
        if context not in CONTEXTS:
            raise AgentError(f"OpenAI context {context!r} (expected one of: "
                             + "; ".join(f"{k} = {v}" for k, v in CONTEXTS.items()) + ")")  # fmt: skip
        if image_drop_chunk < 1:
            raise AgentError(f"image drop chunk: {image_drop_chunk} (expected at least 1)")
        self.context, self.image_drop_chunk = context, int(image_drop_chunk)
        kwargs.setdefault("output_limit", SHELL_OUTPUT_LIMIT)
        super().__init__(model, **kwargs)
        import openai

        self.sdk = openai
        self.client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                    max_retries=self.max_retries)  # fmt: skip
        self.preview = self.model.startswith("computer-use-preview")
        if self.preview and kwargs.get("reasoning_effort") is None:
            self.reasoning_effort = None  # the preview model takes no effort setting unless asked for one
        self.reset_conversation()

    def protocol(self) -> dict:
        windowed = self.context == "windowed"
        return {**super().protocol(), "context": self.context, "screenshot_window_applied": windowed,
                **({"image_drop_chunk": self.image_drop_chunk} if windowed else {})}  # fmt: skip

    def reset_conversation(self) -> None:
        self.previous_id: str | None = None
        self.started = False
        self.transcript: list[dict] = []  # windowed context: every item sent and received so far
        self.pending: list[dict] = []  # items owed to the model: computer_call_output needs the next screenshot
        self.failures: list[str] = []  # action batches that could not be translated, told to the model next turn

    def tools(self, screen) -> list[dict]:
        if self.preview:
            return [{"type": "computer_use_preview", "display_width": screen[0], "display_height": screen[1],
                     "environment": "linux"}]  # fmt: skip
        return [{"type": "computer"}, {"type": "shell", "environment": {"type": "local"}}]

    def _input(self, instruction, screenshot: bytes) -> list[dict]:
        image_url = f"data:image/png;base64,{b64(screenshot)}"
        if not self.started:
            return [{"role": "user", "content": [{"type": "input_text", "text": instruction},
                                                 {"type": "input_image", "image_url": image_url,
                                                  "detail": "original"}]}]  # fmt: skip
        items, gave_image = [], False
        for item in self.pending:
            if item["type"] == "computer_call_output":
                item = {**item, "output": {"type": "computer_screenshot", "image_url": image_url}}
                gave_image = True
            items.append(item)
        notes = [{"type": "input_text", "text": failure} for failure in self.failures]
        if self.user_message:  # a resumed session: the user's words, after the call outputs they follow
            notes.insert(0, {"type": "input_text", "text": self.user_message})
        if not gave_image:
            # Only shell calls were answered: the model still gets to see the screen as it is now.
            notes.append({"type": "input_image", "image_url": image_url, "detail": "original"})
        if notes:
            # computer_call_output carries only a screenshot: what failed goes in a user message after it
            items.append({"role": "user", "content": notes})
        return items

    def _windowed(self, items: list[dict]) -> list[dict]:
        """The conversation with screenshots beyond the window replaced, oldest first, in chunks."""

        def images(item) -> int:
            if item.get("type") == "computer_call_output":
                return 1
            content = item.get("content")
            return sum(part.get("type") == "input_image" for part in content) if isinstance(content, list) else 0

        chunk = min(self.image_drop_chunk, self.screenshot_window)
        drop = images_to_drop(sum(images(item) for item in items), self.screenshot_window, chunk)
        out = []
        for item in items:
            if drop and item.get("type") == "computer_call_output":
                item = {**item, "output": {"type": "computer_screenshot", "image_url": PLACEHOLDER_PNG}}
                drop -= 1
            elif drop and images(item):
                parts = []
                for part in item["content"]:
                    if drop and part.get("type") == "input_image":
                        part, drop = {"type": "input_text", "text": IMAGE_REMOVED}, drop - 1
                    parts.append(part)
                item = {**item, "content": parts}
            out.append(item)
        return out

    def take_turn(self, instruction, observation):
        screen = tuple(observation["screen_size"])
        items = self._input(instruction, observation["screenshot"])
        sent = self._windowed([*self.transcript, *items]) if self.context == "windowed" else items
        params = {"model": self.model, "input": sent, "tools": self.tools(screen), "truncation": "auto",
                  "max_output_tokens": self.max_output_tokens,
                  "instructions": self.system_prompt(screen)}  # fmt: skip
        if self.previous_id and self.context == "chained":
            params["previous_response_id"] = self.previous_id
        if self.reasoning_effort:
            params["reasoning"] = {"effort": self.reasoning_effort, "summary": "auto"}
        if self.temperature is not None:
            params["temperature"] = self.temperature

        def call(budget):
            try:
                response = self.client.responses.create(**{**params, "max_output_tokens": budget})
            except self.sdk.APIStatusError as exc:
                raise ProviderCallError(exc.status_code, _message(exc)) from exc
            except self.sdk.APIConnectionError as exc:
                raise ProviderCallError(None, f"{type(exc).__name__}: {exc}") from exc
            usage = response.usage
            if usage is not None:
                cached = getattr(usage.input_tokens_details, "cached_tokens", 0) or 0
                self.add_usage(input_tokens=usage.input_tokens, cached_tokens=cached,
                               output_tokens=usage.output_tokens)  # fmt: skip
            self.add_usage(api_calls=1)
            return response

        def truncated(response) -> str:
            # reasoning tokens count against max_output_tokens: an incomplete response may hold no output at all
            if response.status == "incomplete":
                details = response.incomplete_details
                return f"status incomplete, reason {getattr(details, 'reason', None) or 'unknown'}"
            return ""

        response = self.call_within_budget(call, truncated)
        self.messages.append({"role": "user", "content": strip_images(items)})
        self.previous_id, self.started = response.id, True
        self.user_message = ""  # sent
        if self.context == "windowed":
            self.transcript += [*items, *(item.model_dump(exclude_none=True) for item in response.output)]
        return self._act(response.output)

    def _act(self, output) -> tuple[str, list[str]]:
        texts, actions, self.pending, self.failures = [], [], [], []
        calls = 0
        for item in output:
            kind = item.type
            if kind == "message":
                texts += [part.text for part in item.content if getattr(part, "type", "") == "output_text"]
            elif kind == "computer_call":
                calls += 1
                batch = list(item.actions or []) or ([item.action] if item.action else [])
                try:
                    commands = []
                    for action in batch:
                        commands += from_openai(action.model_dump(exclude_none=True))
                    actions += commands
                except (TranslationError, KeyError, TypeError, ValueError) as exc:
                    # The batch is dropped whole: half of a batch could leave the screen in a state the
                    # model did not plan for. The model is told why in the next request.
                    texts.append(f"[harness: dropped an action batch: {exc}]")
                    self.failures.append(f"None of the actions of your last computer call were run: {exc}. "
                                         "The screenshot shows the screen unchanged by them.")  # fmt: skip
                checks = [check.model_dump(exclude_none=True) for check in item.pending_safety_checks or []]
                self.pending.append({"type": "computer_call_output", "call_id": item.call_id,
                                     "acknowledged_safety_checks": checks})  # fmt: skip
            elif kind == "shell_call":
                calls += 1
                self.pending.append(self._shell(item))
        return self.finish_turn("\n".join(texts), actions, calls)

    def _shell(self, item) -> dict:
        limit = min(item.action.max_output_length or self.output_limit, self.output_limit)
        results = []
        for command in item.action.commands:
            if self._execute is None:
                stdout, stderr, code = "", "no shell is attached to this agent", 127
            else:
                from harness.control import ControlError

                try:
                    result = self._execute(command, shell=True)
                    stdout, stderr, code = result.output or "", result.error or "", result.returncode
                except ControlError as exc:
                    stdout, stderr, code = "", f"the computer did not run the command: {exc}", 1
                    result = None
                if result is not None and result.timed_out:
                    results.append({"stdout": truncate(stdout, limit), "stderr": truncate(stderr, limit),
                                    "outcome": {"type": "timeout"}})  # fmt: skip
                    continue
            results.append({"stdout": truncate(stdout, limit), "stderr": truncate(stderr, limit),
                            "outcome": {"type": "exit", "exit_code": code}})  # fmt: skip
        return {"type": "shell_call_output", "call_id": item.call_id, "output": results}


def _message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc)
