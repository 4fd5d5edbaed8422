"""Google Gemini computer use over google-genai: the computer_use tool (0-999 normalised coordinates)
plus a ``bash`` function run in the guest; every function response carries the screenshot taken after
the batch, and only the most recent screenshots stay in the conversation."""

from harness.actions import TranslationError, from_gemini
from harness.agents.base import AgentError
from harness.agents.common import IMAGE_REMOVED, STRIPPED, ProviderAgent, ProviderCallError

# Models before gemini-3.5 know only the browser environment and its action names.
BROWSER_ONLY = ("gemini-2.5-computer-use", "gemini-3-flash", "gemini-3.1-pro", "gemini-3-pro")
BASH_FUNCTION = {
    "name": "bash",
    "description": "Run a shell command on the computer (non-interactive) and return its output.",
    "parameters": {"type": "OBJECT", "properties": {"command": {"type": "STRING"}}, "required": ["command"]},
}


# What to do with a call whose safety_decision asks for the end user's confirmation. The documentation
# requires a person to confirm; an unattended benchmark has none, so by default the trajectory stops.
SAFETY_POLICIES = {
    "stop": "record the call and end the trajectory as an error, running nothing",
    "acknowledge": "run the call and answer safety_acknowledgement (no person confirmed it)",
}


class SafetyConfirmationRequired(AgentError):
    """The model asked for the end user's confirmation and the policy is to stop."""


