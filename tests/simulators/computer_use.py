"""Computer-use replies for the provider simulator: Anthropic tool_use blocks, OpenAI Responses
computer_call / shell_call items, Gemini function calls, and a counter of the images a request carried
(wherever the format nests them). Each builder returns a script entry (request -> Reply) whose raw
body is the provider's own wire format, so the real SDKs parse it."""

import itertools
import json
import time

from tests.simulators.server import Reply, SimRequest

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


def anthropic_turn(text: str = "", tools: list[tuple[str, dict]] = (), *, output_tokens: int = 20):
    """A Messages reply with ``text`` and tool_use blocks ``[(tool name, input), ...]``."""

    def reply(request: SimRequest) -> Reply:
        content = [{"type": "text", "text": text}] if text else []
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
                shell: list[str] = (), output_tokens: int = 20):  # fmt: skip
    """A Responses reply: a message with ``text``, one computer_call with a batch of ``actions`` (and
    pending ``safety_checks``), and one shell_call running ``shell`` commands."""

    def reply(request: SimRequest) -> Reply:
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


def gemini_turn(text: str = "", calls: list[tuple[str, dict]] = (), *, output_tokens: int = 20):
    """A generateContent reply with ``text`` and function calls ``[(name, args), ...]``."""

    def reply(request: SimRequest) -> Reply:
        parts = [{"text": text}] if text else []
        parts += [{"functionCall": {"name": name, "args": args}} for name, args in calls]
        prompt = _prompt_tokens(request)
        return _raw(
            {
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {
                    "promptTokenCount": prompt,
                    "candidatesTokenCount": output_tokens,
                    "totalTokenCount": prompt + output_tokens,
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
