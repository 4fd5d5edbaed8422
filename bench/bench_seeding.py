"""Full persona world build time, beside the time to write the same bytes (the I/O floor).

Workload: the upstream Michael Scott spec (the copy shipped in ``upstream/mypcbench/michael_scott.json``, or
--persona) built with a pinned anchor into a temporary folder: 17 app databases, ~2,400 Maildir files,
the .ics, the Firefox profile and the documents. Baseline in the same run: copying the built tree file by file
(every byte written once, no generation). Target: a full build under 60 s on this 2-CPU
machine; the per-seeder timings show where the time goes.

    .venv/bin/python bench/bench_seeding.py [--persona PATH] [--anchor 2026-04-13] [--runs 1]
"""

import argparse
import datetime as dt
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from seeding.world.build import build  # noqa: E402

TARGET_S = 60.0
DEFAULT_PERSONA = Path(__file__).resolve().parent.parent / "upstream" / "mypcbench" / "michael_scott.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persona", default=str(DEFAULT_PERSONA))
    parser.add_argument("--anchor", default="2026-04-13")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    persona = Path(args.persona)
    if not persona.exists():
        print(f"no persona at {persona}; pass --persona PATH", file=sys.stderr)
        return 2
    anchor = dt.date.fromisoformat(args.anchor)
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            out = Path(tmp) / f"world{run}"
            timings = []
            started = time.perf_counter()
            manifest = build(persona, out, anchor, log=timings.append)
            elapsed = time.perf_counter() - started
            worst = max(worst, elapsed)
            copy_started = time.perf_counter()
            shutil.copytree(out, Path(tmp) / f"copy{run}")
            copy_elapsed = time.perf_counter() - copy_started
            size = sum(f["bytes"] for f in manifest["files"].values())
            print(
                f"run {run + 1}: build {elapsed:.1f} s; writing the same {len(manifest['files'])} files "
                f"({size / 1e6:.1f} MB) {copy_elapsed:.1f} s; ratio {elapsed / max(copy_elapsed, 1e-9):.1f}x"
            )
            for line in timings:
                print(line)
    print(f"worst build {worst:.1f} s against the {TARGET_S:.0f} s target: {'OK' if worst < TARGET_S else 'TOO SLOW'}")
    return 0 if worst < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
