"""One threaded HTTP server on 127.0.0.1 (random port) answering Gemini generateContent and
cachedContents, Anthropic messages, and OpenAI chat completions and responses, with scripted
replies, injected errors and latency; every request is recorded for assertions. Like the real APIs
it refuses bodies over each provider's size limit, `temperature` for OpenAI reasoning models, and
requests over a configured per-window quota (429 with the provider's retry hint; Anthropic and OpenAI
answers state the quota in their rate-limit headers), and Anthropic requests that break the
extended-thinking rules (see ProviderSimulator._anthropic_thinking_refusal). Strict by default: a
request without the provider's key header, without a required field, with a tool result that answers
no call or a call of the previous turn left unanswered (Anthropic tool_use, OpenAI Responses calls,
Gemini function calls), Anthropic tool_result blocks after another block, or more than four Anthropic
cache_control breakpoints is refused with the provider's error (``strict=False`` turns this off)."""

import collections
import hashlib
import itertools
import json
import math
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GEMINI, ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES = "gemini", "anthropic", "openai_chat", "openai_responses"
_GENERATE = re.compile(r"^/(?:v1beta|v1)/models/(?P<model>[^:/]+):generateContent$")
_CACHES = re.compile(r"^/(?:v1beta|v1)/cachedContents(?:/(?P<id>[^/?]+))?$")


DEFAULT_STATED_QUOTA = (4000, 60.0)  # requests per window the simulator states when no quota is set
THINKING_SECRET = b"simulator-thinking-signature"
MIN_THINKING_BUDGET = 1024


def thinking_signature(thinking: str) -> str:
    """The signature the simulator puts on a thinking block it writes, and checks when the block comes back."""
    return hashlib.sha256(THINKING_SECRET + thinking.encode("utf-8")).hexdigest()


@dataclass
class Reply:
    """What the simulator sends back: an answer text (wrapped in the API's format), or an error
    status with headers, or a raw body (malformed on purpose); after ``delay`` seconds."""

    text: str = ""
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float | None = None
    raw: bytes | None = None
    output_tokens: int | None = None
    retry_delay: str | None = None  # Gemini: a google.rpc.RetryInfo retryDelay in the error body, e.g. "50s"


@dataclass
class SimRequest:
    api: str
    method: str
    path: str
    headers: dict
    body: dict
    texts: list[str] = field(default_factory=list)  # every text part, in order
    n_images: int = 0
    cached_tokens: int = 0  # what the simulator served from its cache for this request
    model: str = ""

    @property
    def all_text(self) -> str:
        return "\n".join(self.texts)

    @property
    def last_text(self) -> str:
        return self.texts[-1] if self.texts else ""


Responder = Callable[[SimRequest], "Reply | str"]


def _tokens_of_text(text: str) -> int:
    return math.ceil(len(text) / 4)


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


# Documented limits the simulator enforces (see harness/judge/providers.py for the sources).
ANTHROPIC_MAX_REQUEST_BYTES = 32 * 1000 * 1000  # 413 request_too_large
ANTHROPIC_MAX_IMAGE_BASE64 = 5 * 1024 * 1024  # "image exceeds 5 MB maximum: N bytes > 5242880 bytes"
ANTHROPIC_MAX_IMAGES = 100
GEMINI_MAX_REQUEST_BYTES = 20 * 1024 * 1024  # "Request payload size exceeds the limit: 20971520 bytes."
OPENAI_MAX_IMAGE_BYTES = 50 * 1000 * 1000  # image bytes per request
OPENAI_MAX_IMAGES = 500
OPENAI_REASONING_MODEL = re.compile(r"^(?:gpt-5(?!-chat)|o1|o3|o4)", re.IGNORECASE)


