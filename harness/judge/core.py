"""Judging one trajectory: one call per rubric item over a shared prefix, bounded concurrency,
retries with backoff that honour Retry-After, and per-item verdicts with tokens, cost and latency."""

import logging
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

from harness.judge.parse import AnswerError, parse_answer
from harness.judge.prompt import (
    DEFAULT_MAX_IMAGES,
    PROMPT_VERSION,
    JudgeItem,
    TrajectoryForJudge,
    build_prefix,
    item_text,
)
from harness.judge.providers import Provider, ProviderError, Usage

logger = logging.getLogger(__name__)

SUCCESS, FAILURE, ERROR = "success", "failure", "error"
DEFAULT_CONCURRENCY = 8
DEFAULT_ATTEMPTS = 5
PARSE_ATTEMPTS = 2  # an answer without a verdict is asked again once


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


def cost_of(usage: Usage, model: str, price_table: dict | None) -> float | None:
    """USD for one call from a table of USD per million tokens: {model: {"input", "cached_input",
    "cache_write", "output"}}; None when the model has no price."""
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
    )


class Limiter:
    """At most ``limit`` provider calls in flight, shared by every judge using the same provider."""

    _shared: dict = {}
    _lock = threading.Lock()

    @classmethod
    def for_provider(cls, provider: Provider, limit: int) -> threading.BoundedSemaphore:
        key = (provider.name, provider.base_url or "", limit)
        with cls._lock:
            if key not in cls._shared:
                cls._shared[key] = threading.BoundedSemaphore(max(1, limit))
            return cls._shared[key]


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
        price_table: dict | None = None,
        sleep=time.sleep,
    ):
        self.provider = provider
        self.max_images = max_images
        if provider.max_images_per_request is not None:
            cap = provider.max_images_per_request
            self.max_images = cap if max_images == 0 else min(max_images, cap)
        self.concurrency = max(1, concurrency)
        self.attempts = max(1, attempts)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.price_table = price_table or {}
        self.sleep = sleep
        self.limiter = Limiter.for_provider(provider, self.concurrency)

    @property
    def settings(self) -> dict:
        """What identifies this judge configuration (stored with every judgment)."""
        return {
            "provider": self.provider.name,
            "model": self.provider.model,
            "temperature": self.provider.temperature,
            "max_images": self.max_images,
            "prompt_version": PROMPT_VERSION,
            "base_url": self.provider.base_url or "",
        }

    # ------------------------------------------------------------ retries

    def _with_retries(self, what: str, fn):
        """fn() with up to ``attempts`` tries on transient errors; returns (result, tries) or raises
        the last ProviderError."""
        for attempt in range(1, self.attempts + 1):
            try:
                with self.limiter:
                    return fn(), attempt
            except ProviderError as exc:
                if not exc.transient or attempt == self.attempts:
                    raise
                failure = exc
            except Exception as exc:
                # An answer the SDK cannot read (a malformed body, say): the item is an error, the run goes on.
                raise ProviderError(f"unreadable provider answer: {exc!r}", transient=False) from exc
            delay = min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * (1 + 0.1 * random.random())
            if failure.retry_after is not None:
                delay = max(delay, failure.retry_after)  # the server's word wins over our backoff
            logger.warning("%s: %s; retry %d/%d in %.1fs", what, failure, attempt, self.attempts - 1, delay)
            self.sleep(delay)
        raise AssertionError("unreachable")

    # ------------------------------------------------------------ one item

    def judge_item(self, handle, item: JudgeItem, n_steps: int, key: str) -> ItemVerdict:
        result = ItemVerdict(position=item.position, rubric_id=item.rubric_id, verdict=ERROR)
        usage = Usage()
        text = item_text(item)
        started = time.monotonic()
        for parse_try in range(1, PARSE_ATTEMPTS + 1):
            try:
                answer, tries = self._with_retries(f"{key} {item.rubric_id}", lambda: self.provider.ask(handle, text))
            except ProviderError as exc:
                result.error = f"provider error after retries: {exc}"
                result.attempts += self.attempts
                break
            result.attempts += tries
            usage = usage + answer.usage
            result.raw_answer = answer.text
            try:
                parsed = parse_answer(answer.text, n_steps)
            except AnswerError as exc:
                result.error = f"unparseable answer (try {parse_try} of {PARSE_ATTEMPTS}): {exc}"
                continue
            result.verdict = parsed.verdict
            result.explanation = parsed.reasoning
            result.cited_steps = parsed.cited_steps
            result.error = ""
            if parsed.dropped_steps:
                result.notes["cited_steps_not_in_trajectory"] = parsed.dropped_steps
            break
        result.latency_ms = int((time.monotonic() - started) * 1000)
        self._set_usage(result, usage)
        return result

    def _set_usage(self, result: ItemVerdict, usage: Usage) -> None:
        result.input_tokens = usage.input_tokens
        result.cached_tokens = usage.cached_tokens
        result.cache_write_tokens = usage.cache_write_tokens
        result.output_tokens = usage.output_tokens
        result.cost_usd = cost_of(usage, self.provider.model, self.price_table)

    # ------------------------------------------------------------ one trajectory

    def judge(self, trajectory: TrajectoryForJudge, items: list[JudgeItem]) -> list[ItemVerdict]:
        """Verdicts for ``items`` in the order given. The first item is judged alone so the
        provider's cache holds the prefix before the others fan out."""
        if not items:
            return []
        prefix = build_prefix(trajectory, max_images=self.max_images)
        try:
            handle, _ = self._with_retries(
                f"{trajectory.key} prefix", lambda: self.provider.open_prefix(prefix, trajectory.key)
            )
        except ProviderError as exc:
            return [
                ItemVerdict(item.position, item.rubric_id, ERROR, error=f"could not prepare the prefix: {exc}")
                for item in items
            ]
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
            # Creating the cache is billed once; it belongs to the trajectory, so to its first item.
            setup = handle.setup_usage
            combined = Usage(
                first.input_tokens + setup.input_tokens,
                first.cached_tokens,
                first.cache_write_tokens + setup.cache_write_tokens,
                first.output_tokens,
            )
            self._set_usage(first, combined)
            first.notes["cache_setup_tokens"] = setup.input_tokens
        verdicts = [first, *rest]
        for verdict in verdicts:
            verdict.notes.setdefault("images_sent", prefix.n_images_sent)
            verdict.notes.setdefault("images_total", prefix.n_images_total)
        return verdicts


def task_score(items: list[JudgeItem], verdicts: list[ItemVerdict]) -> tuple[int, bool]:
    """(integer percent, complete): weighted share of items judged success; ``complete`` is False
    when any item ended in error (then the score is a lower bound, not a result)."""
    weights = {item.position: item.weight for item in items}
    total = sum(weights.values())
    passed = sum(weights[v.position] for v in verdicts if v.verdict == SUCCESS)
    complete = all(v.verdict != ERROR for v in verdicts) and len(verdicts) == len(items)
    if total <= 0:
        return 0, complete
    return int(round(100 * min(1.0, max(0.0, passed / total)))), complete
