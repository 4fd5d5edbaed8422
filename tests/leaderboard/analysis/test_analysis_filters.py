"""The analysis pages and GET /api/analysis/* take the leaderboard's filters (suite, tool surface,
judge, provenance, behavioural type, apps-touched bin, app, rubric weights), parsed by the same
classes and applied by the same selectors; each page offers only the filters that make sense on
it, every filter state is the page's URL (tabs, leaderboard link, cell and bar links carry it),
published figures appear only where they answer the filters. Figures worked out by hand on
tests/analysis_data.py; anonymous pages are sent gzipped to browsers that accept it."""

import gzip
import re

import pytest
from django.contrib.auth import get_user_model

from leaderboard.analysis.queries import HeatmapFilters, ScalingFilters, TaxonomyFilters
from leaderboard.catalog.reported import load_reported
from leaderboard.scoring.filters import BoardFilters

pytestmark = pytest.mark.django_db


def maps(response) -> dict:
    return {item["map"].id: item["map"] for item in response.context["maps"]}


def cell(hm, row_label, col_key):
    return hm.cells[hm.row_labels.index(row_label)][hm.col_keys.index(col_key)]


def select_names(response) -> set[str]:
    form = re.search(r'<form class="filters analysis-filters".*?</form>', response.content.decode(), re.S).group(0)
    return set(re.findall(r'<select name="([a-z]+)"', form))


# -- parsing: one class hierarchy, each page its own filters -----------------------------------


def test_each_page_reads_and_writes_only_the_filters_it_offers():
    query = {
        "suite": "s", "surface": "native", "judge": "j", "provenance": "harness", "type": "personal_lookup",
        "bin": "2-3", "app": "hoolimail", "weighting": "equal", "metric": "perfect", "sort": "cost",
    }  # fmt: skip
    common = {k: query[k] for k in ("suite", "surface", "judge", "provenance", "type", "bin", "app")}
    assert HeatmapFilters.from_query(query).as_query() == {**common, "weighting": "equal", "metric": "perfect"}
    assert ScalingFilters.from_query(query).as_query() == {**common, "weighting": "equal"}
    assert TaxonomyFilters.from_query(query).as_query() == common
    # the leaderboard parses the same values with the same class, plus its sort
    assert BoardFilters.from_query(query).as_query() == {**common, "weighting": "equal", "sort": "cost"}
    # unknown values are dropped as on the leaderboard; the heatmap's metric defaults to rubric
    stale = HeatmapFilters.from_query({"surface": "telepathy", "type": "nope", "bin": "99", "metric": "x"})
    assert stale.as_query() == {} and stale.metric == "rubric"


def test_each_page_offers_its_filters_and_carries_them_to_the_tabs_and_the_leaderboard(client, analysis_world):
    url = "/analysis/?type=personal_lookup&weighting=equal&metric=perfect"
    page = client.get(url)
    assert select_names(page) == {"suite", "surface", "judge", "provenance", "type", "bin", "app", "weighting"}
    html = page.content.decode()
    assert 'href="/analysis/failures/?type=personal_lookup">Failure taxonomy' in html
    assert 'href="/analysis/scaling/?type=personal_lookup&amp;weighting=equal">Scaling and shape' in html
    assert 'href="/leaderboard/?type=personal_lookup&amp;weighting=equal">The leaderboard with these filters' in html
    assert 'href="?type=personal_lookup&amp;weighting=equal&amp;metric=perfect" rel="bookmark"' in html
    # the metric switch keeps the filters
    assert 'href="/analysis/?type=personal_lookup&amp;weighting=equal">Rubric score %' in html
    assert select_names(client.get("/analysis/failures/")) == {
        "suite", "surface", "judge", "provenance", "type", "bin", "app",
    }  # fmt: skip
    assert "weighting" in select_names(client.get("/analysis/scaling/"))
    chosen = re.search(r'<select name="type">.*?</select>', html, re.S).group(0)
    assert '<option value="personal_lookup" selected>' in chosen


# -- heatmaps -------------------------------------------------------------------------------


