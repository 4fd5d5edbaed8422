"""Fixtures of the harness's tests: the demo suite's first task and a provider simulator on loopback."""

from pathlib import Path

import pytest

from harness.tasks import load_tasks
from tests.simulators import ProviderSimulator

DEMO_SUITE = Path(__file__).resolve().parents[2] / "seeding" / "demo_suite.json"


@pytest.fixture(scope="module")
def task():
    """The first task of seeding/demo_suite.json."""
    return load_tasks(DEMO_SUITE).tasks[0]


@pytest.fixture
def sim():
    """The provider simulator (tests/simulators) answering on loopback as the real APIs do."""
    with ProviderSimulator() as simulator:
        yield simulator
