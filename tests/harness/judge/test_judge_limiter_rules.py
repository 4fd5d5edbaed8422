"""The judge limiter's rules traced step by step on a fake clock (harness/judge/limiter.py's docstring):
the additive increase after slow start, the first 429 halving the calls in flight once per round,
measuring the request quota from the calls accepted in the trailing window (the refused call's own
round left out), pausing everyone until the retry time, then pacing to that quota; and the stated
quota of rate-limit headers (requests left, less the calls still in flight, then one more each time
one of those taken comes back, by the stated reset).
Every expected number is worked out in the comments from those rules, not read from the code."""

import pytest

from harness.judge.limiter import AdaptiveLimiter
from harness.judge.provider_base import RateLimits

WINDOW = 60.0 * 1.01 + 0.1  # a 60 s quota window, with the margin for our clock against the provider's


class Clock:
    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self):
        return self.now


def sleeper(clock: Clock, waits: list):
    def sleep(seconds):
        waits.append(seconds)
        clock.now += seconds

    return sleep


def test_a_429_halves_once_per_round_measures_the_quota_pauses_everyone_then_paces_to_it():
    clock = Clock()
    limiter = AdaptiveLimiter(16, clock=clock, window_s=60.0)
    limit = 2.0
    for second in range(6):  # six calls, one after the other, all answered
        clock.now = float(second)
        with limiter.slot() as started:
            pass
        limiter.succeeded(started)
        limit += 1.0 if limit < 4 else 1 / limit  # slow start doubles up to 4 without a stated quota, then +1/limit
    assert limiter.state()["limit"] == round(limit, 2) == 4.92

    clock.now = 6.0  # two calls start together; the provider refuses both
    with limiter.slot() as first, limiter.slot() as second:
        pass
    clock.now = 6.5
    limiter.rate_limited(first, retry_after=2.0)
    clock.now = 6.6
    limiter.rate_limited(second, retry_after=None)  # the same round: no second halving
    assert limiter.state() == {
        "limit": round(limit / 2, 2),  # halved once
        "maximum": 16,
        "cap": 6,  # no more in flight than the quota per window
        "quota_per_window": 6,  # accepted before the refused call in the window: the six at 0-5, not its twin at 6
        "window_s": 60.0,
        "calls": 8,
        "rate_limited": 2,
        "peak_in_flight": 2,
        "stated_quota": None,
    }

    # At 7.0 the next caller waits out the pause (until 6.5 + 2.0), then for the quota: eight calls
    # started in the window (0-5, 6, 6) and six are allowed, so it waits until the call at 0 leaves the
    # window (at WINDOW), then the one at 1, then the one at 2: six left in the window, it may start.
    waits = []
    clock.now = 7.0
    with limiter.slot(sleep=sleeper(clock, waits)) as started:
        pass
    assert waits == pytest.approx([1.5, WINDOW - 8.5, 1.0, 1.0])
    assert started == pytest.approx(2.0 + WINDOW)


def test_a_later_429_after_the_pause_halves_again_and_lowers_a_quota_it_was_paced_at():
    clock = Clock()
    limiter = AdaptiveLimiter(16, initial=8, clock=clock, window_s=60.0)
    for second in range(4):
        clock.now = float(second)
        with limiter.slot():
            pass
    clock.now = 4.0
    with limiter.slot() as refused:
        pass
    limiter.rate_limited(refused, retry_after=None)  # quota measured: the 4 calls at 0-3; limit 8 -> 4
    assert (limiter.state()["quota_per_window"], limiter.state()["limit"]) == (4, 4.0)
    waits = []
    clock.now = 4.5
    with limiter.slot(sleep=sleeper(clock, waits)) as paced:  # pause until 4 + 1 s (no retry time given)
        pass
    assert waits[0] == pytest.approx(0.5)
    clock.now = paced + 0.25
    limiter.rate_limited(paced, retry_after=None)  # paced at the cap (4 accepted) and refused: the quota drops by one
    assert (limiter.state()["quota_per_window"], limiter.state()["limit"]) == (3, 2.0)


