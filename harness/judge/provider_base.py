"""What every judge provider shares: the provider names, default models and API keys, request size
limits, the errors and retry hints (headers and bodies), rate limits read from headers, token usage, and
the Provider base class the SDK providers (``providers``) fill in."""

import base64
import email.utils
import hashlib
import os
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime

from harness.judge.prompt import ImagePart, Prefix, TextPart

GOOGLE = "google"
ANTHROPIC = "anthropic"
OPENAI = "openai"
OPENAI_COMPATIBLE = "openai_compatible"
PROVIDERS = (GOOGLE, ANTHROPIC, OPENAI, OPENAI_COMPATIBLE)
DEFAULT_MODELS = {
    GOOGLE: "gemini-3.1-flash-lite-preview",
    ANTHROPIC: "claude-sonnet-4-6",
    OPENAI: "gpt-5-mini",
    OPENAI_COMPATIBLE: "",
}
API_KEY_VARIABLES = {
    GOOGLE: ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    ANTHROPIC: ("ANTHROPIC_API_KEY",),
    OPENAI: ("OPENAI_API_KEY",),
    OPENAI_COMPATIBLE: ("OPENAI_COMPATIBLE_API_KEY", "OPENAI_API_KEY"),
}
MAX_OUTPUT_TOKENS = 4096
REQUEST_TIMEOUT_S = 300.0
MB = 1_000_000
# Request size limits (bytes of the HTTP body), each with a 5% margin for JSON framing we do not count:
# - Anthropic: Messages API requests are limited to 32 MB; over it Cloudflare answers 413
#   request_too_large (docs.anthropic.com/en/api/overview, "Request size limits"; /en/api/errors).
# - Gemini: inline data up to 20 MB per request was the documented limit for years ("Request payload
#   size exceeds the limit: 20971520 bytes"); a January 2026 update raised inline payloads to 100 MB
#   "with varying limits based on data types" (blog.google, Gemini API new file limits). We keep 20 MB,
#   safe under both, and cachedContents.create carries the same inline bytes.
# - OpenAI: up to 50 MB of image bytes and 500 images per request, 20 MB per image (platform.openai.com
#   images-vision guide, "Image input requirements").
REQUEST_LIMITS = {
    GOOGLE: 20 * 1024 * 1024,
    ANTHROPIC: 32 * MB,
    OPENAI: 50 * MB,
    OPENAI_COMPATIBLE: 50 * MB,
}
SAFETY_MARGIN = 0.95
# OpenAI reasoning models (gpt-5 family, o1/o3/o4) take no temperature other than the default 1
# (HTTP 400 "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1)
# value is supported.", code unsupported_value: seen in QwenLM/qwen-code#921 for gpt-5-mini, All-Hands-AI/OpenHands#4131
# for o1-mini) and count reasoning tokens against max_completion_tokens, so a small limit yields an
# empty answer with finish_reason "length" (community.openai.com o1/o3-mini threads).
REASONING_MODEL = re.compile(r"^(?:gpt-5(?!-chat)|o1|o3|o4)", re.IGNORECASE)
REASONING_EFFORT = "low"
REASONING_OUTPUT_TOKENS = 16_000
REASONING_OUTPUT_TOKENS_MAX = 64_000


class ConfigurationError(ValueError):
    """The judge cannot start: a missing key, an unknown provider, a missing base URL."""


class ProviderError(Exception):
    """A call that failed. ``transient`` ones (429, 5xx, timeouts, dropped connections) are retried;
    the rest (400, 401, 403, 404, 413, 422: the same request would fail again) are not."""

    def __init__(self, message: str, *, transient: bool, retry_after: float | None = None, status: int | None = None):
        super().__init__(message)
        self.transient = transient
        self.retry_after = retry_after
        self.status = status
        self.tries = 1
        self.google_status = ""  # Gemini's status name (NOT_FOUND, PERMISSION_DENIED...) when Gemini answered


