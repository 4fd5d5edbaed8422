"""Fixtures of the judging tests: an imported run of upstream results, judged by nobody yet."""

import pytest

from tests.factories import make_suite, write_task_dir
from trajectories.recording.import_results import import_results


@pytest.fixture
def imported_run(request, tmp_path, monkeypatch, settings):
    """The test module's TASKS (task ids) imported as the run "Opus upstream", one result each."""
    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    tasks = request.module.TASKS
    make_suite(tasks)
    for task_id in tasks:
        write_task_dir(tmp_path / "results", task_id)
    return import_results(tmp_path / "results", "Opus upstream").run