def test_headers_pace_to_the_requests_left_less_the_calls_in_flight_then_as_the_taken_ones_come_back():
    clock = Clock(10.0)
    limiter = AdaptiveLimiter(64, clock=clock, window_s=60.0)
    with limiter.slot():  # a call still in flight while another is answered
        with limiter.slot() as answered:
            pass
        # of the 10 requests left, the call in flight may already hold one, so 9 remain for new
        # calls; the 40 taken come back over the reset (none stated: the quota window, 60 s), one
        # every 60 / 40 = 1.5 s after this answer
        limiter.succeeded(answered, RateLimits(limit=50, remaining=10, reset_s=None))
    assert limiter.state()["stated_quota"] == 50 and limiter.state()["quota_per_window"] == 50
    waits = []
    for _ in range(9):
        with limiter.slot(sleep=sleeper(clock, waits)):
            pass
    assert waits == [] and clock.now == 10.0
    with limiter.slot(sleep=sleeper(clock, waits)) as tenth:
        pass
    assert waits == [pytest.approx(1.5)] and tenth == pytest.approx(11.5)


def test_a_stated_reset_of_zero_frees_the_window_at_once():
    clock = Clock(10.0)
    limiter = AdaptiveLimiter(64, clock=clock, window_s=60.0)
    with limiter.slot() as answered:
        pass
    limiter.succeeded(answered, RateLimits(limit=50, remaining=0, reset_s=0.0))
    waits = []
    with limiter.slot(sleep=sleeper(clock, waits)) as started:
        pass
    assert waits == [] and started == 10.0


def test_a_first_call_refused_sets_a_quota_of_one_ends_slow_start_and_halving_stops_at_one_call():
    clock = Clock()
    limiter = AdaptiveLimiter(16, initial=4, clock=clock, window_s=60.0)
    with limiter.slot() as first, limiter.slot() as twin:  # two calls start together at 0, both refused at 0
        pass
    limiter.rate_limited(first, retry_after=0.0)  # nothing accepted before it: a quota of one, never zero
    limiter.rate_limited(twin, retry_after=0.0)  # started when the decrease came, not after it: no second halving
    # 4 -> 2 halved once, then held to the quota: one request a window needs no second call in flight
    assert (limiter.state()["quota_per_window"], limiter.state()["limit"]) == (1, 1.0)
    clock.now = 0.5
    limiter.succeeded(first)
    assert limiter.state()["limit"] == 1.0, "never past the quota per window"

    limiter = AdaptiveLimiter(16, initial=8, clock=clock, window_s=60.0)
    for _ in range(5):  # five accepted, then one refused: a quota of five
        with limiter.slot():
            pass
    clock.now = 1.0
    limiter.rate_limited(1.0, retry_after=0.0)  # 8 -> 4
    clock.now = 1.5
    limiter.succeeded(1.5)
    assert limiter.state()["limit"] == 4.25, "after a 429 a success adds 1/limit: slow start is over"
    for moment in (2.0, 3.0, 4.0):  # refusals of later rounds: 4.25 -> 2.125 -> 1.0625 -> 1 (one call at least)
        clock.now = moment
        limiter.rate_limited(moment, retry_after=0.0)
    assert limiter.state()["limit"] == 1.0


def limiter_with_a_measured_quota() -> tuple[Clock, AdaptiveLimiter]:
    """A limiter that found a quota of 4 a window of 60 s when its fifth call was refused at 4.0 s."""
    clock = Clock()
    limiter = AdaptiveLimiter(16, clock=clock, window_s=60.0)
    for second in range(4):
        clock.now = float(second)
        with limiter.slot():
            pass
    clock.now = 4.0
    limiter.rate_limited(4.0, retry_after=0.0)  # quota 4 measured at 4.0
    return clock, limiter


def probing_limiter() -> tuple[Clock, AdaptiveLimiter]:
    """The limiter above after three quiet windows of 60 s: it probes 5."""
    clock, limiter = limiter_with_a_measured_quota()
    clock.now = 4.0 + 180.0
    limiter.succeeded(clock.now)
    assert limiter.state()["quota_per_window"] == 5  # probed after three quiet windows
    return clock, limiter


def test_after_three_quiet_windows_the_measured_quota_is_probed_one_higher():
    clock, limiter = limiter_with_a_measured_quota()
    for moment, quota in ((100.0, 4), (4.0 + 180.0 - 0.5, 4), (4.0 + 180.0, 5), (200.0, 5), (4.0 + 360.0, 6)):
        clock.now = moment
        limiter.succeeded(moment)
        assert limiter.state()["quota_per_window"] == quota, moment  # one more only after 3 windows of 60 s


