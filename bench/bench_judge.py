"""Bench: the judge against a provider simulator on 127.0.0.1, through the real SDKs.

1. Billed input tokens per task: the shared trajectory prefix cached (Gemini cached contents,
   Anthropic cache_control, OpenAI prompt caching) against re-sending the full trajectory with every
   rubric item (Gemini with its cache refused). "Full-rate" tokens are prompt tokens not read from a
   cache; the cost ratio uses the price table (cached reads at a tenth of the price or so).
   Target: at least 4x fewer.
2. Wall-clock to judge many tasks with bounded concurrency against one call at a time, with 1-2 s
   latency per call. The sequential side costs tasks x items x 1.5 s, so by default both sides judge
   12 tasks (about two minutes sequential); the 184-task sequential time is extrapolated from it, and
   --full-run N also times N tasks with concurrency. Target: at least 20x faster.

Run: MYPCBENCH_VAR_DIR=$(mktemp -d) .venv/bin/python bench/bench_judge.py [--tasks 12] [--concurrency 32]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
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


def wall_clock_bench(root: Path, n_tasks: int, n_items: int, concurrency: int, latency, full_run: int) -> None:
    print(f"\n2. Wall-clock, {n_tasks} tasks x {n_items} items, {latency[0]}-{latency[1]} s per call (anthropic)")
    timings = {}
    for label, limit in (("one call at a time", 1), (f"concurrency {concurrency}", concurrency)):
        folder = root / f"wall-{limit}"
        workload(folder, n_tasks, 8, n_items)
        with ProviderSimulator(lambda r: ANSWER, latency=latency) as sim:
            judge = Judge(make_provider("anthropic", api_key="bench", base_url=sim.url), concurrency=limit)
            started = time.perf_counter()
            summary = judge_folder(folder, judge, workers=limit)
            timings[limit] = time.perf_counter() - started
            calls, peak = len(sim.requests), sim.max_in_flight
        print(
            f"   {label:<22}{timings[limit]:8.1f} s  ({calls} calls, at most {peak} in flight, "
            f"{summary['graded']} tasks graded)"
        )
    ratio = timings[1] / timings[concurrency]
    print(f"   ratio: {ratio:.1f}x faster with bounded concurrency (target: at least 20x for a run)")
    per_task = timings[1] / n_tasks
    print(f"   184 tasks one call at a time would take about {184 * per_task / 60:.0f} min (extrapolated)")
    if full_run:
        folder = root / "full"
        workload(folder, full_run, 8, n_items)
        with ProviderSimulator(lambda r: ANSWER, latency=latency) as sim:
            judge = Judge(make_provider("anthropic", api_key="bench", base_url=sim.url), concurrency=concurrency)
            started = time.perf_counter()
            judge_folder(folder, judge, workers=concurrency)
            elapsed = time.perf_counter() - started
        print(
            f"   {full_run} tasks with concurrency {concurrency}: {elapsed:.1f} s measured, "
            f"{full_run * per_task / elapsed:.1f}x faster than the extrapolated sequential time"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=12, help="tasks for the side-by-side wall-clock run")
    parser.add_argument("--items", type=int, default=7, help="rubric items per task (the suite's mean is 6.2)")
    parser.add_argument("--steps", type=int, default=30, help="steps (screenshots) for the token bench")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, nargs=2, default=(1.0, 2.0))
    parser.add_argument("--full-run", type=int, default=0, help="also time this many tasks with concurrency")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        task_dir = workload(root / "tokens", 1, args.steps, args.items)[0]
        token_bench(task_dir, args.items)
        wall_clock_bench(root, args.tasks, args.items, args.concurrency, tuple(args.latency), args.full_run)


if __name__ == "__main__":
    main()
