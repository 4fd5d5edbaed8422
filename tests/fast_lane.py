"""The fast lane's guard (a pytest plugin, registered by tests/conftest.py): `bin/test --fast` runs the
tests marked none of browser, services, vm and slow, and sets MYPCBENCH_FAST_LANE=1; each such test
that takes longer than the limit to run (its call phase, as pytest's --durations counts it) is
recorded, and the session fails naming them, so the lane stays fast. Mark a test that must be slow
`slow` (or `vm` when it boots a guest). MYPCBENCH_FAST_LANE_LIMIT changes the limit in seconds.

Under pytest-xdist the reports reach the controlling process, which holds the list and fails."""

import os

import pytest

LIMIT_SECONDS = 5.0
# A test carrying any of these markers is outside the fast lane; its time is not the lane's concern.
OUTSIDE_THE_LANE = frozenset({"browser", "services", "vm", "slow"})


def lane_is_on() -> bool:
    return os.environ.get("MYPCBENCH_FAST_LANE", "").strip().lower() not in ("", "0", "false", "no")


def limit_seconds() -> float:
    return float(os.environ.get("MYPCBENCH_FAST_LANE_LIMIT") or LIMIT_SECONDS)


def too_slow_for_the_lane(when: str, duration: float, keywords, limit: float = LIMIT_SECONDS) -> bool:
    """The rule: an unmarked test whose call phase took longer than ``limit`` seconds. ``keywords``
    holds the test's marker names (a report's keywords); setup and teardown are not counted, so a
    module-scoped fixture built once does not make its first test an offender."""
    if when != "call":
        return False
    if OUTSIDE_THE_LANE & set(keywords):
        return False
    return duration > limit


def pytest_configure(config):
    config.pluginmanager.register(Guard(), "mypcbench-fast-lane-guard")


class Guard:
    """One session's offenders, in the process that receives the reports (under pytest-xdist, the
    controlling process: workers send their reports there)."""

    def __init__(self):
        # Read once when the session starts: a test that sets these variables changes nothing here.
        self.on = lane_is_on()
        self.limit = limit_seconds()
        self.offenders: list[tuple[str, float]] = []

    def pytest_runtest_logreport(self, report):
        if self.on and too_slow_for_the_lane(report.when, report.duration, report.keywords, self.limit):
            self.offenders.append((report.nodeid, report.duration))

    def pytest_sessionfinish(self, session, exitstatus):
        if hasattr(session.config, "workerinput"):  # an xdist worker: the controlling process decides
            return
        if self.offenders and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter, config):
        if not self.offenders or hasattr(config, "workerinput"):
            return
        terminalreporter.section("fast lane: unmarked tests slower than the limit", sep="=", red=True)
        terminalreporter.write_line(
            f"{len(self.offenders)} test(s) marked none of {', '.join(sorted(OUTSIDE_THE_LANE))} took over "
            f"{self.limit:g} s to run; make them faster or mark them `slow` (or `vm`):"
        )
        for nodeid, duration in sorted(self.offenders, key=lambda row: -row[1]):
            terminalreporter.write_line(f"  {duration:7.2f}s call  {nodeid}")
