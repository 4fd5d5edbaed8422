"""The judge's adaptive concurrency (harness/judge/limiter.py): a stated quota lifts the calls in
flight to it (or the ceiling) at the first answer, slow start doubles up to four without one, and
the request quota Anthropic and OpenAI state in their rate-limit headers paces calls before any 429.
Unit cases run on a fake clock; the end-to-end ones against the simulator, whose Anthropic and
OpenAI answers carry those headers as the real APIs do."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from harness.judge import SUCCESS, Judge, JudgeItem, TrajectoryForJudge, make_provider
from harness.judge.limiter import AdaptiveLimiter
from harness.judge.provider_base import RateLimits, rate_limits_from_headers
from harness.results import read_task_dir
from tests.factories import write_task_dir
from tests.simulators import ProviderSimulator

GOOD = 'Seen in step 2.\n{"reasoning": "Opened in step 2.", "cited_steps": [2], "verdict": "success"}'


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def one_round(limiter: AdaptiveLimiter, limits=None) -> int:
    """Start as many calls as the limiter admits now, answer them all; returns how many started."""
    starts = []
    while limiter._wait_needed(limiter.clock()) == 0.0:
        with limiter._cond:
            limiter.in_flight += 1
            limiter.started.append(limiter.clock())
            limiter.started_since_remaining += 1
        starts.append(limiter.clock())
    for started in starts:
        with limiter._cond:
            limiter.in_flight -= 1
        limiter.succeeded(started, limits)
    return len(starts)


def test_with_a_stated_quota_the_first_answer_lifts_the_calls_in_flight_to_the_ceiling_or_the_quota():
    limiter = AdaptiveLimiter(64, clock=Clock())
    plenty = RateLimits(limit=4000, remaining=3900, reset_s=30.0)
    # before: 2, 4, 8, 16, 32, 64, doubling per round (a short run ended before the slots filled)
    assert [one_round(limiter, plenty) for _ in range(3)] == [2, 64, 64]
    limiter = AdaptiveLimiter(64, clock=Clock())
    few = RateLimits(limit=20, remaining=2000, reset_s=30.0)
    # twenty a window: the two of the first round and eighteen more, then nothing until the window frees
    assert [one_round(limiter, few) for _ in range(3)] == [2, 18, 0]
    assert limiter.state()["limit"] == 20, "no more in flight than the stated quota"


def test_without_a_stated_quota_slow_start_stops_doubling_at_four():
    limiter = AdaptiveLimiter(32, clock=Clock())
    # past four each success adds 1/limit: four answers take 4 to 4.92, the next four to 5.69, then
    # five answers to 6.52 (so few calls are in flight when an unstated quota's first 429 comes)
    assert [one_round(limiter) for _ in range(5)] == [2, 4, 4, 5, 6]


def test_no_call_starts_while_the_requests_left_are_taken_until_the_stated_reset():
    clock = Clock()
    limiter = AdaptiveLimiter(32, clock=clock)
    one_round(limiter, RateLimits(limit=50, remaining=3, reset_s=4.0))
    assert limiter.quota == 50  # paced to the stated quota before any 429
    assert one_round(limiter, RateLimits(limit=50, remaining=0, reset_s=4.0)) == 3  # the three left
    assert limiter._wait_needed(clock()) == pytest.approx(4.0)  # nothing left: wait for the window
    clock.now += 4.0
    assert limiter._wait_needed(clock()) == 0.0


def test_rate_limit_headers_of_anthropic_and_openai_are_read():
    reset = (datetime.now(UTC) + timedelta(seconds=20)).isoformat().replace("+00:00", "Z")
    anthropic = rate_limits_from_headers({"anthropic-ratelimit-requests-limit": "50",
                                          "anthropic-ratelimit-requests-remaining": "49",
                                          "anthropic-ratelimit-requests-reset": reset})  # fmt: skip
    assert (anthropic.limit, anthropic.remaining) == (50, 49) and 18 < anthropic.reset_s <= 20
    openai = rate_limits_from_headers({"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "0",
                                       "x-ratelimit-reset-requests": "1m30.5s"})  # fmt: skip
    assert openai == RateLimits(500, 0, 90.5)
    assert rate_limits_from_headers({"content-type": "application/json"}) is None


def trajectory(tmp_path) -> TrajectoryForJudge:
    actions = [(n, f"pyautogui.click({n}, {n})") for n in range(1, 4)]
    bundle = read_task_dir(write_task_dir(tmp_path, "retrieval-f003", actions=actions))
    return TrajectoryForJudge("t3", "Find the invoice.", bundle.steps, bundle.final_answer)


def items(n: int) -> list[JudgeItem]:
    return [JudgeItem(i, f"R{i}", f"Requirement number {i} is met", weight=1.0) for i in range(1, n + 1)]


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_stated_quota_is_kept_without_a_single_429(tmp_path, provider):
    with ProviderSimulator(lambda r: GOOD, latency=(0.02, 0.04), quota=(30, 1.0)) as sim:
        url = sim.openai_url if provider == "openai" else sim.url
        model = "gpt-4.1-mini" if provider == "openai" else None
        judge = Judge(make_provider(provider, model, api_key="k", base_url=url), concurrency=16, sleep=time.sleep,
                      quota_window_s=1.0)  # fmt: skip
        verdicts = judge.judge(trajectory(tmp_path), items(75))
        refused = sim.rate_limited
    assert [v.verdict for v in verdicts] == [SUCCESS] * 75
    # before: the quota was learned from the first 429s, with the calls in flight refused with it
    assert refused == 0 and judge.limiter.state()["stated_quota"] == 30


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_without_a_quota_the_judge_reaches_its_concurrency_within_one_trajectory(tmp_path):
    with ProviderSimulator(lambda r: GOOD, latency=(0.15, 0.2)) as sim:
        judge = Judge(make_provider("anthropic", None, api_key="k", base_url=sim.url), concurrency=32)
        verdicts = judge.judge(trajectory(tmp_path), items(80))
        peak = sim.max_in_flight
    assert [v.verdict for v in verdicts] == [SUCCESS] * 80
    assert peak >= 24, f"at most {peak} calls in flight (before: slow start stopped at eight, then crept)"
