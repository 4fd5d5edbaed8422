"""Judging one trajectory: one call per rubric item over a shared prefix, adaptive concurrency per
provider and model, retries only for what can succeed (429s after the server's retry time, 5xx,
timeouts), requests fitted to each provider's byte limit, and per-item verdicts with tokens, cost
and latency. A run whose calls all fail the same permanent way stops with one clear error."""

import hashlib
import logging
import random
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.judge.images import ImagePolicy
from harness.judge.limiter import QUOTA_WINDOW_S, AdaptiveLimiter
from harness.judge.parse import AnswerError, parse_answer, parse_status_answer
from harness.judge.prompt import (
    DEFAULT_MAX_IMAGES,
    PROMPT_VERSION,
    PROMPT_VERSIONS,
    PROTOCOLS,
    JudgedItem,
    Prefix,
    TrajectoryForJudge,
    build_prefix,
    item_text,
)
from harness.judge.provider_base import Provider, ProviderError, Usage, request_bytes

logger = logging.getLogger(__name__)

SUCCESS, FAILURE, ERROR = "success", "failure", "error"
DEFAULT_CONCURRENCY = 64  # the ceiling: the calls in flight follow the quota up to it
DEFAULT_ATTEMPTS = 5  # tries per call on 5xx, timeouts and dropped connections
RATE_LIMIT_BUDGET_S = 600.0  # total wait per call on 429s: per-minute quotas need minutes, not 15 s
PARSE_ATTEMPTS = 2  # an answer without a verdict is asked again once
STOP_AFTER_SAME_FAILURES = 3  # identical permanent failures, with no call succeeding, stop the run


class JudgeConfigurationError(ValueError):
    """A judge option that cannot be used (unknown prompt version, unreadable persona summary)."""


@dataclass
class ItemVerdict:
    position: int
    rubric_id: str
    verdict: str  # success, failure, error
    explanation: str = ""
    cited_steps: list[int] = field(default_factory=list)
    input_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: int = 0
    attempts: int = 0
    error: str = ""
    raw_answer: str = ""
    notes: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def cost_of(usage: Usage, model: str, price_table: dict | None, *, cache_token_hours: float = 0.0) -> float | None:
    """USD for one call from a table of USD per million tokens: {model: {"input", "cached_input",
    "cache_write", "output", "cache_storage_per_hour"}}; None when the model has no price.
    ``cache_token_hours`` (tokens held in an explicit cache x hours) is billed at the storage price."""
    prices = (price_table or {}).get(model)
    if not prices:
        return None
    fresh = max(0, usage.input_tokens - usage.cached_tokens - usage.cache_write_tokens)
    per_token = 1e-6
    return per_token * (
        fresh * prices.get("input", 0.0)
        + usage.cached_tokens * prices.get("cached_input", prices.get("input", 0.0))
        + usage.cache_write_tokens * prices.get("cache_write", prices.get("input", 0.0))
        + usage.output_tokens * prices.get("output", 0.0)
        + cache_token_hours * prices.get("cache_storage_per_hour", 0.0)
    )


@dataclass(frozen=True)
class PersonaSummary:
    """A persona summary given as text rather than a path (the site's loaded world), with a few words
    saying where it came from (recorded in the judge's settings)."""

    text: str
    origin: str


def read_persona_summary(source) -> str:
    """The persona summary's Markdown from a path (str or Path) or a :class:`PersonaSummary`; a missing
    or empty file or text is an error."""
    if source is None or source == "":
        return ""
    if isinstance(source, PersonaSummary):
        if not source.text.strip():
            raise JudgeConfigurationError(f"the persona summary of {source.origin} is empty")
        return source.text
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise JudgeConfigurationError(f"cannot read the persona summary {path}: {exc.strerror or exc}") from exc
    if not text.strip():
        raise JudgeConfigurationError(f"the persona summary {path} is empty (expected the Markdown summary)")
    return text


class JudgeStopped(ProviderError):
    """The run was stopped: every call so far failed the same permanent way."""

    def __init__(self, message: str):
        super().__init__(message, transient=False)


