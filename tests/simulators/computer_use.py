"""Computer-use replies for the provider simulator: Anthropic tool_use blocks, OpenAI Responses
computer_call / shell_call items, Gemini function calls, OpenAI-compatible chat completions (vLLM, with
or without its reasoning parser), and a counter of the images a request carried (wherever the format
nests them). Each builder returns a script entry (request -> Reply) whose raw body is the provider's
own wire format, so the real SDKs parse it.

``needs_tokens``: the reply takes that many output tokens; a request whose output budget is smaller
gets what each API sends when it hits the limit: Anthropic ``stop_reason: "max_tokens"``, OpenAI
``status: "incomplete"`` with ``incomplete_details.reason: "max_output_tokens"`` (reasoning tokens
count, so nothing may be output at all), chat ``finish_reason: "length"``, Gemini
``finishReason: "MAX_TOKENS"``; the content is cut where the budget ran out."""

import itertools
import json
import time

from tests.simulators.server import Reply, SimRequest, thinking_signature

_ids = itertools.count(1)
IMAGE_TOKENS = 1000


def images_in(value) -> int:
    """Images anywhere in a request body: Anthropic image blocks (top level or inside tool_result),
    OpenAI input_image / computer_screenshot / image_url parts, Gemini inlineData parts."""
    if isinstance(value, SimRequest):
        value = value.body
    if isinstance(value, list):
        return sum(images_in(v) for v in value)
    if not isinstance(value, dict):
        return 0
    own = value.get("type") in ("image", "input_image", "computer_screenshot", "image_url")
    own = own or "inlineData" in value or "inline_data" in value
    children = sum(images_in(v) for k, v in value.items() if k not in ("inlineData", "inline_data", "source"))
    return int(own) + children


def _prompt_tokens(request: SimRequest) -> int:
    text = json.dumps(request.body)
    return images_in(request) * IMAGE_TOKENS + len(text) // 400


def _raw(payload: dict) -> Reply:
    return Reply(raw=json.dumps(payload).encode(), status=200)


