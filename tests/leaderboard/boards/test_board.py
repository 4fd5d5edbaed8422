"""The scored leaderboard page, its exports and GET /api/leaderboard on the hand-built fixture
(tests/board_data.py): figures a visitor reads, filters, sorting, export = what is shown, the
compare page, and constant query counts as the data grows."""

import csv
import gzip
import io
import re
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from mypcbench_site import page_cache
from tests.board_data import judge, traj
from tests.html_text import visible_text

pytestmark = pytest.mark.django_db


def rows(response) -> list[tuple[str, str]]:
    """(run slug, judge) of the graded rows in page order."""
    return re.findall(r'<tr data-run="([^"]+)" data-judge="([^"]*)"', response.content.decode())


def cell(response, run: str, col: str, judge: str = "our judge (test)") -> str:
    html = response.content.decode()
    row = re.search(rf'<tr data-run="{run}" data-judge="{re.escape(judge)}".*?</tr>', html, flags=re.S).group(0)
    return visible_text(re.search(rf'<td[^>]*data-col="{col}"[^>]*>(.*?)</td>', row, flags=re.S).group(1))


def test_board_shows_figures_with_intervals_and_denominators(client, board):
    r = client.get("/leaderboard/")
    assert r.status_code == 200
    # published graded runs only (run C is a draft); run B has one row per judge
    assert rows(r) == [("run-a", "our judge (test)"), ("run-b", "our judge (test)"), ("run-b", "upstream judge (test)")]
    # run A: perfect 2/5 = 40.0 with Wilson [11.8, 76.9]; rubric 3.25/5 = 65.0; efficiency 6.00
    assert cell(r, "run-a", "perfect").startswith("40.0 [11.8, 76.9] 2 of 5 tasks")
    assert cell(r, "run-a", "rubric").startswith("65.0 [")
    assert cell(r, "run-a", "efficiency").startswith("6.00 [")
    assert cell(r, "run-a", "steps") == "16.6"
    assert cell(r, "run-a", "tokens") == "3,300" and cell(r, "run-a", "cost").startswith("$1.75 $0.350 per task")
    # graded / failures counted / unknown, with a warning for the unknown one
    assert cell(r, "run-a", "graded") == "4 / 1 / 1 ⚠"
    assert cell(r, "run-b", "graded") == "4 / 1 / 1 ⚠"  # t1 t2 t4 t5; t3 errored; t6 stale
    assert cell(r, "run-b", "rubric").startswith("55.0 [")
    assert cell(r, "run-b", "tokens") == "—"
    up = cell(r, "run-b", "perfect", judge="upstream judge (test)")
    assert up.startswith("33.3 [6.1, 79.2] 1 of 3 tasks")
    page = visible_text(r.content.decode())
    assert "source's judge" in page
    # the reported run is in the same table, labelled as reported and by whose judge, without an interval
    reported = re.search(r'<tr data-kind="reported" data-run="reported-alpha".*?</tr>', r.content.decode(), flags=re.S)
    reported = visible_text(reported.group(0))
    assert "Reported-Alpha" in reported and "reported" in reported and "paper's judge" in reported
    assert "40.0" in reported and "[" not in reported


def test_staff_see_draft_runs(staff_client, board):
    r = staff_client.get("/leaderboard/")
    assert ("run-c", "our judge (test)") in rows(r)
    # nothing judged yet (t1 running, the rest missing): no figure and no rank
    assert cell(r, "run-c", "perfect") == "— not judged yet"
    assert cell(r, "run-c", "rank") == "— not judged yet"  # no position either


def test_filters_narrow_rows_and_slice_tasks(client, board):
    r = client.get("/leaderboard/?judge=upstream+judge+(test)")
    assert rows(r) == [("run-b", "upstream judge (test)")]
    assert client.get("/leaderboard/?surface=computer").context["board"].rows == []
    r = client.get("/leaderboard/?type=personal_lookup")
    assert r.context["board"].task_count == 2
    # run A on t1 (1.0, perfect) and t2 (0.5): perfect 1/2, rubric 75.0
    assert cell(r, "run-a", "perfect").startswith("50.0 [") and "1 of 2 tasks" in cell(r, "run-a", "perfect")
    assert cell(r, "run-a", "rubric").startswith("75.0")
    r = client.get("/leaderboard/?app=hoolidocs")  # t4, t5, t6: A has t4 unknown, t5 missing 0, t6 1
    assert cell(r, "run-a", "perfect").startswith("50.0") and "1 of 2 tasks" in cell(r, "run-a", "perfect")
    r = client.get("/leaderboard/?bin=4-6&weighting=equal")
    assert r.context["board"].task_count == 2
    # unknown values are ignored, the page still opens
    assert client.get("/leaderboard/?type=nonsense&sort=bogus&bin=99").status_code == 200


