"""Bench: step search (trajectories/player/step_search.py) on PostgreSQL with 1.0 M steps. Target: p95
under 300 ms on this machine for a two-word query, as a visitor gets it: the whole /search/steps/
page (count, one page of hits, verdicts, filter choices) through Django's test client.

Workload: the leaderboard bench's synthetic suite (30 runs x 184 tasks x 3 attempts, judgments per
rubric item; five runs left unpublished), then 1,000,000 steps written with COPY: model text of
12-40 words drawn from a 5,000-word vocabulary with Zipf-like frequencies (rank r drawn with weight
1/r), actions that click, type a few words, press keys or open a web app's URL, and pyautogui lines
to match, and each step's published flag as Django would set it. PostgreSQL fills the generated search
column of migration 0010 during the COPY; its two GIN indexes (all steps, published steps) are dropped
before and built after (timed).

Queries: two sets of 40 two-word queries, words drawn from frequency ranks 10-100 (hundreds to
thousands of hits, capped at 1,000) and 50-2000 (a few hits), each page loaded once after a short
warm-up; printed as p50/p95/max. Each page is timed twice, with the search as it was before
Step.published ("before": every step joined to its run) and as it is ("now"). Beside them: the most
common pair (ranks 1 and 2, more matches than the cap), a pair with a run filter, and a word nobody
wrote. Everything runs in a database of its own (``--database``), dropped
at the end unless ``--keep``:

    MYPCBENCH_VAR_DIR=$(mktemp -d) .venv/bin/python bench/bench_step_search.py
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PG = "postgres://postgres@127.0.0.1:5432/"
VOCABULARY = 5000
SYLLABLES = "ka lo mi re su ta ne vi do pa ru se fo li ma te no gu ba ze".split()


def words_of_vocabulary(n):
    """n distinct pronounceable words (two to four syllables), the same every run."""
    out: list[str] = []
    i = 0
    while len(out) < n:
        k, parts = i, []
        for _ in range(2 + i % 3):
            parts.append(SYLLABLES[k % len(SYLLABLES)])
            k //= len(SYLLABLES)
        word = "".join(parts)
        if word not in out:
            out.append(word)
        i += 7919
    return out


def recreate_database(name):
    import psycopg

    with psycopg.connect(PG + "postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def drop_database(name):
    import psycopg

    with psycopg.connect(PG + "postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def copy_steps(connection, trajectory_ids, total, rng, vocab, published):
    """COPY ``total`` steps spread evenly over the trajectories; ``published``: the trajectories whose run
    is published (a step's ``published`` flag, which Django sets when it stores a step)."""
    import numpy as np

    from trajectories.models import Step

    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    lengths = rng.integers(12, 41, size=total)
    drawn = rng.choice(len(vocab), size=int(lengths.sum()), p=weights)
    kinds = rng.integers(0, 4, size=total)
    per, extra = divmod(total, len(trajectory_ids))
    fields = [f for f in Step._meta.concrete_fields if f.column != "id"]
    columns = ", ".join(f'"{f.column}"' for f in fields)
    defaults = {}
    for f in fields:
        value = f.get_default()
        defaults[f.column] = json.dumps(value) if f.get_internal_type() == "JSONField" else value
    now = "2026-11-28 00:00:00+00"
    pos = 0
    n = 0
    with connection.cursor() as cursor:
        raw = cursor.connection  # psycopg 3
        with raw.cursor().copy(f"COPY trajectories_step ({columns}) FROM STDIN") as copy:
            for t_i, tid in enumerate(trajectory_ids):
                for index in range(1, per + (1 if t_i < extra else 0) + 1):
                    words = [vocab[w] for w in drawn[pos : pos + lengths[n]]]
                    pos += lengths[n]
                    kind = kinds[n]
                    if kind == 0:
                        action, line = (
                            {"type": "click", "x": 100 + n % 900, "y": 50 + n % 700},
                            f"pyautogui.click({100 + n % 900}, {50 + n % 700})",
                        )
                    elif kind == 1:
                        typed = " ".join(words[:3])
                        action, line = {"type": "type", "text": typed}, f"pyautogui.typewrite({typed!r})"
                    elif kind == 2:
                        action, line = {"type": "key", "keys": ["ctrl", "s"]}, "pyautogui.hotkey('ctrl', 's')"
                    else:
                        url = f"http://localhost:30{16 + n % 10}/{words[0]}"
                        action, line = {"type": "navigate", "url": url}, f"xdg-open {url}"
                    row = dict(defaults)
                    row.update(
                        trajectory_id=tid,
                        index=index,
                        turn=index,
                        tool="computer",
                        action=json.dumps(action),
                        action_text=line,
                        model_text=" ".join(words).capitalize() + ".",
                        updated_at=now,
                        published=tid in published,
                    )
                    copy.write_row([row[f.column] for f in fields])
                    n += 1
    return n


def timed_with(page, search_as_before, search_as_now):
    """page(params) timed with the search as it was ("before") or as it is ("now")."""
    ways = {"before": search_as_before, "now": search_as_now}

    def timed(params, way):
        ways[way]()
        try:
            return page(params)
        finally:
            search_as_now()

    return timed


def compare(page, found, timed, vocab, queries):
    """The query sets and the single cases, each page timed before and now, printed side by side."""
    import numpy as np

    from trajectories.player import step_search

    ways = ("before", "now")
    pick = np.random.default_rng(1)
    for low, high in ((10, 100), (50, 2000)):
        pairs = [
            tuple(vocab[r] for r in pick.choice(np.arange(low, high), size=2, replace=False)) for _ in range(queries)
        ]
        for a, b in pairs[:5]:
            for way in ways:
                timed({"q": f"{a} {b}"}, way)  # warm-up: plans, buffers
        times: dict[str, list[float]] = {way: [] for way in ways}
        counts = []
        for n, (a, b) in enumerate(pairs):
            for way in list(ways)[:: 1 if n % 2 else -1]:  # each goes first half the time
                times[way].append(timed({"q": f"{a} {b}"}, way))
            counts.append(found({"q": f"{a} {b}"}).count)
        most = f"{max(counts)}{'+' if max(counts) >= step_search.MAX_HITS else ''}"
        print(
            f"two-word queries, words of frequency ranks {low}-{high} ({len(pairs)} queries; hits {min(counts)} to "
            f"{most}, median {int(np.median(counts))}):"
        )
        for way in ways:
            ms = np.array(times[way]) * 1000
            print(
                f"  {way:6s} whole page   p50 {np.percentile(ms, 50):6.1f} ms   p95 {np.percentile(ms, 95):6.1f} ms"
                f"   max {ms.max():6.1f} ms   target p95 < 300 ms"
            )
    pairs = [(vocab[0], vocab[1]), tuple(vocab[r] for r in pick.choice(np.arange(50, 2000), size=2, replace=False))]
    cases = {
        "most common pair (ranks 1, 2)": {"q": f"{vocab[0]} {vocab[1]}"},
        "ranks 1 and 3": {"q": f"{vocab[0]} {vocab[2]}"},
        "two words, one run": {"q": " ".join(pairs[1]), "run": "big-run-10"},
        "a word nobody wrote": {"q": "zzzquux"},
        "one run, no words": {"run": "big-run-10"},
    }
    print(f"{'':34s} {'before':>15s} {'now':>15s}")
    for label, params in cases.items():
        medians = [sorted(timed(params, way) for _ in range(5))[2] * 1000 for way in ways]
        print(f"  {label:32s} {medians[0]:9.1f} ms   {medians[1]:9.1f} ms   hits {found(params).count}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="mypcbench_bench_search")
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--keep", action="store_true", help="leave the bench database in place")
    parser.add_argument("--reuse", action="store_true", help="query a database kept by --keep, build nothing")
    args = parser.parse_args()

    if not args.reuse:
        recreate_database(args.database)
    os.environ["DATABASE_URL"] = PG + args.database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")
    os.environ.setdefault("MYPCBENCH_VAR_DIR", "/tmp/mypcbench-bench-search")
    os.environ.setdefault("DJANGO_DEBUG", "0")  # production-like: no query log kept per request
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-not-for-production-use-0123456789")
    import django

    django.setup()
    import numpy as np
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from leaderboard.models import Run
    from tests.board_data import build_synthetic
    from trajectories.models import Step, Trajectory, published_trajectories
    from trajectories.player import step_search
    from trajectories.recording.published_steps import sync_published_steps

    search_now = (step_search.visible_steps, step_search.hit_keys)

    def search_as_before():
        """The search as it was before Step.published: every step joined to its run, keys gathered in no
        order and sorted in Python."""

        def visible_steps(user, runs):
            return Step.objects.filter(trajectory__run__in=runs)

        def hit_keys(result, runs, user=None):
            matches = step_search.matching_steps(result, runs, user).order_by()
            return sorted(matches.values_list("trajectory_id", "index", "pk")[: step_search.MAX_HITS + 1])

        step_search.visible_steps, step_search.hit_keys = visible_steps, hit_keys

    def search_as_now():
        step_search.visible_steps, step_search.hit_keys = search_now

    try:
        print(f"database {args.database} on PostgreSQL {connection.cursor().connection.info.server_version}")
        call_command("migrate", verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG off: hashed static names
        vocab = words_of_vocabulary(VOCABULARY)
        if not args.reuse:
            start = time.perf_counter()
            build_synthetic(runs=30, tasks=184, attempts=3, steps=60, seed=0, slug="big", with_steps=False)
            hidden = list(Run.objects.order_by("slug").values_list("pk", flat=True)[:5])
            Run.objects.filter(pk__in=hidden).update(publication="draft")
            print(f"runs, tasks, trajectories, judgments built in {time.perf_counter() - start:.0f} s")
            ids = list(Trajectory.objects.order_by("pk").values_list("pk", flat=True))
            published = published_trajectories(ids)
            rng = np.random.default_rng(0)
            with connection.cursor() as cursor:  # built after the COPY (timed), not row by row
                cursor.execute(f"DROP INDEX IF EXISTS {step_search.INDEX_NAME}")
                cursor.execute(f"DROP INDEX IF EXISTS {step_search.PUBLISHED_INDEX_NAME}")
            start = time.perf_counter()
            written = copy_steps(connection, ids, args.steps, rng, vocab, published)
            print(
                f"{written:,} steps over {len(ids):,} trajectories written with COPY "
                f"in {time.perf_counter() - start:.0f} s"
            )
            start = time.perf_counter()
            with connection.cursor() as cursor:
                cursor.execute(
                    f"CREATE INDEX {step_search.INDEX_NAME} ON trajectories_step "
                    f"USING gin ({step_search.DOCUMENT_COLUMN})"
                )
                cursor.execute(
                    f"CREATE INDEX {step_search.PUBLISHED_INDEX_NAME} ON trajectories_step "
                    f"USING gin ({step_search.DOCUMENT_COLUMN}) WHERE published"
                )
                cursor.execute("ANALYZE")
                cursor.execute(
                    "SELECT pg_relation_size(%s), pg_relation_size(%s), pg_relation_size('trajectories_step')",
                    [step_search.INDEX_NAME, step_search.PUBLISHED_INDEX_NAME],
                )
                index_bytes, published_bytes, table_bytes = cursor.fetchone()
            print(
                f"full-text indexes built in {time.perf_counter() - start:.0f} s: {index_bytes / 2**20:.0f} MiB, "
                f"{published_bytes / 2**20:.0f} MiB for published steps (steps table {table_bytes / 2**20:.0f} MiB)"
            )
        assert Step.objects.count() == args.steps
        start = time.perf_counter()
        print(
            f"steps whose published flag was out of step with their run: {sync_published_steps()} "
            f"(checked in {time.perf_counter() - start:.0f} s)"
        )

        client = Client()

        def page(params):
            start = time.perf_counter()
            response = client.get("/search/steps/", params)
            elapsed = time.perf_counter() - start
            assert response.status_code == 200, response.content[:300]
            return elapsed

        def found(params):
            return step_search.search_steps(None, params)

        with CaptureQueriesContext(connection) as queries:
            page({"q": f"{vocab[0]} {vocab[1]}"})
        print(f"\n{len(queries)} SQL queries for a page of hits (as a visitor)")
        compare(page, found, timed_with(page, search_as_before, search_as_now), vocab, args.queries)
    finally:
        connection.close()
        if not args.keep:
            drop_database(args.database)
            print(f"dropped {args.database}")


if __name__ == "__main__":
    main()
