"""The leaderboard and rubric errata, on the hand-built board (tests/board_data.py: task t6 has a
version 1 replaced by version 2; run B judged t6 only on version 1): each row says which rubric it is
scored on, a row judged on a superseded rubric is flagged in words with a link to the changelog (page,
CSV, JSON, API), the flag goes once the task is judged on version 2, and the suite and task changelog
pages list the errata. The page's query count does not grow with the errata."""

import csv
import io
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import RubricErratum
from tests.board_data import judge
from tests.html_text import visible_text

pytestmark = pytest.mark.django_db

FLAG = "1 task judged on a superseded rubric: left out (not known) until re-judged"


def run_cell(html: str, run: str, judge_name: str = "our judge (test)") -> str:
    row = re.search(rf'<tr data-run="{run}" data-judge="{re.escape(judge_name)}".*?</tr>', html, flags=re.S).group(0)
    return visible_text(re.search(r'<td data-col="run"[^>]*>(.*?)</td>', row, flags=re.S).group(1))


def reported_cell(html: str) -> str:
    row = re.search(r'<tr data-kind="reported" data-run="reported-alpha".*?</tr>', html, flags=re.S).group(0)
    return visible_text(row)


def record_t6_erratum(board, reason="R2 accepted any date", source="https://example.org/audit"):
    """Version 2 of t6 as an erratum: its two items replace version 1's three."""
    old, new = board.items["t6-old"], board.items["t6"]
    rows = [
        RubricErratum(
            task=board.tasks["t6"], version=2, rubric_id=o.rubric_id, change="reworded", old_item=o, new_item=n
        )
        for o, n in zip(old, new, strict=False)
    ]
    rows.append(
        RubricErratum(task=board.tasks["t6"], version=2, rubric_id=old[2].rubric_id, change="removed", old_item=old[2])
    )
    for row in rows:
        row.reason, row.source_url = reason, source
    RubricErratum.objects.bulk_create(rows)


def test_rows_say_which_rubric_they_are_scored_on_and_flag_superseded_ones(client, board):
    html = client.get("/leaderboard/").content.decode()
    assert FLAG in run_cell(html, "run-b")
    assert "current rubrics" in run_cell(html, "run-a") and "superseded" not in run_cell(html, "run-a")
    # the upstream judge's row of run B judged t1 and t2 only: nothing on a superseded rubric
    assert "superseded" not in run_cell(html, "run-b", "upstream judge (test)")
    assert 'href="/suites/board-suite/changelog/">rubric changelog</a>' in html
    assert "before" not in reported_cell(html)  # no errata yet: the published figures are on the current rubrics

    record_t6_erratum(board)
    cache.clear()
    html = client.get("/leaderboard/").content.decode()
    assert "current rubrics (revision 1)" in run_cell(html, "run-a")
    assert "scored on the rubrics as published, before 1 erratum" in reported_cell(html)
    assert "Rubrics of this suite: 1 erratum on 1 task(s), latest" in visible_text(html)


def test_exports_and_api_carry_the_rubric_flag(client, board):
    record_t6_erratum(board)
    api = {(r["run"], r["judge"]): r for r in client.get("/api/leaderboard").json()["rows"]}
    b = api[("run-b", "our judge (test)")]
    assert (b["rubric_superseded_tasks"], b["rubric_outdated"], b["rubric_revision"]) == (1, True, 1)
    assert b["rubric_version"] == FLAG
    a = api[("run-a", "our judge (test)")]
    assert (a["rubric_superseded_tasks"], a["rubric_outdated"]) == (0, False)
    assert api[("reported-alpha", "")]["rubric_outdated"] is True
    assert client.get("/api/leaderboard").json()["rubric_changelog"] == "/suites/board-suite/changelog/"
    text = client.get("/leaderboard/?format=csv").content.decode()
    rows = {(r["run"], r["judge"]): r for r in csv.DictReader(io.StringIO(text))}
    assert rows[("run-b", "our judge (test)")]["rubric_superseded_tasks"] == "1"
    assert rows[("run-a", "our judge (test)")]["rubric_outdated"] == "False"


def test_the_flag_goes_once_the_task_is_judged_on_the_current_rubric(client, board):
    t6 = board.b.trajectories.get(task=board.tasks["t6"])
    judge(t6, board.items["t6"], ["success", "failure"], board.ours)  # version 2, weights 2 and 2
    html = client.get("/leaderboard/").content.decode()
    assert "superseded" not in run_cell(html, "run-b")
    row = next(
        r
        for r in client.get("/api/leaderboard").json()["rows"]
        if r["run"] == "run-b" and r["judge"] == "our judge (test)"
    )
    assert row["rubric_superseded_tasks"] == 0 and row["counts"]["stale"] == 0


def test_the_query_count_does_not_grow_with_errata(client, board):
    def count():
        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get("/leaderboard/").status_code == 200
        return len(ctx.captured_queries)

    record_t6_erratum(board)
    before = count()
    for task_id in ("t1", "t2", "t3"):
        item = board.items[task_id][0]
        RubricErratum.objects.create(
            task=board.tasks[task_id], version=2, rubric_id=item.rubric_id, change="reweighted", new_item=item
        )
    assert count() == before


def test_changelog_pages_list_the_errata_of_a_suite_and_of_a_task(client, board):
    record_t6_erratum(board)
    page = client.get("/suites/board-suite/changelog/")
    assert page.status_code == 200
    html = page.content.decode()
    text = visible_text(html)
    assert "Rubric changelog" in text and "version 2" in text and "1 removed, 2 reworded" in text
    assert (
        "R2 accepted any date" in text
        and '<a href="https://example.org/audit" rel="noopener nofollow">Source</a>' in html
    )
    assert html.count('data-change="reworded"') == 2 and html.count('data-change="removed"') == 1
    assert '<caption class="visually-hidden">' in html
    task_page = visible_text(client.get("/tasks/board-suite/t6/changelog/").content.decode())
    assert "version 2" in task_page and "R2 accepted any date" in task_page
    untouched = visible_text(client.get("/tasks/board-suite/t1/changelog/").content.decode())
    assert "No errata: this task's rubric is as first imported." in untouched
    assert client.get("/tasks/board-suite/t6/").content.decode().count("/tasks/board-suite/t6/changelog/") == 1
    assert client.get("/suites/nope/changelog/").status_code == 404
    assert client.get("/tasks/board-suite/nope/changelog/").status_code == 404


def test_the_api_lists_the_errata_of_a_suite_or_one_task(client, board):
    record_t6_erratum(board)
    [entry] = client.get("/api/suites/board-suite/errata").json()
    assert (entry["task"], entry["version"], entry["reason"]) == ("t6", 2, "R2 accepted any date")
    assert [(i["rubric_id"], i["change"], i["weight_before"], i["weight_after"]) for i in entry["items"]] == [
        ("R1", "reworded", 1.0, 2.0),
        ("R2", "reworded", 1.0, 2.0),
        ("R3", "removed", 1.0, None),
    ]
    assert client.get("/api/suites/board-suite/errata?task=t1").json() == []
    missing = client.get("/api/suites/board-suite/errata?task=nope")
    assert missing.status_code == 404 and missing.json() == {"detail": "no task 'nope' in suite 'board-suite'"}
    assert client.get("/api/suites/nope/errata").json() == {"detail": "no suite 'nope'"}
