"""The fault bench's smoke version, run in CI: the topology on private PostgreSQL and Redis servers
(never the machine's own), a launched run of two trajectories, and the vm worker's pool process
killed with SIGKILL mid-trajectory. Nothing may be lost or duplicated: every trajectory finishes once
with all its steps and every rubric item is judged once. The full table (every fault, both brokers)
is `bench/bench_faults.py`, documented in bench/README.md."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the fault bench's smoke run: private PostgreSQL and Redis, a topology, about a minute

ROOT = Path(__file__).resolve().parents[2]


def test_a_vm_worker_killed_mid_trajectory_loses_and_duplicates_nothing(tmp_path):
    if not (shutil.which("initdb") and shutil.which("pg_ctl") and shutil.which("redis-server")):
        pytest.skip("needs PostgreSQL's initdb/pg_ctl and redis-server for the private servers")
    out = tmp_path / "outcomes.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_faults.py"), "--brokers", "redis", "--only", "vm-child",
         "--tasks", "2", "--turns", "6", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    outcomes = {row["fault"]: row for row in json.loads(out.read_text())}
    killed = next(row for fault, row in outcomes.items() if fault.startswith("kill -9 vm worker's pool process"))
    assert (killed["lost"], killed["duplicated"]) == (0, 0), killed
    assert (killed["judgments_lost"], killed["judgments_duplicated"]) == (0, 0), killed
    assert killed["derivatives_missing"] == 0 and not [n for n in killed["notes"] if n.startswith("FAIL")], killed
    assert done.returncode == 0, done.stdout[-3000:]  # the bench's own verdict over every row, the no-fault run too
