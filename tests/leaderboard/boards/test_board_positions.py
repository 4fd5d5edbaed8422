"""Who leads, at a glance: the leaderboard's default view as a visitor reads it. A model's published
figures appear once, from the paper's newest version (older versions one click away, labelled); every
row has a position beside where it comes from (graded rows keep their rank interval and tied group,
reported ones say they have none); columns no shown row has are left out; a suite with no tasks loaded
is shown as its published figures only on home, /suites/ and its page; exports and the API follow."""

import csv
import io
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import Model, ReportedFigure, Run, Suite
from tests.html_text import visible_text

pytestmark = pytest.mark.django_db

NEW, OLD = "Paper v2: every model with bash", "Paper v1: native agents"


@pytest.fixture
def paper():
    """A suite with no tasks and the paper's figures from two versions: v2 (the newest, first in the
    figures file) has Alpha and Gamma, v1 has Alpha (the same figures) and Beta."""
    suite = Suite.objects.create(name="Paper", version="r0", slug="paper-r0")
    runs = {}
    for set_id, label, position, model, perfect, rubric in (
        ("v2", NEW, 0, "Alpha", 50.0, 70.0),
        ("v2", NEW, 0, "Gamma", 30.0, 45.0),
        ("v1", OLD, 1, "Alpha", 50.0, 70.0),
        ("v1", OLD, 1, "Beta", 40.0, 60.0),
    ):
        m, _ = Model.objects.get_or_create(slug=model.lower(), defaults={"name": model})
        run = Run.objects.create(
            name=f"{model} ({set_id})",
            slug=f"reported-{set_id}-{model.lower()}",
            suite=suite,
            model=m,
            provenance="reported",
            publication="published",
            tool_surface="computer+bash",
            source=f"paper {set_id}, Table 2",
            metadata={"result_set": set_id, "result_set_label": label, "result_set_position": position},
        )
        ReportedFigure.objects.create(run=run, metric="perfect", value=perfect, source=run.source)
        ReportedFigure.objects.create(run=run, metric="rubric", value=rubric, source=run.source)
        ReportedFigure.objects.create(run=run, metric="avg_steps", value=20.0, source=run.source)
        runs[run.slug] = run
    return runs


def shown(response) -> list[tuple[str, str]]:
    """(run slug, position cell's text) of every row, graded and reported, in page order."""
    html = response.content.decode()
    out = []
    for row in re.findall(r"<tr data-(?:kind=\"reported\" data-)?run=.*?</tr>", html, flags=re.S):
        slug = re.search(r'data-run="([^"]+)"', row).group(1)
        rank = re.search(r'<td[^>]*data-col="rank"[^>]*>(.*?)</td>', row, flags=re.S).group(1)
        out.append((slug, visible_text(rank)))
    return out


def test_each_model_once_from_the_newest_published_version_with_older_ones_a_click_away(client, paper):
    r = client.get("/leaderboard/?suite=paper-r0")
    assert shown(r) == [
        ("reported-v2-alpha", "1 (no interval) reported by the paper"),
        ("reported-v1-beta", "2 (no interval) reported by the paper"),  # only in the older version: kept
        ("reported-v2-gamma", "3 (no interval) reported by the paper"),
    ]
    page = visible_text(r)
    assert "1 row from older versions is hidden" in page and "Show all published versions" in page
    assert 'href="?suite=paper-r0&amp;versions=all"' in r.content.decode()

    every = client.get("/leaderboard/?suite=paper-r0&versions=all")
    assert shown(every) == [
        ("reported-v2-alpha", "1 (no interval) reported by the paper"),
        ("reported-v1-alpha", "1 (no interval) reported by the paper"),  # equal figures share a position
        ("reported-v1-beta", "3 (no interval) reported by the paper"),
        ("reported-v2-gamma", "4 (no interval) reported by the paper"),
    ]
    older = re.search(r'<tr data-kind="reported" data-run="reported-v1-alpha".*?</tr>', every.content.decode(), re.S)
    older = visible_text(older.group(0))
    assert "older version" in older and f"published in {OLD}" in older
    assert "Newest version only" in visible_text(every)
    # the filter form keeps the choice
    assert '<input type="hidden" name="versions" value="all">' in every.content.decode()


