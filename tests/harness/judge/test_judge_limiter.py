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


def test_once_the_requests_left_are_taken_one_more_frees_every_reset_over_the_requests_taken():
    clock = Clock()
    limiter = AdaptiveLimiter(32, clock=clock)
    one_round(limiter, RateLimits(limit=50, remaining=3, reset_s=4.0))
    assert limiter.quota == 50  # paced to the stated quota before any 429
    assert one_round(limiter, RateLimits(limit=50, remaining=0, reset_s=4.0)) == 3  # the three left
    # Nothing left, and all 50 are back in 4 s (the quota whole again): one every 4 / 50 = 0.08 s.
    # before: nothing started until the whole 4 s had passed
    assert limiter._wait_needed(clock()) == pytest.approx(0.08)
    clock.now += 0.08
    assert one_round(limiter, None) == 1
    assert limiter._wait_needed(clock()) == pytest.approx(0.08)  # the second one 0.16 s after the answer
    clock.now += 4.0
    assert limiter._wait_needed(clock()) == 0.0  # the stated reset has passed: the quota is whole


class TokenBucket:
    """Anthropic's documented quota: 30 requests, refilled continuously at 30 per 6 s; reset is when
    the bucket is full again."""

    def __init__(self):
        self.tokens, self.at = 30.0, 0.0

    def _refill(self, now):
        self.tokens, self.at = min(30.0, self.tokens + (now - self.at) * 5.0), now

    def take(self, now) -> bool:
        self._refill(now)
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def headers(self, now) -> RateLimits:
        self._refill(now)
        return RateLimits(limit=30, remaining=int(self.tokens), reset_s=(30.0 - self.tokens) / 5.0)


class SlidingWindow:
    """30 requests in any 6 s; reset is when the window is empty again (OpenAI's "resets to its
    initial state"): the last request's exit."""

    def __init__(self):
        self.accepted: list[float] = []

    def take(self, now) -> bool:
        self.accepted = [t for t in self.accepted if t > now - 6.0]
        if len(self.accepted) >= 30:
            return False
        self.accepted.append(now)
        return True

    def headers(self, now) -> RateLimits:
        self.accepted = [t for t in self.accepted if t > now - 6.0]
        reset = self.accepted[-1] + 6.0 - now if self.accepted else 0.0
        return RateLimits(limit=30, remaining=30 - len(self.accepted), reset_s=reset)


def drive(limiter: AdaptiveLimiter, quota, seconds: float) -> tuple[int, int]:
    """Calls started and refused in ``seconds`` on a hand-built timeline: every 10 ms the limiter
    starts what it admits; each call reaches the provider 0 to 90 ms after its start (a busy
    machine builds requests late) and is answered 0.2 to 0.4 s after its start, with the headers then."""
    clock = limiter.clock
    started = refused = 0
    arrivals, answers = [], []  # (when, start[, slot])
    for tick in range(int(seconds * 100)):
        clock.now = 100.0 + tick / 100
        for arrival in sorted(a for a in arrivals if a[0] <= clock.now):
            arrivals.remove(arrival)
            refused += not quota.take(arrival[0])
        for answer in [a for a in answers if a[0] <= clock.now]:
            answers.remove(answer)
            answer[2].__exit__(None, None, None)  # the slot held for the call, as the judge holds it
            limiter.succeeded(answer[1], quota.headers(clock.now))
        while limiter._wait_needed(clock()) == 0.0:
            slot = limiter.slot()
            slot.__enter__()
            started += 1
            arrivals.append((clock.now + (started % 10) / 100, clock.now))
            answers.append((clock.now + 0.2 + (started % 3) / 10, clock.now, slot))
    return started, refused


@pytest.mark.parametrize("quota", [TokenBucket, SlidingWindow])
def test_paced_by_the_documented_headers_the_judge_keeps_the_quota_without_waiting_whole_resets(quota):
    limiter = AdaptiveLimiter(64, clock=Clock(), window_s=6.0)
    started, refused = drive(limiter, quota(), 30.0)
    assert refused == 0
    # 30 a window: about 150 in 30 s (the judge's window is 1% and 0.1 s longer, for clock jitter)
    assert started >= 140, f"{started} calls started in 30 s"


def test_a_stated_quota_is_never_probed_above():
    """A measured quota is probed one higher after quiet windows (a raised quota is found again); the
    provider's stated one is its word: probing above it is a 429 each time (before: once every three
    windows, the openai_compatible bench's one 429 a run)."""
    clock = Clock()
    limiter = AdaptiveLimiter(64, clock=clock, window_s=6.0)
    for _ in range(40):  # 40 quiet windows, each call answered with the stated quota of 30
        clock.now += 6.0
        with limiter.slot() as started:
            pass
        limiter.succeeded(started, RateLimits(limit=30, remaining=29, reset_s=0.2))
        assert limiter.quota == 30


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