class Judge:
    def __init__(
        self,
        provider: Provider,
        *,
        max_images: int = DEFAULT_MAX_IMAGES,
        concurrency: int = DEFAULT_CONCURRENCY,
        attempts: int = DEFAULT_ATTEMPTS,
        base_delay: float = 1.0,
        max_delay: float = 60.0,
        rate_limit_budget: float = RATE_LIMIT_BUDGET_S,
        price_table: dict | None = None,
        sleep=time.sleep,
        prompt_version: str = PROMPT_VERSION,
        persona_summary=None,
        images: ImagePolicy | None = None,
        max_request_bytes: int | None = None,
        quota_window_s: float = QUOTA_WINDOW_S,
    ):
        if prompt_version not in PROMPT_VERSIONS:
            raise JudgeConfigurationError(
                f"unknown prompt version {prompt_version!r} (expected one of {', '.join(PROMPT_VERSIONS)})"
            )
        self.provider = provider
        self.max_images = max_images
        if provider.max_images_per_request is not None:
            cap = provider.max_images_per_request
            self.max_images = cap if max_images == 0 else min(max_images, cap)
        self.concurrency = max(1, concurrency)
        self.attempts = max(1, attempts)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.rate_limit_budget = rate_limit_budget
        self.price_table = price_table or {}
        self.sleep = sleep
        self.prompt_version = prompt_version
        if isinstance(persona_summary, PersonaSummary):
            self.persona_path = persona_summary.origin
        else:
            self.persona_path = str(persona_summary) if persona_summary else ""
        self.persona_summary = read_persona_summary(persona_summary)
        self.images = images or ImagePolicy()
        self.max_request_bytes = max_request_bytes or provider.max_request_bytes
        key = (provider.name, provider.base_url or "", provider.model)
        self.limiter = AdaptiveLimiter.shared(key, self.concurrency, window_s=quota_window_s)
        self._state_lock = threading.Lock()
        self._succeeded = 0
        self._permanent: Counter = Counter()
        self.stopped = ""  # why the run stopped early, when it did

    @property
    def protocol(self) -> str:
        return PROTOCOLS[self.prompt_version]

    @property
    def settings(self) -> dict:
        """What identifies this judge configuration (stored with every judgment)."""
        persona: dict = {"sent": bool(self.persona_summary)}
        if self.persona_summary:
            persona["sha256"] = hashlib.sha256(self.persona_summary.encode()).hexdigest()
            persona["path"] = self.persona_path
        return {
            "provider": self.provider.name,
            "model": self.provider.model,
            "temperature": self.provider.temperature,
            # None means the parameter is not sent: the provider's default applies (reasoning models).
            "temperature_mode": "provider default" if self.provider.temperature is None else "set",
            **self.provider.extra_settings(),
            "max_images": self.max_images,
            "prompt_version": self.prompt_version,
            "protocol": self.protocol,
            "base_url": self.provider.base_url or "",
            "images": self.images.as_dict(),
            "max_request_bytes": self.max_request_bytes,
            "persona_summary": persona,
        }

    # ------------------------------------------------------------ retries

    def _backoff(self, attempt: int) -> float:
        return min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * (1 + 0.1 * random.random())

    def _permanent_failure(self, exc: ProviderError) -> None:
        """Counts a failure that retrying cannot fix; stops the run when every call so far failed so."""
        signature = (exc.status, str(exc)[:300])
        with self._state_lock:
            self._permanent[signature] += 1
            if (
                not self.stopped
                and self._succeeded == 0
                and len(self._permanent) == 1
                and self._permanent[signature] >= STOP_AFTER_SAME_FAILURES
            ):
                self.stopped = (
                    f"stopped after {self._permanent[signature]} calls failed the same way and none succeeded: {exc}"
                )
                logger.error("judge %s: %s", self.provider.model, self.stopped)

    def _with_retries(self, what: str, fn, *, count: bool = True):
        """fn() through the limiter; 429s wait for the server's retry time (within the 429 budget),
        5xx and network failures are tried up to ``attempts`` times, anything else raises at once.
        Returns (result, tries) or raises the last ProviderError."""
        tries = 0
        failures = 0
        waited = 0.0
        while True:
            if self.stopped:
                raise JudgeStopped(f"not sent: the judge {self.stopped}")
            tries += 1
            try:
                with self.limiter.slot(self.sleep, count) as started:
                    try:
                        result = fn()
                    except ProviderError as exc:
                        if exc.status == 429:
                            self.limiter.rate_limited(started, exc.retry_after)
                        raise
                self.limiter.succeeded(started, getattr(result, "rate_limits", None))
                return result, tries
            except ProviderError as exc:
                if not exc.transient:
                    exc.tries = tries
                    self._permanent_failure(exc)
                    raise
                failure = exc
            except Exception as exc:
                # An answer the SDK cannot read (a malformed body, say): the item is an error, the run goes on.
                error = ProviderError(f"unreadable provider answer: {exc!r}", transient=False)
                error.tries = tries
                raise error from exc
            if failure.status == 429:
                delay = failure.retry_after if failure.retry_after is not None else self._backoff(tries)
                if waited + delay > self.rate_limit_budget:
                    failure.tries = tries
                    raise failure
                waited += delay
                # The limiter holds every caller (this one too) until the retry time.
                logger.warning("%s: %s; retry %d after %.1fs (rate limited)", what, failure, tries, delay)
                continue
            failures += 1
            if failures >= self.attempts:
                failure.tries = tries
                raise failure
            delay = self._backoff(failures)
            if failure.retry_after is not None:
                delay = max(delay, failure.retry_after)  # the server's word wins over our backoff
            logger.warning("%s: %s; retry %d/%d in %.1fs", what, failure, failures, self.attempts - 1, delay)
            self.sleep(delay)

    # ------------------------------------------------------------ one item

    def _parse(self, prefix: Prefix, text: str, n_steps: int):
        if prefix.answer_format == "status":
            return parse_status_answer(text, n_steps, prefix.data_text)
        return parse_answer(text, n_steps, prefix.data_text)

    def judge_item(self, handle, item: JudgedItem, n_steps: int, key: str) -> ItemVerdict:
        result = ItemVerdict(position=item.position, rubric_id=item.rubric_id, verdict=ERROR)
        usage = Usage()
        text = item_text(item, self.prompt_version)
        started = time.monotonic()
        for parse_try in range(1, PARSE_ATTEMPTS + 1):
            try:
                answer, tries = self._with_retries(f"{key} {item.rubric_id}", lambda: self.provider.ask(handle, text))
            except ProviderError as exc:
                tries = getattr(exc, "tries", 1)
                result.attempts += tries
                if isinstance(exc, JudgeStopped):
                    result.error = str(exc)
                elif exc.transient:
                    result.error = f"provider error after {tries} tries: {exc}"
                else:
                    status = f"HTTP {exc.status}" if exc.status else "an invalid request"
                    result.error = f"provider refused the request ({status}; not retried): {exc}"
                break
            result.attempts += tries
            with self._state_lock:
                self._succeeded += 1  # a rubric call answered: the run's requests can succeed
            usage = usage + answer.usage
            result.raw_answer = answer.text
            result.notes.update(answer.notes)
            try:
                parsed = self._parse(handle.prefix, answer.text, n_steps)
            except AnswerError as exc:
                result.error = f"unparseable answer (try {parse_try} of {PARSE_ATTEMPTS}): {exc}"
                continue
            result.verdict = parsed.verdict
            result.explanation = parsed.reasoning
            result.cited_steps = parsed.cited_steps
            result.error = ""
            if parsed.dropped_steps:
                result.notes["cited_steps_not_in_trajectory"] = parsed.dropped_steps
            if parsed.malformed_steps:
                result.notes["cited_steps_malformed"] = parsed.malformed_steps
            break
        result.latency_ms = int((time.monotonic() - started) * 1000)
        self._set_usage(result, usage)
        return result

    def _set_usage(self, result: ItemVerdict, usage: Usage, cache_token_hours: float = 0.0) -> None:
        result.input_tokens = usage.input_tokens
        result.cached_tokens = usage.cached_tokens
        result.cache_write_tokens = usage.cache_write_tokens
        result.output_tokens = usage.output_tokens
        result.cost_usd = cost_of(usage, self.provider.model, self.price_table, cache_token_hours=cache_token_hours)

    # ------------------------------------------------------------ one trajectory

    def build_prefix(self, trajectory: TrajectoryForJudge, items: Sequence[JudgedItem]) -> Prefix:
        """The prefix, with the oldest screenshots left out when the request would pass the
        provider's byte limit (what was left out is noted on every verdict)."""
        prefix = build_prefix(
            trajectory,
            max_images=self.max_images,
            prompt_version=self.prompt_version,
            images=self.images,
            persona_summary=self.persona_summary,
        )
        longest_item = max((len(item_text(i, self.prompt_version).encode()) for i in items), default=0)
        size = request_bytes(prefix) + longest_item
        dropped = 0
        while self.max_request_bytes and size > self.max_request_bytes and prefix.drop_oldest_image():
            dropped += 1
            size = request_bytes(prefix) + longest_item
        prefix.notes["request_bytes"] = size
        if dropped:
            prefix.notes["images_dropped_for_request_limit"] = dropped
        return prefix

    def judge(self, trajectory: TrajectoryForJudge, items: Sequence[JudgedItem]) -> list[ItemVerdict]:
        """Verdicts for ``items`` in the order given. The first item is judged alone so the
        provider's cache holds the prefix before the others fan out."""
        if not items:
            return []
        prefix = self.build_prefix(trajectory, items)
        cache_note = {}
        try:
            handle, _ = self._with_retries(
                f"{trajectory.key} prefix", lambda: self.provider.open_prefix(prefix, trajectory.key), count=False
            )
        except JudgeStopped as exc:
            return [ItemVerdict(item.position, item.rubric_id, ERROR, error=str(exc)) for item in items]
        except ProviderError as exc:
            # No cache (creation refused or failing): every call sends the whole prefix instead.
            logger.warning("%s: prefix cache unavailable, sending it in full: %s", trajectory.key, exc)
            handle = self.provider.uncached(prefix, trajectory.key)
            cache_note = {"cache_unavailable": str(exc)[:300]}
        n_steps = len(trajectory.steps)
        try:
            first = self.judge_item(handle, items[0], n_steps, trajectory.key)
            rest: list[ItemVerdict] = []
            if len(items) > 1:
                with ThreadPoolExecutor(max_workers=min(self.concurrency, len(items) - 1)) as pool:
                    rest = list(pool.map(lambda it: self.judge_item(handle, it, n_steps, trajectory.key), items[1:]))
        finally:
            self.provider.close_prefix(handle)
        if handle.setup_usage is not None:
            # Creating the cache is billed once, and so is keeping it; both belong to the trajectory,
            # so to its first item.
            setup = handle.setup_usage
            combined = Usage(
                first.input_tokens + setup.input_tokens,
                first.cached_tokens,
                first.cache_write_tokens + setup.cache_write_tokens,
                first.output_tokens,
            )
            token_hours = handle.cache_token_hours
            self._set_usage(first, combined, cache_token_hours=token_hours)
            first.notes["cache_setup_tokens"] = setup.input_tokens
            first.notes["cache_storage_token_hours"] = round(token_hours, 3)
        verdicts = [first, *rest]
        for verdict in verdicts:
            verdict.notes.setdefault("images_sent", prefix.n_images_sent)
            verdict.notes.setdefault("images_total", prefix.n_images_total)
            for name, value in {**prefix.notes, **cache_note, **handle.notes}.items():
                verdict.notes.setdefault(name, value)
        return verdicts


