"""Per-author rate limits on accepted uploads, on upload attempts and on API calls, and per client
address and per account on sign-ups and failed log-ins. A refusal names the limit, what was
counted and when the limit resets, and carries the seconds to wait for a Retry-After header."""

import hashlib
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone


def duration_text(seconds: float) -> str:
    """A span in plain words: "1 hour", "15 minutes", "40 seconds" (rounded up)."""
    seconds = max(1, math.ceil(seconds))
    if seconds % 3600 == 0:
        n, unit = seconds // 3600, "hour"
    elif seconds >= 120:
        n, unit = math.ceil(seconds / 60), "minute"
    else:
        n, unit = seconds, "second"
    return f"{n} {unit}{'' if n == 1 else 's'}"


def per_text(seconds: float) -> str:
    """A span for "per ..." and "in the last ...": "hour" rather than "1 hour"."""
    text = duration_text(seconds)
    return text.removeprefix("1 ")


@dataclass(eq=False)  # an exception: hashable by identity
class RateLimited(Exception):
    """Over a per-author limit: ``used`` of ``limit`` ``what`` in a window of ``window`` seconds;
    the next one is accepted from ``resets_at``."""

    what: str  # "uploads", "API calls"
    limit: int
    window: int
    used: int
    resets_at: datetime
    counted: str = ""  # how the window is counted, in words
    per: str = "author"  # whose count it is: "author", "account", "address"
    made: str = "you have made"  # how the count is said before the number

    @property
    def retry_after(self) -> int:
        """Whole seconds until the limit lets the next one through (for Retry-After)."""
        return max(1, math.ceil((self.resets_at - timezone.now()).total_seconds()))

    def __str__(self) -> str:
        return (
            f"rate limit: at most {self.limit} {self.what.removesuffix('s') if self.limit == 1 else self.what} "
            f"per {per_text(self.window)} per {self.per}"
            f"{f' ({self.counted})' if self.counted else ''}; {self.made} {self.used}. The limit resets at "
            f"{self.resets_at:%Y-%m-%d %H:%M:%S} UTC (in {duration_text(self.retry_after)}); try again then."
        )


def window_seconds() -> int:
    return int(getattr(settings, "MYPCBENCH_RATE_WINDOW_SECONDS", 3600))


def check_uploads(user, created_at_in_window) -> None:
    """Refuse an upload when ``user`` already has the maximum of accepted uploads in the sliding
    window; ``created_at_in_window(since)`` lists their upload times since then, oldest first.
    The limit resets when the oldest upload that keeps them at the limit leaves the window."""
    limit = int(getattr(settings, "MYPCBENCH_UPLOADS_PER_WINDOW", 20))
    window = window_seconds()
    recent = list(created_at_in_window(timezone.now() - timedelta(seconds=window)))
    if len(recent) < limit:
        return
    frees_at = recent[len(recent) - limit] + timedelta(seconds=window)
    counted = f"accepted uploads in the last {per_text(window)} count"
    raise RateLimited("uploads", limit, window, len(recent), frees_at, counted=counted)


def _count_in_clock_window(name: str, user) -> tuple[int, int, int]:
    """Add one to ``user``'s ``name`` counter for the current fixed clock window of
    window_seconds(); return (count so far, window, bucket). Counted in Django's cache: per process
    with the default local-memory cache, shared by every process with Redis."""
    return _clock_counter(name, user.pk, window_seconds())


def _clock_counter(name: str, who, window: int, add: int = 1) -> tuple[int, int, int]:
    """Add ``add`` (0 only reads) to the ``name`` counter of ``who`` for the current fixed clock
    window of ``window`` seconds; return (count so far, window, bucket)."""
    bucket = int(timezone.now().timestamp()) // window
    key = f"mypcbench:{name}:{who}:{bucket}"
    if not add:
        return int(cache.get(key, 0)), window, bucket
    cache.add(key, 0, timeout=window)
    try:
        count = cache.incr(key, add)
    except ValueError:  # expired between add and incr
        cache.set(key, add, timeout=window)
        count = add
    return count, window, bucket


def _window_end(bucket: int, window: int) -> datetime:
    return datetime.fromtimestamp((bucket + 1) * window, tz=UTC)


def count_api_call(user) -> None:
    """Count one API call for ``user`` in the current fixed window; raise RateLimited once over the
    limit (MYPCBENCH_API_CALLS_PER_WINDOW)."""
    limit = int(getattr(settings, "MYPCBENCH_API_CALLS_PER_WINDOW", 600))
    calls, window, bucket = _count_in_clock_window("api-calls", user)
    if calls > limit:
        resets_at = _window_end(bucket, window)
        raise RateLimited("API calls", limit, window, calls, resets_at, counted="counted per clock window")