def test_a_stated_quota_below_the_calls_already_accepted_is_lowered_by_a_refusal():
    clock = Clock()
    limiter = AdaptiveLimiter(16, initial=8, clock=clock, window_s=60.0)
    for second in range(3):
        clock.now = float(second)
        with limiter.slot():
            pass
    limiter.succeeded(2.0, RateLimits(limit=3))  # the headers state 3 a window: paced at 3 from now on
    clock.now = 2.5
    limiter.rate_limited(2.5, retry_after=0.0)  # 3 accepted before it, at the stated cap: lowered to 2
    assert limiter.state()["quota_per_window"] == 2

    clock = Clock()
    limiter = AdaptiveLimiter(16, clock=clock, window_s=60.0)
    with limiter.slot():
        pass
    limiter.succeeded(0.0, RateLimits(limit=1))
    clock.now = 0.5
    limiter.rate_limited(0.5, retry_after=0.0)  # 1 accepted at a cap of 1: never lowered below one
    assert limiter.state()["quota_per_window"] == 1


def test_one_limiter_is_shared_per_key_and_maximum():
    first = AdaptiveLimiter.shared(("anthropic", "", "model-x"), 1)
    assert AdaptiveLimiter.shared(("anthropic", "", "model-x"), 1) is first and first.state()["maximum"] == 1
    assert AdaptiveLimiter.shared(("anthropic", "", "model-y"), 1) is not first
    wider = AdaptiveLimiter.shared(("anthropic", "", "model-x"), 4)
    assert wider is not first and wider.state()["maximum"] == 4
    AdaptiveLimiter.forget_all()


def test_a_fresh_limiter_starts_at_one_call_at_least_and_has_run_nothing():
    assert AdaptiveLimiter(8, initial=0).state() == {
        "limit": 1.0,
        "maximum": 8,
        "cap": 8,
        "quota_per_window": None,
        "window_s": 60.0,
        "calls": 0,
        "rate_limited": 0,
        "peak_in_flight": 0,
        "stated_quota": None,
    }
    assert AdaptiveLimiter(0).state()["maximum"] == 1


def test_at_one_call_a_success_adds_a_whole_call():
    clock = Clock()
    limiter = AdaptiveLimiter(16, initial=2, clock=clock, window_s=60.0)
    for _ in range(3):
        with limiter.slot():
            pass
    clock.now = 0.5
    limiter.rate_limited(0.5, retry_after=0.0)  # 2 -> 1, slow start over; a quota of three measured
    clock.now = 1.0
    limiter.succeeded(1.0)
    assert limiter.state()["limit"] == 2.0  # + 1/1


def test_a_call_answered_later_than_the_fastest_counts_in_the_window_from_when_it_may_have_arrived():
    clock = Clock()
    limiter = AdaptiveLimiter(16, clock=clock, window_s=60.0)
    first_slot, second_slot = limiter.slot(), limiter.slot()
    first, second = first_slot.__enter__(), second_slot.__enter__()  # two calls start together at 0
    clock.now = 0.3
    first_slot.__exit__(None, None, None)
    limiter.succeeded(first, RateLimits(limit=2))  # the fastest answer: 0.3 s; two requests a window
    clock.now = 2.3
    second_slot.__exit__(None, None, None)  # 2 s slower than the fastest: it may have reached the provider at 2.0
    limiter.succeeded(second)
    clock.now = WINDOW + 0.5  # the call of 0 has left the window; the one of 2.0 has not
    waits = []
    limiter.slot(sleep=sleeper(clock, waits)).__enter__()  # (still in flight: no faster answer comes)
    assert waits == []  # one of two in the window: this one starts at once
    # two in the window: wait until the slow call leaves it, a window after 2.0 (not after its start)
    assert limiter._wait_needed(clock()) == pytest.approx(1.5)


def test_the_fastest_answer_is_a_model_call_s_not_a_cache_set_up_s_nor_a_failure_s():
    # As the judge runs with Anthropic and OpenAI: each trajectory first opens its prefix (count=False,
    # no request to the model quota, answered at once), and a refusal comes back faster than any answer.
    # Neither is a model's answer time: were either the fastest, every call would count in the window from
    # its answer, as if it had reached the provider only then.
    clock = Clock()
    limiter = AdaptiveLimiter(16, clock=clock, window_s=60.0)
    with limiter.slot(count=False) as set_up:
        pass
    limiter.succeeded(set_up)
    slow_slot = limiter.slot()
    slow_slot.__enter__()  # a call starts at 0 and is answered at 5.0
    with limiter.slot() as fast:  # the fastest model answer: 0 to 2.0
        clock.now = 2.0
    limiter.succeeded(fast, RateLimits(limit=3))  # three requests a window
    with pytest.raises(RuntimeError), limiter.slot():
        clock.now = 2.1
        raise RuntimeError("refused in 0.1 s")  # counted from its start: 0.1 s is less than the fastest answer
    clock.now = 5.0
    slow_slot.__exit__(None, None, None)  # 3 s slower than the fastest: it may have reached the provider at 3.0
    assert limiter.started == [0.0, 2.0, 3.0]
    clock.now = 10.0
    waits = []
    starts = []
    for _ in range(3):  # three in the window, three allowed: each waits for the oldest to leave
        starts.append(limiter.slot(sleep=sleeper(clock, waits)).__enter__())  # and stays in flight
    assert starts == pytest.approx([WINDOW, 2.0 + WINDOW, 3.0 + WINDOW])  # the slow call left at 3.0, not 5.0


