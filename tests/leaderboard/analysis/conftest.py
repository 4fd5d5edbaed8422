"""Fixtures of the analysis pages' tests."""

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()  # pages and scores are cached per data version; ids repeat between rolled-back tests
    yield
    cache.clear()