def test_equal_weights_switch(client, board):
    r = client.get("/leaderboard/?weighting=equal")
    assert cell(r, "run-a", "rubric").startswith("60.0")  # (1 + .5 + .5 + 0 + 1) / 5
    assert cell(r, "run-b", "rubric").startswith("53.3")  # (0 + 1 + 0 + 2/3 + 1) / 5


def test_sorting_by_column_and_direction(client, board):
    by_steps = client.get("/leaderboard/?sort=steps")  # ascending first: B (12.8) before A (16.6)
    assert [s for s, _ in rows(by_steps)][:2] == ["run-b", "run-b"]
    desc = client.get("/leaderboard/?sort=steps&dir=desc")
    assert rows(desc)[0][0] == "run-a"
    by_rubric = client.get("/leaderboard/?sort=rubric")
    assert rows(by_rubric)[0] == ("run-a", "our judge (test)")
    # the header link flips the direction of the active column
    assert 'href="?sort=steps&amp;dir=desc"' in by_steps.content.decode()


def test_rank_intervals_and_tiers_overlap_on_few_tasks(client, board):
    b = client.get("/leaderboard/").context["board"]
    for row in b.rows:
        assert 1 <= row.rank_low <= row.rank_high <= 3
    # five tasks cannot separate anyone: one tier
    assert {row.tier for row in b.rows} == {1}


def test_csv_and_json_export_exactly_what_is_shown(client, board):
    url = "/leaderboard/?type=personal_lookup&sort=rubric"
    page = client.get(url)
    shown = [(r.run_slug, r.judge_name) for r in page.context["board"].rows]
    csv_response = client.get(url + "&format=csv")
    assert csv_response["Content-Disposition"].startswith("attachment;")
    exported = list(csv.DictReader(io.StringIO(csv_response.content.decode())))
    graded = [e for e in exported if e["kind"] == "graded"]
    assert [(e["run"], e["judge"]) for e in graded] == shown
    for e in graded:
        perfect = cell(page, e["run"], "perfect", judge=e["judge"])
        assert perfect.startswith(f"{float(e['perfect_pct']):.1f} [{float(e['perfect_low']):.1f}, ")
        assert f"{e['perfect_k']} of {e['perfect_n']} tasks" in perfect
        assert cell(page, e["run"], "rubric", judge=e["judge"]).startswith(
            f"{float(e['rubric_pct']):.1f} [{float(e['rubric_low']):.1f}, {float(e['rubric_high']):.1f}]"
        )
    assert [e["run"] for e in exported if e["kind"] == "reported"] == ["reported-alpha"]
    data = client.get(url + "&format=json").json()
    assert data["filters"] == {"type": "personal_lookup", "sort": "rubric"}
    assert [{k: ("" if v is None else str(v)) for k, v in row.items()} for row in data["rows"]] == exported


def test_api_leaderboard_uses_the_same_rows(client, board):
    data = client.get("/api/leaderboard?judge=our+judge+(test)").json()
    assert data["suite"] == "board-suite" and data["tasks"] == 6 and data["bootstrap_replicates"] == 1000
    a = next(r for r in data["rows"] if r["run"] == "run-a")
    assert a["perfect_pct"]["value"] == 40.0 and a["perfect_k"] == 2 and a["perfect_n"] == 5
    assert a["perfect_pct"]["low"] == pytest.approx(11.8) and a["perfect_pct"]["high"] == pytest.approx(76.9)
    assert a["rubric_pct"]["value"] == 65.0 and a["rubric_pct"]["low"] <= 65.0 <= a["rubric_pct"]["high"]
    assert a["counts"]["incomplete"] == 1 and a["counts"]["missing"] == 1
    assert a["provenance"] == "harness" and a["rank_low"] >= 1
    # with no judge chosen, reported runs are placed among the graded ones as on the page, without intervals
    everything = client.get("/api/leaderboard").json()["rows"]
    page = client.get("/leaderboard/").context["rows"]
    assert [(r["run"], r["judge"], r["position"]) for r in everything] == [
        (r.run_slug, r.judge_name, r.position) for r in page
    ]
    reported = [r for r in everything if r["kind"] == "reported"]
    assert reported[0]["perfect_pct"] == {"value": 40.0, "low": None, "high": None}
    assert reported[0]["position"] is not None and reported[0]["position_note"] == "reported by the paper"
    # anonymous callers never see the draft run
    assert "run-c" not in {r["run"] for r in data["rows"]}


