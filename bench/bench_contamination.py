"""Bench: the contamination scan's cost against the size of a trajectory's text and of its rubric. Scans
1x, 2x, 4x and 8x the text with a rubric of 30 and of 120 criteria side by side (the scanner looks each
word window up once in a set, so neither size multiplies the other); prints the time per 1,000 words,
which stays flat as the text grows, and the ratio between the two rubric sizes, which stays near 1.

Run: .venv/bin/python bench/bench_contamination.py
"""

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")
import django  # noqa: E402

django.setup()
from trajectories.recording import contamination  # noqa: E402

VOCABULARY = (
    "the agent opens mail calendar finds invoice reply sends total meeting thursday friday moves event "
    "email jim pam dwight booking flight hotel confirms states answer search inbox click type save document"
).split()


def text(words: int, rng: random.Random) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(words))


def best_of(fn, repeat=7):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    rng = random.Random(0)
    instruction = "Find the invoice and reply with its total."
    scanners = {}
    for n in (30, 120):
        criteria = [(f"R{i}", text(25, rng)) for i in range(n)]
        scanners[n] = contamination.Scanner(None, windows=contamination.criterion_windows(criteria, instruction))
    base_words = 5_000
    print(f"word windows of {contamination.RUBRIC_RUN_WORDS}; built-in patterns; best of 7")
    print(f"{'words':>8} {'30 criteria ms':>15} {'ms/1k words':>12} {'120 criteria ms':>16} {'120 / 30':>9}")
    first = per_k = 0.0
    for factor in (1, 2, 4, 8):
        body = text(base_words * factor, rng)
        small = best_of(lambda body=body: scanners[30].text_hits(body, 1, "model text"))
        large = best_of(lambda body=body: scanners[120].text_hits(body, 1, "model text"))
        per_k = 1000 * small / (base_words * factor / 1000)
        first = first or per_k
        print(
            f"{base_words * factor:>8} {small * 1000:>15.1f} {per_k:>12.3f} "
            f"{large * 1000:>16.1f} {large / small:>8.2f}x"
        )
    print(f"time per 1k words at 8x the text / at 1x: {per_k / first:.2f} (1.00 = linear)")


if __name__ == "__main__":
    main()