class WeightError(ValueError):
    """A rubric item without a usable weight: a task cannot be scored until it has one."""


def task_score(items: Sequence[JudgedItem], verdicts: list[ItemVerdict]) -> tuple[int, bool]:
    """(integer percent, complete): weighted share of items judged success; ``complete`` is False
    when any item ended in error (then the score is a lower bound, not a result). Rounding never
    makes a task with a failed or unjudged item perfect: such a task scores 99 at most."""
    weights = {}
    for item in items:
        weight = item.weight
        if weight is None or isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise WeightError(
                f"rubric item {item.rubric_id} (position {item.position}) has weight {weight!r}; "
                "expected a number >= 0 (fix the rubric, then judge again)"
            )
        weights[item.position] = float(weight)
    total = sum(weights.values())
    passed = sum(weights[v.position] for v in verdicts if v.verdict == SUCCESS)
    complete = all(v.verdict != ERROR for v in verdicts) and len(verdicts) == len(items)
    if total <= 0:
        return 0, complete
    score = int(round(100 * min(1.0, max(0.0, passed / total))))
    judged = {v.position: v.verdict for v in verdicts}
    all_passed = all(judged.get(position) == SUCCESS for position, weight in weights.items() if weight > 0)
    if score == 100 and not all_passed:
        score = 99  # 0.996 rounds to 100, but a task with a failed item is not perfect
    return score, complete
