"""The simulators' request quota states what the providers document: Anthropic's is a token bucket
(requests come back one by one, continuously) and its reset is when the bucket is full again; OpenAI's
reset is when the quota is back to its initial state (the last request's exit from the window)."""

import time

import anthropic
import openai
import pytest

from harness.judge.provider_base import rate_limits_from_headers
from tests.simulators.server import ProviderSimulator


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_anthropic_s_quota_is_a_token_bucket_whose_reset_is_when_it_is_full_again():
    with ProviderSimulator(quota=(3, 1.2)) as sim:  # 3 requests, one back every 0.4 s
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
        for _ in range(3):
            raw = client.messages.with_raw_response.create(
                model="claude-x", max_tokens=10, messages=[{"role": "user", "content": "Hi."}]
            )
        stated = rate_limits_from_headers(raw.headers)
        assert (stated.limit, stated.remaining) == (3, 0)
        assert 0.9 < stated.reset_s <= 1.2  # all three back (an RFC 3339 time): about 1.2 s on
        try:
            client.messages.create(model="claude-x", max_tokens=10, messages=[{"role": "user", "content": "Hi."}])
            refused = False
        except anthropic.RateLimitError:
            refused = True
        time.sleep(0.45)
        # one request is back after 0.4 s: a sliding window would refuse until the first left, 1.2 s on
        client.messages.create(model="claude-x", max_tokens=10, messages=[{"role": "user", "content": "Hi."}])
    assert refused and sim.rate_limited == 1


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_openai_s_reset_is_when_the_window_is_empty_again():
    with ProviderSimulator(quota=(3, 2.0)) as sim:
        client = openai.OpenAI(api_key="k", base_url=sim.openai_url, max_retries=0)
        for n in range(3):
            raw = client.chat.completions.with_raw_response.create(
                model="gpt-4.1-mini", messages=[{"role": "user", "content": "Hi."}]
            )
            if n < 2:
                time.sleep(0.5)
        headers = raw.headers
    assert headers["x-ratelimit-remaining-requests"] == "0"
    # the first request leaves the window 1 s from now, the last 2 s from now: the reset is the last's
    # (before: the first's)
    assert 1.8 < float(headers["x-ratelimit-reset-requests"].rstrip("s")) <= 2.0
