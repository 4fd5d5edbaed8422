"""Adaptive concurrency for judge calls, one limiter per provider, base URL and model, shared by every
judge in the process. The calls in flight follow the provider's request quota, as stated or as
observed, up to a ceiling the operator sets (``maximum``); four rules keep a run at its quota without
a storm of 429s:

1. AIMD on calls in flight: start at two. With the provider's word on its quota (rate-limit headers),
   the first answer lifts the limit straight to the most calls useful under it: the stated requests
   per window, or the ceiling when that is lower (pacing, rule 2, keeps the window's count). Without
   it, double per round of successes up to four (every call in flight when an unstated quota's first
   429 comes is refused too), then add about one call per round. After a 429, add about one per
   round and halve on a 429 (at most once per round of calls). The limit never passes the quota
   per window (stated or measured, rule 4) nor the ceiling.
2. Pre-emptive pacing from the provider's rate-limit headers (Anthropic's and OpenAI's requests
   limit, remaining and reset, on every answer): the stated limit is the request quota per window
   from the first answer on. Once the requests left are taken by calls started since, one more frees
   every reset / (limit - remaining) seconds after that answer: reset is when the quota is whole
   again (both providers document it so), so the requests taken come back over it; Anthropic's
   token bucket gives one back every window / limit, which that works out to. Never later than the
   stated reset, and the window's own count (the quota, paced as in rule 4) still holds.
3. A 429 pauses every caller until the server's retry time (header or error body): the calls
   queued behind it would only be refused too.
4. Without headers, the requests a provider accepted in the trailing quota window before refusing
   one are a measured request quota: calls are then paced to stay under it, and the cap creeps up by
   one after three quiet windows so a raised quota is found again (after twice as many once such a
   probe is refused, up to 48 windows: each refused probe is a 429). A stated quota is never probed
   above: the provider has said it.
"""

import bisect
import threading
import time
from contextlib import contextmanager

SLOW_START_UNTIL = 4  # calls in flight reached by doubling when the provider states no quota
QUOTA_WINDOW_S = 60.0  # provider quotas are per minute (RPM) for Gemini, Anthropic and OpenAI alike
QUIET_WINDOWS_BEFORE_PROBE = 3  # windows without a 429 before one more request per window is tried
MOST_QUIET_WINDOWS_BEFORE_PROBE = 48  # each probe refused doubles the wait before the next, up to this
# Our start times and the provider's arrival times differ by request building and network jitter.
WINDOW_MARGIN, WINDOW_SLACK_S = 1.01, 0.1


