"""One threaded HTTP server on 127.0.0.1 (random port) answering Gemini generateContent and
cachedContents, Anthropic messages, and OpenAI chat completions and responses, with scripted
replies, injected errors and latency; every request is recorded for assertions."""

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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GEMINI, ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES = "gemini", "anthropic", "openai_chat", "openai_responses"
_GENERATE = re.compile(r"^/(?:v1beta|v1)/models/(?P<model>[^:/]+):generateContent$")
_CACHES = re.compile(r"^/(?:v1beta|v1)/cachedContents(?:/(?P<id>[^/?]+))?$")


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
    ):
        self.responder = responder or (lambda request: "ok")
        self.script = list(script or [])
        self.latency = latency
        self.image_tokens = image_tokens
        self.openai_cache_min_tokens = openai_cache_min_tokens
        self.gemini_cache_min_tokens = gemini_cache_min_tokens
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
        low, high = self.latency
        if high > 0:
            time.sleep(random.uniform(low, high))
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
            self._send(handler, reply.status, error_body(reply.status), reply.headers)
            return True
        return False

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

    def _gemini_cache(self, handler, method, cache_id, body, headers, path):
        if method == "POST" and cache_id is None:
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
        texts, images = self._gemini_parts(body.get("contents"))
        cached = 0
        cache_name = body.get("cachedContent")
        if cache_name:
            cache = self.caches.get(cache_name)
            if cache is None:
                self._record(SimRequest(GEMINI, "POST", path, headers, body, texts, images, model=model))
                return self._send(handler, 404, self._gemini_error(404))
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

    def _anthropic(self, handler, body, headers, path):
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
        self._send(handler, 200, payload, reply.headers)

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

    def _openai_chat(self, handler, body, headers, path):
        prefix, total, prefix_tokens, texts, images = self._openai_split(body.get("messages", []))
        cached = self._openai_prefix_cached([body.get("prompt_cache_key"), prefix], prefix_tokens)
        request = SimRequest(OPENAI_CHAT, "POST", path, headers, body, texts, images, cached, body.get("model", ""))
        self._record(request)
        reply = self._next_reply(request)
        if self._error_or_raw(handler, reply, self._openai_error):
            return
        out = self._out_tokens(reply)
        payload = {
            "id": f"chatcmpl-sim{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": total,
                "completion_tokens": out,
                "total_tokens": total + out,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }
        self._send(handler, 200, payload, reply.headers)

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
        self._send(handler, 200, payload, reply.headers)