class GeminiAgent(ProviderAgent):
    name = "gemini"
    default_model = "gemini-3.5-flash"
    key_variables = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    # Gemini 3 models write up to 65,536 output tokens (thoughts included); Google advises leaving the
    # temperature at its default (1.0) for Gemini 3, so none is sent unless asked. Effort is thinking_level.
    defaults = {"max_output_tokens": 32768, "retry_output_tokens": 65536, "reasoning_effort": None,
                "temperature": None}  # fmt: skip
    reasoning_efforts = ("minimal", "low", "medium", "high")

    def __init__(self, model=None, *, safety_policy: str = "stop", **kwargs):
        if safety_policy not in SAFETY_POLICIES:
            raise AgentError(f"Gemini safety policy {safety_policy!r} (expected one of: "
                             + "; ".join(f"{k} = {v}" for k, v in SAFETY_POLICIES.items()) + ")")  # fmt: skip
        self.safety_policy = safety_policy
        super().__init__(model, **kwargs)
        from google import genai
        from google.genai import errors, types

        self.types, self.errors = types, errors
        options: dict = {"timeout": int(self.timeout * 1000)}
        if self.base_url:
            options["base_url"] = self.base_url
        self.client = genai.Client(api_key=self.api_key, http_options=types.HttpOptions(**options))
        self.browser_only = self.model.startswith(BROWSER_ONLY)
        self.reset_conversation()

    def protocol(self) -> dict:
        return {**super().protocol(), "safety_policy": self.safety_policy}

    def reset_conversation(self) -> None:
        # user turns: ("user", [("text", str) | ("image", png) | ("response", call, result dict)]);
        # model turns: ("model", Content) kept as the API sent them (thought signatures included)
        self.history: list[tuple] = []
        self.pending: list[tuple] = []  # (function call, result dict or None for a GUI action)

    def config(self, budget: int | None = None):
        types = self.types
        environment = types.Environment.ENVIRONMENT_BROWSER if self.browser_only else (
            types.Environment.ENVIRONMENT_DESKTOP)  # fmt: skip
        tools = [types.Tool(computer_use=types.ComputerUse(environment=environment)),
                 types.Tool(function_declarations=[types.FunctionDeclaration(**BASH_FUNCTION)])]  # fmt: skip
        # the harness runs every call itself: no automatic function calling by the SDK
        options = {}
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.reasoning_effort:
            options["thinking_config"] = types.ThinkingConfig(thinking_level=self.reasoning_effort)
        return types.GenerateContentConfig(system_instruction=self._system, tools=tools,
                                           max_output_tokens=budget or self.max_output_tokens,
                                           automatic_function_calling=types.AutomaticFunctionCallingConfig(
                                               disable=True), **options)  # fmt: skip

    def _next_user_turn(self, instruction, screenshot: bytes) -> tuple:
        if not self.history:
            return ("user", [("text", instruction), ("image", screenshot)])
        told = [("text", self.user_message)] if self.user_message else []  # a resumed session's user words
        if not self.pending:
            return ("user", [*told, ("image", screenshot)])
        gui = [i for i, (_, result) in enumerate(self.pending) if result is None]
        # The one screenshot after the batch answers its last GUI call; a shell-only round shows it apart.
        items = [("response", call, result, screenshot if gui and i == gui[-1] else None)
                 for i, (call, result) in enumerate(self.pending)]  # fmt: skip
        return ("user", [*items, *told] if gui else [*items, *told, ("image", screenshot)])

    def _contents(self, turns) -> list:
        """The conversation as google-genai Contents, images beyond the newest ``screenshot_window`` dropped."""
        types = self.types
        keep = self.screenshot_window
        contents = []
        for role, body in reversed(turns):
            if role == "model":
                contents.append(body)
                continue
            parts = []
            for item in reversed(body):
                if item[0] == "text":
                    parts.append(types.Part.from_text(text=item[1]))
                elif item[0] == "image":
                    if keep > 0:
                        parts.append(types.Part.from_bytes(data=item[1], mime_type="image/png"))
                        keep -= 1
                    else:
                        parts.append(types.Part.from_text(text=IMAGE_REMOVED))
                else:
                    _, call, result, png = item
                    response = dict(result or {"url": ""})
                    if (call.args or {}).get("safety_decision") and self.safety_policy == "acknowledge":
                        response["safety_acknowledgement"] = "true"
                    blob_parts = None
                    if keep > 0 and png is not None:
                        blob = types.FunctionResponseBlob(mime_type="image/png", data=png)
                        blob_parts = [types.FunctionResponsePart(inline_data=blob)]
                        keep -= 1
                    parts.append(types.Part(function_response=types.FunctionResponse(
                        id=call.id, name=call.name, response=response, parts=blob_parts)))  # fmt: skip
            contents.append(types.Content(role="user", parts=list(reversed(parts))))
        return list(reversed(contents))

    def take_turn(self, instruction, observation):
        screen = tuple(observation["screen_size"])
        self._system = self.system_prompt(screen)
        user = self._next_user_turn(instruction, observation["screenshot"])
        contents = self._contents([*self.history, user])

        def call(budget):
            try:
                response = self.client.models.generate_content(model=self.model, contents=contents,
                                                               config=self.config(budget))  # fmt: skip
            except self.errors.APIError as exc:
                raise ProviderCallError(exc.code, exc.message or str(exc)) from exc
            except Exception as exc:  # timeouts and refused connections come from the HTTP client
                if type(exc).__module__.split(".")[0] in ("httpx2", "httpx", "httpcore", "ssl", "socket"):
                    raise ProviderCallError(None, f"{type(exc).__name__}: {exc}") from exc
                raise
            usage = response.usage_metadata
            if usage is not None:
                self.add_usage(input_tokens=usage.prompt_token_count or 0, cached_tokens=
                               usage.cached_content_token_count or 0,
                               output_tokens=usage.candidates_token_count or 0)  # fmt: skip
            self.add_usage(api_calls=1)
            return response

        def truncated(response) -> str:
            candidate = (response.candidates or [None])[0]
            reason = getattr(candidate, "finish_reason", None)
            return "finishReason MAX_TOKENS" if reason == self.types.FinishReason.MAX_TOKENS else ""

        response = self.call_within_budget(call, truncated)
        self.messages.append({"role": "user", "content": _logged(user[1])})
        candidate = (response.candidates or [None])[0]
        content = candidate.content if candidate is not None else None
        self.history.append(user)
        self.user_message = ""  # sent
        if content is None or not content.parts:
            self.pending = []
            return self.finish_turn("", [], 0)
        self.history.append(("model", content))
        return self._act(content.parts, screen)

    def _act(self, parts, screen) -> tuple[str, list[str]]:
        texts, actions, self.pending = [], [], []
        for part in parts:
            if part.text and not part.thought:
                texts.append(part.text)
            call = part.function_call
            if call is None:
                continue
            args = dict(call.args or {})
            decision = args.pop("safety_decision", None)
            blocked = isinstance(decision, dict) and decision.get("decision") == "block"
            if _needs_confirmation(decision) and (self.safety_policy == "stop" or blocked):
                self.messages.append({"role": "safety_decision", "content": {"call": call.name, "decision": decision}})
                what = "the safety service blocked" if blocked else "the model asked for the user's confirmation before"
                raise SafetyConfirmationRequired(
                    f"{what} {call.name} ({decision}); with the safety policy {self.safety_policy!r} nothing was "
                    "run and the trajectory ends here"
                )
            if call.name == "bash":
                output, code = self.run_shell(str(args.get("command", "")))
                self.pending.append((call, {"output": output, "exit_code": code}))
                continue
            try:
                actions += from_gemini(call.name, args, screen)
                self.pending.append((call, None))
            except (TranslationError, KeyError, TypeError, ValueError) as exc:
                self.pending.append((call, {"error": str(exc)}))
        return self.finish_turn("\n".join(texts), actions, len(self.pending))


def _needs_confirmation(decision) -> bool:
    if isinstance(decision, dict):
        return decision.get("decision") in ("require_confirmation", "block")
    return bool(decision)


def _logged(items) -> list:
    out = []
    for item in items:
        if item[0] == "text":
            out.append({"type": "text", "text": item[1]})
        elif item[0] == "image":
            out.append({"type": "image", "source": STRIPPED})
        else:
            out.append({"type": "function_response", "name": item[1].name, "response": item[2] or {"url": ""},
                        "image": STRIPPED if item[3] is not None else None})  # fmt: skip
    return out