class AdaptiveLimiter:
    _shared: dict = {}
    _shared_lock = threading.Lock()

    def __init__(self, maximum: int, *, initial: int = 2, window_s: float = QUOTA_WINDOW_S, clock=time.monotonic):
        self.maximum = max(1, int(maximum))
        self.limit = float(min(self.maximum, max(1, initial)))
        self.window_s = window_s
        self.clock = clock
        self.slow_start = True
        self.in_flight = 0
        self.not_before = 0.0  # every caller waits until then (a 429's retry time)
        self.quota: int | None = None  # requests per window, once a 429 has measured it
        self.quota_raised_at = 0.0
        self.probe_after = QUIET_WINDOWS_BEFORE_PROBE  # quiet windows before the measured quota is probed
        self.probed = False  # the quota was raised by a probe since the last refusal
        # When the answered calls of the trailing window reached the provider, at the latest (sorted;
        # see _arrival), and the start times of the calls in flight (counted in the window until answered).
        self.started: list[float] = []
        self.spans: list[tuple[float, float]] = []  # (start, answer) of each of those, in the same order
        self.pending: list[float] = []
        self.fastest = float("inf")  # the shortest time from a counted call's start to its answer
        self.last_decrease = -1.0
        self.calls = self.rate_limited_calls = 0
        self.peak_in_flight = 0
        # From the provider's rate-limit headers: requests left when the last answer came, and the
        # calls started since (which that count may not include yet); when the window frees.
        self.stated_quota: int | None = None
        self.remaining: int | None = None
        self.started_since_remaining = 0
        self.remaining_at = 0.0  # when that answer came
        self.frees_every = 0.0  # seconds between requests coming back, from that answer's headers
        self.reset_at = 0.0
        self._cond = threading.Condition()

    @classmethod
    def shared(cls, key: tuple, maximum: int, **kwargs) -> "AdaptiveLimiter":
        with cls._shared_lock:
            limiter = cls._shared.get(key)
            if limiter is None or limiter.maximum != max(1, int(maximum)):
                limiter = cls._shared[key] = cls(maximum, **kwargs)
            return limiter

    @classmethod
    def forget_all(cls) -> None:
        """Drops every shared limiter (tests: a simulator's port may be reused by the next one)."""
        with cls._shared_lock:
            cls._shared.clear()

    # ------------------------------------------------------------ admission

    def cap(self) -> int:
        """The most calls worth having in flight: the ceiling, or the request quota per window (stated
        or measured) when that is lower (more in flight would only wait for the window)."""
        return self.maximum if self.quota is None else max(1, min(self.maximum, self.quota))

    def _window(self) -> float:
        return self.window_s * WINDOW_MARGIN + WINDOW_SLACK_S

    def _trim(self, now: float) -> None:
        gone = bisect.bisect_right(self.started, now - self._window())
        del self.started[:gone]
        del self.spans[:gone]

    def _count(self, start: float, end: float) -> None:
        arrival = self._arrival(start, end)
        at = bisect.bisect_right(self.started, arrival)
        self.started.insert(at, arrival)
        self.spans.insert(at, (start, end))

    def _faster(self, took: float) -> None:
        """A faster answer than any before: the calls in the window may have reached the provider later
        than estimated with the slower fastest (the first answers of a run carry the connection's set-up),
        so they are placed again."""
        self.fastest = took
        placed = sorted((self._arrival(start, end), (start, end)) for start, end in self.spans)
        self.started = [arrival for arrival, _ in placed]
        self.spans = [span for _, span in placed]

    def _wait_needed(self, now: float) -> float:
        """Seconds to wait before one more call may start, 0 when it may start now."""
        if now < self.not_before:
            return self.not_before - now
        if self.in_flight >= int(self.limit):
            return -1.0  # wait for a call to finish
        if self.remaining is not None:
            if now >= self.reset_at:
                self.remaining = None  # the stated window has passed: the next answer says anew
            elif self.remaining - self.started_since_remaining <= 0:
                # every request left is taken: wait for as many to come back as this call needs
                needed = self.started_since_remaining - self.remaining + 1
                frees_at = min(self.reset_at, self.remaining_at + needed * self.frees_every)
                if frees_at > now:
                    return frees_at - now
        if self.quota is not None:
            self._trim(now)
            if len(self.started) + len(self.pending) >= self.quota:
                return self.started[0] + self._window() - now if self.started else -1.0
        return 0.0

    @contextmanager
    def slot(self, sleep=None, count: bool = True):
        """Holds one call slot. ``sleep`` (the judge's, so tests need not wait) is used for timed
        waits; waits for a finishing call use the condition variable. ``count`` False: a call outside
        the model's request quota (creating a cache), limited in flight but not paced."""
        with self._cond:
            while True:
                now = self.clock()
                wait = self._wait_needed(now)
                if wait == 0.0:
                    break
                if wait < 0:
                    self._cond.wait(timeout=1.0)
                    continue
                if sleep is None:
                    self._cond.wait(timeout=wait)
                    continue
                self._cond.release()
                try:
                    sleep(wait)
                finally:
                    self._cond.acquire()
                if self.clock() - now < wait * 0.5:
                    break  # a sleep that does not pass time (tests): do not spin
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            self.calls += 1
            start = self.clock()
            if count:
                self.pending.append(start)
                self.started_since_remaining += 1
        answered = False
        try:
            yield start
            answered = True
        finally:
            with self._cond:
                self.in_flight -= 1
                if count:
                    end = self.clock()
                    if answered and end - start < self.fastest:
                        # only model calls answered: a cache set-up (count False) may not reach the provider
                        self._faster(max(0.0, end - start))
                    self.pending.remove(start)
                    self._count(start, end)
                # One slot freed: one waiter (waking every one at each answer costs the CPU with
                # many callers); a change that lets more start wakes them all.
                self._cond.notify()

    # ------------------------------------------------------------ feedback

    def succeeded(self, started_at: float, limits=None) -> None:
        """A call that started at ``started_at`` was answered; ``limits`` (a RateLimits, or None) is
        what the answer's headers said about the request quota."""
        with self._cond:
            now = self.clock()
            if limits is not None:
                self._stated(now, limits)
            before = int(self.limit)
            if self.slow_start and self.stated_quota is not None:
                self.limit = float(self.cap())  # the provider said how many it takes: no need to feel for it
            else:
                doubling = self.slow_start and self.limit < SLOW_START_UNTIL
                step = 1.0 if doubling else 1 / max(1.0, self.limit)
                self.limit = min(float(self.cap()), self.limit + step)
            quota = self.quota
            measured = quota is not None and (self.stated_quota is None or quota < self.stated_quota)
            if quota is not None and measured and now - self.quota_raised_at >= self.window_s * self.probe_after:
                self.quota = quota + 1  # quiet windows: probe one more request per window (never past a stated quota)
                self.quota_raised_at = now
                self.probed = True
            if int(self.limit) > before:
                self._cond.notify_all()  # more may start now (the call's own slot woke one already)

    def _arrival(self, started_at: float, now: float) -> float:
        """When a call that started at ``started_at`` and ended ``now`` reached the provider, at the
        latest. A call reaches the provider after its start by the time its request takes to build
        and send, which a busy machine stretches: calls started together arrive spread out, and a
        window counted from their starts frees before the provider's does (a 429 for each call
        started in that gap). A call that took longer than the fastest answer arrived that much
        later at most (the provider's own time is taken to be no shorter than the fastest answer's: a
        model call's, not a cache set-up's nor a refusal's). After a 429 under a stated quota the
        fastest is taken as zero: each call counts from its answer."""
        return max(started_at, now - self.fastest)

    def _stated(self, now: float, limits) -> None:
        if limits.limit:
            self.stated_quota = int(limits.limit)
            if self.quota is None or self.quota > self.stated_quota:
                self.quota = self.stated_quota  # pace to the stated quota from the first answer on
        if limits.remaining is not None:
            # The count includes the calls the provider had accepted when it answered; calls of ours still
            # in flight may not have reached it yet, so they are taken from what is left (never too many).
            self.remaining = max(0, int(limits.remaining) - self.in_flight)
            self.started_since_remaining = 0
            reset = max(0.0, limits.reset_s if limits.reset_s is not None else self.window_s)
            self.reset_at = now + reset
            self.remaining_at = now
            # The requests taken (as the provider counted them) are all back by the reset; without a
            # stated limit, nothing says how many: the whole reset.
            taken = self.stated_quota - int(limits.remaining) if self.stated_quota else 0
            self.frees_every = reset / taken if taken > 0 else reset

    def rate_limited(self, started_at: float, retry_after: float | None) -> None:
        with self._cond:
            now = self.clock()
            self.rate_limited_calls += 1
            self.slow_start = False
            self._trim(now)
            # What the provider accepted in the window: the calls that started before the refused one.
            earlier = [t for t in (*self.started, *self.pending) if started_at - self._window() < t < started_at]
            accepted = max(1, len(earlier))
            if started_at > self.last_decrease:  # one decrease per round: calls already in flight do not count
                self.limit = max(1.0, self.limit / 2)
                self.last_decrease = now
                if self.stated_quota is not None and self.fastest > 0.0:
                    # Refused under a stated quota: calls reached the provider later than estimated (a
                    # loaded machine sends late): from now on count each in the window from its answer.
                    self.fastest = 0.0
                elif self.quota is not None and (accepted >= self.quota or self.probed):
                    # paced at the cap, or just probed above it, and refused: lower it and probe above it
                    # less often (a quota found again and again is the quota); a probe refused before the
                    # window holds the probed count (calls paced late) is a refused probe all the same
                    self.quota = max(1, self.quota - 1)
                    self.probe_after = min(MOST_QUIET_WINDOWS_BEFORE_PROBE, self.probe_after * 2)
                self.probed = False
                self.quota_raised_at = now
            if self.quota is None or (accepted < self.quota and self.stated_quota is None):
                self.quota = accepted  # (calls counted from a late estimate are missed: not below a stated quota)
            self.limit = min(self.limit, float(self.cap()))
            pause = retry_after if retry_after is not None else 1.0
            self.not_before = max(self.not_before, now + pause)
            self._cond.notify_all()

    def state(self) -> dict:
        with self._cond:
            return {
                "limit": round(self.limit, 2),
                "maximum": self.maximum,
                "cap": self.cap(),
                "quota_per_window": self.quota,
                "window_s": self.window_s,
                "calls": self.calls,
                "rate_limited": self.rate_limited_calls,
                "peak_in_flight": self.peak_in_flight,
                "stated_quota": self.stated_quota,
            }
