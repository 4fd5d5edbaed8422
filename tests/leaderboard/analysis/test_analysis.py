"""Analysis pages: heatmap cells, failure taxonomy counts, action shares and per-run task
outcomes a visitor sees, computed by hand from tests/analysis_data.py; reported fallbacks
labelled; constant query counts as data grows, and on every load with a production-like refresh
window."""

import json
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboard.analysis import scaling
from leaderboard.catalog.reported import load_reported
from mypcbench_site import page_cache
from tests.analysis_data import judge_all
from tests.html_text import visible_text
from trajectories.models import Step, Trajectory
from trajectories.recording import action_counts

pytestmark = pytest.mark.django_db


def heatmap(response, map_id):
    return next(item["map"] for item in response.context["maps"] if item["map"].id == map_id)


def cell(hm, row_label, col_key):
    return hm.cells[hm.row_labels.index(row_label)][hm.col_keys.index(col_key)]


# -- heatmaps -------------------------------------------------------------------------------


def test_rubric_heatmap_by_type_matches_hand_computed_cells(client, analysis_world):
    response = client.get(reverse("leaderboard:analysis_heatmaps"))
    hm = heatmap(response, "graded-type-rubric")
    # Alpha personal lookup: t1 = (0*1 + 1*3)/4 = 0.75, t3 = 1 -> 87.5
    a = cell(hm, "Alpha run", "personal_lookup")
    assert a.value == pytest.approx(87.5) and a.n == 2 and a.incomplete == 0
    # Alpha bounded action: t2 = 1, t4 missing = 0 -> 50
    assert cell(hm, "Alpha run", "bounded_action").value == pytest.approx(50.0)
    # Beta bounded action: t2 has a judge error (left out, counted), t4 errored = 0 -> 0 over n = 1
    b = cell(hm, "Beta run", "bounded_action")
    assert (b.value, b.n, b.incomplete) == (0.0, 1, 1)
    # Beta personal lookup: t1 = 1, t3 = 0 -> 50, with a bootstrap interval around it
    b = cell(hm, "Beta run", "personal_lookup")
    assert b.value == pytest.approx(50.0) and b.low <= 50 <= b.high and b.high - b.low > 0
    page = visible_text(response)
    assert "87.5" in page and "1 incomplete" in page


def test_perfect_rate_heatmap_by_bin_has_wilson_intervals(client, analysis_world):
    response = client.get(reverse("leaderboard:analysis_heatmaps"), {"metric": "perfect"})
    hm = heatmap(response, "graded-bin-perfect")
    assert hm.col_keys == ["1", "2-3", "4-6", "7+"]
    c = cell(hm, "Alpha run", "1")  # t1 not perfect, t3 perfect -> 1/2
    assert c.value == pytest.approx(50.0)
    assert (c.low, c.high) == pytest.approx((9.4531, 90.5469), abs=1e-3)  # Wilson 1/2
    assert cell(hm, "Alpha run", "4-6").value == 0.0  # t4 missing counts as a failure
    assert cell(hm, "Beta run", "2-3").n == 0  # t2's only attempt is incomplete
    assert cell(hm, "Beta run", "2-3").value is None


def test_app_heatmap_and_cell_links_open_the_trajectories_behind_them(client, analysis_world):
    response = client.get(reverse("leaderboard:analysis_heatmaps"))
    hm = heatmap(response, "graded-app-rubric")
    assert hm.col_labels == ["HooliCalendar", "HooliMail", "LibreOffice Calc"]
    c = cell(hm, "Alpha run", "hoolimail")  # t1 0.75 and t2 1.0
    assert c.value == pytest.approx(87.5)
    listing = client.get(c.url)
    shown = {(t.run.slug, t.task.task_id) for t in listing.context["page"].object_list}
    assert shown == {("alpha-run", "lookup-1"), ("alpha-run", "action-2")}
    assert "run alpha-run" in visible_text(listing) and "app hoolimail" in visible_text(listing)
    type_cell = cell(heatmap(response, "graded-type-rubric"), "Beta run", "bounded_action")
    shown = {t.task.task_id for t in client.get(type_cell.url).context["page"].object_list}
    assert shown == {"action-2", "action-4"}