def _cut(text: str, budget: int, needs: int) -> str:
    """The part of ``text`` written before ``budget`` of ``needs`` output tokens ran out."""
    return text[: len(text) * budget // needs] if needs else text


def _budget(value) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def anthropic_turn(text: str = "", tools: list[tuple[str, dict]] = (), *, output_tokens: int = 20,
                   needs_tokens: int = 0, thinking: str = "Looking at the screen first."):  # fmt: skip
    """A Messages reply with ``text`` and tool_use blocks ``[(tool name, input), ...]``; when the request
    turned extended thinking on, it starts with a signed thinking block of ``thinking``, as the API's do."""

    def reply(request: SimRequest) -> Reply:
        budget = _budget(request.body.get("max_tokens"))
        if budget is None:
            return Reply(status=400)  # max_tokens is required by the Messages API
        if needs_tokens > budget:  # cut off: the text so far, no tool call
            return _raw({"id": f"msg_sim{next(_ids)}", "type": "message", "role": "assistant",
                         "model": request.body.get("model"),
                         "content": [{"type": "text", "text": _cut(text, budget, needs_tokens)}],
                         "stop_reason": "max_tokens", "stop_sequence": None,
                         "usage": {"input_tokens": _prompt_tokens(request), "output_tokens": budget,
                                   "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})  # fmt: skip
        content = [{"type": "text", "text": text}] if text else []
        if (request.body.get("thinking") or {}).get("type") in ("enabled", "adaptive"):
            content.insert(0, {"type": "thinking", "thinking": thinking, "signature": thinking_signature(thinking)})
        for name, tool_input in tools:
            content.append({"type": "tool_use", "id": f"toolu_sim{next(_ids)}", "name": name, "input": tool_input})
        return _raw(
            {
                "id": f"msg_sim{next(_ids)}",
                "type": "message",
                "role": "assistant",
                "model": request.body.get("model"),
                "content": content,
                "stop_reason": "tool_use" if tools else "end_turn",
                "stop_sequence": None,
                "usage": {
                    "input_tokens": _prompt_tokens(request),
                    "output_tokens": output_tokens,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 7,
                },
            }
        )

    return reply


def openai_turn(text: str = "", actions: list[dict] = (), *, safety_checks: list[dict] = (),
                shell: list[str] = (), output_tokens: int = 20, needs_tokens: int = 0):  # fmt: skip
    """A Responses reply: a message with ``text``, one computer_call with a batch of ``actions`` (and
    pending ``safety_checks``), and one shell_call running ``shell`` commands."""

    def reply(request: SimRequest) -> Reply:
        budget = _budget(request.body.get("max_output_tokens"))
        if budget is not None and budget < 16:
            return Reply(status=400)  # the API refuses a max_output_tokens below 16
        if budget is not None and needs_tokens > budget:
            # the budget went on reasoning: an incomplete response with a reasoning item and no output
            prompt = _prompt_tokens(request)
            return _raw({"id": f"resp_sim{next(_ids)}", "object": "response", "created_at": int(time.time()),
                         "model": request.body.get("model"), "status": "incomplete",
                         "incomplete_details": {"reason": "max_output_tokens"},
                         "output": [{"type": "reasoning", "id": f"rs_sim{next(_ids)}", "summary": []}],
                         "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                         "usage": {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": 0},
                                   "output_tokens": budget, "output_tokens_details": {"reasoning_tokens": budget},
                                   "total_tokens": prompt + budget}})  # fmt: skip
        output = []
        if text:
            output.append({"type": "message", "id": f"msg_sim{next(_ids)}", "status": "completed",
                           "role": "assistant",
                           "content": [{"type": "output_text", "text": text, "annotations": []}]})  # fmt: skip
        if actions:
            output.append({"type": "computer_call", "id": f"cu_sim{next(_ids)}", "call_id": f"call_{next(_ids)}",
                           "status": "completed", "actions": list(actions),
                           "pending_safety_checks": list(safety_checks)})  # fmt: skip
        if shell:
            output.append({"type": "shell_call", "id": f"sh_sim{next(_ids)}", "call_id": f"call_{next(_ids)}",
                           "status": "completed", "action": {"commands": list(shell), "timeout_ms": 60000,
                                                             "max_output_length": 4096}})  # fmt: skip
        prompt = _prompt_tokens(request)
        return _raw(
            {
                "id": f"resp_sim{next(_ids)}",
                "object": "response",
                "created_at": int(time.time()),
                "model": request.body.get("model"),
                "status": "completed",
                "output": output,
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
                "usage": {
                    "input_tokens": prompt,
                    "input_tokens_details": {"cached_tokens": 5},
                    "output_tokens": output_tokens,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": prompt + output_tokens,
                },
            }
        )

    return reply


def gemini_turn(text: str = "", calls: list[tuple[str, dict]] = (), *, output_tokens: int = 20,
                needs_tokens: int = 0):  # fmt: skip
    """A generateContent reply with ``text`` and function calls ``[(name, args), ...]``."""

    def reply(request: SimRequest) -> Reply:
        budget = _budget((request.body.get("generationConfig") or {}).get("maxOutputTokens"))
        finish = "STOP"
        parts = [{"text": text}] if text else []
        parts += [{"functionCall": {"name": name, "args": args}} for name, args in calls]
        if budget is not None and needs_tokens > budget:
            finish, output_tokens_ = "MAX_TOKENS", budget
            parts = [{"text": _cut(text, budget, needs_tokens)}] if text else []
        else:
            output_tokens_ = output_tokens
        prompt = _prompt_tokens(request)
        return _raw(
            {
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
                "usageMetadata": {
                    "promptTokenCount": prompt,
                    "candidatesTokenCount": output_tokens_,
                    "totalTokenCount": prompt + output_tokens_,
                    "cachedContentTokenCount": 3,
                },
                "modelVersion": request.model,
            }
        )

    return reply


def qwen_call(function: str, **parameters) -> str:
    """A Qwen-style XML tool call, as an open-weight model writes it in its reply text."""
    body = "".join(
        f"<parameter={key}>\n{value if isinstance(value, str) else json.dumps(value)}\n</parameter>\n"
        for key, value in parameters.items()
    )
    return f"<tool_call>\n<function={function}>\n{body}</function>\n</tool_call>"


def chat_turn(content: str, *, reasoning: str | None = None, needs_tokens: int = 0):
    """An OpenAI-compatible chat completion as vLLM sends it. ``reasoning``: the thought, which vLLM's
    reasoning parser (``--reasoning-parser qwen3``) returns apart from the content; without it a thinking
    model's thought stays in ``content`` up to ``</think>``. Cut off (``needs_tokens`` above the request's
    ``max_tokens``): finish_reason "length" and the text so far, where an unfinished thought leaves the
    content empty (parser) or an unclosed ``<think>`` (no parser)."""

    def reply(request: SimRequest) -> Reply:
        budget = _budget(request.body.get("max_tokens"))
        finish, message = "stop", {"role": "assistant", "content": content}
        if reasoning is not None:
            message["reasoning"] = message["reasoning_content"] = reasoning
        out = needs_tokens or 20
        if budget is not None and needs_tokens > budget:
            finish, out = "length", budget
            if reasoning is not None:  # the budget ran out while thinking: no content at all
                message["reasoning"] = message["reasoning_content"] = _cut(reasoning, budget, needs_tokens)
                message["content"] = None
            else:
                message["content"] = _cut(content, budget, needs_tokens)
        prompt = _prompt_tokens(request)
        return _raw(
            {
                "id": f"chatcmpl-sim{next(_ids)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request.body.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out},
            }
        )

    return reply