def upload_attempts_limit() -> int:
    """MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW; unset, three times the accepted-upload limit."""
    limit = getattr(settings, "MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW", None)
    if limit is None:
        return 3 * int(getattr(settings, "MYPCBENCH_UPLOADS_PER_WINDOW", 20))
    return int(limit)


def count_upload_attempt(user) -> None:
    """Count one upload attempt for ``user`` (accepted, refused or a repeat of an earlier archive)
    in the current fixed window; raise RateLimited once over upload_attempts_limit(). Called before
    the archive is read, so refused archives cannot make the server check them without bound."""
    limit = upload_attempts_limit()
    attempts, window, bucket = _count_in_clock_window("upload-attempts", user)
    if attempts > limit:
        counted = "accepted or refused, counted per clock window"
        raise RateLimited("upload attempts", limit, window, attempts, _window_end(bucket, window), counted=counted)


def check_upload_attempts(user) -> None:
    """Refuse, without counting, when ``user`` has used up the upload attempts of the current window
    (read before an upload's body is received; the attempt itself is counted by count_upload_attempt)."""
    limit = upload_attempts_limit()
    attempts, window, bucket = _clock_counter("upload-attempts", user.pk, window_seconds(), add=0)
    if attempts >= limit:
        counted = "accepted or refused, counted per clock window"
        raise RateLimited("upload attempts", limit, window, attempts, _window_end(bucket, window), counted=counted)


# ---------------------------------------------------------------- sign-up and log-in


def _setting(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def _hashed(text: str) -> str:
    """A cache-key-safe name for an address or a username (any length, any characters)."""
    return hashlib.sha256(text.strip().lower().encode("utf-8", "surrogatepass")).hexdigest()[:32]


def check_login(address: str, username: str) -> None:
    """Refuse a log-in before the password is checked when the account or the client address has
    had too many failed log-ins in the current clock window (MYPCBENCH_LOGIN_FAILURES_PER_ACCOUNT,
    MYPCBENCH_LOGIN_FAILURES_PER_ADDRESS per MYPCBENCH_LOGIN_WINDOW_SECONDS): then even the right
    password is refused until the window ends, so guessing stays slow."""
    window = _setting("MYPCBENCH_LOGIN_WINDOW_SECONDS", 15 * 60)
    for per, who, limit in (
        ("account", f"user-{_hashed(username)}", _setting("MYPCBENCH_LOGIN_FAILURES_PER_ACCOUNT", 5)),
        ("address", f"addr-{_hashed(address)}", _setting("MYPCBENCH_LOGIN_FAILURES_PER_ADDRESS", 20)),
    ):
        failures, window, bucket = _clock_counter("login-failures", who, window, add=0)
        if failures >= limit:
            raise RateLimited(
                "failed log-ins",
                limit,
                window,
                failures,
                _window_end(bucket, window),
                counted="counted per clock window",
                per=per,
                made=f"this {per} has had",
            )


def record_login_failure(address: str, username: str) -> None:
    """Count one failed log-in against the account named and the client address."""
    window = _setting("MYPCBENCH_LOGIN_WINDOW_SECONDS", 15 * 60)
    _clock_counter("login-failures", f"user-{_hashed(username)}", window)
    _clock_counter("login-failures", f"addr-{_hashed(address)}", window)


def check_signup(address: str) -> None:
    """Refuse a sign-up (before the form is checked) when the client address already made the
    maximum of new accounts in the current clock day (MYPCBENCH_SIGNUPS_PER_ADDRESS, per
    MYPCBENCH_SIGNUP_WINDOW_SECONDS): per-author limits are not multiplied by new accounts."""
    limit = _setting("MYPCBENCH_SIGNUPS_PER_ADDRESS", 10)
    window = _setting("MYPCBENCH_SIGNUP_WINDOW_SECONDS", 24 * 3600)
    made, window, bucket = _clock_counter("signups", f"addr-{_hashed(address)}", window, add=0)
    if made >= limit:
        raise RateLimited(
            "new accounts",
            limit,
            window,
            made,
            _window_end(bucket, window),
            counted="counted per clock day" if window == 24 * 3600 else "counted per clock window",
            per="address",
            made="this address has made",
        )


def record_signup(address: str) -> None:
    _clock_counter("signups", f"addr-{_hashed(address)}", _setting("MYPCBENCH_SIGNUP_WINDOW_SECONDS", 24 * 3600))