def test_heatmap_figure_json_is_a_compact_data_block_with_n_interval_and_links(client, analysis_world):
    response = client.get(reverse("leaderboard:analysis_heatmaps"))
    html = response.content.decode()
    block = re.search(r'<script id="chart-graded-type-rubric" type="application/json">(.*?)</script>', html, re.S)
    figure = json.loads(block.group(1))
    assert figure["kind"] == "heatmap"  # charts.js expands it into the plotly trace
    row = figure["y"].index("Alpha run")
    col = figure["labels"].index("Personal lookup")
    assert figure["z"][row][col] == pytest.approx(87.5)
    assert figure["n"][row][col] == 2 and figure["low"][row][col] <= 87.5 <= figure["high"][row][col]
    # no per-cell hover strings or URLs: one link recipe for every cell
    assert "hovertext" not in block.group(1) and "/trajectories/?run=" not in block.group(1)
    link = figure["link"]
    assert (link["base"], link["rows"][row], link["cols"][col]) == ("/trajectories/", "alpha-run", "personal_lookup")
    assert link["query"] == [["type", None]]  # the cell's column key goes there
    assert "<script>" not in block.group(1)  # json_script escapes markup


def test_reported_heatmaps_are_labelled_and_have_no_intervals(client):
    load_reported()
    response = client.get(reverse("leaderboard:analysis_heatmaps"))
    maps = [item["map"] for item in response.context["maps"]]
    assert maps and all(hm.reported for hm in maps)
    by_type = next(hm for hm in maps if hm.id.endswith("task_type-rubric"))
    assert all(c.low is None and c.url == "" for row in by_type.cells for c in row)
    page = visible_text(response)
    assert "No graded runs yet" in page and "reported" in page and "not computed by us" in page


# -- failure taxonomy -----------------------------------------------------------------------


def test_taxonomy_counts_failed_items_by_mode_per_model_and_family(client, analysis_world):
    response = client.get(reverse("leaderboard:analysis_taxonomy"))
    per_model, per_family = (item["table"] for item in response.context["items"][:2])
    counts = {
        label: dict(zip(per_model.modes, row, strict=True))
        for label, row in zip(per_model.row_labels, per_model.counts, strict=True)
    }
    # the stray judge's "other" failures on Alpha's trajectory are not counted
    assert counts["Alpha"] == {"premature_done": 1, "skipped_required_app": 0}
    assert counts["Beta"] == {"premature_done": 1, "skipped_required_app": 1}
    assert per_family.row_labels == ["Fam"] and per_family.counts == [[2, 1]]


def test_taxonomy_bar_lists_its_judgments_with_links_to_cited_steps(client, analysis_world):
    response = client.get(reverse("leaderboard:analysis_taxonomy"))
    per_model = response.context["items"][0]["table"]
    url = per_model.urls[per_model.row_labels.index("Alpha")][per_model.modes.index("premature_done")]
    listing = client.get(url)
    judgments = list(listing.context["page"].object_list)
    assert [(j.trajectory_id, j.rubric_item.rubric_id) for j in judgments] == [(analysis_world.a1.pk, "R1")]
    assert f'href="/trajectories/{analysis_world.a1.pk}/#step-2"' in listing.content.decode()
    beta = client.get(reverse("leaderboard:analysis_failures"), {"family": "Fam", "mode": "skipped_required_app"})
    assert f"/trajectories/{analysis_world.b3.pk}/#step-3" in beta.content.decode()
    # the list narrows by failure mode from chips that keep the other filters
    chips = dict((label, href) for label, href, _ in beta.context["mode_links"])
    assert chips["Every mode"] == "?family=Fam" and chips["Premature done"] == "?family=Fam&mode=premature_done"
    assert chips["Not classified"] == "?family=Fam&mode=none"


def test_reported_failure_counts_shown_with_their_source_until_runs_carry_modes(client):
    load_reported()
    response = client.get(reverse("leaderboard:analysis_taxonomy"))
    tables = [item["table"] for item in response.context["items"]]
    assert tables and all(t.reported for t in tables)
    totals = next(t for t in tables if t.row_labels == ["All models"] and t.source == "arXiv 5.4 / Table 8")
    assert dict(zip(totals.modes, totals.counts[0], strict=True))["premature_done"] == 354
    page = visible_text(response)
    assert "arXiv 5.4 / Table 8" in page and "figures as published" in page