@dataclass
class Usage:
    input_tokens: int = 0  # every prompt token, cached or not
    cached_tokens: int = 0  # of those, read from a cache
    cache_write_tokens: int = 0  # of those, written to a cache (Anthropic bills these at a premium)
    output_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.input_tokens + other.input_tokens,
            self.cached_tokens + other.cached_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.output_tokens + other.output_tokens,
        )


@dataclass
class Answer:
    text: str
    usage: Usage
    notes: dict = field(default_factory=dict)
    rate_limits: "RateLimits | None" = None  # the provider's request quota, as its answer's headers gave it


@dataclass(frozen=True)
class RateLimits:
    """A provider's request quota from the headers of an answer: requests allowed per window, requests
    left, and seconds until the window frees (any may be unknown). Anthropic sends
    anthropic-ratelimit-requests-{limit,remaining,reset} (reset an RFC 3339 time); OpenAI sends
    x-ratelimit-{limit,remaining,reset}-requests (reset a duration such as "1s" or "6m0s")."""

    limit: int | None = None
    remaining: int | None = None
    reset_s: float | None = None


_GO_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def _int_header(headers, name: str) -> int | None:
    try:
        return int(str(headers.get(name)).strip())
    except (TypeError, ValueError):
        return None


def _reset_seconds(value) -> float | None:
    """Seconds from an RFC 3339 time (Anthropic) or a duration such as "1m30s" / "20ms" (OpenAI)."""
    if value is None:
        return None
    text = str(value).strip()
    parts = _GO_DURATION.findall(text)
    if parts and "".join(n + u for n, u in parts) == text:
        factor = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
        return sum(float(n) * factor[u] for n, u in parts)
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def rate_limits_from_headers(headers) -> RateLimits | None:
    """The request quota an answer's headers state (Anthropic's or OpenAI's names), or None."""
    if headers is None:
        return None
    for prefix, suffix in (("anthropic-ratelimit-requests-", ""), ("x-ratelimit-", "-requests")):
        limit = _int_header(headers, f"{prefix}limit{suffix}")
        remaining = _int_header(headers, f"{prefix}remaining{suffix}")
        if limit is not None or remaining is not None:
            return RateLimits(limit, remaining, _reset_seconds(headers.get(f"{prefix}reset{suffix}")))
    return None


@dataclass
class PrefixHandle:
    """A prefix ready for rubric calls: the provider's cache reference, if any, what setting it up
    cost, and how long its tokens were held (explicit caches bill storage by the hour)."""

    prefix: Prefix
    cache_name: str = ""
    setup_usage: Usage | None = None
    cache_key: str = ""
    cache_tokens: int = 0
    cache_created_at: float = 0.0
    cache_token_hours: float = 0.0
    notes: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def request_bytes(prefix: Prefix, item: str = "") -> int:
    """The HTTP body size of one rubric call, near enough to keep under a limit: images travel in
    base64 (4 bytes per 3), text as UTF-8 (JSON escaping aside; the margin covers it)."""
    size = len(prefix.system.encode()) + len(item.encode()) + 2048
    for part in prefix.parts:
        if isinstance(part, ImagePart):
            size += 4 * ((len(part.data) + 2) // 3) + 128
        else:
            size += len(part.text.encode()) + 32
    return size


def api_key_for(provider: str, api_key: str | None = None, environ=None) -> str:
    """The key to use, or a ConfigurationError naming the variables that were looked at."""
    if provider not in PROVIDERS:
        raise ConfigurationError(f"unknown judge provider {provider!r} (expected one of {', '.join(PROVIDERS)})")
    if api_key:
        return api_key
    environ = os.environ if environ is None else environ
    for name in API_KEY_VARIABLES[provider]:
        if environ.get(name):
            return environ[name]
    if provider == OPENAI_COMPATIBLE:
        return "none"  # local servers (vLLM) usually take any key
    names = " or ".join(API_KEY_VARIABLES[provider])
    raise ConfigurationError(f"no API key for the {provider} judge: set {names} (or pass --api-key)")


def _retry_after(headers) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (OpenAI sends it; its SDK reads it first) or
    ``Retry-After`` (seconds, or an HTTP date as RFC 9110 allows)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time()) if when is not None else None


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def retry_delay_from_body(body) -> float | None:
    """The google.rpc.RetryInfo ``retryDelay`` of a Google API error body ("50s", "0.5s"): Gemini puts
    a 429's wait there, not in a header (googleapis/python-genai PR #2114 quotes such a body:
    'details': [{'@type': 'type.googleapis.com/google.rpc.RetryInfo', 'retryDelay': '58s'}])."""
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = detail.get("retryDelay")
            if isinstance(delay, dict):  # the protobuf JSON of a Duration can also be {"seconds", "nanos"}
                return float(delay.get("seconds", 0)) + float(delay.get("nanos", 0)) / 1e9
            match = _DURATION.match(str(delay or ""))
            if match:
                return float(match.group(1))
    return None