def test_compare_page_pairs_two_runs(client, board):
    r = client.get("/compare/?a=run-a&b=run-b")
    assert r.status_code == 200
    c = r.context["c"]
    # known in both: t1, t2, t3, t5 (t4 unknown in A, t6 unknown in B)
    assert c.paired_n == 4
    assert [t.task_id for t in c.only_a] == ["t1", "t6"]
    assert [t.task_id for t in c.only_b] == ["t2", "t5"]
    # rubric over the paired tasks: A (1 + .5 + .75 + 0) / 4, B (0 + 1 + 0 + 1) / 4 -> A - B = 6.25 pp
    assert c.rubric_diff.difference == pytest.approx(6.25)
    assert c.rubric_diff.low <= 6.25 <= c.rubric_diff.high
    assert 0 <= c.rubric_diff.p_b_greater <= 1
    page = visible_text(r.content.decode())
    assert "Only A solved (2)" in page and "Only B solved (2)" in page and "P(A > B)" in page
    assert client.get("/compare/?a=run-a&b=reported-alpha").status_code == 404
    assert client.get("/compare/?a=run-a&b=run-c").status_code == 404  # a draft, hidden from visitors
    chooser = client.get("/compare/")
    assert chooser.status_code == 200 and chooser.context["c"] is None


def test_board_links_to_compare_and_runs(client, board):
    html = client.get("/leaderboard/").content.decode()
    assert 'action="/compare/"' in html and 'name="a" value="run-a"' in html
    assert 'href="/runs/run-a/"' in html


def test_constant_queries_as_data_grows(client, board):
    def count(url="/leaderboard/"):
        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    before = count()
    before_api = count("/api/leaderboard")
    before_compare = count("/compare/?a=run-a&b=run-b")
    # more attempts, steps' worth of trajectories and judgments on the same suite
    for t in board.a.trajectories.all():
        for attempt in (1, 2):
            extra = traj(board.a, t.task, 9, attempt=attempt)
            judge(extra, list(t.task.current_rubric()), ["success"] * t.task.current_rubric().count(), board.ours)
    assert count() == before
    assert count("/api/leaderboard") == before_api
    assert count("/compare/?a=run-a&b=run-b") == before_compare
    # served from the cache: only the data-version queries remain on the scoring side
    client.get("/leaderboard/")
    with CaptureQueriesContext(connection) as ctx:
        client.get("/leaderboard/")
    assert len(ctx.captured_queries) < before


def _page_built_then_a_verdict_saved(client, board, settings, monkeypatch):
    """A production-like refresh window of 10 s on a fake clock; the leaderboard page built (run A at
    40.0%), then a judge error on t4 turned into a success (50.0% once rebuilt). Returns the clock and
    that judgment."""
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    now = [1_000_000.0]
    monkeypatch.setattr(page_cache.time, "time", lambda: now[0])
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    error = board.a.trajectories.get(task__task_id="t4").judgments.get(verdict="error")
    error.verdict = "success"
    error.save()
    return now, error


def test_while_results_stream_in_visitors_get_the_last_page_within_the_window(client, board, settings, monkeypatch):
    now, error = _page_built_then_a_verdict_saved(client, board, settings, monkeypatch)
    now[0] += 9  # within the window: the last complete page
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    now[0] += 2  # past it: this visitor still gets the last page at once, and it is rebuilt once sent
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("50.0")
    # past the window again, but another request is rebuilding: the last page, not a second rebuild
    error.verdict = "failure"
    error.save()
    now[0] += 11
    lock = "board-page:/leaderboard/::rebuilding"  # the page key (prefix, path, empty query) + ":rebuilding"
    assert cache.add(lock, 1, 60)
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("50.0")
    cache.delete(lock)  # the rebuild ended: the next visitor past the window has it rebuilt (an error is now a failure)
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("50.0")
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("33.3")


