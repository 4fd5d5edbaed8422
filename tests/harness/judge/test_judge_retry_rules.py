"""The judge's retry rules (harness/judge/core.py, Judge._with_retries) call by call, with a recorded
sleep and the backoff's jitter fixed at its middle: 5xx failures back off 1, 2, 4 ... seconds (times
1 + 10% jitter, capped at max_delay) up to ``attempts`` tries, and a server's Retry-After wins when it
is longer; 429s wait the server's retry time (or the backoff) within the 429 budget, without using up
attempts; anything else fails at once, and three identical permanent failures with nothing answered
stop the run. Expected numbers come from those rules as the module documents them."""

import pytest

from harness.judge import core
from harness.judge.core import Judge, JudgeStopped
from harness.judge.limiter import AdaptiveLimiter
from harness.judge.provider_base import Provider, ProviderError

JITTER = 0.5  # random.random() fixed: the backoff is multiplied by 1 + 0.1 * 0.5


class Answers(Provider):
    name = "anthropic"


@pytest.fixture(autouse=True)
def fixed_jitter(monkeypatch):
    AdaptiveLimiter.forget_all()
    monkeypatch.setattr(core.random, "random", lambda: JITTER)
    yield
    AdaptiveLimiter.forget_all()


def judge(**kwargs) -> tuple[Judge, list]:
    slept = []
    made = Judge(Answers("model-x", api_key="k"), sleep=slept.append, **kwargs)
    return made, slept


def failing(*failures, then="answered"):
    """fn for _with_retries: raises each of ``failures`` in turn, then returns ``then``."""
    left = list(failures)

    def fn():
        if left:
            raise left.pop(0)
        return then

    return fn


def server_error(retry_after=None):
    return ProviderError("500 overloaded", transient=True, status=500, retry_after=retry_after)


def test_5xx_back_off_doubling_capped_then_answer(caplog):
    made, slept = judge(attempts=4, base_delay=1.0, max_delay=3.0)
    assert made._with_retries("item", failing(server_error(), server_error(), server_error())) == ("answered", 4)
    assert slept == pytest.approx([1.05, 2.1, 3.15])  # 1, 2, then 4 capped at 3; each times 1.05
    assert [r.getMessage() for r in caplog.records] == [
        f"item: 500 overloaded; retry {n}/3 in {delay:.1f}s"
        for n, delay in ((1, 1.0 * 1.05), (2, 2.0 * 1.05), (3, 3.0 * 1.05))
    ]


def test_a_longer_retry_after_wins_over_the_backoff_and_a_shorter_one_does_not():
    made, slept = judge(attempts=3, base_delay=2.0)
    assert made._with_retries("item", failing(server_error(retry_after=30.0), server_error(retry_after=0.5)))[1] == 3
    assert slept == pytest.approx([30.0, 4.2])  # max(2.1, 30), then max(4.2, 0.5)


def test_attempts_used_up_raise_the_last_failure_with_its_tries():
    made, slept = judge(attempts=2, base_delay=1.0)
    last = ProviderError("503 unavailable", transient=True, status=503)
    with pytest.raises(ProviderError) as raised:
        made._with_retries("item", failing(server_error(), last))
    assert raised.value is last and raised.value.tries == 2 and slept == pytest.approx([1.05])


def rate_limited(retry_after=None):
    return ProviderError("429 slow down", transient=True, status=429, retry_after=retry_after)


def test_429s_wait_their_retry_time_within_the_budget_without_using_up_attempts(caplog):
    made, slept = judge(attempts=1, base_delay=1.0, rate_limit_budget=5.0)
    # three 429s (retry times 2, then none: the backoff of try 2 is 2.1, then 0.5): 4.6 s of the 5 s budget
    fn = failing(rate_limited(2.0), rate_limited(), rate_limited(0.5))
    assert made._with_retries("item", fn) == ("answered", 4)
    assert made.limiter.state()["rate_limited"] == 3
    # the limiter holds the next call until the server's retry time: 2 s; the recorded sleeps pass no
    # time, so that pause still holds the two calls after it (each later pause ends sooner)
    assert slept == pytest.approx([2.0, 2.0, 2.0], abs=0.2)
    assert [r.getMessage() for r in caplog.records] == [
        "item: 429 slow down; retry 1 after 2.0s (rate limited)",
        "item: 429 slow down; retry 2 after 2.1s (rate limited)",
        "item: 429 slow down; retry 3 after 0.5s (rate limited)",
    ]


def test_the_429_budget_adds_up_every_wait():
    made, _ = judge(rate_limit_budget=5.0)
    with pytest.raises(ProviderError) as raised:  # 2 + 2 = 4, then 6 > 5
        made._with_retries("item", failing(rate_limited(2.0), rate_limited(2.0), rate_limited(2.0)))
    assert raised.value.tries == 3


def test_calls_outside_the_request_quota_are_not_paced():
    made, _ = judge()
    made._with_retries("cache", failing(), count=False)  # creating a provider cache
    made._with_retries("item", failing())
    assert len(made.limiter.started) == 1, "only the counted call is in the quota window"


def test_a_429_beyond_the_budget_is_raised_with_its_tries():
    made, _ = judge(rate_limit_budget=5.0)
    last = rate_limited(3.1)
    with pytest.raises(ProviderError) as raised:
        made._with_retries("item", failing(rate_limited(2.0), last))  # 2 + 3.1 > 5
    assert raised.value is last and raised.value.tries == 2
    made, _ = judge(rate_limit_budget=5.0)
    assert made._with_retries("item", failing(rate_limited(2.0), rate_limited(3.0)))[1] == 3, "2 + 3 = 5: within"


def test_a_permanent_failure_is_raised_at_once_and_three_alike_stop_the_run(caplog):
    made, slept = judge()
    refused = [ProviderError("400 bad request: image too large", transient=False, status=400) for _ in range(3)]
    for n, error in enumerate(refused, start=1):
        with pytest.raises(ProviderError) as raised:
            made._with_retries("item", failing(error))
        assert raised.value is error and raised.value.tries == 1 and slept == []
        assert bool(made.stopped) == (n == 3)
    assert made.stopped == (
        "stopped after 3 calls failed the same way and none succeeded: 400 bad request: image too large"
    )
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == [f"judge model-x: {made.stopped}"]
    with pytest.raises(JudgeStopped) as stopped:
        made._with_retries("item", failing())
    assert str(stopped.value) == f"not sent: the judge {made.stopped}"


def test_permanent_failures_do_not_stop_a_run_that_had_an_answer_or_failed_in_different_ways():
    made, _ = judge()
    assert made._with_retries("item", failing())[0] == "answered"
    made._succeeded = 1  # what judge_item records for an answered call
    for _ in range(3):
        with pytest.raises(ProviderError):
            made._with_retries("item", failing(ProviderError("400 bad", transient=False, status=400)))
    assert made.stopped == ""

    made, _ = judge()
    for text in ("400 bad image", "400 too many images", "400 bad image", "400 bad image"):
        with pytest.raises(ProviderError):
            made._with_retries("item", failing(ProviderError(text, transient=False, status=400)))
    assert made.stopped == "", "three alike, but the calls also failed another way: not every call the same way"


def test_an_answer_the_sdk_cannot_read_is_a_permanent_failure_naming_it():
    made, _ = judge()

    def unreadable():
        raise KeyError("content")

    with pytest.raises(ProviderError) as raised:
        made._with_retries("item", unreadable)
    assert str(raised.value) == "unreadable provider answer: KeyError('content')"
    assert raised.value.transient is False and raised.value.tries == 1