PERMANENT_STATUSES = (400, 401, 403, 404, 413, 422)


def status_error(status: int | None, headers, message: str, retry_after: float | None = None) -> ProviderError:
    # 408 (timeout), 409 (conflict), 429 and 5xx can succeed later; any other 4xx would fail again.
    transient = status is None or status in (408, 409, 429) or status >= 500
    hint = _retry_after(headers)
    return ProviderError(
        message, transient=transient, retry_after=hint if hint is not None else retry_after, status=status
    )


class Provider:
    name = ""
    max_images_per_request: int | None = None

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, temperature: float = 0.0):
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.temperature: float | None = temperature  # None: the API takes no temperature
        self.max_request_bytes = int(REQUEST_LIMITS.get(self.name, 50 * MB) * SAFETY_MARGIN)

    def extra_settings(self) -> dict:
        """Provider-specific parts of the judge configuration (recorded with every judgment)."""
        return {}

    def open_prefix(self, prefix: Prefix, key: str) -> PrefixHandle:
        return PrefixHandle(prefix=prefix, cache_key=_cache_key(prefix, key))

    def uncached(self, prefix: Prefix, key: str) -> PrefixHandle:
        """A handle that sends the whole prefix with every call (no provider cache)."""
        return Provider.open_prefix(self, prefix, key)

    def ask(self, handle: PrefixHandle, item: str) -> Answer:
        raise NotImplementedError

    def close_prefix(self, handle: PrefixHandle) -> None:
        return None

    def text_call(self, system: str, text: str) -> Answer:
        """A plain text question (no trajectory), e.g. to classify an explanation."""
        return self.ask(PrefixHandle(prefix=Prefix(system=system, parts=[])), text)


def call_with_retries(call, *, attempts: int = 3, base_delay: float = 1.0, sleep=time.sleep):
    """``call()``, tried again after a transient ProviderError (429, 5xx, a dropped connection) with
    exponential backoff (the server's retry time wins when longer), up to ``attempts`` calls; a permanent
    error, or the last transient one, is raised. For the single text calls outside the rubric judge."""
    attempts = max(1, attempts)
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except ProviderError as exc:
            if not exc.transient or attempt == attempts:
                exc.tries = attempt
                raise
            sleep(max(base_delay * 2 ** (attempt - 1), exc.retry_after or 0.0))
    raise AssertionError("unreachable")


def _cache_key(prefix: Prefix, key: str) -> str:
    digest = hashlib.sha256(key.encode())
    for part in prefix.parts:
        digest.update(part.text.encode() if isinstance(part, TextPart) else part.data)
    return "mypc-judge-" + digest.hexdigest()[:32]


def b64_text(data: bytes) -> str:
    """Bytes as base64 text, as the APIs take images."""
    return base64.b64encode(data).decode("ascii")
