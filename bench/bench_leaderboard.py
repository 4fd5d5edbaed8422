"""Bench: the scored leaderboard and the analysis pages (heatmaps, failure taxonomy, scaling and
shape; one filtered heatmap) on a large synthetic database, side by side with serving the same
bytes as a static file through the same Django stack (target: within 3x), the SQL query count at
two data sizes (target: constant), and the time to compute every interval (target: well under a
second). Per analysis page it also prints the page size as sent gzipped to browsers, the first load
after one judgment changes as a visitor gets it (within the refresh window: the last page, rebuilt
after it is sent), and the rebuild itself after one judgment (scores recomputed and the page built
again, timed with no refresh window so the request waits for it). The scaling page's action shapes,
summed from the per-trajectory counts ingest stores, are timed beside grouping every step of the
runs as the page did before, and both must give the same counts. The cold leaderboard page is also
timed with its pass^k column (runs with several attempts) beside the same page without it.

Workload (default, the issue's full scale): 30 runs x 184 tasks x 3 attempts x ~60 steps, one
judgment per rubric item (4-8 items per task), written with bulk_create into a fresh SQLite
database under a temporary var folder. Scale down with arguments, e.g.
    .venv/bin/python bench/bench_leaderboard.py --runs 10 --steps 20
The scale used is printed first.
"""

import argparse
import functools
import os
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


ANALYSIS_PAGES = (
    "/analysis/",
    "/analysis/?metric=perfect",
    "/analysis/?metric=perfect&type=bounded_action&weighting=equal",
    "/analysis/failures/",
    "/analysis/scaling/",
)


