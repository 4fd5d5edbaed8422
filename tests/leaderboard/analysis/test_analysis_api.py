"""The analysis API (GET /api/analysis/heatmaps, /taxonomy, /scaling) returns what the pages show,
from the same selectors and filters; single-attempt success beside a labelled best-of-k upper
bound, perfect rate by the exact number of apps touched and tokens, worked out by hand on
tests/analysis_data.py; anonymous pages cached whole per data version and invalidated."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboard.analysis import charts
from leaderboard.analysis.heatmaps import Cell, Heatmap
from leaderboard.catalog.reported import load_reported
from tests.analysis_data import judge_all
from tests.html_text import visible_text
from trajectories.models import Judgment, Trajectory

pytestmark = pytest.mark.django_db


def r2(x):
    return None if x is None else round(x, 2)


def second_attempts(analysis_world):
    """Alpha gets a second attempt: t1 perfect, t2 with R1 failed, t3 perfect, t4 still missing.
    Cells t1 [0, 1], t2 [1, 0], t3 [1, 1], t4 [0, 0]: single-attempt success 4/8 = 50%;
    best-of-2 = mean(1 - (1 - p)^2) over p = (.5, .5, 1, 0) = (.75 + .75 + 1 + 0) / 4 = 62.5%."""
    t1, t2, t3, _t4 = analysis_world.tasks
    for task, verdicts in ((t1, ["success", "success"]), (t2, ["failure", "success"]), (t3, ["success"])):
        traj = Trajectory.objects.create(run=analysis_world.run_a, task=task, attempt=1, ended_by="done", n_steps=5)
        judge_all(traj, list(task.rubric_items.order_by("position")), analysis_world.judge, verdicts)


# -- heatmaps -------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["rubric", "perfect"])
def test_heatmaps_api_returns_every_map_and_cell_the_page_shows(client, analysis_world, metric):
    load_reported()
    page = client.get(reverse("leaderboard:analysis_heatmaps"), {"metric": metric})
    data = client.get("/api/analysis/heatmaps", {"metric": metric}).json()
    shown = [item["map"] for item in page.context["maps"]]
    assert data["metric"] == metric
    assert [m["id"] for m in data["maps"]] == [hm.id for hm in shown]
    for hm, m in zip(shown, data["maps"], strict=True):
        assert m["reported"] == hm.reported and [c["label"] for c in m["columns"]] == hm.col_labels
        assert [row["label"] for row in m["rows"]] == hm.row_labels
        for cells, row in zip(hm.cells, m["rows"], strict=True):
            assert [(r2(c.value), r2(c.low), r2(c.high), c.n, c.url) for c in cells] == [
                (c["value"], c["low"], c["high"], c["n"], c["url"]) for c in row["cells"]
            ]
    assert f"/api/analysis/heatmaps?metric={metric}" in page.content.decode()


def test_heatmaps_api_filters_by_dimension_with_hand_computed_cells(client, analysis_world):
    data = client.get("/api/analysis/heatmaps", {"metric": "perfect", "dimension": "bin"}).json()
    (graded,) = [m for m in data["maps"] if not m["reported"]]
    assert graded["id"] == "graded-bin-perfect" and [c["key"] for c in graded["columns"]] == ["1", "2-3", "4-6", "7+"]
    alpha = graded["rows"][0]
    assert alpha["label"] == "Alpha run"
    one_app = alpha["cells"][0]  # t1 not perfect, t3 perfect -> 1/2 with the Wilson interval
    assert (one_app["value"], one_app["low"], one_app["high"], one_app["n"]) == (50.0, 9.45, 90.55, 2)
    assert one_app["url"] == "/trajectories/?run=alpha-run&bin=1"
    beta_two = graded["rows"][1]["cells"][1]  # t2 incomplete: left out, counted
    assert (beta_two["value"], beta_two["n"], beta_two["incomplete"]) == (None, 0, 1)
    # an unknown metric falls back to the page's default, as on the page
    assert client.get("/api/analysis/heatmaps", {"metric": "bogus"}).json()["metric"] == "rubric"


# -- taxonomy -------------------------------------------------------------------------------


def test_taxonomy_api_matches_the_page_counts_and_links(client, analysis_world):
    load_reported()
    page = client.get(reverse("leaderboard:analysis_taxonomy"))
    tables = [item["table"] for item in page.context["items"]]
    data = client.get("/api/analysis/taxonomy").json()["tables"]
    assert [(t["title"], t["reported"]) for t in data] == [(t.title, t.reported) for t in tables]
    per_model = data[0]
    beta = next(r for r in per_model["rows"] if r["label"] == "Beta")
    assert beta["counts"] == {"premature_done": 1, "skipped_required_app": 1} and beta["total"] == 2
    assert beta["urls"]["skipped_required_app"] == "/analysis/failures/judgments/?model=beta&mode=skipped_required_app"
    assert client.get(beta["urls"]["skipped_required_app"]).context["page"].paginator.count == 1
    book = next(t for t in data if t["reported"] and t["source"] == "arXiv 5.4 / Table 8")
    assert book["rows"][0]["counts"]["premature_done"] == 354


# -- scaling and shape ----------------------------------------------------------------------


def test_perfect_rate_by_exact_apps_touched(client, analysis_world):
    # apps touched: t1 1, t2 2, t3 1, t4 5 (bins would merge 2 with 3 and 5 with 4-6)
    runs = {r["run"]: r for r in client.get("/api/analysis/scaling").json()["runs"]}
    alpha = runs["alpha-run"]["perfect_by_apps_touched"]
    assert list(alpha) == ["1", "2", "5"]
    assert (alpha["1"]["value"], alpha["1"]["n"], alpha["1"]["low"]) == (50.0, 2, 9.45)
    assert (alpha["2"]["value"], alpha["5"]["value"]) == (100.0, 0.0)  # t4 missing counts 0
    beta = runs["beta-run"]["perfect_by_apps_touched"]
    assert (beta["2"]["value"], beta["2"]["incomplete"]) == (None, 1)
    page = client.get(reverse("leaderboard:analysis_scaling"))
    assert 'data-chart="chart-apps-count"' in page.content.decode()
    table = visible_text(page).split("Perfect rate against the number of apps touched")[1]
    assert "1 app 2 apps 5 apps" in table and "100.0" in table


def test_tokens_on_the_scaling_page_and_api(client, analysis_world):
    for traj, (inp, out) in (
        (analysis_world.a1, (1000, 200)),
        (Trajectory.objects.get(run=analysis_world.run_a, task=analysis_world.tasks[1]), (500, 50)),
    ):
        traj.input_tokens, traj.output_tokens = inp, out
        traj.save()
    runs = {r["run"]: r for r in client.get("/api/analysis/scaling").json()["runs"]}
    assert (runs["alpha-run"]["input_tokens"], runs["alpha-run"]["output_tokens"]) == (1500, 250)
    assert runs["beta-run"]["input_tokens"] is None
    page = client.get(reverse("leaderboard:analysis_scaling"))
    assert page.context["token_points"] == [("Alpha run", 1750, pytest.approx(68.75))]
    assert 'data-chart="chart-tokens"' in page.content.decode()
    assert "Rubric score against tokens" in visible_text(page) and "Alpha run 1,500 250 68.8%" in visible_text(page)


def test_one_attempt_runs_show_no_best_of_k(client, analysis_world):
    page = client.get(reverse("leaderboard:analysis_scaling"))
    assert "Perfect %" in visible_text(page) and "upper bound" not in visible_text(page).lower()
    runs = client.get("/api/analysis/scaling").json()["runs"]
    assert all(r["attempts"] == 1 and r["best_of_k_upper_bound_pct"] is None for r in runs)
    alpha = next(r for r in runs if r["run"] == "alpha-run")["single_attempt_success_pct"]
    assert (alpha["value"], alpha["low"], alpha["high"]) == (50.0, 15.0, 85.0)  # Wilson 2 of 4


def test_several_attempts_show_best_of_k_labelled_as_an_upper_bound(client, analysis_world):
    second_attempts(analysis_world)
    runs = {r["run"]: r for r in client.get("/api/analysis/scaling").json()["runs"]}
    alpha = runs["alpha-run"]
    assert alpha["attempts"] == 2
    assert alpha["single_attempt_success_pct"]["value"] == 50.0  # 4 of 8 (task, attempt) cells
    assert alpha["best_of_k_upper_bound_pct"] == 62.5
    assert runs["beta-run"]["best_of_k_upper_bound_pct"] is None  # one attempt
    page = visible_text(client.get(reverse("leaderboard:analysis_scaling")))
    assert "Best-of-k / replay-equivalent upper bound" in page
    assert "≤ 62.5% (k = 2, upper bound)" in page and "— (one attempt)" in page


def test_scaling_api_matches_the_page(client, analysis_world):
    load_reported()
    page = client.get(reverse("leaderboard:analysis_scaling")).context
    data = client.get("/api/analysis/scaling").json()
    assert [r["run_name"] for r in data["runs"]] == [s.run.name for s in page["summaries"]]
    budget = {name: ys for name, _, ys in page["budget"]}
    for run in data["runs"]:
        assert run["step_budget"]["y"] == [r2(y) for y in budget[run["run_name"]]]
    shapes = {s.run.slug: s.shares for s in page["shapes"]}
    assert data["runs"][0]["action_shape"]["bash"] == r2(shapes["alpha-run"][5])
    assert [line["run_name"] for line in data["reported_perfect_by_apps_touched_bin"]] == [
        name for name, _, _ in page["reported_by_bin"]
    ]


def test_api_docs_list_the_analysis_endpoints(client):
    paths = client.get("/api/openapi.json").json()["paths"]
    for name in ("heatmaps", "taxonomy", "scaling"):
        assert f"/api/analysis/{name}" in paths and paths[f"/api/analysis/{name}"]["get"]["description"]


# -- wide heatmaps --------------------------------------------------------------------------


def test_a_heatmap_with_17_apps_slants_abbreviated_labels_and_scrolls():
    labels = [f"Hooli Application Number {i}" for i in range(17)]
    hm = Heatmap(
        id="graded-app-rubric",
        title="t",
        metric="rubric",
        row_labels=["Run"],
        col_keys=[str(i) for i in range(17)],
        col_labels=labels,
        cells=[[Cell(value=50.0, n=1) for _ in labels]],
    )
    figure = charts.heatmap(hm)
    assert figure["layout"]["xaxis"]["tickangle"] == -45
    assert len(set(figure["x"])) == 17 and all(len(x) <= 22 for x in figure["x"])  # one shared prefix: numbered
    assert figure["layout"]["width"] >= 17 * charts.WIDE_COLUMN_PX  # charts.js sets it as min-width
    assert figure["labels"][3] == labels[3]  # the full name, for the hover charts.js writes
    few = charts.heatmap(Heatmap("m", "t", "rubric", ["Run"], ["a"], ["App"], [[Cell(value=1.0)]]))
    assert "width" not in few["layout"] and few["layout"]["xaxis"]["tickangle"] == 0


# -- whole-page cache -----------------------------------------------------------------------

PAGES = [
    ("analysis_heatmaps", []),
    ("analysis_taxonomy", []),
    ("analysis_failures", []),
    ("analysis_scaling", []),
    ("model_detail", ["alpha"]),
]


@pytest.mark.parametrize("name,args", PAGES)
def test_anonymous_analysis_pages_are_served_whole_from_the_cache(client, analysis_world, name, args):
    url = reverse(f"leaderboard:{name}", args=args)
    first = client.get(url)
    with CaptureQueriesContext(connection) as again:
        second = client.get(url)
    assert second.content == first.content
    assert len(again) == 1  # only the data version is read: no scoring, no rendering


@pytest.mark.parametrize("name,args", PAGES)
def test_a_changed_judgment_invalidates_every_cached_analysis_page(client, analysis_world, name, args):
    url = reverse(f"leaderboard:{name}", args=args)
    client.get(url)
    # Beta's t3 failure (skipped required app) becomes a success: taxonomy, heatmaps, scaling and
    # the failures list all change
    j = Judgment.objects.get(trajectory=analysis_world.b3, judge=analysis_world.judge)
    j.verdict, j.failure_mode = "success", ""
    j.save()
    with CaptureQueriesContext(connection) as after:
        client.get(url)
    assert len(after) > 1  # rebuilt


def test_cached_heatmap_shows_the_new_verdict(client, analysis_world):
    url = reverse("leaderboard:analysis_heatmaps")

    def beta_lookup(response):
        hm = next(item["map"] for item in response.context["maps"] if item["map"].id == "graded-type-rubric")
        return hm.cells[hm.row_labels.index("Beta run")][hm.col_keys.index("personal_lookup")].value

    before = client.get(url)
    assert beta_lookup(before) == pytest.approx(50.0)  # Beta personal lookup: t1 1, t3 0
    assert client.get(url).content == before.content  # cached
    j = Judgment.objects.get(trajectory=analysis_world.b3, judge=analysis_world.judge)
    j.verdict = "success"
    j.save()
    after = client.get(url)
    assert beta_lookup(after) == pytest.approx(100.0)
    assert client.get(url).content == after.content != before.content


def test_staff_pages_are_not_served_from_the_anonymous_cache(client, analysis_world):
    analysis_world.run_b.publication = "draft"
    analysis_world.run_b.save()
    url = reverse("leaderboard:analysis_heatmaps")
    assert "Beta run" not in visible_text(client.get(url))
    staff = get_user_model().objects.create_user("staff", password="pw", is_staff=True)
    client.force_login(staff)
    assert "Beta run" in visible_text(client.get(url))
    client.logout()
    assert "Beta run" not in visible_text(client.get(url))


def test_model_page_shows_best_of_k_under_single_attempt_success(client, analysis_world):
    page = visible_text(client.get(reverse("leaderboard:model_detail", args=["alpha"])))
    assert "Perfect %" in page and "upper bound" not in page
    second_attempts(analysis_world)
    page = visible_text(client.get(reverse("leaderboard:model_detail", args=["alpha"])))
    assert "50.0% best-of-2 / replay-equivalent upper bound ≤ 62.5%" in page


def test_staff_pages_and_the_api_reuse_the_figures_computed_for_this_data_version(client, analysis_world):
    staff = get_user_model().objects.create_user("staff", password="pw", is_staff=True)
    client.force_login(staff)
    url = reverse("leaderboard:analysis_heatmaps")
    with CaptureQueriesContext(connection) as first:
        client.get(url)
    with CaptureQueriesContext(connection) as second:
        page = client.get(url)
    assert len(second) < len(first)  # no scoring, no bootstrap: only the session, user and version
    assert "Beta run" in visible_text(page)
    j = Judgment.objects.get(trajectory=analysis_world.b3, judge=analysis_world.judge)
    j.verdict = "success"
    j.save()
    hm = next(item["map"] for item in client.get(url).context["maps"] if item["map"].id == "graded-type-rubric")
    assert hm.cells[hm.row_labels.index("Beta run")][hm.col_keys.index("personal_lookup")].value == 100.0


def test_every_scored_endpoint_takes_the_same_documented_run_filters(client):
    """One filter schema for the leaderboard and the analysis endpoints: the same parameters, each
    described, and a filter given to any of them is echoed as applied."""
    spec = client.get("/api/openapi.json").json()
    shared = ["suite", "surface", "judge", "provenance", "type", "bin", "app"]
    for path in ("/api/leaderboard", "/api/analysis/heatmaps", "/api/analysis/taxonomy", "/api/analysis/scaling"):
        params = {p["name"]: p for p in spec["paths"][path]["get"]["parameters"]}
        assert [name for name in params if name in shared] == shared, path
        assert all(params[name].get("description") for name in shared), path
        body = client.get(path, {"provenance": "harness", "bin": "2-3"}).json()
        assert body["filters"].get("provenance") == "harness" and body["filters"].get("bin") == "2-3", path
