"""Judge model providers through their official SDKs (google-genai, anthropic, openai and any
OpenAI-compatible server), each sending the shared trajectory prefix so the provider can cache it,
within the provider's request size limit, and reading the provider's retry hints."""

import time

from harness.judge.prompt import TextPart
from harness.judge.provider_base import (
    ANTHROPIC,
    DEFAULT_MODELS,
    GOOGLE,
    MAX_OUTPUT_TOKENS,
    OPENAI,
    OPENAI_COMPATIBLE,
    REASONING_EFFORT,
    REASONING_MODEL,
    REASONING_OUTPUT_TOKENS,
    REASONING_OUTPUT_TOKENS_MAX,
    REQUEST_TIMEOUT_S,
    Answer,
    ConfigurationError,
    Provider,
    ProviderError,
    Usage,
    api_key_for,
    b64_text,
    rate_limits_from_headers,
    retry_delay_from_body,
    status_error,
)

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
            error = status_error(
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
                source = {"type": "base64", "media_type": part.mime_type, "data": b64_text(part.data)}
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
            raise status_error(exc.status_code, exc.response.headers, f"Anthropic API error: {exc}") from exc
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
            raise status_error(exc.status_code, exc.response.headers, f"{self.name} API error: {exc}") from exc
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise ProviderError(f"{self.name} API unreachable: {exc!r}", transient=True) from exc

    def ask(self, handle, item):
        content: list[dict] = []
        for part in handle.prefix.with_item(item):
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            else:
                url = f"data:{part.mime_type};base64,{b64_text(part.data)}"
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
