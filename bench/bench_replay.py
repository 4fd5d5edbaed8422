"""The replay experiment ("Computer Use at the Edge of the Statistical Precipice", arXiv 2605.08261) on our
demo world, in our local desktop guest (Xvfb, Chromium, xdotool): the scripted demo agent is recorded on
world variant 0, then its recorded actions are replayed blind (nothing read from the guest) on each world
variant, beside the same scripted agent finding its targets on the page again (the reader). Success is the
demo's state check of each task on that variant (seeding/replay_experiment.py). Prints, per task and
overall, each agent's successes with 95% Wilson intervals.

    .venv/bin/python bench/bench_replay.py [--variants 0-9] [--tasks demo-d001,demo-d002] [--cache DIR]

Each variant's world is built once into --cache (default var/replay-worlds; about 20 to 40 s a variant).
"""

import argparse
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from seeding.replay_experiment import TASKS, parse_variants, run_experiment, table  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="0-9", help="world variants to play on (default: %(default)s)")
    parser.add_argument("--tasks", default=",".join(TASKS), help="demo tasks (default: all of the experiment's)")
    parser.add_argument("--cache", default=str(ROOT / "var" / "replay-worlds"), help="where variant worlds are kept")
    parser.add_argument("--quiet", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the guest on the way out
    Path(args.cache).mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    outcome = run_experiment(parse_variants(args.variants), [t for t in args.tasks.split(",") if t],
                             Path(args.cache), log=None if args.quiet else print)  # fmt: skip
    print(f"\nreplay experiment: {len(outcome.tasks)} demo tasks, world variants {args.variants}, "
          f"in the local desktop guest, {time.perf_counter() - started:.0f} s")  # fmt: skip
    print(table(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main())
