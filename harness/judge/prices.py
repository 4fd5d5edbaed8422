"""Prices for judge models in USD per million tokens, used to put a cost on each judgment.

The shipped entries (DEFAULT_PRICES) are UNVERIFIED estimates copied by hand from the providers'
price pages at one point in time; they may be wrong or out of date, so costs computed from them
are shown as "estimated". To use checked figures, point the environment variable
MYPCBENCH_JUDGE_PRICES at a JSON file whose entries replace or add to these, per model:

    {"gemini-3.1-flash-lite-preview": {"input": 0.25, "cached_input": 0.025, "output": 1.5}}

"input" and "output" are required; "cached_input" and "cache_write" default to "input";
"cache_storage_per_hour" (USD per million tokens held in an explicit cache for an hour: Gemini's
cachedContents bill storage by time) defaults to 0."""

import json
import os
from pathlib import Path

PRICES_ENV = "MYPCBENCH_JUDGE_PRICES"
PRICE_FIELDS = ("input", "cached_input", "cache_write", "output", "cache_storage_per_hour")

DEFAULT_PRICES = {
    # input: uncached prompt tokens; cached_input: read from a cache; cache_write: written to one.
    # cache_storage_per_hour: explicit (cachedContents) storage, USD per million tokens per hour.
    "gemini-3.1-flash-lite-preview": {
        "input": 0.25,
        "cached_input": 0.025,
        "cache_write": 0.25,
        "output": 1.50,
        "cache_storage_per_hour": 1.00,
    },
    "gemini-2.5-flash-lite": {
        "input": 0.10,
        "cached_input": 0.025,
        "cache_write": 0.10,
        "output": 0.40,
        "cache_storage_per_hour": 1.00,
    },
    "gemini-2.5-flash": {
        "input": 0.30,
        "cached_input": 0.075,
        "cache_write": 0.30,
        "output": 2.50,
        "cache_storage_per_hour": 1.00,
    },
    "claude-sonnet-4-6": {"input": 3.00, "cached_input": 0.30, "cache_write": 3.75, "output": 15.00},
    "claude-haiku-4-5": {"input": 1.00, "cached_input": 0.10, "cache_write": 1.25, "output": 5.00},
    "gpt-5-mini": {"input": 0.25, "cached_input": 0.025, "cache_write": 0.25, "output": 2.00},
    "gpt-4o-mini": {"input": 0.15, "cached_input": 0.075, "cache_write": 0.15, "output": 0.60},
}


class PriceFileError(ValueError):
    """The price file named by MYPCBENCH_JUDGE_PRICES cannot be used; the message says why."""


def read_price_file(path: str | Path) -> dict[str, dict[str, float]]:
    """The entries of a price file, checked: an object of model -> {field: USD per million tokens}."""
    where = f"{PRICES_ENV}={path}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise PriceFileError(f"{where}: cannot read the file ({exc.strerror or exc})") from exc
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PriceFileError(f"{where}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict) or not data:
        example = '{"my-model": {"input": 0.25, "output": 1.5}}'
        raise PriceFileError(f"{where}: expected a JSON object of model -> prices, e.g. {example}")
    table = {}
    for model, entry in data.items():
        if not isinstance(entry, dict):
            raise PriceFileError(f"{where}: {model!r} should map to an object of prices, not {entry!r}")
        unknown = sorted(set(entry) - set(PRICE_FIELDS))
        if unknown:
            raise PriceFileError(f"{where}: {model!r} has unknown field(s) {unknown}; known: {list(PRICE_FIELDS)}")
        missing = [name for name in ("input", "output") if name not in entry]
        if missing:
            raise PriceFileError(f"{where}: {model!r} lacks {missing} (USD per million tokens)")
        prices = {}
        for name, value in entry.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise PriceFileError(
                    f"{where}: {model!r} {name} should be a number >= 0 (USD per million tokens), not {value!r}"
                )
            prices[name] = float(value)
        prices.setdefault("cached_input", prices["input"])
        prices.setdefault("cache_write", prices["input"])
        table[model] = prices
    return table


def price_table(environ=None) -> tuple[dict[str, dict[str, float]], frozenset[str]]:
    """(the prices to use, the models whose prices come from the file). The shipped estimates,
    with the entries of MYPCBENCH_JUDGE_PRICES on top when it names a file."""
    path = (os.environ if environ is None else environ).get(PRICES_ENV, "").strip()
    if not path:
        return dict(DEFAULT_PRICES), frozenset()
    overrides = read_price_file(path)
    return {**DEFAULT_PRICES, **overrides}, frozenset(overrides)


def price_status(model: str, configured: frozenset[str] | set[str]) -> str:
    """ "configured" (priced from the price file), "estimated" (from the shipped, unverified table)
    or "unpriced" (no cost can be put on its judgments)."""
    if model in configured:
        return "configured"
    return "estimated" if model in DEFAULT_PRICES else "unpriced"


def describe_cost(cost_usd: float, model: str, configured: frozenset[str] | set[str]) -> str:
    """A judge's cost as a person should read it: flagged as estimated unless its price was configured."""
    status = price_status(model, configured)
    if status == "configured":
        return f"${cost_usd:.4f}"
    if status == "estimated":
        return f"${cost_usd:.4f} (estimated from unverified shipped prices; set {PRICES_ENV} to a price file)"
    return f"unknown (no price for {model}; add it to the file named by {PRICES_ENV})"