def test_a_faster_answer_places_the_calls_in_the_window_again():
    # The first answers of a run carry the connection's set-up: a call estimated with a slow fastest
    # answer counted from too early, and left the window before the provider's (a 429 a run, early on).
    clock = Clock()
    limiter = AdaptiveLimiter(16, clock=clock, window_s=60.0)
    with limiter.slot() as first:  # the first answer takes 1.0 s (0.7 of it setting up the connection)
        clock.now = 1.0
    limiter.succeeded(first, RateLimits(limit=10))
    with limiter.slot():  # 1.0 to 2.5: may have reached the provider 1.0 s before its answer, at 1.5
        clock.now = 2.5
    assert limiter.started == [0.0, 1.5]
    with limiter.slot():  # 2.5 to 2.8: the fastest answer now, 0.3 s
        clock.now = 2.8
    # before: the first two stayed at 0.0 and 1.5; the provider has answered in 0.3 s, so they may have
    # reached it as late as 0.7 and 2.2
    assert limiter.started == pytest.approx([0.7, 2.2, 2.5])


def test_a_refusal_under_a_stated_quota_counts_calls_from_their_answers_and_keeps_the_quota():
    clock = Clock()
    limiter = AdaptiveLimiter(16, clock=clock, window_s=60.0)
    with limiter.slot() as first:  # the fastest answer: 0 to 1.0
        clock.now = 1.0
    limiter.succeeded(first, RateLimits(limit=3))
    with limiter.slot() as refused:  # 1.0 to 1.5: its arrival was estimated early, or the window is shared
        clock.now = 1.5
        limiter.rate_limited(refused, retry_after=0.0)
    assert limiter.state()["quota_per_window"] == 3, "one call counted before it is no measure of a stated quota"
    with limiter.slot():  # 1.5 to 4.0, answered 2.5 s after its start: before the refusal counted from 3.0
        clock.now = 4.0
    assert limiter.started == [0.0, 1.5, 4.0]  # the refused call and this one, from their answers


def test_a_call_in_flight_counts_in_the_window_however_long_it_takes():
    clock = Clock()
    limiter = AdaptiveLimiter(16, clock=clock, window_s=60.0)
    with limiter.slot() as answered:
        pass
    limiter.succeeded(answered, RateLimits(limit=2))
    slow = limiter.slot()
    slow.__enter__()  # started at 0, still waiting for its answer a window later
    clock.now = WINDOW + 10.0
    assert limiter._wait_needed(clock()) == 0.0  # the answered call left the window; one of two taken
    with limiter.slot():
        pass
    # two in the window, one of them the call in flight (before: it had left the window at its start's
    # age and a third could start): wait until the call just answered leaves it
    assert limiter._wait_needed(clock()) == pytest.approx(WINDOW)
    slow.__exit__(None, None, None)
    assert limiter.started == [WINDOW + 10.0, WINDOW + 10.0], "answered now, it may have arrived just now"


@pytest.mark.parametrize(
    "accepted",
    [
        pytest.param(5, id="refused-with-the-probed-count-accepted"),
        # before: a refusal that came with fewer accepted than the quota (the calls came late) was not
        # taken for a refused probe, so it probed again after three windows: two 429s in nine windows
        pytest.param(4, id="refused-before-the-probed-count-was-reached"),
    ],
)
def test_each_probe_refused_doubles_the_quiet_windows_before_the_next(accepted):
    clock, limiter = probing_limiter()
    for _ in range(accepted):
        with limiter.slot():
            pass
    clock.now += 1.0
    limiter.rate_limited(clock.now, retry_after=0.0)  # the probe refused: back to four
    refused_at = clock.now
    assert limiter.state()["quota_per_window"] == 4
    clock.now = refused_at + 180.0
    limiter.succeeded(clock.now)
    assert limiter.state()["quota_per_window"] == 4, "three quiet windows are no longer enough"
    clock.now = refused_at + 360.0
    limiter.succeeded(clock.now)
    assert limiter.state()["quota_per_window"] == 5, "six are"
