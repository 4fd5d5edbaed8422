"""`python -m harness run` end to end against the fake guest: a result folder the site's
import_results takes unchanged, resuming by skipping finished tasks, and clear errors for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from harness.run import is_finished, main
from trajectories.models import Step, Trajectory
from trajectories.recording.import_results import import_results

ROOT = Path(__file__).resolve().parents[2]
DEMO_SUITE = ROOT / "seeding" / "demo_suite.json"

PLANS = {
    "plans": {
        "demo-d001": {
            "turns": [
                {"response": "Open HooliMail.", "actions": ["pyautogui.click(120, 80)"]},
                {
                    "response": "Search for the airline.",
                    "vocabulary": "anthropic",
                    "model_size": [1280, 720],
                    "actions": [{"action": "type", "text": "Dinoco"}, {"action": "key", "text": "Return"}],
                },
            ],
            "final_answer": "Flight DN1562 leaves AVP at 6:00am on May 16, 2026; confirmation DN-83823.",
        },
        "*": {"turns": [], "final_answer": "I could not find it.", "outcome": "fail"},
    }
}


@pytest.fixture
def plan_file(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLANS))
    return path


def harness(*args) -> int:
    return main(["run", "--tasks", str(DEMO_SUITE), "--backend", "fake", "--no-progress", *map(str, args)])


@pytest.mark.slow
@pytest.mark.django_db
def test_run_then_import_results_unchanged(tmp_path, plan_file, capsys):
    out = tmp_path / "results"
    code = harness("--task", "demo-d001", "--task", "demo-d002", "--agent", "scripted", "--plan", plan_file,
                   "--out", out)  # fmt: skip
    assert code == 0
    assert "2 task(s): finished 2, done 1, fail 1" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["demo-d001", "demo-d002", "run.json"]

    # resuming skips what finished; a task whose run errored is run again
    (out / "demo-d002" / "result.txt").write_text("0.0\n")
    code = harness("--task", "demo-d001", "--task", "demo-d002", "--agent", "scripted", "--plan", plan_file,
                   "--out", out)  # fmt: skip
    assert code == 0
    assert "skipped 1, finished 1" in capsys.readouterr().err

    call_command("import_tasks", str(DEMO_SUITE), "--suite", "MyPCBench demo", "--suite-version", "demo-1")
    summary = import_results(out, "Scripted harness run", model_name="scripted")
    trajectories = {t.task.task_id: t for t in Trajectory.objects.filter(run=summary.run)}
    assert sorted(trajectories) == ["demo-d001", "demo-d002"]
    found = trajectories["demo-d001"]
    assert found.ended_by == "done" and found.n_turns == 3
    assert found.final_answer.startswith("Flight DN1562")
    steps = list(Step.objects.filter(trajectory=found).order_by("index"))
    assert [s.action["type"] for s in steps] == ["click", "type", "key", "done"]
    assert all(s.screenshot and s.screenshot_width == 1280 and s.screenshot_height == 800 for s in steps)
    assert trajectories["demo-d002"].ended_by == "fail"
    assert summary.report.new_rubric_versions == []  # the bundle's rubric is the suite's, not a new version


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_dummy_agent_on_the_whole_suite(tmp_path, capsys):
    out = tmp_path / "results"
    assert harness("--agent", "dummy", "--out", out) == 0
    assert "12 task(s): finished 12, done 12" in capsys.readouterr().err
    assert harness("--agent", "dummy", "--out", out) == 0
    assert "12 task(s): skipped 12" in capsys.readouterr().err


def test_bad_input_is_reported_before_anything_runs(tmp_path, capsys):
    out = tmp_path / "results"
    assert harness("--task", "demo-x999", "--out", out) == 2
    assert "--task: demo-x999 not in" in capsys.readouterr().err
    bad_plan = tmp_path / "bad.json"
    bad_plan.write_text('{"turns": [{"actions": [42]}]}')
    assert harness("--agent", "scripted", "--plan", bad_plan, "--out", out) == 2
    assert "turns[0].actions[0]: 42 (expected a str for pyautogui)" in capsys.readouterr().err
    assert harness("--agent", "dummy", "--plan", bad_plan, "--out", out) == 2
    assert not out.exists()


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_unavailable_backend_exits_with_the_reason(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            "--tasks",
            DEMO_SUITE,
            "--backend",
            "qemu",
            "--image",
            tmp_path / "none.qcow2",
            "--out",
            tmp_path / "out",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 3
    assert "the qemu backend cannot start" in done.stderr and "none.qcow2 does not exist" in done.stderr


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_served_guest_is_driven_through_the_remote_backend(tmp_path, capsys):
    # port 0: the guest binds a free port itself and names it (no port checked free, then bound later)
    guest = subprocess.Popen(
        [sys.executable, "-m", "harness", "guest", "--kind", "fake", "--port", "0"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = guest.stderr.readline()
        assert "serving the Control API at http://127.0.0.1:" in line
        port = int(line.split("http://127.0.0.1:", 1)[1].split()[0])
        out = tmp_path / "results"
        code = harness("--task", "demo-d003", "--backend", "remote", "--url", f"http://127.0.0.1:{port}",
                       "--agent", "dummy", "--settle", "0", "--out", out)  # fmt: skip
        assert code == 0 and (out / "demo-d003" / "result.txt").read_text() == "1.0\n"
    finally:
        guest.terminate()
        guest.wait(timeout=10)


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_serving_a_guest_beyond_loopback_is_refused():
    done = subprocess.run(
        [sys.executable, "-m", "harness", "guest", "--kind", "fake", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2 and "refusing to bind the Control API to '0.0.0.0'" in done.stderr


@pytest.mark.parametrize(
    ("marker", "finished"),
    [(b"1.0", True), (b"1", True), (b"0.0", False), (b"nan", False), (b"inf", False), (b"1" * 10_000_000, False),
     (b"\xff\xfe", False), (b"", False)],
    ids=["one", "int", "error", "nan", "inf", "huge", "not-utf8", "empty"],
)  # fmt: skip
def test_only_a_result_txt_saying_finished_counts_as_finished(tmp_path, marker, finished):
    (tmp_path / "result.txt").write_bytes(marker)
    assert is_finished(tmp_path) is finished