def best_of(fn, repeat=20):  # served pages take well under a millisecond: many tries, the best
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def best_first_load(fn, before, repeat=3):
    """Best of a few first loads, each after ``before`` (the machine is shared: the best is the least
    disturbed)."""
    times = []
    result = None
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--tasks", type=int, default=184)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--steps", type=int, default=60, help="average Step rows per trajectory")
    args = parser.parse_args()

    os.environ["MYPCBENCH_VAR_DIR"] = os.environ.get("MYPCBENCH_VAR_DIR") or tempfile.mkdtemp(prefix="bench-board-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")
    os.environ.setdefault("DJANGO_DEBUG", "0")  # production-like: no debug toolbar-ish overhead
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-not-for-production-use-0123456789")
    import django

    django.setup()
    from django.conf import settings
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, override_settings
    from django.urls import path
    from django.views.static import serve

    from leaderboard.boards import board
    from leaderboard.scoring.filters import BoardFilters
    from leaderboard.scoring.outcomes import judged_outcomes
    from tests.board_data import build_synthetic
    from trajectories.models import Judgment, Step, Trajectory

    db = settings.DATABASES["default"]["NAME"]
    print(f"database: {db} ({connection.vendor})")
    print(
        f"scale: {args.runs} runs x {args.tasks} tasks x {args.attempts} attempts x ~{args.steps} steps "
        f"(issue target: 30 x 184 x 3 x 60)"
    )
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG off: hashed static names

    client = Client()

    def page():
        response = client.get("/leaderboard/?suite=big")
        assert response.status_code == 200, response.status_code
        return response

    def queries(fn):
        with CaptureQueriesContext(connection) as ctx:
            fn()
        return len(ctx.captured_queries)

    def get(url):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return response

    # a small database first, for the query count as data grows
    build_synthetic(runs=2, tasks=12, attempts=1, steps=3, seed=7, slug="small")
    cache.clear()
    small_cold = queries(lambda: client.get("/leaderboard/?suite=small"))
    assert client.get("/leaderboard/?suite=small").status_code == 200
    analysis_small = {}
    for url in ANALYSIS_PAGES:
        cache.clear()
        analysis_small[url] = queries(lambda url=url: get(url))

    start = time.perf_counter()
    build_synthetic(runs=args.runs, tasks=args.tasks, attempts=args.attempts, steps=args.steps, seed=0, slug="big")
    built = time.perf_counter() - start
    print(
        f"built in {built:.1f}s: {Trajectory.objects.count():,} trajectories, {Step.objects.count():,} steps, "
        f"{Judgment.objects.count():,} judgments"
    )

    cold_of = functools.partial(best_first_load, before=cache.clear)

    def change_a_judgment():
        Judgment.objects.order_by("pk").first().save()  # moves the data version, as the judge does

    cold, response = cold_of(page)
    body = response.content
    cache.clear()
    big_cold = queries(page)
    warm_queries = queries(page)
    warm, _ = best_of(page)

    # the analysis pages: cold (scoring, bootstrap per cell, rendering), then served from the cache
    analysis = {}
    for url in ANALYSIS_PAGES:
        a_cold, response = cold_of(lambda url=url: get(url))
        a_body = response.content
        cache.clear()
        a_queries = queries(lambda url=url: get(url))
        a_warm_queries = queries(lambda url=url: get(url))
        a_warm, _ = best_of(lambda url=url: get(url))
        gzipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
        gzipped = len(gzipped.content) if gzipped.get("Content-Encoding") == "gzip" else None
        # one judgment changes: what the next visitor gets (the refresh window's last page), then the
        # rebuild itself (no window: the request rebuilds the scores and the page before answering)
        get(url)
        a_served, _ = cold_of(lambda url=url: get(url), before=change_a_judgment)
        with override_settings(MYPCBENCH_PAGE_REFRESH_SECONDS=0):
            get(url)
            a_rebuilt, _ = cold_of(lambda url=url: get(url), before=change_a_judgment)
        analysis[url] = {"body": a_body, "cold": a_cold, "queries": a_queries, "warm_queries": a_warm_queries}
        analysis[url].update(warm=a_warm, gzipped=gzipped, served=a_served, rebuilt=a_rebuilt)

    # the same bytes as a static file, through the same Django stack (middleware, handler)
    static_dir = Path(tempfile.mkdtemp(prefix="bench-board-static-"))
    copies = {"leaderboard.html": body}
    for i, url in enumerate(ANALYSIS_PAGES):
        copies[f"analysis-{i}.html"] = analysis[url]["body"]
    for name, content in copies.items():
        (static_dir / name).write_bytes(content)
    urls = types.ModuleType("bench_board_static_urls")
    urls.urlpatterns = [path("static-copy/<path:path>", serve, {"document_root": str(static_dir)})]
    sys.modules[urls.__name__] = urls
    static_times = {}
    with override_settings(ROOT_URLCONF=urls.__name__):
        static_client = Client()
        for name, content in copies.items():
            elapsed, response = best_of(lambda name=name: static_client.get(f"/static-copy/{name}"))
            assert b"".join(response.streaming_content) == content
            static_times[name] = elapsed
    static = static_times["leaderboard.html"]
    for i, url in enumerate(ANALYSIS_PAGES):
        analysis[url]["static"] = static_times[f"analysis-{i}.html"]

    # every interval: outcomes from the DB aggregate, then Wilson, bootstrap, ranks and tiers
    from leaderboard.models import Run

    runs = list(Run.objects.filter(suite__slug="big"))
    cache.clear()
    scoring_time, outcomes = best_of(lambda: (cache.clear(), judged_outcomes(runs))[1], repeat=3)
    stats_time, _ = best_of(lambda: board.run_statistics(outcomes, "perfect"), repeat=3)
    bare_stats_time, _ = best_of(lambda: board.run_statistics(outcomes, "perfect", with_pass_hat_k=False), repeat=3)
    # the page with its pass^k column (runs with several attempts) against the same page without it:
    # the board's statistics with pass^k switched off, everything else the same
    with_column, shown = cold_of(page)
    assert b'data-col="pass_hat_k"' in shown.content or args.attempts < 2, "the pass^k column is not shown"
    full_statistics = board.run_statistics
    board.run_statistics = functools.partial(full_statistics, with_pass_hat_k=False)
    try:
        without_column, bare = cold_of(page)
    finally:
        board.run_statistics = full_statistics
    assert b'data-col="pass_hat_k"' not in bare.content
    board_rows = board.board(None, BoardFilters.from_query({"suite": "big"})).rows

    # the scaling page's action shapes: the counts ingest stores per trajectory, summed per run,
    # against grouping every step of the runs (what the page did before the counts were stored);
    # both must give the same numbers
    from django.db.models import Count
    from django.db.models.fields.json import KT

    from harness.actions import count_action_kinds
    from leaderboard.analysis.scaling import action_shapes

    def shapes_from_steps():
        rows = (
            Step.objects.filter(trajectory__run__in=[r.pk for r in runs])
            .values("trajectory__run_id", "tool", atype=KT("action__type"))
            .annotate(n=Count("id"))
            .order_by()
        )
        grouped = {}
        for row in rows:
            grouped.setdefault(row["trajectory__run_id"], []).append((row["tool"], row["atype"], row["n"]))
        return {pk: count_action_kinds(triples) for pk, triples in grouped.items()}

    shapes_time, shapes = best_of(lambda: action_shapes(runs), repeat=3)
    steps_time, from_steps = best_of(shapes_from_steps, repeat=3)
    assert {s.run.pk: s.counts for s in shapes} == from_steps, "stored action counts differ from the steps"

    print()
    print(f"{'':44}{'ours':>12}{'baseline':>12}{'ratio':>9}  target")
    print(
        f"{'leaderboard page, cached (ms) vs static file':44}{warm * 1000:12.2f}{static * 1000:12.2f}"
        f"{warm / static:9.1f}x  within 3x"
    )
    print(f"{'leaderboard page, cold (ms, best of 3)':44}{cold * 1000:12.1f}{static * 1000:12.2f}{cold / static:9.1f}x")
    print(f"{'page size (bytes)':44}{len(body):12,}")
    print(
        f"{'cold page: pass^k column shown vs not (ms)':44}{with_column * 1000:12.1f}{without_column * 1000:12.1f}"
        f"{with_column / without_column:9.2f}x  best of 3 each"
    )
    print(
        f"{'SQL queries, cold page: small vs big DB':44}{big_cold:12}{small_cold:12}"
        f"{'':9}  constant ({'same' if big_cold == small_cold else 'DIFFERENT'})"
    )
    print(f"{'SQL queries, cached page':44}{warm_queries:12}")
    for url in ANALYSIS_PAGES:
        a = analysis[url]
        print(f"{url}")
        print(
            f"{'  cached (ms) vs static file':44}{a['warm'] * 1000:12.2f}{a['static'] * 1000:12.2f}"
            f"{a['warm'] / a['static']:9.1f}x  within 3x"
        )
        print(f"{'  cold: scoring + stats + render (ms, best of 3)':44}{a['cold'] * 1000:12.1f}")
        print(f"{'  after a judgment, from the refresh window (ms)':44}{a['served'] * 1000:12.1f}")
        print(f"{'  rebuild after a judgment (ms, best of 3)':44}{a['rebuilt'] * 1000:12.1f}")
        gz = "—" if a["gzipped"] is None else f"{a['gzipped']:,}"
        print(f"{'  page size, plain / gzipped (bytes)':44}{len(a['body']):12,}{gz:>12}")
        same = "same" if a["queries"] == analysis_small[url] else "DIFFERENT"
        print(
            f"{'  SQL queries, cold: big vs small DB':44}{a['queries']:12}{analysis_small[url]:12}"
            f"{'':9}  constant ({same})"
        )
        print(f"{'  SQL queries, cached page':44}{a['warm_queries']:12}")
    print(
        f"{f'action shapes, {len(runs)} runs: stored vs steps (ms)':44}{shapes_time * 1000:12.1f}"
        f"{steps_time * 1000:12.1f}{shapes_time / steps_time:9.2f}x  same counts (checked)"
    )
    print(f"{'scoring from the DB, all runs (ms)':44}{scoring_time * 1000:12.1f}")
    print(
        f"{f'all intervals, {len(board_rows)} rows, B=1000 (ms)':44}{stats_time * 1000:12.1f}"
        f"{'':21}  well under a second"
    )
    print(
        f"{'all intervals with pass^k vs without (ms)':44}{stats_time * 1000:12.1f}{bare_stats_time * 1000:12.1f}"
        f"{stats_time / bare_stats_time:9.2f}x"
    )


if __name__ == "__main__":
    main()
