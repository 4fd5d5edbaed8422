"""The fast lane's guard (tests/fast_lane.py): an unmarked test slower than the limit fails the
session of `bin/test --fast`, naming it; marked tests, setup time and runs outside the lane do not."""

import pytest

from tests.fast_lane import LIMIT_SECONDS, too_slow_for_the_lane


def test_only_an_unmarked_tests_call_over_the_limit_is_too_slow():
    assert LIMIT_SECONDS == 5.0
    assert too_slow_for_the_lane("call", 5.01, {"test_x", "django_db"})
    assert not too_slow_for_the_lane("call", 5.0, {"test_x"})  # over the limit, not at it
    assert not too_slow_for_the_lane("setup", 60.0, {"test_x"})  # a module fixture built once
    assert not too_slow_for_the_lane("teardown", 60.0, {"test_x"})
    for marker in ("slow", "vm", "browser", "services"):
        assert not too_slow_for_the_lane("call", 60.0, {"test_x", marker})
    assert too_slow_for_the_lane("call", 0.2, {"test_x"}, limit=0.1)


INNER = """
import time

import pytest


def test_unmarked_and_slow():
    time.sleep(0.3)


@pytest.mark.slow
def test_marked_slow():
    time.sleep(0.3)


def test_quick():
    pass
"""


@pytest.fixture
def inner(pytester, monkeypatch):
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    pytester.makepyfile(test_inner=INNER)
    monkeypatch.setenv("MYPCBENCH_FAST_LANE_LIMIT", "0.1")

    def run():
        return pytester.runpytest_inprocess("-p", "tests.fast_lane", "-p", "no:django", "-p", "no:cacheprovider")

    return run


def test_the_fast_lane_fails_the_session_naming_the_unmarked_slow_test(inner, monkeypatch):
    monkeypatch.setenv("MYPCBENCH_FAST_LANE", "1")
    result = inner()
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    summary = result.stdout.str()
    assert "fast lane: unmarked tests slower than the limit" in summary
    assert "test_inner.py::test_unmarked_and_slow" in summary
    assert "test_marked_slow" not in summary.split("fast lane:")[1]


def test_outside_the_fast_lane_slow_tests_pass(inner, monkeypatch):
    monkeypatch.delenv("MYPCBENCH_FAST_LANE", raising=False)
    result = inner()
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.OK
    assert "fast lane:" not in result.stdout.str()
