"""Judge model providers through their official SDKs (google-genai, anthropic, openai and any
OpenAI-compatible server), each sending the shared trajectory prefix so the provider can cache it."""

import base64
import hashlib
import os
from dataclasses import dataclass

from harness.judge.prompt import Prefix, TextPart

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


class ConfigurationError(ValueError):
    """The judge cannot start: a missing key, an unknown provider, a missing base URL."""


class ProviderError(Exception):
    """A call that failed. ``transient`` ones (429, 5xx, timeouts, dropped connections) are retried."""

    def __init__(self, message: str, *, transient: bool, retry_after: float | None = None, status: int | None = None):
        super().__init__(message)
        self.transient = transient
        self.retry_after = retry_after
        self.status = status


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


@dataclass
class PrefixHandle:
    """A prefix ready for rubric calls: the provider's cache reference, if any, and what setting it up cost."""

    prefix: Prefix
    cache_name: str = ""
    setup_usage: Usage | None = None
    cache_key: str = ""


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
    if headers is None:
        return None
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _status_error(status: int | None, headers, message: str) -> ProviderError:
    transient = status is None or status in (408, 409, 429) or status >= 500
    return ProviderError(message, transient=transient, retry_after=_retry_after(headers), status=status)


class Provider:
    name = ""
    max_images_per_request: int | None = None

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, temperature: float = 0.0):
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.temperature = temperature

    def open_prefix(self, prefix: Prefix, key: str) -> PrefixHandle:
        return PrefixHandle(prefix=prefix, cache_key=_cache_key(prefix, key))

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
    refers to; when the API will not cache it (too small, say) every call sends the prefix in full."""

    name = GOOGLE

    def __init__(self, model, **kwargs):
        super().__init__(model, **kwargs)
        from google import genai
        from google.genai import types

        self.types = types
        options = types.HttpOptions(timeout=int(REQUEST_TIMEOUT_S * 1000))
        if self.base_url:
            options = types.HttpOptions(base_url=self.base_url, timeout=int(REQUEST_TIMEOUT_S * 1000))
        self.client = genai.Client(api_key=self.api_key, http_options=options)

    def _contents(self, prefix: Prefix):
        types = self.types
        parts = []
        for part in prefix.parts:
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
            raise _status_error(exc.code, headers, f"Gemini API error {exc.code}: {exc.message or exc}") from exc
        except Exception as exc:  # timeouts and dropped connections come from the HTTP client
            if _is_network_error(exc):
                raise ProviderError(f"Gemini API unreachable: {exc!r}", transient=True) from exc
            raise

    def open_prefix(self, prefix, key):
        handle = super().open_prefix(prefix, key)
        if not prefix.parts:
            return handle
        types = self.types
        config = types.CreateCachedContentConfig(
            contents=self._contents(prefix),
            system_instruction=prefix.system,
            ttl="900s",
            display_name=handle.cache_key[:120],
        )
        try:
            cache = self._call(self.client.caches.create, model=self.model, config=config)
        except ProviderError as exc:
            if exc.transient:
                raise
            return handle  # not cacheable (below the minimum size, model without caching): send in full
        handle.cache_name = cache.name
        meta = cache.usage_metadata
        total = (meta.total_token_count or 0) if meta else 0
        handle.setup_usage = Usage(input_tokens=total, cache_write_tokens=total)
        return handle

    def ask(self, handle, item):
        types = self.types
        user = types.Content(role="user", parts=[types.Part.from_text(text=item)])
        if handle.cache_name:
            config = types.GenerateContentConfig(
                cached_content=handle.cache_name, temperature=self.temperature, max_output_tokens=MAX_OUTPUT_TOKENS
            )
            contents = [user]
        else:
            config = types.GenerateContentConfig(
                system_instruction=handle.prefix.system,
                temperature=self.temperature,
                max_output_tokens=MAX_OUTPUT_TOKENS,
            )
            prefix_contents = self._contents(handle.prefix)
            if prefix_contents:
                prefix_contents[0].parts.append(types.Part.from_text(text=item))
                contents = prefix_contents
            else:
                contents = [user]
        response = self._call(self.client.models.generate_content, model=self.model, contents=contents, config=config)
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
        return Answer(text, usage)

    def close_prefix(self, handle):
        if handle.cache_name:
            try:
                self._call(self.client.caches.delete, name=handle.cache_name)
            except ProviderError:
                pass  # it expires by its TTL anyway


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
        blocks = []
        for part in handle.prefix.parts:
            if isinstance(part, TextPart):
                blocks.append({"type": "text", "text": part.text})
            else:
                source = {"type": "base64", "media_type": part.mime_type, "data": _b64(part.data)}
                blocks.append({"type": "image", "source": source})
        if blocks:
            blocks[-1]["cache_control"] = {"type": "ephemeral"}
        blocks.append({"type": "text", "text": item})
        try:
            response = self.client.messages.create(
                model=self.model,
                max_tokens=MAX_OUTPUT_TOKENS,
                system=handle.prefix.system,
                messages=[{"role": "user", "content": blocks}],
            )
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
        return Answer(text, usage)


# ---------------------------------------------------------------- OpenAI and compatible servers


class OpenAIProvider(Provider):
    """Chat Completions with the prefix first and unchanged across items, so automatic prompt
    caching applies; ``prompt_cache_key`` routes a trajectory's calls to the same cache."""

    name = OPENAI
    send_cache_key = True

    def __init__(self, model, **kwargs):
        super().__init__(model, **kwargs)
        import openai

        self.sdk = openai
        self.client = openai.OpenAI(
            api_key=self.api_key, base_url=self.base_url, max_retries=0, timeout=REQUEST_TIMEOUT_S
        )

    def ask(self, handle, item):
        openai = self.sdk
        content = []
        for part in handle.prefix.parts:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            else:
                url = f"data:{part.mime_type};base64,{_b64(part.data)}"
                content.append({"type": "image_url", "image_url": {"url": url, "detail": "high"}})
        content.append({"type": "text", "text": item})
        kwargs = {}
        if self.send_cache_key and handle.cache_key:
            kwargs["prompt_cache_key"] = handle.cache_key
        try:
            response = self.client.chat.completions.create(
                model=self.model,
                temperature=self.temperature,
                max_completion_tokens=MAX_OUTPUT_TOKENS,
                messages=[
                    {"role": "system", "content": handle.prefix.system},
                    {"role": "user", "content": content},
                ],
                **kwargs,
            )
        except openai.APIStatusError as exc:
            raise _status_error(exc.status_code, exc.response.headers, f"{self.name} API error: {exc}") from exc
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise ProviderError(f"{self.name} API unreachable: {exc!r}", transient=True) from exc
        text = (response.choices[0].message.content or "") if response.choices else ""
        u = response.usage
        usage = Usage()
        if u is not None:
            details = getattr(u, "prompt_tokens_details", None)
            usage = Usage(
                input_tokens=u.prompt_tokens or 0,
                cached_tokens=(getattr(details, "cached_tokens", 0) or 0) if details else 0,
                output_tokens=u.completion_tokens or 0,
            )
        return Answer(text, usage)


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
