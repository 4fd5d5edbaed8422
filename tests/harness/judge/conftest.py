"""Fixtures of the judge's tests."""

import pytest

from harness.judge.limiter import AdaptiveLimiter


@pytest.fixture(autouse=True)
def fresh_limiters():
    """Each test starts with no learned quota or pause: simulator ports are reused between tests."""
    AdaptiveLimiter.forget_all()
    yield
    AdaptiveLimiter.forget_all()