def test_a_type_filter_slices_every_heatmap_and_each_cell_links_its_slice(client, analysis_world):
    load_reported()
    found = maps(client.get("/analysis/", {"type": "personal_lookup"}))
    assert found["graded-type-rubric"].col_keys == ["personal_lookup"]
    apps = found["graded-app-rubric"]
    # personal lookup tasks: t1 (HooliMail), t3 (HooliCalendar)
    assert apps.col_keys == ["hoolicalendar", "hoolimail"]
    assert cell(apps, "Alpha run", "hoolimail").value == pytest.approx(75.0)  # t1 = (0*1 + 1*3)/4
    assert cell(apps, "Beta run", "hoolimail").value == pytest.approx(100.0)
    link = cell(apps, "Alpha run", "hoolimail").url
    assert link == "/trajectories/?run=alpha-run&type=personal_lookup&app=hoolimail"
    shown = {t.task.task_id for t in client.get(link).context["page"].object_list}
    assert shown == {"lookup-1"}
    # published figures: the by-type map keeps this type's column, the by-bin map (published
    # over every type) is left out
    reported = [hm for hm in found.values() if hm.reported]
    assert reported and all(hm.col_keys == ["personal_lookup"] for hm in reported)
    assert not any("apps_touched" in hm.id for hm in reported)


def test_equal_weights_and_a_judge_change_the_cells(client, analysis_world):
    authored = cell(maps(client.get("/analysis/"))["graded-type-rubric"], "Alpha run", "personal_lookup")
    equal = cell(maps(client.get("/analysis/", {"weighting": "equal"}))["graded-type-rubric"], "Alpha run",
                 "personal_lookup")  # fmt: skip
    assert authored.value == pytest.approx(87.5)  # t1 0.75, t3 1
    assert equal.value == pytest.approx(75.0)  # t1 1 of 2 items = 0.5, t3 1
    # the stray judge judged only Alpha's t1 (both items failed): Beta drops out; t3 and t2 are
    # unjudged by it (left out, counted), t4 missing counts 0
    stray = maps(client.get("/analysis/", {"judge": "someone-elses-judge"}))["graded-type-rubric"]
    assert stray.row_labels == ["Alpha run"]
    lookup, action = cell(stray, "Alpha run", "personal_lookup"), cell(stray, "Alpha run", "bounded_action")
    assert (lookup.value, lookup.n, lookup.incomplete) == (0.0, 1, 1)
    assert (action.value, action.n, action.incomplete) == (0.0, 1, 1)


def test_provenance_surface_and_suite_pick_the_runs(client, analysis_world):
    load_reported()
    analysis_world.run_b.tool_surface = "native"
    analysis_world.run_b.save()
    imported = maps(client.get("/analysis/", {"provenance": "imported"}))
    assert imported["graded-type-rubric"].row_labels == ["Beta run"]
    assert not any(hm.reported for hm in imported.values())  # a graded provenance: no published maps
    native = maps(client.get("/analysis/", {"surface": "native"}))
    assert native["graded-type-rubric"].row_labels == ["Beta run"]
    # of the two published result sets, only the native agents' one
    assert {hm.note for hm in native.values() if hm.reported} == {
        "Submission: each provider's native computer-use agent"
    }
    reported_only = client.get("/analysis/", {"provenance": "reported"})
    assert all(hm.reported for hm in maps(reported_only).values()) and maps(reported_only)
    nowhere = client.get("/analysis/", {"suite": "no-such-suite"})
    assert maps(nowhere) == {} and "Nothing matches these filters" in nowhere.content.decode()


def test_the_heatmaps_api_takes_the_same_filters_and_says_which_it_applied(client, analysis_world):
    page = maps(client.get("/analysis/", {"type": "personal_lookup", "weighting": "equal", "metric": "perfect"}))
    data = client.get(
        "/api/analysis/heatmaps", {"type": "personal_lookup", "weighting": "equal", "metric": "perfect", "bin": "x"}
    ).json()
    assert data["filters"] == {"type": "personal_lookup", "weighting": "equal", "metric": "perfect"}
    assert [m["id"] for m in data["maps"]] == list(page)
    app_map = next(m for m in data["maps"] if m["id"] == "graded-app-perfect")
    alpha = app_map["rows"][0]
    assert [c["value"] for c in alpha["cells"]] == [
        cell(page["graded-app-perfect"], "Alpha run", key).value for key in ("hoolicalendar", "hoolimail")
    ]
    assert alpha["cells"][1]["url"] == "/trajectories/?run=alpha-run&type=personal_lookup&app=hoolimail"