# -- scaling and shape ----------------------------------------------------------------------


def test_action_shares_per_run(client, analysis_world):
    response = client.get(reverse("leaderboard:analysis_scaling"))
    shapes = {s.run.slug: dict(zip(scaling.ACTION_KINDS, s.shares, strict=True)) for s in response.context["shapes"]}
    # Alpha: click, double click, type, hotkey, scroll, bash (the done step is left out) = 6
    assert shapes["alpha-run"]["click"] == pytest.approx(200 / 6)
    assert shapes["alpha-run"]["key"] == pytest.approx(100 / 6)
    assert shapes["alpha-run"]["bash"] == pytest.approx(100 / 6)
    # Beta: editor, bash, bash
    assert shapes["beta-run"]["bash"] == pytest.approx(200 / 3) and shapes["beta-run"]["editor"] == pytest.approx(
        100 / 3
    )


def test_step_budget_profile_and_cost(client, analysis_world):
    response = client.get(reverse("leaderboard:analysis_scaling"))
    ctx = response.context
    html = response.content.decode()
    for chart in ("apps-touched", "step-budget", "profile", "action-shape", "cost"):
        assert f'data-chart="chart-{chart}"' in html
    budget = {name: ys for name, _, ys in ctx["budget"]}
    # Alpha's perfect tasks used 3 (t2) and 12 (t3) steps, of 4 tasks
    assert budget["Alpha run"][2] == 0 and budget["Alpha run"][3] == 25.0 and budget["Alpha run"][12] == 50.0
    profile = {name: ys for name, _, ys in ctx["profile"]}
    taus = scaling.PROFILE_TAUS
    # Alpha task scores 0.75, 1, 1, 0: >= 0.5 -> 3 of 4; >= 1 -> 2 of 4
    assert profile["Alpha run"][taus.index(0.5)] == 75.0 and profile["Alpha run"][taus.index(1.0)] == 50.0
    # Alpha's cost is known on every trajectory: 1.00 USD for a mean rubric score of 68.75 %
    assert ctx["cost_points"] == [("Alpha run", pytest.approx(1.0), pytest.approx(68.75))]


# -- model page, task page ------------------------------------------------------------------


def test_model_page_lists_graded_and_reported_runs_and_per_type_scores(client, analysis_world):
    load_reported()
    response = client.get(reverse("leaderboard:model_detail", args=["alpha"]))
    (summary,) = response.context["summaries"]
    assert summary.rubric == pytest.approx(68.75) and summary.perfect == pytest.approx(50.0)
    assert summary.counts["missing"] == 1
    lookup = next(r for r in response.context["type_rows"] if r["label"] == "Personal lookup")
    assert lookup["graded"][0]["rubric"] == pytest.approx(87.5)
    assert client.get(reverse("leaderboard:model_detail", args=["nobody"])).status_code == 404
    opus = client.get(reverse("leaderboard:model_detail", args=["claude-opus-46"]))
    assert opus.status_code == 200 and len(opus.context["reported_rows"]) == 2 and "reported" in visible_text(opus)


def test_task_page_shows_every_runs_outcome_linked_to_its_trajectory(client, analysis_world):
    t4 = analysis_world.tasks[3]
    response = client.get(reverse("leaderboard:task_detail", args=[analysis_world.suite.slug, t4.task_id]))
    page = visible_text(response)
    assert "Outcome in every run" in page
    assert "missing (counts as failed)" in page  # Alpha has no trajectory of t4
    assert "errored (counts as failed)" in page
    assert f'href="/trajectories/{analysis_world.b4.pk}/"' in response.content.decode()
    t2 = analysis_world.tasks[1]
    page = visible_text(client.get(reverse("leaderboard:task_detail", args=[analysis_world.suite.slug, t2.task_id])))
    assert "perfect" in page and "incomplete (left out)" in page


def test_unpublished_runs_stay_hidden_from_analysis(client, analysis_world):
    analysis_world.run_b.publication = "draft"
    analysis_world.run_b.save()
    response = client.get(reverse("leaderboard:analysis_heatmaps"))
    assert "Beta run" not in visible_text(response)
    per_model = client.get(reverse("leaderboard:analysis_taxonomy")).context["items"][0]["table"]
    assert per_model.row_labels == ["Alpha"]
    hidden = client.get(reverse("leaderboard:analysis_failures"), {"model": "beta"})
    assert hidden.context["page"].paginator.count == 0


