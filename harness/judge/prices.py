"""List prices for judge models in USD per million tokens, used to put a cost on each judgment.
Check them against the providers' price pages before relying on a figure; the site's settings
may override the table (MYPCBENCH_JUDGE_PRICES)."""

DEFAULT_PRICES = {
    # input: uncached prompt tokens; cached_input: read from a cache; cache_write: written to one.
    "gemini-3.1-flash-lite-preview": {"input": 0.25, "cached_input": 0.025, "cache_write": 0.25, "output": 1.50},
    "gemini-2.5-flash-lite": {"input": 0.10, "cached_input": 0.025, "cache_write": 0.10, "output": 0.40},
    "gemini-2.5-flash": {"input": 0.30, "cached_input": 0.075, "cache_write": 0.30, "output": 2.50},
    "claude-sonnet-4-6": {"input": 3.00, "cached_input": 0.30, "cache_write": 3.75, "output": 15.00},
    "claude-haiku-4-5": {"input": 1.00, "cached_input": 0.10, "cache_write": 1.25, "output": 5.00},
    "gpt-5-mini": {"input": 0.25, "cached_input": 0.025, "cache_write": 0.25, "output": 2.00},
    "gpt-4o-mini": {"input": 0.15, "cached_input": 0.075, "cache_write": 0.15, "output": 0.60},
}