class ProviderSimulator:
    """Usage::

        with ProviderSimulator(responder=lambda req: '{"verdict": "success", ...}') as sim:
            client = anthropic.Anthropic(base_url=sim.url, api_key="x")

    ``script`` replies are used first, in order; then ``responder``. ``latency`` is a (min, max)
    range of seconds added to every request. ``image_tokens`` is what one image counts for.
    ``openai_cache_min_tokens`` mimics OpenAI's 1,024-token minimum before a prefix is cached;
    ``gemini_cache_min_tokens`` makes cachedContents refuse small contents with a 400."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        script: list | None = None,
        latency: tuple[float, float] = (0.0, 0.0),
        image_tokens: int = 1000,
        openai_cache_min_tokens: int = 1024,
        gemini_cache_min_tokens: int = 0,
        max_request_bytes: dict | None = None,
        openai_reasoning_tokens: int = 0,
        quota: tuple[int, float] | None = None,
        gemini_cache_create_status: int | None = None,
        strict: bool = True,
    ):
        self.strict = strict  # check keys, required fields and tool call / result pairing as the APIs do
        self.invalid: list[tuple[str, int, str]] = []  # (api, status, message) of requests refused as invalid
        self._response_calls: dict[str, set] = {}  # OpenAI Responses: call ids known to each response id
        self._response_owes: dict[str, dict] = {}  # OpenAI Responses: each response's own calls (id -> type)
        self.responder = responder or (lambda request: "ok")
        self.script = list(script or [])
        self.latency = latency
        self.image_tokens = image_tokens
        self.openai_cache_min_tokens = openai_cache_min_tokens
        self.gemini_cache_min_tokens = gemini_cache_min_tokens
        # Body limits per API ("anthropic", "gemini"; "openai" counts decoded image bytes); tests may
        # lower them to keep payloads small, the defaults are the documented ones.
        self.max_request_bytes = {
            "anthropic": ANTHROPIC_MAX_REQUEST_BYTES,
            "gemini": GEMINI_MAX_REQUEST_BYTES,
            "openai": OPENAI_MAX_IMAGE_BYTES,
            **(max_request_bytes or {}),
        }
        self.openai_reasoning_tokens = openai_reasoning_tokens  # reasoning spent before any answer text
        self.quota = quota  # (requests, window seconds): model calls accepted per window (see _over_quota)
        self._accepted: collections.deque = collections.deque()
        self._seen: collections.deque = collections.deque()  # model calls, for the stated quota without one
        self._buckets: dict[bool, list[float]] = {}  # Anthropic's token bucket: [tokens, when], by quota set
        self.rate_limited = 0  # calls answered 429 by the quota
        self.refused: list[tuple[str, int, str]] = []  # (api, status, message) of limit refusals
        self.gemini_cache_create_status = gemini_cache_create_status
        self.requests: list[SimRequest] = []
        self.caches: dict[str, dict] = {}  # Gemini cachedContents by id
        self.deleted_caches: list[str] = []
        self._prefixes: set[str] = set()  # Anthropic / OpenAI prefixes seen
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.in_flight = 0
        self.max_in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> "ProviderSimulator":
        simulator = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                simulator._handle(self, "POST")

            def do_GET(self):
                simulator._handle(self, "GET")

            def do_DELETE(self):
                simulator._handle(self, "DELETE")

        class Server(ThreadingHTTPServer):
            request_queue_size = 512  # the default backlog of 5 refuses connections under concurrent load
            daemon_threads = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="provider-simulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def url(self) -> str:
        """Base URL for google-genai and anthropic (they add /v1beta/..., /v1/...)."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        """Base URL for the openai SDK (it adds /chat/completions, /responses)."""
        return self.url + "/v1"

    def of_api(self, api: str) -> list[SimRequest]:
        return [r for r in self.requests if r.api == api]

    # ------------------------------------------------------------ dispatch

    def _next_reply(self, request: SimRequest) -> Reply:
        # The model's latency; refusals at the front door (size limits, quota) answer without it.
        low, high = self.latency
        if high > 0:
            time.sleep(random.uniform(low, high))
        with self._lock:
            scripted = self.script.pop(0) if self.script else None
        reply = scripted if scripted is not None else self.responder(request)
        if callable(reply) and not isinstance(reply, Reply):
            reply = reply(request)
        return Reply(text=reply) if isinstance(reply, str) else reply

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self._dispatch(handler, method)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _dispatch(self, handler, method):
        path = handler.path.split("?", 1)[0]
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            return self._send(handler, 400, {"error": {"message": "body is not JSON"}})
        headers = {k.lower(): v for k, v in handler.headers.items()}
        headers["x-sim-body-bytes"] = str(len(raw))
        if self.strict and self._invalid(handler, method, path, handler.path, headers, body):
            return
        cache_match = _CACHES.match(path)
        if cache_match:
            return self._gemini_cache(handler, method, cache_match.group("id"), body, headers, path)
        generate = _GENERATE.match(path)
        if generate and method == "POST":
            return self._gemini_generate(handler, generate.group("model"), body, headers, path)
        if path.endswith("/messages") and method == "POST":
            return self._anthropic(handler, body, headers, path)
        if path.endswith("/chat/completions") and method == "POST":
            return self._openai_chat(handler, body, headers, path)
        if path.endswith("/responses") and method == "POST":
            return self._openai_responses(handler, body, headers, path)
        return self._send(handler, 404, {"error": {"message": f"the simulator has no route {method} {path}"}})

    # ------------------------------------------------------------ request checks (strict)

    def _invalid(self, handler, method, path, full_path, headers, body) -> bool:
        """Refuses, as the real API does, a request without its key, without a required field, or with
        a tool result that answers no call; True when it did."""
        problem = None
        if _GENERATE.match(path) or _CACHES.match(path):
            api, status, problem = GEMINI, 403, self._gemini_problem(method, path, full_path, headers, body)
            if problem and not problem.startswith("Method doesn't allow"):
                status = 400
            if problem:
                error = self._gemini_error(status)
                error["error"]["message"] = problem
                error["error"]["status"] = "PERMISSION_DENIED" if status == 403 else "INVALID_ARGUMENT"
                return self._invalid_reply(handler, api, status, error)
            return False
        if path.endswith("/messages") and method == "POST":
            if not headers.get("x-api-key") and not headers.get("authorization", "").startswith("Bearer "):
                error = {"type": "error", "error": {"type": "authentication_error",
                                                    "message": "x-api-key header is required"}}  # fmt: skip
                return self._invalid_reply(handler, ANTHROPIC, 401, error)
            problem = self._anthropic_problem(body, headers)
            if problem:
                error = {"type": "error", "error": {"type": "invalid_request_error", "message": problem}}
                return self._invalid_reply(handler, ANTHROPIC, 400, error)
            return False
        if path.endswith(("/chat/completions", "/responses")) and method == "POST":
            api = OPENAI_CHAT if path.endswith("/chat/completions") else OPENAI_RESPONSES
            auth = headers.get("authorization", "")
            if not auth.startswith("Bearer ") or not auth.removeprefix("Bearer ").strip():
                message = (
                    "You didn't provide an API key. You need to provide your API key in an Authorization header "
                    "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
                )
                error = {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}
                return self._invalid_reply(handler, api, 401, error)
            found = self._openai_chat_problem(body) if api == OPENAI_CHAT else self._openai_responses_problem(body)
            if found:
                message, param = found
                error = {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}
                return self._invalid_reply(handler, api, 400, error)
        return False

    def _invalid_reply(self, handler, api, status, error) -> bool:
        with self._lock:
            self.invalid.append((api, status, error["error"]["message"]))
        self._send(handler, status, error)
        return True

    @staticmethod
    def _gemini_problem(method, path, full_path, headers, body) -> str | None:
        query = full_path.split("?", 1)[1] if "?" in full_path else ""
        if not headers.get("x-goog-api-key") and not re.search(r"(?:^|&)key=[^&]+", query):
            return (
                "Method doesn't allow unregistered callers (callers without established identity). "
                "Please use API Key or other form of API consumer identity to call this API."
            )
        if method != "POST" or not _GENERATE.match(path):
            return None
        contents = body.get("contents")
        if not contents and not body.get("cachedContent"):
            return "* GenerateContentRequest.contents: contents is not specified"
        previous_calls = None if body.get("cachedContent") else set()  # a cache may hold the calls
        previous_count = 0
        for n, content in enumerate(contents or []):
            parts = content.get("parts") or []
            answers = [p["functionResponse"].get("name") for p in parts if "functionResponse" in p]
            if answers and previous_calls is not None and (not previous_calls or set(answers) - previous_calls):
                return (
                    f"* GenerateContentRequest.contents[{n}]: please ensure that function response turn comes "
                    "immediately after a function call turn, naming the functions called."
                )
            if previous_calls and len(answers) != previous_count:
                return (
                    f"* GenerateContentRequest.contents[{n}]: Please ensure that the number of function response "
                    "parts is equal to the number of function call parts of the function call turn."
                )
            previous_calls = {p["functionCall"].get("name") for p in parts if "functionCall" in p}
            previous_count = sum("functionCall" in p for p in parts)
        return None

    @staticmethod
    def _anthropic_problem(body, headers) -> str | None:
        if not headers.get("anthropic-version"):
            return "anthropic-version: header is required"
        for name in ("model", "max_tokens", "messages"):
            if name not in body:
                return f"{name}: Field required"
        system = body.get("system")
        marked = [b for b in [*(system if isinstance(system, list) else []), *(body.get("tools") or [])]
                  if isinstance(b, dict) and b.get("cache_control")]  # fmt: skip
        for message in body["messages"]:
            content = message.get("content")
            marked += [b for b in content if isinstance(b, dict) and b.get("cache_control")] if isinstance(
                content, list) else []  # fmt: skip
        if len(marked) > 4:
            return f"A maximum of 4 blocks with cache_control may be provided. Found {len(marked)}."
        asked: set = set()  # tool_use ids of the previous (assistant) message
        for m, message in enumerate(body["messages"]):
            content = message.get("content")
            blocks = content if isinstance(content, list) else []
            kinds = [b.get("type") for b in blocks if isinstance(b, dict)]
            first_other = next((i for i, kind in enumerate(kinds) if kind != "tool_result"), len(kinds))
            if "tool_result" in kinds[first_other:]:  # the API wants every tool_result before other blocks
                return (
                    f"messages.{m}: `tool_result` blocks must come first in the content of a user message, "
                    "before any other block"
                )
            answered = [b.get("tool_use_id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
            unknown = [i for i in answered if i not in asked]
            if unknown:
                return (
                    f"messages.{m}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {unknown[0]}. "
                    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )
            if asked and set(asked) - set(answered):
                missing = sorted(set(asked) - set(answered))
                return (
                    f"messages.{m}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
                    "in the next message."
                )
            asked = {b.get("id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"}
            asked = asked if message.get("role") == "assistant" else set()
        return None

    @staticmethod
    def _openai_chat_problem(body) -> tuple[str, str] | None:
        for name in ("model", "messages"):
            if name not in body:
                return f"Missing required parameter: '{name}'.", name
        called: set = set()
        for m, message in enumerate(body["messages"]):
            if message.get("role") == "assistant":
                called |= {c.get("id") for c in message.get("tool_calls") or []}
            if message.get("role") == "tool" and message.get("tool_call_id") not in called:
                return (
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                    "with 'tool_calls'.",
                    f"messages.[{m}].role",
                )
        return None

    def _openai_responses_problem(self, body) -> tuple[str, str] | None:
        if "model" not in body:
            return "Missing required parameter: 'model'.", "model"
        items = body.get("input")
        items = items if isinstance(items, list) else []
        with self._lock:
            known = set(self._response_calls.get(body.get("previous_response_id") or "", set()))
            owed = dict(self._response_owes.get(body.get("previous_response_id") or "", {}))
        for item in items:
            if not isinstance(item, dict):
                continue
            kind = str(item.get("type") or "")
            if kind.endswith("_call_output") and item.get("call_id") not in known:
                return f"No tool call found for function call output with call_id {item.get('call_id')}.", "input"
            if kind.endswith("_call") and item.get("call_id"):
                known.add(item["call_id"])
        answered = {i.get("call_id") for i in items if isinstance(i, dict) and str(i.get("type")).endswith("_output")}
        for call_id, kind in owed.items():
            if call_id not in answered:  # every call of the previous response is owed its output
                return f"No tool output found for {kind.replace('_', ' ')} {call_id}.", "input"
        return None

    def _remember_response(self, body: dict, payload: dict) -> None:
        """The call ids a Responses reply made (with those known before it), for the next request's
        previous_response_id."""
        if not isinstance(payload, dict) or payload.get("object") != "response" or not payload.get("id"):
            return
        items = body.get("input") if isinstance(body.get("input"), list) else []
        with self._lock:
            known = set(self._response_calls.get(body.get("previous_response_id") or "", set()))
            known |= {i.get("call_id") for i in items if isinstance(i, dict) and i.get("call_id")}
            known |= {o.get("call_id") for o in payload.get("output") or [] if o.get("call_id")}
            self._response_calls[payload["id"]] = known
            self._response_owes[payload["id"]] = {o["call_id"]: o.get("type", "call")
                                                  for o in payload.get("output") or [] if o.get("call_id")}  # fmt: skip

    def _record(self, request: SimRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _send(self, handler, status: int, payload, headers: dict | None = None, raw: bytes | None = None):
        data = raw if raw is not None else json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, str(value))
        handler.end_headers()
        handler.wfile.write(data)

    def _error_or_raw(self, handler, reply: Reply, error_body: Callable[[int], dict]) -> bool:
        """Sends an error or raw reply; True when it did (the caller then stops)."""
        if reply.delay:
            time.sleep(reply.delay)
        if reply.raw is not None:
            self._send(handler, reply.status, None, reply.headers, raw=reply.raw)
            return True
        if reply.status != 200:
            body = error_body(reply.status)
            if reply.retry_delay and "error" in body:
                body["error"]["details"] = [
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": reply.retry_delay}
                ]
            self._send(handler, reply.status, body, reply.headers)
            return True
        return False

    def _refuse(self, handler, api: str, status: int, body: dict, headers: dict | None = None) -> None:
        message = body.get("error", {}).get("message", "")
        with self._lock:
            self.refused.append((api, status, message))
        self._send(handler, status, body, headers)

    # The request quota: Anthropic documents a token bucket (its rate-limits page: capacity is
    # replenished continuously up to the limit, not reset at fixed intervals; its
    # anthropic-ratelimit-requests-reset is when the limit will be fully replenished), so its API gets
    # one: a bucket of `limit` requests refilled at limit / window per second. OpenAI documents
    # x-ratelimit-reset-requests as the time until the limit resets to its initial state and says
    # nothing of the algorithm, and Gemini states no quota in headers at all: those keep a sliding
    # window (a request counts for `window` seconds after it is accepted), and OpenAI's reset is when
    # the last request in it leaves, the window then empty again.

    def _bucket(self, now: float) -> list[float]:
        """Anthropic's bucket for the configured quota (or the stated default), refilled up to now."""
        limit, window = self.quota or DEFAULT_STATED_QUOTA
        bucket = self._buckets.setdefault(self.quota is not None, [float(limit), now])
        bucket[0] = min(float(limit), bucket[0] + (now - bucket[1]) * limit / window)
        bucket[1] = now
        return bucket

    def _window_of(self, now: float) -> collections.deque:
        accepted = self._accepted if self.quota else self._seen
        window = (self.quota or DEFAULT_STATED_QUOTA)[1]
        while accepted and accepted[0] <= now - window:
            accepted.popleft()
        return accepted

    def _over_quota(self, api: str) -> float | None:
        """None when a model call is within the quota (and counts it), else seconds until one more is
        taken: a token bucket for Anthropic, a sliding window for the others (see above)."""
        with self._lock:
            now = time.monotonic()
            if api == ANTHROPIC:
                bucket = self._bucket(now)
                if self.quota is None or bucket[0] >= 1.0:
                    bucket[0] = max(0.0, bucket[0] - 1.0)
                    return None
                limit, window = self.quota
                self.rate_limited += 1
                return max(0.001, (1.0 - bucket[0]) * window / limit)
            accepted = self._window_of(now)
            if self.quota is None or len(accepted) < self.quota[0]:
                accepted.append(now)
                return None
            self.rate_limited += 1
            return max(0.001, accepted[0] + self.quota[1] - now)

    def _rate_limit_headers(self, api: str) -> dict:
        """The request quota as the API states it on every answer (the configured one, else a high
        default): Anthropic's anthropic-ratelimit-requests-* (reset an RFC 3339 time), OpenAI's
        x-ratelimit-*-requests (reset a duration). Reset is when the quota is whole again, as both
        document it: the bucket full (Anthropic), the window empty (OpenAI)."""
        limit, window = self.quota or DEFAULT_STATED_QUOTA
        with self._lock:
            now = time.monotonic()
            if api == ANTHROPIC:
                tokens = self._bucket(now)[0]
                remaining = int(tokens)
                reset = (limit - tokens) * window / limit
            else:
                accepted = self._window_of(now)
                remaining = max(0, limit - len(accepted))
                reset = max(0.0, accepted[-1] + window - now) if accepted else 0.0
        if api == ANTHROPIC:
            when = datetime.now(UTC) + timedelta(seconds=reset)
            return {"anthropic-ratelimit-requests-limit": str(limit),
                    "anthropic-ratelimit-requests-remaining": str(remaining),
                    "anthropic-ratelimit-requests-reset": when.isoformat().replace("+00:00", "Z")}  # fmt: skip
        return {"x-ratelimit-limit-requests": str(limit), "x-ratelimit-remaining-requests": str(remaining),
                "x-ratelimit-reset-requests": f"{reset:.3f}s"}  # fmt: skip

    def _body_bytes(self, headers) -> int:
        return int(headers.get("x-sim-body-bytes") or 0)

    def _out_tokens(self, reply: Reply) -> int:
        return reply.output_tokens if reply.output_tokens is not None else max(1, _tokens_of_text(reply.text))

    # ------------------------------------------------------------ Gemini

    def _gemini_parts(self, contents) -> tuple[list[str], int]:
        texts, images = [], 0
        for content in contents or []:
            for part in content.get("parts", []):
                if "text" in part:
                    texts.append(part["text"])
                elif "inlineData" in part or "inline_data" in part:
                    images += 1
        return texts, images

    def _gemini_tokens(self, texts, images, system=None) -> int:
        system_texts = [p.get("text", "") for p in (system or {}).get("parts", [])] if system else []
        return sum(_tokens_of_text(t) for t in texts + system_texts) + images * self.image_tokens

    @staticmethod
    def _gemini_error(status: int) -> dict:
        names = {
            400: "INVALID_ARGUMENT",
            404: "NOT_FOUND",
            429: "RESOURCE_EXHAUSTED",
            500: "INTERNAL",
            503: "UNAVAILABLE",
        }
        return {"error": {"code": status, "message": "simulated error", "status": names.get(status, "UNKNOWN")}}

    def _gemini_too_large(self, handler, headers) -> bool:
        limit = self.max_request_bytes["gemini"]
        if self._body_bytes(headers) <= limit:
            return False
        error = self._gemini_error(400)
        error["error"]["message"] = f"Request payload size exceeds the limit: {limit} bytes."
        self._refuse(handler, GEMINI, 400, error)
        return True

    def _gemini_quota(self, handler) -> bool:
        wait = self._over_quota(GEMINI)
        if wait is None:
            return False
        error = self._gemini_error(429)
        error["error"]["message"] = "You exceeded your current quota, please check your plan and billing details."
        # The wait is in the body (google.rpc.RetryInfo), not in a header, as the Gemini API does.
        error["error"]["details"] = [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{math.ceil(wait * 1000) / 1000}s"}
        ]
        self._send(handler, 429, error)
        return True

    def _gemini_cache(self, handler, method, cache_id, body, headers, path):
        if method == "POST" and cache_id is None:
            if self._gemini_too_large(handler, headers):
                return
            if self.gemini_cache_create_status:
                self._record(SimRequest(GEMINI + ".cache", method, path, headers, body, model=body.get("model", "")))
                return self._send(
                    handler, self.gemini_cache_create_status, self._gemini_error(self.gemini_cache_create_status)
                )
            texts, images = self._gemini_parts(body.get("contents"))
            tokens = self._gemini_tokens(texts, images, body.get("systemInstruction"))
            request = SimRequest(
                GEMINI + ".cache", method, path, headers, body, texts, images, model=body.get("model", "")
            )
            self._record(request)
            if tokens < self.gemini_cache_min_tokens:
                error = self._gemini_error(400)
                error["error"]["message"] = f"Cached content is too small. total_token_count={tokens}"
                return self._send(handler, 400, error)
            name = f"cachedContents/sim{next(self._ids)}"
            with self._lock:
                self.caches[name] = {"tokens": tokens, "texts": texts, "images": images, "model": body.get("model")}
            return self._send(
                handler,
                200,
                {
                    "name": name,
                    "model": body.get("model"),
                    "displayName": body.get("displayName", ""),
                    "usageMetadata": {"totalTokenCount": tokens},
                    "expireTime": "2099-01-01T00:00:00Z",
                },
            )
        name = f"cachedContents/{cache_id}"
        self._record(SimRequest(GEMINI + ".cache", method, path, headers, body))
        if name not in self.caches:
            return self._send(handler, 404, self._gemini_error(404))
        if method == "DELETE":
            with self._lock:
                self.caches.pop(name)
                self.deleted_caches.append(name)
            return self._send(handler, 200, {})
        cache = self.caches[name]
        return self._send(handler, 200, {"name": name, "usageMetadata": {"totalTokenCount": cache["tokens"]}})

    def _gemini_generate(self, handler, model, body, headers, path):
        if self._gemini_too_large(handler, headers) or self._gemini_quota(handler):
            return
        texts, images = self._gemini_parts(body.get("contents"))
        cached = 0
        cache_name = body.get("cachedContent")
        if cache_name:
            cache = self.caches.get(cache_name)
            if cache is None:
                # An expired or deleted cache: the API answers 403 PERMISSION_DENIED for it.
                self._record(SimRequest(GEMINI, "POST", path, headers, body, texts, images, model=model))
                error = {
                    "error": {
                        "code": 403,
                        "message": "CachedContent not found (or permission denied)",
                        "status": "PERMISSION_DENIED",
                    }
                }
                return self._send(handler, 403, error)
            cached = cache["tokens"]
            texts = cache["texts"] + texts
            images += cache["images"]
            fresh = self._gemini_tokens(texts[len(cache["texts"]) :], images - cache["images"])
        else:
            fresh = self._gemini_tokens(texts, images, body.get("systemInstruction"))
        request = SimRequest(GEMINI, "POST", path, headers, body, texts, images, cached, model)
        self._record(request)
        reply = self._next_reply(request)
        if self._error_or_raw(handler, reply, self._gemini_error):
            return
        out = self._out_tokens(reply)
        usage = {
            "promptTokenCount": fresh + cached,
            "candidatesTokenCount": out,
            "totalTokenCount": fresh + cached + out,
        }
        if cached:
            usage["cachedContentTokenCount"] = cached
        payload = {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": reply.text}]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": usage,
            "modelVersion": model,
        }
        self._send(handler, 200, payload, reply.headers)

    # ------------------------------------------------------------ Anthropic

    @staticmethod
    def _anthropic_error(status: int) -> dict:
        kinds = {400: "invalid_request_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
        return {"type": "error", "error": {"type": kinds.get(status, "api_error"), "message": "simulated error"}}

    def _anthropic_limits(self, handler, body, headers) -> bool:
        """413 over the request size (Cloudflare's answer, before the API), 400 for an image over
        5 MB or more than 100 images, 429 over the quota with retry-after."""
        if self._body_bytes(headers) > self.max_request_bytes["anthropic"]:
            error = {
                "type": "error",
                "error": {"type": "request_too_large", "message": "Request exceeds the maximum size"},
            }
            self._refuse(handler, ANTHROPIC, 413, error)
            return True
        n_images = 0
        for m, message in enumerate(body.get("messages", [])):
            content = message.get("content")
            for c, block in enumerate(content if isinstance(content, list) else []):
                if block.get("type") != "image":
                    continue
                n_images += 1
                size = len(block.get("source", {}).get("data", ""))
                if size > ANTHROPIC_MAX_IMAGE_BASE64:
                    message = (
                        f"messages.{m}.content.{c}.image.source.base64: image exceeds 5 MB maximum: "
                        f"{size} bytes > {ANTHROPIC_MAX_IMAGE_BASE64} bytes"
                    )
                    self._refuse(
                        handler,
                        ANTHROPIC,
                        400,
                        {"type": "error", "error": {"type": "invalid_request_error", "message": message}},
                    )
                    return True
        if n_images > ANTHROPIC_MAX_IMAGES:
            message = f"Too many images in the request: {n_images} > {ANTHROPIC_MAX_IMAGES}"
            self._refuse(
                handler,
                ANTHROPIC,
                400,
                {"type": "error", "error": {"type": "invalid_request_error", "message": message}},
            )
            return True
        wait = self._over_quota(ANTHROPIC)
        if wait is not None:
            error = self._anthropic_error(429)
            error["error"]["message"] = "This request would exceed your organization's rate limit."
            self._send(handler, 429, error, {"retry-after": str(math.ceil(wait))})
            return True
        return False

    def _anthropic_thinking_refusal(self, body) -> str | None:
        """What the Messages API would refuse (400) about extended thinking, or None: a budget under 1,024
        tokens or not below max_tokens; temperature (other than 1) or top_k beside thinking; a thinking
        block whose text no longer matches its signature; and, with thinking on, a last assistant turn
        that called a tool without starting with its thinking block (blocks must come back unchanged)."""
        thinking = body.get("thinking")
        on = isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")
        if thinking is not None and not (isinstance(thinking, dict) and thinking.get("type") in
                                         ("enabled", "adaptive", "disabled")):  # fmt: skip
            return "thinking: expected a type of enabled, adaptive or disabled"
        if on and thinking["type"] == "enabled":
            budget = thinking.get("budget_tokens")
            if not isinstance(budget, int) or budget < MIN_THINKING_BUDGET:
                return f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_THINKING_BUDGET}"
            if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] <= budget:
                return "`max_tokens` must be greater than `thinking.budget_tokens`"
        if on and body.get("temperature") not in (None, 1, 1.0):
            return "`temperature` may only be set to 1 when thinking is enabled"
        if on and body.get("top_k") is not None:
            return "`top_k` may not be set when thinking is enabled"
        messages = body.get("messages") or []
        for m, message in enumerate(messages):
            content = message.get("content")
            for c, block in enumerate(content if isinstance(content, list) else []):
                if block.get("type") == "thinking" and block.get("signature") != thinking_signature(
                    str(block.get("thinking", ""))
                ):
                    return f"messages.{m}.content.{c}: Invalid `signature` in `thinking` block"
        assistant = [m for m, message in enumerate(messages) if message.get("role") == "assistant"]
        if on and assistant:
            m = assistant[-1]
            content = messages[m].get("content")
            content = content if isinstance(content, list) else []
            if any(b.get("type") == "tool_use" for b in content) and (
                not content or content[0].get("type") not in ("thinking", "redacted_thinking")
            ):
                found = content[0].get("type") if content else "nothing"
                return (f"messages.{m}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                        f"`{found}`. With thinking on, the last assistant message must start with its thinking "
                        "block, passed back unchanged")  # fmt: skip
        return None

    def _anthropic(self, handler, body, headers, path):
        if self._anthropic_limits(handler, body, headers):
            return
        refusal = self._anthropic_thinking_refusal(body)
        if refusal is not None:
            error = {"type": "error", "error": {"type": "invalid_request_error", "message": refusal}}
            self._refuse(handler, ANTHROPIC, 400, error)
            return
        system = body.get("system") or ""
        system_blocks = [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
        blocks = []
        for message in body.get("messages", []):
            content = message.get("content")
            blocks.extend([{"type": "text", "text": content}] if isinstance(content, str) else content)
        everything = system_blocks + blocks
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
        images = sum(1 for b in blocks if b.get("type") == "image")

        def tokens(items):
            return sum(
                _tokens_of_text(b.get("text", "")) if b.get("type") == "text" else self.image_tokens for b in items
            )

        total = tokens(everything)
        marked = [i for i, b in enumerate(everything) if b.get("cache_control")]
        read = write = 0
        if marked:
            prefix = everything[: marked[-1] + 1]
            key = _digest([{k: v for k, v in b.items() if k != "cache_control"} for b in prefix])
            prefix_tokens = tokens(prefix)
            with self._lock:
                if key in self._prefixes:
                    read = prefix_tokens
                else:
                    write = prefix_tokens
                    self._prefixes.add(key)
        request = SimRequest(ANTHROPIC, "POST", path, headers, body, texts, images, read, body.get("model", ""))
        self._record(request)
        reply = self._next_reply(request)
        if self._error_or_raw(handler, reply, self._anthropic_error):
            return
        payload = {
            "id": f"msg_sim{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [{"type": "text", "text": reply.text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": total - read - write,
                "output_tokens": self._out_tokens(reply),
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
            },
        }
        self._send(handler, 200, payload, {**self._rate_limit_headers(ANTHROPIC), **reply.headers})

    # ------------------------------------------------------------ OpenAI

    @staticmethod
    def _openai_error(status: int) -> dict:
        kinds = {400: "invalid_request_error", 429: "rate_limit_exceeded", 500: "server_error"}
        return {"error": {"message": "simulated error", "type": kinds.get(status, "server_error"), "code": None}}

    def _openai_prefix_cached(self, prefix, prefix_tokens: int) -> int:
        """OpenAI caches a repeated prompt prefix of at least the minimum length automatically."""
        if prefix_tokens < self.openai_cache_min_tokens:
            return 0
        key = _digest(prefix)
        with self._lock:
            if key in self._prefixes:
                return prefix_tokens
            self._prefixes.add(key)
        return 0

    def _openai_parts(self, content) -> tuple[list[str], int, int]:
        if isinstance(content, str):
            return [content], 0, _tokens_of_text(content)
        texts, images = [], 0
        for part in content or []:
            kind = part.get("type")
            if kind in ("text", "input_text", "output_text"):
                texts.append(part.get("text", ""))
            elif kind in ("image_url", "input_image"):
                images += 1
        return texts, images, sum(_tokens_of_text(t) for t in texts) + images * self.image_tokens

    def _openai_split(self, messages):
        """(prefix: every message part except the very last, prompt tokens, prefix tokens, texts, images)."""
        texts, images, total = [], 0, 0
        for message in messages:
            t, i, n = self._openai_parts(message.get("content"))
            texts += t
            images += i
            total += n
        if not messages:
            return [], 0, 0, texts, images
        last = messages[-1]
        content = last.get("content")
        if isinstance(content, list) and len(content) > 1:
            prefix = messages[:-1] + [{**last, "content": content[:-1]}]
            _, _, last_tokens = self._openai_parts(content[-1:])
        else:
            prefix = messages[:-1]
            _, _, last_tokens = self._openai_parts(content)
        return prefix, total, total - last_tokens, texts, images

    def _openai_invalid(self, handler, message: str, param: str | None = None, code: str | None = None) -> None:
        error = {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}
        self._refuse(handler, OPENAI_CHAT, 400, error)

    def _openai_limits(self, handler, body) -> bool:
        model = str(body.get("model") or "")
        if OPENAI_REASONING_MODEL.match(model):
            temperature = body.get("temperature")
            if temperature is not None and temperature != 1:
                shown = int(temperature) if float(temperature).is_integer() else temperature
                self._openai_invalid(
                    handler,
                    f"Unsupported value: 'temperature' does not support {shown} with this model. "
                    "Only the default (1) value is supported.",
                    "temperature",
                    "unsupported_value",
                )
                return True
            if "max_tokens" in body:
                self._openai_invalid(
                    handler,
                    "Unsupported parameter: 'max_tokens' is not supported with this model. "
                    "Use 'max_completion_tokens' instead.",
                    "max_tokens",
                    "unsupported_parameter",
                )
                return True
        image_bytes = n_images = 0
        for message in body.get("messages", []):
            content = message.get("content")
            for part in content if isinstance(content, list) else []:
                if part.get("type") == "image_url":
                    n_images += 1
                    url = part.get("image_url", {}).get("url", "")
                    image_bytes += len(url.split(",", 1)[1]) * 3 // 4 if url.startswith("data:") else 0
        limit = self.max_request_bytes["openai"]
        if image_bytes > limit or n_images > OPENAI_MAX_IMAGES:
            self._openai_invalid(
                handler,
                f"Too much image data: {n_images} images, {image_bytes} bytes in one request "
                f"(limits: {OPENAI_MAX_IMAGES} images, {limit} bytes).",
            )
            return True
        wait = self._over_quota(OPENAI_CHAT)
        if wait is not None:
            error = self._openai_error(429)
            error["error"]["message"] = "Rate limit reached for requests per minute."
            self._send(handler, 429, error, {"retry-after-ms": str(math.ceil(wait * 1000))})
            return True
        return False

    def _openai_chat(self, handler, body, headers, path):
        if self._openai_limits(handler, body):
            return
        prefix, total, prefix_tokens, texts, images = self._openai_split(body.get("messages", []))
        cached = self._openai_prefix_cached([body.get("prompt_cache_key"), prefix], prefix_tokens)
        request = SimRequest(OPENAI_CHAT, "POST", path, headers, body, texts, images, cached, body.get("model", ""))
        self._record(request)
        reply = self._next_reply(request)
        if self._error_or_raw(handler, reply, self._openai_error):
            return
        out = self._out_tokens(reply)
        text, finish, reasoning = reply.text, "stop", 0
        if OPENAI_REASONING_MODEL.match(str(body.get("model") or "")):
            # Reasoning tokens come out of max_completion_tokens first; what is left holds the answer.
            limit = body.get("max_completion_tokens") or 10**9
            reasoning = min(self.openai_reasoning_tokens, limit)
            if reasoning + out > limit:
                text, finish, out = "", "length", 0
            out += reasoning
        payload = {
            "id": f"chatcmpl-sim{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": total,
                "completion_tokens": out,
                "total_tokens": total + out,
                "prompt_tokens_details": {"cached_tokens": cached},
                "completion_tokens_details": {"reasoning_tokens": reasoning},
            },
        }
        self._send(handler, 200, payload, {**self._rate_limit_headers(OPENAI_CHAT), **reply.headers})

    def _openai_responses(self, handler, body, headers, path):
        items = body.get("input", [])
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        messages = [i for i in items if isinstance(i, dict) and "content" in i]
        if body.get("instructions"):
            messages = [{"role": "system", "content": body["instructions"]}] + messages
        prefix, total, prefix_tokens, texts, images = self._openai_split(messages)
        cached = self._openai_prefix_cached([body.get("prompt_cache_key"), prefix], prefix_tokens)
        request = SimRequest(
            OPENAI_RESPONSES, "POST", path, headers, body, texts, images, cached, body.get("model", "")
        )
        self._record(request)
        reply = self._next_reply(request)
        if reply.raw is not None and reply.status == 200:
            try:
                self._remember_response(body, json.loads(reply.raw))
            except ValueError:
                pass  # malformed on purpose
        if self._error_or_raw(handler, reply, self._openai_error):
            return
        out = self._out_tokens(reply)
        payload = {
            "id": f"resp_sim{next(self._ids)}",
            "object": "response",
            "created_at": int(time.time()),
            "model": body.get("model"),
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": f"msg_sim{next(self._ids)}",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": total,
                "input_tokens_details": {"cached_tokens": cached},
                "output_tokens": out,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": total + out,
            },
        }
        self._remember_response(body, payload)
        self._send(handler, 200, payload, {**self._rate_limit_headers(OPENAI_RESPONSES), **reply.headers})
