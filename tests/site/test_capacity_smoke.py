"""The capacity bench's quick run: the topology on private PostgreSQL and Redis servers (never the
machine's own), a vm host of 1 and then 2 VM slots each running two trajectories of the Anthropic agent
against the model simulator, then a judge pass over them at the shipped judge defaults. Counts only:
how fast they ran depends on the machine (bench/README.md has the figures)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # private PostgreSQL and Redis, a topology, three runs: about two minutes

ROOT = Path(__file__).resolve().parents[2]


def test_every_slot_setting_finishes_its_run_and_every_trajectory_is_judged(tmp_path):
    if not (shutil.which("initdb") and shutil.which("pg_ctl") and shutil.which("redis-server")):
        pytest.skip("needs PostgreSQL's initdb/pg_ctl and redis-server for the private servers")
    out = tmp_path / "capacity.json"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_capacity.py"), "--quick", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)  # fmt: skip
    assert out.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert [row["slots"] for row in figures["slots"]] == [1, 2]
    for row in figures["slots"]:
        # --quick: 2 tasks of 3 steps, every step one model call; finished means every step written
        assert (row["finished"], row["trajectories"], row["model_calls"]) == (2, 2, 6), row
        assert row["per_hour_per_slot"] > 0 and row["step_seconds"] > 0.5, row  # the model's 0.5 s is in every step
    judge = figures["judge"]
    # both measured runs' trajectories, 2 rubric items each, each judged once by one call
    assert (judge["trajectories"], judge["judgments"], judge["judgments_owed"], judge["calls"]) == (4, 8, 8, 8), judge
    assert figures["lost_host"] is None  # --quick leaves the lost host out (a lease is 60 s)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "| 2 | 2 of 2 |" in done.stdout and "judge calls per minute:" in done.stdout
