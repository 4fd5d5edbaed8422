"""Fixtures of the world tests: the real persona spec, and its world built once per test process."""

import datetime as dt
import json
from pathlib import Path

import pytest

from seeding.world.build import build
from tests.conftest import need_upstream

REAL_ANCHOR = dt.date(2026, 4, 13)  # the demo's anchor, a Monday


@pytest.fixture(scope="session")
def real_spec() -> dict:
    """The upstream persona spec as written (its author remarks intact)."""
    return json.loads((need_upstream("michael_scott.json") / "michael_scott.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def real_world(tmp_path_factory) -> Path:
    """The real spec built at the demo anchor, once per test process; tests read it and never change it."""
    out = tmp_path_factory.mktemp("real") / "world"
    build(need_upstream("michael_scott.json") / "michael_scott.json", out, REAL_ANCHOR)
    return out