def test_published_figures_show_only_where_they_answer_the_filters_on_the_leaderboard_too(client, analysis_world):
    load_reported()
    by_type = client.get("/leaderboard/", {"type": "personal_lookup"}).context["board"]
    assert by_type.reported_rows  # published per behavioural type
    # a type and a bin at once: no publication gives that slice
    both = client.get("/leaderboard/", {"type": "personal_lookup", "bin": "1"}).context["board"]
    assert both.rows and both.reported_rows == []
    found = maps(client.get("/analysis/", {"type": "personal_lookup", "bin": "1"}))
    assert found and not any(hm.reported for hm in found.values())


# -- failure taxonomy -----------------------------------------------------------------------


def test_a_task_filter_narrows_the_taxonomy_and_its_bars_list_exactly_those_judgments(client, analysis_world):
    load_reported()
    page = client.get("/analysis/failures/", {"type": "bounded_action"})
    tables = [item["table"] for item in page.context["items"]]
    assert not any(t.reported for t in tables)  # published counts are over every task
    per_model = tables[0]
    # bounded actions: only Beta's t2 failed an item (premature done); Alpha's failure is on t1
    assert per_model.row_labels == ["Beta"] and per_model.modes == ["premature_done"]
    assert per_model.counts == [[1]]
    url = per_model.urls[0][0]
    assert url == "/analysis/failures/judgments/?model=beta&mode=premature_done&type=bounded_action"
    listing = client.get(url)
    assert [j.trajectory.task.task_id for j in listing.context["page"].object_list] == ["action-2"]
    assert "model beta, behavioural type Bounded action" in listing.content.decode()
    assert 'href="/analysis/failures/?type=bounded_action">Failure taxonomy' in listing.content.decode()
    # the stray judge's failures (mode other) count only when that judge is asked for
    stray = client.get("/analysis/failures/", {"judge": "someone-elses-judge"}).context["items"][0]["table"]
    assert stray.row_labels == ["Alpha"] and dict(zip(stray.modes, stray.counts[0], strict=True)) == {"other": 2}
    data = client.get("/api/analysis/taxonomy", {"type": "bounded_action"}).json()
    assert data["filters"] == {"type": "bounded_action"}
    assert data["tables"][0]["rows"][0]["urls"]["premature_done"] == url


# -- scaling and shape ----------------------------------------------------------------------


def test_scaling_under_an_app_filter_counts_cost_and_actions_over_those_tasks(client, analysis_world):
    page = client.get("/analysis/scaling/", {"app": "hoolimail"})
    # HooliMail tasks t1, t2: Alpha's cost 0.50 + 0.25, rubric (0.75 + 1) / 2
    assert page.context["cost_points"] == [("Alpha run", pytest.approx(0.75), pytest.approx(87.5))]
    shapes = {s.run.slug: s.total for s in page.context["shapes"]}
    assert shapes == {"alpha-run": 6, "beta-run": 3}  # every recorded step is on t1
    calc = client.get("/analysis/scaling/", {"app": "libreoffice-calc"}).context
    assert calc["shapes"] == []  # t4: Alpha has no trajectory, Beta's errored one has no steps
    runs = {r["run"]: r for r in client.get("/api/analysis/scaling", {"app": "hoolimail"}).json()["runs"]}
    assert runs["alpha-run"]["cost_usd"] == 0.75 and runs["alpha-run"]["rubric_pct"] == 87.5
    whole = {r["run"]: r for r in client.get("/api/analysis/scaling").json()["runs"]}
    assert whole["alpha-run"]["cost_usd"] == 1.0


# -- gzip -----------------------------------------------------------------------------------


def test_anonymous_pages_are_sent_gzipped_to_browsers_that_accept_it_and_staff_pages_never(client, analysis_world):
    plain = client.get("/analysis/")
    assert "Content-Encoding" not in plain and "Accept-Encoding" in plain["Vary"]
    for _ in range(2):  # rendered, then served from the cache
        zipped = client.get("/analysis/", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
        assert zipped["Content-Encoding"] == "gzip"
        assert gzip.decompress(zipped.content) == plain.content
        assert len(zipped.content) * 3 < len(plain.content)
    staff = get_user_model().objects.create_user("staff", password="pw", is_staff=True)
    client.force_login(staff)
    page = client.get("/analysis/", HTTP_ACCEPT_ENCODING="gzip")
    assert "Content-Encoding" not in page and b"csrfmiddlewaretoken" in page.content
