"""Bench: how often our prompt (mypc-judge-1) and the paper's protocol (paper-v1) disagree, item by
item, on the demo's recorded trajectories (seeding/demo_results and demo_results_hasty).

It needs a real judge model (the simulator's answers are scripted, so agreement there means
nothing): pass --provider and set the provider's key (GEMINI_API_KEY, ANTHROPIC_API_KEY,
OPENAI_API_KEY), or --base-url for an OpenAI-compatible server. Without a key it says so and stops.
Printed: items judged by both, the share where the verdicts differ (with a Wilson 95% interval),
tasks whose weighted score differs, and each disagreement's task and rubric item.

Run: .venv/bin/python bench/bench_judge_protocols.py --provider google [--model M] [--limit N]
"""

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from harness.judge import (  # noqa: E402
    ERROR,
    PROVIDERS,
    ConfigurationError,
    Judge,
    TrajectoryForJudge,
    make_provider,
    task_score,
)
from harness.judge.cli import task_instruction  # noqa: E402
from harness.results import BundleError, find_task_dirs, read_task_dir  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--provider", choices=PROVIDERS, default="google")
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    parser.add_argument("--limit", type=int, default=0, help="judge at most this many task folders")
    args = parser.parse_args()
    try:
        provider = make_provider(args.provider, args.model, base_url=args.base_url)
    except ConfigurationError as exc:
        print(f"not run: {exc}. This bench needs a real judge model.")
        return 0
    judges = {version: Judge(provider, prompt_version=version) for version in ("mypc-judge-1", "paper-v1")}
    folders = [d for base in ("demo_results", "demo_results_hasty") for d in find_task_dirs(ROOT / "seeding" / base)]
    if args.limit:
        folders = folders[: args.limit]
    items_compared = differing = tasks_differing = 0
    notes = []
    for task_dir in folders:
        try:
            bundle = read_task_dir(task_dir)
        except BundleError as exc:
            print(f"skipped {task_dir}: {exc}")
            continue
        trajectory = TrajectoryForJudge(task_dir.name, task_instruction(task_dir), bundle.steps, bundle.final_answer)
        results = {version: judge.judge(trajectory, bundle.rubric) for version, judge in judges.items()}
        ours, paper = results["mypc-judge-1"], results["paper-v1"]
        for a, b, item in zip(ours, paper, bundle.rubric, strict=True):
            if ERROR in (a.verdict, b.verdict):
                continue
            items_compared += 1
            if a.verdict != b.verdict:
                differing += 1
                notes.append(
                    f"{task_dir.parent.name}/{task_dir.name} {item.rubric_id}: ours {a.verdict}, paper {b.verdict}"
                )
        if all(v.verdict != ERROR for v in ours + paper):
            tasks_differing += task_score(bundle.rubric, ours)[0] != task_score(bundle.rubric, paper)[0]
    low, high = wilson(differing, items_compared)
    print(f"judge: {provider.name} {provider.model}; {len(folders)} demo trajectories")
    print(
        f"items judged by both protocols: {items_compared}; verdicts differ on {differing} "
        f"({100 * differing / max(1, items_compared):.1f}%, 95% interval {100 * low:.1f}-{100 * high:.1f}%)"
    )
    print(f"trajectories whose score differs: {tasks_differing}")
    for line in notes:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