# -- cost -----------------------------------------------------------------------------------


def _grow(analysis_world, n_extra_steps=40):
    """More trajectories, steps and judgments on the same runs."""
    t4 = analysis_world.tasks[3]
    extra = Trajectory.objects.create(run=analysis_world.run_a, task=t4, ended_by="done", n_steps=n_extra_steps)
    judge_all(extra, list(t4.rubric_items.all()), analysis_world.judge, ["failure"], modes={0: "partial_artifact"})
    Step.objects.bulk_create(
        Step(trajectory=extra, index=i, turn=i, tool="computer", action={"type": "click"})
        for i in range(1, n_extra_steps + 1)
    )
    action_counts.recount([extra.pk])


@pytest.mark.parametrize(
    "name,args",
    [
        ("analysis_heatmaps", []),
        ("analysis_taxonomy", []),
        ("analysis_failures", []),
        ("analysis_scaling", []),
        ("model_detail", ["alpha"]),
    ],
)
def test_analysis_pages_use_a_constant_number_of_queries(client, analysis_world, name, args):
    load_reported()
    url = reverse(f"leaderboard:{name}", args=args)
    with CaptureQueriesContext(connection) as small:
        assert client.get(url).status_code == 200
    _grow(analysis_world)
    cache.clear()
    with CaptureQueriesContext(connection) as large:
        assert client.get(url).status_code == 200
    assert len(large) == len(small), [q["sql"][:120] for q in large.captured_queries]


@pytest.mark.parametrize(
    "url",
    ["/leaderboard/", "/analysis/", "/analysis/?metric=perfect", "/analysis/failures/", "/analysis/scaling/",
     "/models/alpha/", "/"],
)  # fmt: skip
def test_a_page_not_in_the_cache_costs_the_same_queries_whether_the_version_memo_is_young_or_old(
    client, analysis_world, settings, monkeypatch, url
):
    """Each process keeps the data version it read for a second; a page that is not in the cache is
    built (or its last copy served) after reading the version itself either way, so its query count
    does not depend on when the process last read it (the bench compares counts across loads)."""
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    now = [1_000_000.0]
    monkeypatch.setattr(page_cache.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(page_cache.time, "time", lambda: now[0])
    monkeypatch.setattr(page_cache, "_memo", {"at": float("-inf"), "signals": None, "version": ""})
    monkeypatch.setattr(page_cache, "_page_memos", {})

    def queries_of_a_page_not_in_the_cache(memo_age: float) -> int:
        cache.clear()
        assert client.get(url).status_code == 200  # the process's memo of the version taken now
        cache.clear()  # the page gone, the signal counter as the memo saw it
        now[0] += memo_age
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    young = queries_of_a_page_not_in_the_cache(0.1)
    old = queries_of_a_page_not_in_the_cache(page_cache.VERSION_MEMO_SECONDS + 1)
    assert young == old, f"{young} queries with the memo a tenth of a second old, {old} with it expired"


def test_pages_render_under_csp_and_link_from_the_nav(client, analysis_world):
    for name in ("analysis_heatmaps", "analysis_taxonomy", "analysis_scaling"):
        response = client.get(reverse(f"leaderboard:{name}"))
        assert "script-src 'self'" in response["Content-Security-Policy"]
        html = response.content.decode()
        assert "/static/vendor/plotly/plotly.min.js" in html and "cdn" not in html.lower()
        assert 'aria-current="page">Analysis</a>' in html


def test_long_row_names_of_share_bars_break_over_lines_so_a_phone_shows_the_bars():
    from leaderboard.analysis import charts

    figure = charts.stacked_shares(
        [("Scripted proactive demo agent (sessions)<br>preference_inference", [50.0, 50.0]), ("short", [100.0, 0.0])],
        ["completed", "provided"],
    )
    labels = figure["data"][0]["y"]
    assert labels[0] == "Scripted proactive demo<br>agent (sessions)<br>preference_inference"
    assert labels[1] == "short"
    assert all(len(line) <= 24 for label in labels for line in label.split("<br>") if " " in line)
    assert figure["layout"]["height"] == 110 + 18 * (4 + 2)  # 18 px a line, plus one line between rows