def test_in_a_slice_the_newest_version_that_published_it_wins(client, paper):
    """Only the older version published figures by behavioural type: in that slice its row is shown,
    and the newer version's (nothing for this slice) is the hidden one, marked why."""
    ReportedFigure.objects.create(
        run=paper["reported-v1-alpha"],
        metric="rubric",
        slice_kind="task_type",
        slice_value="personal_lookup",
        value=66.0,
        source="paper v1, Table 5",
    )
    r = client.get("/leaderboard/?suite=paper-r0&type=personal_lookup")
    slugs = [slug for slug, _ in shown(r)]
    assert "reported-v1-alpha" in slugs and "reported-v2-alpha" not in slugs
    every = client.get("/leaderboard/?suite=paper-r0&type=personal_lookup&versions=all")
    newer = re.search(r'<tr data-kind="reported" data-run="reported-v2-alpha".*?</tr>', every.content.decode(), re.S)
    assert "not published in this version" in visible_text(newer.group(0))


def test_columns_no_row_has_are_left_out_and_explained_once(client, paper):
    r = client.get("/leaderboard/?suite=paper-r0")
    html = r.content.decode()
    for col in ("tokens", "cost", "graded"):
        assert f'data-col="{col}"' not in html and f'data-sort="{col}"' not in html
    assert 'data-sort="steps"' in html  # published steps are shown
    assert "Tokens, cost and task counts: not shown, as none of these rows has them" in visible_text(r)
    assert 'name="a"' not in html  # nothing to compare


def test_graded_rows_keep_their_interval_and_tied_group_beside_a_position(client, board):
    r = client.get("/leaderboard/")
    rows = dict(shown(r))
    # run A: 40.0 with lower bound 33.3; run B (our judge) lower; reported Alpha 40.0 is placed by its figure
    assert rows["reported-alpha"] == "1 (no interval) reported by the paper"
    assert re.fullmatch(r"2 rank 1–\d tied group 1 graded by our judge", rows["run-a"])
    assert "graded by the source's judge" in visible_text(r)
    # the columns graded runs have stay
    assert 'data-col="tokens"' in r.content.decode()


def test_exports_and_api_follow_the_page_and_the_toggle(client, paper):
    page = client.get("/leaderboard/?suite=paper-r0").context["rows"]
    exported = list(csv.DictReader(io.StringIO(client.get("/leaderboard/?suite=paper-r0&format=csv").content.decode())))
    assert [(e["run"], e["position"], e["position_note"]) for e in exported] == [
        (r.run_slug, str(r.position), "reported by the paper") for r in page
    ]
    data = client.get("/leaderboard/?suite=paper-r0&format=json").json()
    assert data["older_versions"] == 1 and len(data["rows"]) == 3
    every = client.get("/leaderboard/?suite=paper-r0&versions=all&format=json").json()
    assert every["filters"] == {"suite": "paper-r0", "versions": "all"}
    assert [(e["run"], e["position"], e["superseded_by"]) for e in every["rows"]][:2] == [
        ("reported-v2-alpha", 1, ""),
        ("reported-v1-alpha", 1, NEW),
    ]
    api = client.get("/api/leaderboard?suite=paper-r0").json()
    assert [(r["run"], r["position"]) for r in api["rows"]] == [(r.run_slug, r.position) for r in page]
    assert api["older_versions"] == 1
    api_all = client.get("/api/leaderboard?suite=paper-r0&versions=all").json()
    assert len(api_all["rows"]) == 4 and api_all["rows"][1]["version"] == OLD


def test_an_older_versions_run_page_still_shows_its_figures(client, paper):
    r = client.get("/runs/reported-v1-alpha/")
    assert r.status_code == 200
    assert [row.run_slug for row in r.context["headline_rows"]] == ["reported-v1-alpha"]


def test_the_toggle_costs_no_query(client, paper):
    def count(url):
        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    assert count("/leaderboard/?suite=paper-r0") == count("/leaderboard/?suite=paper-r0&versions=all")


def test_a_suite_without_tasks_shows_its_published_figures_not_zeros(client, paper):
    suites = visible_text(client.get("/suites/"))
    assert "published figures only" in suites
    assert "4 reported runs of 3 models from " + NEW + "; " + OLD in suites
    assert "Tasks by behavioural type" not in suites and "Rubric items" not in suites
    detail = client.get("/suites/paper-r0/")
    text = visible_text(detail)
    assert "published figures only" in text and "Browse the 0 tasks" not in text
    assert "Tasks by apps touched" not in text
    # the table of its reported runs, newest version first, each linked
    slugs = re.findall(r'href="/runs/(reported-[^/]+)/"', detail.content.decode())
    assert slugs == ["reported-v2-alpha", "reported-v2-gamma", "reported-v1-alpha", "reported-v1-beta"]
    assert 'href="/leaderboard/?suite=paper-r0"' in detail.content.decode()
    home = visible_text(client.get("/"))
    assert "Paper r0: published figures only (4 reported runs of 3 models)" in home
    assert "Paper r0: 0 tasks" not in home
    # the top of the leaderboard on home says what its rows are
    assert "published figures only This suite's tasks are not loaded on this site" in home
