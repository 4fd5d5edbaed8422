"""OpenAI Responses computer use with the shell tool over the openai SDK: batched actions, pending
safety checks acknowledged, turns chained with previous_response_id, shell results sent back as
shell_call_output. Screenshots go at the screen's own resolution, so coordinates need no scaling."""

from harness.agents.common import ProviderAgent, ProviderCallError, b64, strip_images, truncate
from harness.translate import TranslationError, from_openai

SHELL_OUTPUT_LIMIT = 8192


class OpenAIAgent(ProviderAgent):
    name = "openai"
    default_model = "gpt-5.4"
    key_variables = ("OPENAI_API_KEY",)

    def __init__(self, model=None, *, reasoning_effort: str | None = None, **kwargs):
        kwargs.setdefault("output_limit", SHELL_OUTPUT_LIMIT)
        super().__init__(model, **kwargs)
        import openai

        self.sdk = openai
        self.client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                    max_retries=self.max_retries)  # fmt: skip
        self.reasoning_effort = reasoning_effort
        self.preview = self.model.startswith("computer-use-preview")
        self.reset_conversation()

    def reset_conversation(self) -> None:
        self.previous_id: str | None = None
        self.pending: list[dict] = []  # items owed to the model: computer_call_output needs the next screenshot

    def tools(self, screen) -> list[dict]:
        if self.preview:
            return [{"type": "computer_use_preview", "display_width": screen[0], "display_height": screen[1],
                     "environment": "linux"}]  # fmt: skip
        return [{"type": "computer"}, {"type": "shell", "environment": {"type": "local"}}]

    def _input(self, instruction, screenshot: bytes) -> list[dict]:
        image_url = f"data:image/png;base64,{b64(screenshot)}"
        if self.previous_id is None:
            return [{"role": "user", "content": [{"type": "input_text", "text": instruction},
                                                 {"type": "input_image", "image_url": image_url,
                                                  "detail": "original"}]}]  # fmt: skip
        items, gave_image = [], False
        for item in self.pending:
            if item["type"] == "computer_call_output":
                item = {**item, "output": {"type": "computer_screenshot", "image_url": image_url}}
                gave_image = True
            items.append(item)
        if not gave_image:
            # Only shell calls were answered: the model still gets to see the screen as it is now.
            items.append({"role": "user", "content": [{"type": "input_image", "image_url": image_url,
                                                       "detail": "original"}]})  # fmt: skip
        return items

    def take_turn(self, instruction, observation):
        screen = tuple(observation["screen_size"])
        items = self._input(instruction, observation["screenshot"])
        params = {"model": self.model, "input": items, "tools": self.tools(screen), "truncation": "auto",
                  "max_output_tokens": self.max_output_tokens,
                  "instructions": self.system_prompt(screen)}  # fmt: skip
        if self.previous_id:
            params["previous_response_id"] = self.previous_id
        if self.reasoning_effort:
            params["reasoning"] = {"effort": self.reasoning_effort, "summary": "auto"}
        try:
            response = self.client.responses.create(**params)
        except self.sdk.APIStatusError as exc:
            raise ProviderCallError(exc.status_code, _message(exc)) from exc
        except self.sdk.APIConnectionError as exc:
            raise ProviderCallError(None, f"{type(exc).__name__}: {exc}") from exc
        self.messages.append({"role": "user", "content": strip_images(items)})
        self.previous_id = response.id
        usage = response.usage
        if usage is not None:
            cached = getattr(usage.input_tokens_details, "cached_tokens", 0) or 0
            self.add_usage(input_tokens=usage.input_tokens, cached_tokens=cached, output_tokens=usage.output_tokens)
        self.add_usage(api_calls=1)
        return self._act(response.output)

    def _act(self, output) -> tuple[str, list[str]]:
        texts, actions, self.pending = [], [], []
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
                    # model did not plan for. It learns why from the next screenshot's note.
                    texts.append(f"[harness: dropped an action batch: {exc}]")
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
