"""Judge model providers through their official SDKs (google-genai, anthropic, openai and any
OpenAI-compatible server), each sending the shared trajectory prefix so the provider can cache it,
within the provider's request size limit, and reading the provider's retry hints."""

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
# value is supported.", code unsupported_value: seen in qwen-code #921 for gpt-5-mini, OpenHands #4131
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


def _status_error(status: int | None, headers, message: str, retry_after: float | None = None) -> ProviderError:
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


def _cache_key(prefix: Prefix, key: str) -> str:
    digest = hashlib.sha256(key.encode())
    for part in prefix.parts:
        digest.update(part.text.encode() if isinstance(part, TextPart) else part.data)
    return "mypc-judge-" + digest.hexdigest()[:32]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# ---------------------------------------------------------------- Google (google-genai)


class GoogleProvider(Provider):
    """Explicit context caching: the prefix becomes a cachedContents resource that each rubric call
    refers to. When the API will not cache it (too small, a failing create) or the cache is gone
    mid-trajectory (expired, deleted), every call sends the prefix in full instead."""

    name = GOOGLE
    CACHE_TTL_S = 900

    def __init__(self, model, **kwargs):
        super().__init__(model, **kwargs)
        from google import genai
        from google.genai import types

        self.types = types
        options = types.HttpOptions(timeout=int(REQUEST_TIMEOUT_S * 1000))
        if self.base_url:
            options = types.HttpOptions(base_url=self.base_url, timeout=int(REQUEST_TIMEOUT_S * 1000))
        self.client = genai.Client(api_key=self.api_key, http_options=options)

    def _contents(self, parts_in):
        types = self.types
        parts = []
        for part in parts_in:
            if isinstance(part, TextPart):
                parts.append(types.Part.from_text(text=part.text))
            else:
                parts.append(types.Part.from_bytes(data=part.data, mime_type=part.mime_type))
        return [types.Content(role="user", parts=parts)] if parts else []

    def _call(self, fn, *args, **kwargs):
        from google.genai import errors

        try:
            return fn(*args, **kwargs)
        except errors.APIError as exc:
            headers = getattr(getattr(exc, "response", None), "headers", None)
            error = _status_error(
                exc.code,
                headers,
                f"Gemini API error {exc.code}: {exc.message or exc}",
                retry_after=retry_delay_from_body(exc.details),
            )
            error.google_status = exc.status or ""
            raise error from exc
        except Exception as exc:  # timeouts and dropped connections come from the HTTP client
            if _is_network_error(exc):
                raise ProviderError(f"Gemini API unreachable: {exc!r}", transient=True) from exc
            raise

    def open_prefix(self, prefix, key):
        handle = super().open_prefix(prefix, key)
        if not prefix.parts or not prefix.cacheable:
            return handle  # the paper's order puts the rubric item first: nothing to cache
        types = self.types
        config = types.CreateCachedContentConfig(
            contents=self._contents(prefix.parts),
            system_instruction=prefix.system,
            ttl=f"{self.CACHE_TTL_S}s",
            display_name=handle.cache_key[:120],
        )
        try:
            cache = self._call(self.client.caches.create, model=self.model, config=config)
        except ProviderError as exc:
            if exc.transient:
                raise  # retried; if it keeps failing the judge falls back to the full prefix
            handle.notes["cache_unavailable"] = str(exc)[:300]
            return handle  # not cacheable (below the minimum size, model without caching): send in full
        handle.cache_name = cache.name
        meta = cache.usage_metadata
        total = (meta.total_token_count or 0) if meta else 0
        handle.setup_usage = Usage(input_tokens=total, cache_write_tokens=total)
        handle.cache_tokens = total
        handle.cache_created_at = time.monotonic()
        return handle

    @staticmethod
    def _cache_is_gone(exc: ProviderError) -> bool:
        """A call naming an expired or deleted cache: 404 NOT_FOUND, or 403 PERMISSION_DENIED as the
        API answers for a cachedContent it no longer finds."""
        return exc.status in (403, 404) or getattr(exc, "google_status", "") in ("NOT_FOUND", "PERMISSION_DENIED")

    def _config(self, cache_name: str, system: str):
        if cache_name:
            return self.types.GenerateContentConfig(
                cached_content=cache_name, temperature=self.temperature, max_output_tokens=MAX_OUTPUT_TOKENS
            )
        return self.types.GenerateContentConfig(
            system_instruction=system, temperature=self.temperature, max_output_tokens=MAX_OUTPUT_TOKENS
        )

    def ask(self, handle, item):
        types = self.types
        cache_name = handle.cache_name
        notes = {}
        if cache_name:
            contents = [types.Content(role="user", parts=[types.Part.from_text(text=item)])]
            try:
                response = self._call(
                    self.client.models.generate_content,
                    model=self.model,
                    contents=contents,
                    config=self._config(cache_name, handle.prefix.system),
                )
            except ProviderError as exc:
                if not self._cache_is_gone(exc):
                    raise
                with handle.lock:
                    if handle.cache_name == cache_name:
                        self._end_cache(handle)  # storage stops being billed when the cache is gone
                        handle.cache_name = ""
                        handle.notes["cache_lost"] = str(exc)[:300]
                notes["sent_full_prefix_after_cache_loss"] = True
                cache_name = ""
        if not cache_name:
            contents = self._contents(handle.prefix.with_item(item))
            response = self._call(
                self.client.models.generate_content,
                model=self.model,
                contents=contents,
                config=self._config("", handle.prefix.system),
            )
        meta = response.usage_metadata
        usage = Usage()
        if meta:
            usage = Usage(
                input_tokens=meta.prompt_token_count or 0,
                cached_tokens=meta.cached_content_token_count or 0,
                output_tokens=(meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
            )
        try:
            text = response.text or ""
        except ValueError:
            text = ""
        return Answer(text, usage, notes)

    @staticmethod
    def _end_cache(handle) -> None:
        if handle.cache_created_at:
            hours = (time.monotonic() - handle.cache_created_at) / 3600
            handle.cache_token_hours += handle.cache_tokens * hours
            handle.cache_created_at = 0.0

    def close_prefix(self, handle):
        if handle.cache_name:
            with handle.lock:
                self._end_cache(handle)
            try:
                self._call(self.client.caches.delete, name=handle.cache_name)
            except ProviderError:
                # Not deleted: it stays (and is billed) until its TTL runs out.
                handle.cache_token_hours += handle.cache_tokens * self.CACHE_TTL_S / 3600


# ---------------------------------------------------------------- Anthropic


class AnthropicProvider(Provider):
    """Prompt caching with a cache_control breakpoint on the last block of the prefix."""

    name = ANTHROPIC
    max_images_per_request = 100  # the Messages API refuses more images in one request

    def __init__(self, model, **kwargs):
        super().__init__(model, **kwargs)
        import anthropic

        # The Messages API of this SDK generation takes no sampling parameters; record that none was set.
        self.temperature = None
        self.sdk = anthropic
        self.client = anthropic.Anthropic(
            api_key=self.api_key, base_url=self.base_url, max_retries=0, timeout=REQUEST_TIMEOUT_S
        )

    def ask(self, handle, item):
        anthropic = self.sdk
        prefix = handle.prefix
        blocks: list[dict] = []
        for part in prefix.with_item(item):
            if isinstance(part, TextPart):
                blocks.append({"type": "text", "text": part.text})
            else:
                source = {"type": "base64", "media_type": part.mime_type, "data": _b64(part.data)}
                blocks.append({"type": "image", "source": source})
        if prefix.cacheable and len(blocks) > 1:
            blocks[-2]["cache_control"] = {"type": "ephemeral"}  # the last prefix block; the item follows
        try:
            raw = self.client.messages.with_raw_response.create(
                model=self.model,
                max_tokens=MAX_OUTPUT_TOKENS,
                system=handle.prefix.system,
                # the SDK types messages as TypedDicts: blocks built as plain dicts cannot match one
                messages=[{"role": "user", "content": blocks}],  # type: ignore[misc, list-item]
            )
            response = raw.parse()
        except anthropic.APIStatusError as exc:
            raise _status_error(exc.status_code, exc.response.headers, f"Anthropic API error: {exc}") from exc
        except (anthropic.APITimeoutError, anthropic.APIConnectionError) as exc:
            raise ProviderError(f"Anthropic API unreachable: {exc!r}", transient=True) from exc
        text = "".join(getattr(block, "text", "") for block in response.content)
        u = response.usage
        read = u.cache_read_input_tokens or 0
        write = u.cache_creation_input_tokens or 0
        usage = Usage(
            input_tokens=u.input_tokens + read + write,
            cached_tokens=read,
            cache_write_tokens=write,
            output_tokens=u.output_tokens,
        )
        return Answer(text, usage, rate_limits=rate_limits_from_headers(raw.headers))


# ---------------------------------------------------------------- OpenAI and compatible servers


class OpenAIProvider(Provider):
    """Chat Completions with the prefix first and unchanged across items, so automatic prompt
    caching applies; ``prompt_cache_key`` routes a trajectory's calls to the same cache. Reasoning
    models get no temperature (the provider's default), a low reasoning effort and an output limit
    sized for reasoning, raised when an answer comes back empty for lack of room."""

    name = OPENAI
    send_cache_key = True

    def __init__(self, model, **kwargs):
        super().__init__(model, **kwargs)
        import openai

        self.sdk = openai
        self.reasoning = self.name == OPENAI and bool(REASONING_MODEL.match(model))
        if self.reasoning:
            self.temperature = None
        self.client = openai.OpenAI(
            api_key=self.api_key, base_url=self.base_url, max_retries=0, timeout=REQUEST_TIMEOUT_S
        )

    def extra_settings(self) -> dict:
        if not self.reasoning:
            return {}
        return {"reasoning_effort": REASONING_EFFORT, "max_output_tokens": REASONING_OUTPUT_TOKENS}

    def _create(self, handle, content, limit: int):
        openai = self.sdk
        kwargs = {}
        if self.send_cache_key and handle.cache_key and handle.prefix.cacheable:
            kwargs["prompt_cache_key"] = handle.cache_key
        if self.reasoning:
            kwargs["reasoning_effort"] = REASONING_EFFORT
        else:
            kwargs["temperature"] = self.temperature
        try:
            raw = self.client.chat.completions.with_raw_response.create(
                model=self.model,
                max_completion_tokens=limit,
                messages=[
                    {"role": "system", "content": handle.prefix.system},
                    {"role": "user", "content": content},
                ],
                **kwargs,
            )
            return raw.parse(), rate_limits_from_headers(raw.headers)
        except openai.APIStatusError as exc:
            raise _status_error(exc.status_code, exc.response.headers, f"{self.name} API error: {exc}") from exc
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise ProviderError(f"{self.name} API unreachable: {exc!r}", transient=True) from exc

    def ask(self, handle, item):
        content: list[dict] = []
        for part in handle.prefix.with_item(item):
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            else:
                url = f"data:{part.mime_type};base64,{_b64(part.data)}"
                content.append({"type": "image_url", "image_url": {"url": url, "detail": "high"}})
        limit = REASONING_OUTPUT_TOKENS if self.reasoning else MAX_OUTPUT_TOKENS
        usage = Usage()
        notes = {}
        while True:
            response, limits = self._create(handle, content, limit)
            choice = response.choices[0] if response.choices else None
            text = (choice.message.content or "") if choice else ""
            u = response.usage
            if u is not None:
                details = getattr(u, "prompt_tokens_details", None)
                usage = usage + Usage(
                    input_tokens=u.prompt_tokens or 0,
                    cached_tokens=(getattr(details, "cached_tokens", 0) or 0) if details else 0,
                    output_tokens=u.completion_tokens or 0,
                )
            ran_out = choice is not None and choice.finish_reason == "length" and not text.strip()
            if not ran_out or limit >= REASONING_OUTPUT_TOKENS_MAX:
                if ran_out:
                    notes["empty_answer_at_output_limit"] = limit
                return Answer(text, usage, notes, rate_limits=limits)
            # Reasoning used the whole output limit before any answer: ask again with more room.
            limit = min(REASONING_OUTPUT_TOKENS_MAX, limit * 2)
            notes["output_limit_raised_to"] = limit


class OpenAICompatibleProvider(OpenAIProvider):
    """Any server speaking Chat Completions (vLLM and the like) at a base URL; vLLM caches
    shared prefixes by itself (automatic prefix caching)."""

    name = OPENAI_COMPATIBLE
    send_cache_key = False


def _is_network_error(exc: Exception) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"TimeoutException", "NetworkError", "TransportError", "ConnectionError", "TimeoutError"})


_CLASSES = {
    GOOGLE: GoogleProvider,
    ANTHROPIC: AnthropicProvider,
    OPENAI: OpenAIProvider,
    OPENAI_COMPATIBLE: OpenAICompatibleProvider,
}


def make_provider(
    provider: str,
    model: str | None = None,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    temperature: float = 0.0,
    environ=None,
) -> Provider:
    """A ready provider, or a ConfigurationError before any work starts."""
    key = api_key_for(provider, api_key, environ)
    model = model or DEFAULT_MODELS[provider]
    if provider == OPENAI_COMPATIBLE and not base_url:
        raise ConfigurationError("the openai_compatible judge needs a base URL (--base-url), e.g. http://host:8000/v1")
    if not model:
        raise ConfigurationError(f"no model given for the {provider} judge (--model)")
    return _CLASSES[provider](model, api_key=key, base_url=base_url, temperature=temperature)