def test_pages_rebuilt_within_one_window_share_one_scoring_while_results_stream_in(
    client, board, settings, monkeypatch
):
    """While a run is judged, every page past the window is rebuilt at the version taken when that
    window began, so pages rebuilt in it score the runs once between them, not once each at each new
    judgment; a verdict saved within the window shows once the next window begins."""
    from leaderboard.scoring import outcomes

    now, error = _page_built_then_a_verdict_saved(client, board, settings, monkeypatch)
    by_cost = "/leaderboard/?sort=cost"
    assert cell(client.get(by_cost), "run-a", "perfect").startswith("40.0")
    scorings = []
    real = outcomes._compute
    monkeypatch.setattr(outcomes, "_compute", lambda *a: scorings.append(1) or real(*a))
    now[0] += 11
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")  # rebuilt once sent
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("50.0")
    scored_once = len(scorings)
    assert scored_once > 0
    error.verdict = "failure"
    error.save()  # the next judgment arrives within the window
    now[0] += 1
    assert cell(client.get(by_cost), "run-a", "perfect").startswith("40.0")  # rebuilt once sent
    assert cell(client.get(by_cost), "run-a", "perfect").startswith("50.0"), "built at the window's version"
    assert len(scorings) == scored_once, "the second page reused the first page's scoring"
    now[0] += 10  # the next window: the latest verdict shows
    client.get(by_cost)
    assert cell(client.get(by_cost), "run-a", "perfect").startswith("33.3")
    assert len(scorings) > scored_once


def test_task_and_run_pages_rebuilt_in_one_window_share_their_scorings(client, board, settings, monkeypatch):
    """The scorings a page asks for through any helper (a task's solve rates, a run's headline rows) are
    cached at the version the page is built at, so task and run pages rebuilt in one window score the
    runs once between them while further judgments arrive."""
    from leaderboard.scoring import outcomes

    now, error = _page_built_then_a_verdict_saved(client, board, settings, monkeypatch)
    suite = board.a.suite.slug
    pages = [f"/tasks/{suite}/t1/", f"/tasks/{suite}/t2/", "/runs/run-a/", "/runs/run-b/"]
    for url in pages:
        assert client.get(url).status_code == 200
    scorings = []
    real = outcomes._compute
    monkeypatch.setattr(
        outcomes, "_compute", lambda *a: scorings.append((tuple(r["pk"] for r in a[0]), *a[1:])) or real(*a)
    )
    now[0] += 11
    client.get(pages[0])  # the last page; rebuilt once sent, at the new window's version
    first = list(scorings)
    assert first, "the first rebuild in the window scores the runs"
    for url in pages[1:]:
        error.verdict = "failure" if error.verdict == "success" else "success"
        error.save()  # a judgment arrives between every two pages
        client.get(url)
    runs_scored_again = [a for a in scorings[len(first) :] if a in first]
    assert runs_scored_again == [], "later pages reused the scorings of the first"


def test_one_page_is_rebuilt_at_a_time_across_the_site(client, board, settings, monkeypatch):
    """When the version moves every page goes stale at once; while any page is being rebuilt, a
    visitor past the window of another gets its last page and leaves it for the next visitor."""
    now, _ = _page_built_then_a_verdict_saved(client, board, settings, monkeypatch)
    now[0] += 11
    assert cache.add("page-cache:rebuilding-any", 1, 60)  # another page is being rebuilt
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0"), "not rebuilt meanwhile"
    cache.delete("page-cache:rebuilding-any")  # that rebuild ended
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")  # rebuilt once sent
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("50.0")


def test_anonymous_page_cache_follows_the_data(client, board):
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    # a verdict edited in place (signal) and a run published (signal) both show at once
    error = board.a.trajectories.get(task__task_id="t4").judgments.get(verdict="error")
    error.verdict = "success"
    error.save()
    board.c.publication = "published"
    board.c.save()
    r = client.get("/leaderboard/")
    assert cell(r, "run-a", "perfect").startswith("50.0") and "3 of 6 tasks" in cell(r, "run-a", "perfect")
    assert ("run-c", "our judge (test)") in rows(r)
    # judgments written in bulk (no signals), as ingest does, show too
    t5 = traj(board.a, board.tasks["t5"], 10)
    from trajectories.models import Judgment

    Judgment.objects.bulk_create(
        [Judgment(trajectory=t5, rubric_item=i, judge=board.ours, verdict="success") for i in board.items["t5"]]
    )
    assert "4 of 6 tasks" in cell(client.get("/leaderboard/"), "run-a", "perfect")


