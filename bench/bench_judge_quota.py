"""Bench: the judge under a provider's request quota, and the request-size caps in effect.

1. Adaptive concurrency (harness/judge/limiter.py) against the provider simulator configured with a
   request quota of Q requests per W seconds (429 with the provider's retry hint above it): a token
   bucket for Anthropic, as it documents its quota, a sliding window for the others; Anthropic and
   OpenAI answers state it in their rate-limit headers, reset being when the quota is whole again.
   Either way N calls cannot finish before floor((N - 1) / Q) * W seconds plus one call's latency:
   that is the quota's lower bound. Printed: wall-clock against that bound and the share of calls answered 429.
   Goal: within 1.2x of the bound with under 2% of calls answered 429. Real quotas are per minute;
   the default window is shorter so the bench takes about a minute (--window 60 --quota 300 for a
   real-sized one; the judge is told the window, as it assumes 60 s for real providers).
2. The request-size cap per provider, and what a 100-step trajectory of the demo's real screenshots
   weighs per request as stored (PNG) and as the judge sends it (WebP q85 by default).

The judge runs at its shipped defaults unless --concurrency is given. --busy N runs N spinning
processes beside the bench (a busy machine); the load is printed first, with the load average (1, 5
and 15 minutes) at the start and at the end (other work on the machine counts too).

Run: MYPCBENCH_VAR_DIR=$(mktemp -d) .venv/bin/python bench/bench_judge_quota.py [--provider google]
     [--calls 300] [--quota 30] [--window 6] [--latency 0.2 0.4] [--concurrency N] [--busy 2]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.cpu_load import cpu_load, describe  # noqa: E402
from harness.judge import Judge, JudgeItem, TrajectoryForJudge, make_provider  # noqa: E402
from harness.judge.images import ImagePolicy  # noqa: E402
from harness.judge.prompt import build_prefix  # noqa: E402
from harness.judge.provider_base import PROVIDERS, REQUEST_LIMITS, SAFETY_MARGIN, request_bytes  # noqa: E402
from harness.results import StepRecord  # noqa: E402
from tests.factories import write_task_dir  # noqa: E402
from tests.simulators import ProviderSimulator  # noqa: E402

ANSWER = 'Checked.\n{"reasoning": "Visible in the last screenshot.", "cited_steps": [1], "verdict": "success"}'
ROOT = Path(__file__).resolve().parent.parent


def quota_bench(args) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from harness.results import read_task_dir

    n_tasks = max(1, args.calls // args.items)
    calls = n_tasks * args.items
    print(
        f"1. {calls} judge calls ({n_tasks} trajectories x {args.items} items, {args.provider}) against a quota of "
        f"{args.quota} requests per {args.window:g} s, {args.latency[0]}-{args.latency[1]} s per call"
    )
    with tempfile.TemporaryDirectory() as tmp:
        task_dir = write_task_dir(
            Path(tmp), "retrieval-f001", actions=[(n, f"pyautogui.click({n}, 1)") for n in range(1, 9)]
        )
        bundle = read_task_dir(task_dir)
        items = [JudgeItem(n, f"R{n}", f"Requirement {n} is met", weight=1.0) for n in range(1, args.items + 1)]
        with ProviderSimulator(lambda r: ANSWER, latency=tuple(args.latency), quota=(args.quota, args.window)) as sim:
            url = sim.openai_url if args.provider.startswith("openai") else sim.url
            model = "sim-model" if args.provider == "openai_compatible" else None
            options = {} if args.concurrency is None else {"concurrency": args.concurrency}
            judge = Judge(
                make_provider(args.provider, model, api_key="bench", base_url=url),
                quota_window_s=args.window,
                **options,
            )
            trajectories = [
                TrajectoryForJudge(f"t{i}", "Find the invoice.", bundle.steps, bundle.final_answer)
                for i in range(n_tasks)
            ]
            started = time.perf_counter()
            # as judge_folder and the site's judge_run_inline do: one thread per trajectory, up to the ceiling
            with ThreadPoolExecutor(max_workers=min(judge.concurrency, n_tasks)) as pool:
                results = list(pool.map(lambda t: judge.judge(t, items), trajectories))
            elapsed = time.perf_counter() - started
            refused = sim.rate_limited
    verdicts = [v for result in results for v in result]
    errors = sum(1 for v in verdicts if v.verdict == "error")
    bound = ((calls - 1) // args.quota) * args.window + sum(args.latency) / 2
    sent = calls + refused
    print(f"   quota's lower bound  {bound:8.1f} s")
    print(f"   adaptive judge       {elapsed:8.1f} s  = {elapsed / bound:.2f}x the bound (goal: within 1.2x)")
    print(f"   answered 429         {refused} of {sent} calls = {100 * refused / sent:.1f}% (goal: under 2%)")
    state = judge.limiter.state()
    print(
        f"   limiter: {state['peak_in_flight']} calls in flight at most, learned quota "
        f"{state['quota_per_window']} per {state['window_s']:g} s; {errors} items in error"
    )


def size_bench(args) -> None:
    print("\n2. Request-size caps in effect (the judge's cap = the provider's limit less a 5% margin)")
    for name in PROVIDERS:
        limit = REQUEST_LIMITS[name]
        print(f"   {name:<18} limit {limit / 1e6:6.1f} MB   judge's cap {limit * SAFETY_MARGIN / 1e6:6.1f} MB")
    shots = sorted(ROOT.glob("seeding/demo_results*/*/step_*.png"))
    if not shots:
        print("   (no demo screenshots found under seeding/; skipped the trajectory sizes)")
        return
    steps = [
        StepRecord(index=n, turn=n, tool="computer", action={}, action_text="pyautogui.click(1, 1)",
                   screenshot=shots[(n - 1) % len(shots)])
        for n in range(1, 101)
    ]  # fmt: skip
    trajectory = TrajectoryForJudge("size", "Find the invoice.", steps)
    print(f"   a 100-step trajectory of the demo's {len(shots)} real screenshots, one request:")
    for label, policy in (("as stored (PNG)", ImagePolicy("original")), ("as sent (WebP q85)", ImagePolicy())):
        started = time.perf_counter()
        prefix = build_prefix(trajectory, max_images=0, images=policy)
        took = time.perf_counter() - started
        size = request_bytes(prefix)
        fits = [n for n in PROVIDERS if size <= REQUEST_LIMITS[n] * SAFETY_MARGIN]
        print(f"   {label:<20}{size / 1e6:7.1f} MB (encoded in {took:.1f} s); fits: {', '.join(fits) or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--provider", choices=PROVIDERS, default="google")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--items", type=int, default=6, help="rubric items per trajectory")
    parser.add_argument("--quota", type=int, default=30, help="requests per window")
    parser.add_argument("--window", type=float, default=6.0, help="quota window in seconds")
    parser.add_argument("--latency", type=float, nargs=2, default=(0.2, 0.4))
    parser.add_argument("--concurrency", type=int, help="most calls in flight (default: the judge's shipped ceiling)")
    parser.add_argument("--busy", type=int, default=0, help="spinning processes beside the bench (a busy machine)")
    parser.add_argument("--skip-sizes", action="store_true", help="only the quota part")
    args = parser.parse_args()
    print(f"load: {describe(args.busy)}")
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with cpu_load(args.busy):
        quota_bench(args)
        print("   load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if not args.skip_sizes:
        size_bench(args)


if __name__ == "__main__":
    main()
