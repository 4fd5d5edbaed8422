"""Bench: the judge against a provider simulator on 127.0.0.1, through the real SDKs.

1. Billed input tokens per task: the shared trajectory prefix cached (Gemini cached contents,
   Anthropic cache_control, OpenAI prompt caching) against re-sending the full trajectory with every
   rubric item (Gemini with its cache refused). "Full-rate" tokens are prompt tokens not read from a
   cache; the cost ratio uses the price table (cached reads at a tenth of the price or so).
   Target: at least 4x fewer.
2. Wall-clock to judge 4, 12 and 184 tasks at the shipped defaults (the judge and `judge_folder` as
   `python -m harness.judge` runs them: no concurrency given) against one call at a time, with the same
   1-2 s simulated latency per call. One call at a time costs tasks x items x 1.5 s, so it is measured
   on a few tasks (--sequential-tasks, 4 by default: about 40 s) and multiplied by each task count.
   Target: at least 15x on 12 tasks and 25x on 184.

--busy N runs N spinning processes beside the bench (a busy machine); the load is printed first.

Run: MYPCBENCH_VAR_DIR=$(mktemp -d) .venv/bin/python bench/bench_judge.py [--tasks 4 12 184] [--busy 2]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.cpu_load import cpu_load, describe  # noqa: E402
from harness.judge import Judge, TrajectoryForJudge, make_provider  # noqa: E402
from harness.judge.cli import judge_folder  # noqa: E402
from harness.judge.prices import DEFAULT_PRICES  # noqa: E402
from harness.results import read_task_dir  # noqa: E402
from tests.factories import write_task_dir  # noqa: E402
from tests.simulators import ProviderSimulator  # noqa: E402

ANSWER = 'Checked.\n{"reasoning": "Visible in the last screenshot.", "cited_steps": [1], "verdict": "success"}'


def workload(root: Path, n_tasks: int, n_steps: int, n_items: int) -> list[Path]:
    actions = [(n, f"pyautogui.click({10 * n}, {5 * n})") for n in range(1, n_steps)] + [(n_steps, "DONE")]
    rubric = [
        {"criterion": f"Requirement {i}: the agent does part {i} of the task", "weight": 1} for i in range(n_items)
    ]
    return [write_task_dir(root, f"retrieval-f{i:03d}", actions=actions, rubric=rubric) for i in range(n_tasks)]


def billed(verdicts, model):
    full_rate = sum(v.input_tokens - v.cached_tokens for v in verdicts)
    cached = sum(v.cached_tokens for v in verdicts)
    cost = sum(v.cost_usd or 0 for v in verdicts)
    return full_rate, cached, cost


def token_bench(task_dir: Path, n_items: int) -> None:
    bundle = read_task_dir(task_dir)
    trajectory = TrajectoryForJudge(task_dir.name, "Find the invoice.", bundle.steps, bundle.final_answer)
    print(f"1. Billed input tokens per task ({len(bundle.steps)} steps with screenshots, {n_items} rubric items)")
    print(f"   {'judge':<44}{'full-rate':>11}{'cached':>10}{'cost $':>11}")
    rows = {}
    runs = [
        ("google, everything re-sent per item (baseline)", "google", {"gemini_cache_min_tokens": 10**9}),
        ("google, prefix in cached contents", "google", {}),
        ("anthropic, cache_control on the prefix", "anthropic", {}),
        ("openai, stable prefix + prompt_cache_key", "openai", {}),
    ]
    for label, provider, options in runs:
        with ProviderSimulator(lambda r: ANSWER, image_tokens=1100, **options) as sim:
            url = sim.openai_url if provider == "openai" else sim.url
            judge = Judge(make_provider(provider, api_key="bench", base_url=url), price_table=DEFAULT_PRICES)
            verdicts = judge.judge(trajectory, bundle.rubric)
        rows[label] = billed(verdicts, judge.provider.model)
        full, cached, cost = rows[label]
        print(f"   {label:<44}{full:>11,}{cached:>10,}{cost:>11.5f}")
    base_full, _, base_cost = rows[runs[0][0]]
    for label, _, _ in runs[1:]:
        full, _, cost = rows[label]
        line = f"   {label}: {base_full / full:.1f}x fewer full-rate input tokens"
        if label.startswith("google"):
            line += f", {base_cost / cost:.1f}x cheaper (same model and price table)"
        print(line)
    print("   target: at least 4x fewer billed input tokens")


def timed_run(root: Path, name: str, n_tasks: int, n_items: int, latency, **judge_options) -> dict:
    """Judges ``n_tasks`` fresh task folders against a fresh simulator; what it took."""
    folder = root / name
    workload(folder, n_tasks, 8, n_items)
    with ProviderSimulator(lambda r: ANSWER, latency=latency) as sim:
        judge = Judge(make_provider("anthropic", api_key="bench", base_url=sim.url), **judge_options)
        started = time.perf_counter()
        summary = judge_folder(folder, judge)
        elapsed = time.perf_counter() - started
        return {
            "elapsed": elapsed,
            "calls": len(sim.requests),
            "peak": sim.max_in_flight,
            "refused": sim.rate_limited,
            "graded": summary["graded"],
            "ceiling": judge.concurrency,
        }


def wall_clock_bench(root: Path, task_counts, n_items: int, latency, sequential_tasks: int) -> None:
    low, high = latency
    print(f"\n2. Wall-clock, tasks x {n_items} items, {low}-{high} s per call (anthropic simulator, its stated quota)")
    one = timed_run(root, "sequential", sequential_tasks, n_items, latency, concurrency=1)
    per_task = one["elapsed"] / sequential_tasks
    print(
        f"   one call at a time: {one['elapsed']:.1f} s for {sequential_tasks} tasks ({one['calls']} calls, at most "
        f"{one['peak']} in flight) = {per_task:.1f} s a task, times the task count below"
    )
    print(f"   {'tasks':>7}{'one at a time':>15}{'shipped defaults':>18}{'ratio':>8}  in flight  429s  target")
    for n_tasks in task_counts:
        run = timed_run(root, f"defaults-{n_tasks}", n_tasks, n_items, latency)
        assert run["graded"] == n_tasks, f"{run['graded']} of {n_tasks} tasks graded"
        sequential = per_task * n_tasks
        target = {12: "at least 15x", 184: "at least 25x"}.get(n_tasks, "")
        print(
            f"   {n_tasks:>7}{sequential:>13.1f} s{run['elapsed']:>16.1f} s{sequential / run['elapsed']:>7.1f}x"
            f"  {run['peak']:>9}{run['refused']:>6}  {target}"
        )
    print(f"   (shipped defaults: at most {run['ceiling']} calls in flight, the ceiling; the quota sets the rest)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, nargs="+", default=[4, 12, 184], help="task counts judged at defaults")
    parser.add_argument("--items", type=int, default=7, help="rubric items per task (the suite's mean is 6.2)")
    parser.add_argument("--steps", type=int, default=30, help="steps (screenshots) for the token bench")
    parser.add_argument("--sequential-tasks", type=int, default=4, help="tasks judged one call at a time")
    parser.add_argument("--latency", type=float, nargs=2, default=(1.0, 2.0))
    parser.add_argument("--busy", type=int, default=0, help="spinning processes beside the bench (a busy machine)")
    parser.add_argument("--skip-tokens", action="store_true", help="only the wall-clock part")
    args = parser.parse_args()
    print(f"load: {describe(args.busy)}")
    with tempfile.TemporaryDirectory() as tmp, cpu_load(args.busy):
        root = Path(tmp)
        if not args.skip_tokens:
            task_dir = workload(root / "tokens", 1, args.steps, args.items)[0]
            token_bench(task_dir, args.items)
        wall_clock_bench(root, args.tasks, args.items, tuple(args.latency), args.sequential_tasks)


if __name__ == "__main__":
    main()