def test_a_cached_page_costs_no_query_and_a_silent_write_shows_after_the_window(client, board, settings, monkeypatch):
    """Production-like refresh window: a page served from the cache reads no SQL (the data version is
    read at most once a second per process while no save moves the signal counter); a write that sends
    no signal (bulk inserts in another process) shows once the window has passed; a publication change
    moves the counter and is never hidden behind the memo."""
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    clock = [1_000_000.0]
    monkeypatch.setattr(page_cache.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(page_cache.time, "time", lambda: clock[0])
    monkeypatch.setattr(page_cache, "_memo", {"at": float("-inf"), "signals": None, "version": ""})
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    with CaptureQueriesContext(connection) as ctx:
        assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    assert len(ctx.captured_queries) == 0, [q["sql"] for q in ctx.captured_queries]

    from trajectories.models import Judgment

    t5 = traj(board.a, board.tasks["t5"], 10)
    Judgment.objects.bulk_create(
        [Judgment(trajectory=t5, rubric_item=i, judge=board.ours, verdict="success") for i in board.items["t5"]]
    )
    clock[0] += 0.5
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    clock[0] += 11  # past the memo and the refresh window: read again, rebuilt after this answer
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0")
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("60.0")

    board.a.publication = "withdrawn"
    board.a.save()  # a signal: seen at once, memo or not
    assert "run-a" not in {slug for slug, _ in rows(client.get("/leaderboard/"))}


def test_a_draft_run_being_stored_and_judged_leaves_visitors_pages_cached(client, board, settings, monkeypatch):
    """An author's upload is stored as a draft run, and a draft may be judged before review: nothing of
    it is visible to visitors, so their cached pages are not rebuilt for it (bench_load's upload
    round: every page was rebuilt while archives were stored). Publishing it shows it at once."""
    import leaderboard.boards.board
    from leaderboard.models import Run
    from trajectories.models import Judgment, Step

    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0  # every change visitors could see shows at once
    builds = []
    real = leaderboard.boards.board.board
    monkeypatch.setattr(leaderboard.boards.board, "board", lambda *a, **k: builds.append(1) or real(*a, **k))
    assert ("run-c", "our judge (test)") not in rows(client.get("/leaderboard/"))
    assert len(builds) == 1

    draft = Run.objects.create(suite=board.c.suite, model=board.c.model, slug="uploaded-draft", name="Uploaded draft")
    stored = traj(draft, board.tasks["t1"], 3)
    Step.objects.create(trajectory=stored, index=0, turn=0, action_text="click", screenshot="s.png")
    stored.status = "finished"
    stored.save()
    judge(stored, board.items["t1"], ["success"], board.ours)
    judged = traj(board.c, board.tasks["t2"], 4)  # run C, a draft, judged in bulk as ingest does
    Judgment.objects.bulk_create(
        [Judgment(trajectory=judged, rubric_item=i, judge=board.ours, verdict="success") for i in board.items["t2"]]
    )
    assert ("run-c", "our judge (test)") not in rows(client.get("/leaderboard/"))
    assert len(builds) == 1, "served from the cache: nothing visitors see has changed"

    t4 = board.a.trajectories.get(task__task_id="t4").judgments.get(verdict="error")
    t4.verdict = "success"
    t4.save()  # a published run's verdict: rebuilt at once
    assert "3 of 6 tasks" in cell(client.get("/leaderboard/"), "run-a", "perfect") and len(builds) == 2

    board.c.publication = "published"
    board.c.save()
    assert ("run-c", "our judge (test)") in rows(client.get("/leaderboard/")) and len(builds) == 3


def test_a_rebuild_that_fails_after_sending_leaves_the_last_page_and_frees_the_next_rebuild(
    client, board, settings, monkeypatch, caplog
):
    now, error = _page_built_then_a_verdict_saved(client, board, settings, monkeypatch)
    now[0] += 11
    import leaderboard.boards.board

    real = leaderboard.boards.board.board
    monkeypatch.setattr(leaderboard.boards.board, "board", lambda *a, **k: 1 / 0)
    response = client.get("/leaderboard/", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200 and response["Content-Encoding"] == "gzip", "the last page, as it was kept"
    unzipped = SimpleNamespace(content=gzip.decompress(response.content))
    assert cell(unzipped, "run-a", "perfect").startswith("40.0")
    assert "rebuilding the cached page" in caplog.text
    monkeypatch.setattr(leaderboard.boards.board, "board", real)
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("40.0"), "rebuilt after this answer"
    assert cell(client.get("/leaderboard/"), "run-a", "perfect").startswith("50.0")
