"""Harness overhead per step against the fake guest, excluding model and VM time.

Side by side in one run: (a) the raw HTTP round trip a step cannot avoid (POST /execute + GET
/screenshot on a bare requests session) and (b) a full agent-loop step (agent call, execution,
screenshot, traj.jsonl row fsync'd, PNG written, screenshot window). Overhead = (b) - (a); the target
is at most 50 ms.

    .venv/bin/python bench/bench_harness.py [--steps 200] [--width 1280 --height 800]
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.agents.base import AgentState  # noqa: E402
from harness.backends import FakeEnv  # noqa: E402
from harness.control import pyautogui_command  # noqa: E402
from harness.run import (  # noqa: E402
    LoopConfig,
    Recorder,  # noqa: E402
    run_task,
)
from harness.tasks import load_tasks  # noqa: E402

TARGET_MS = 50.0


class InstantAgent(AgentState):
    """No model: one click per turn, answered at once."""

    name = model = "bench"

    def reset(self, task_id=""):
        AgentState.__init__(self)

    def predict(self, instruction, observation):
        turn = observation["turn"]
        return f"turn {turn}", [f"pyautogui.click({turn % 1000}, {turn % 700})"]


def raw_round_trips(url: str, steps: int) -> list[float]:
    session = requests.Session()
    command = {"command": pyautogui_command("pyautogui.click(10, 10)"), "shell": False}
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        session.post(f"{url}/execute", json=command, timeout=30).json()
        png = session.get(f"{url}/screenshot", timeout=30).content
        assert png.startswith(b"\x89PNG")
        times.append(time.perf_counter() - start)
    session.close()
    return times


def loop_steps(env, task, steps: int, out: Path) -> tuple[float, int]:
    recorder = Recorder.to_folder(task, out / task.id)
    config = LoopConfig(max_turns=steps, sleep_after=0.0, write_answer=False)
    start = time.perf_counter()
    result = run_task(task, env, InstantAgent(), recorder, config)
    elapsed = time.perf_counter() - start
    return elapsed, result.steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    task = load_tasks(Path(__file__).resolve().parent.parent / "seeding" / "demo_suite.json").tasks[0]
    env = FakeEnv(screen_size=(args.width, args.height))
    env.start()
    raw_ms, loop_ms = [], []
    try:
        raw_round_trips(env.url, 10)  # warm up
        for _ in range(args.repeats):
            raw = raw_round_trips(env.url, args.steps)
            raw_ms.append(statistics.mean(raw) * 1000)
            with tempfile.TemporaryDirectory() as tmp:
                # the reset and first screenshot happen once per task; spread over the steps like the rest
                elapsed, steps = loop_steps(env, task, args.steps, Path(tmp))
            loop_ms.append(elapsed / steps * 1000)
    finally:
        env.stop()
    raw, loop = statistics.median(raw_ms), statistics.median(loop_ms)
    overhead = loop - raw
    print(f"fake guest {args.width}x{args.height}, {args.steps} steps x {args.repeats} repeats (medians)")
    print(f"  raw HTTP round trip per step (execute + screenshot): {raw:7.2f} ms")
    print(f"  agent-loop step (+ agent, recording, window):        {loop:7.2f} ms")
    print(f"  harness overhead per step:                           {overhead:7.2f} ms  (target <= {TARGET_MS:.0f} ms)")
    print(f"  loop / raw ratio:                                    {loop / raw:7.2f}x")
    print("  verdict:", "within target" if overhead <= TARGET_MS else "OVER TARGET")


if __name__ == "__main__":
    main()
