"""Analysis pages in Chromium: the metric switch redraws every map, what the charts draw equals
GET /api/analysis/*, the 17-app heatmap scrolls sideways with slanted labels, and best-of-k shows
only as a labelled upper bound; screenshots in light and dark kept in test-artifacts/."""

import pytest
from django.core.cache import cache

from leaderboard.catalog.reported import load_reported
from tests.analysis_data import build_world
from tests.board_data import build_synthetic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DRAWN = """() => [...document.querySelectorAll('[data-chart]')].map(el => ({
    id: el.dataset.chart, z: el.data && el.data[0].z ? el.data[0].z : null,
    y: el.data ? el.data.map(t => t.y) : null}))"""


def wait_for_charts(page):
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-chart]')].every(el => el.dataset.rendered === 'true')"
    )


def api(page, path):
    return page.evaluate("(p) => fetch(p).then(r => r.json())", path)


def rounded(grid):
    return [[None if v is None else round(v, 2) for v in row] for row in grid]


@pytest.fixture
def small(live_server):
    cache.clear()
    world = build_world()
    load_reported()
    world.url = live_server.url
    yield world
    cache.clear()


@pytest.fixture
def wide(live_server):
    """17 apps, 3 attempts per task: the app heatmap is wide and best-of-k appears."""
    cache.clear()
    build_synthetic(runs=4, tasks=40, attempts=3, steps=8, seed=3, slug="wide", with_steps=True)
    yield live_server.url
    cache.clear()


def test_the_metric_switch_redraws_every_map_with_the_apis_numbers(small, page, shot):
    page.goto(small.url + "/analysis/")
    wait_for_charts(page)
    rubric = {d["id"]: d["z"] for d in page.evaluate(DRAWN)}
    assert page.locator("a.chip-active").inner_text() == "Rubric score %"
    with page.expect_navigation():
        page.get_by_role("link", name="Perfect rate %").click()
    wait_for_charts(page)
    assert "metric=perfect" in page.url and page.locator("a.chip-active").inner_text() == "Perfect rate %"
    perfect = {d["id"]: d["z"] for d in page.evaluate(DRAWN)}
    shot(page, "analysis-heatmaps-perfect")
    # every map of the rubric page has its perfect-rate counterpart, drawn, or is named as
    # published only as rubric score
    elsewhere = page.locator("#reported-elsewhere li").count()
    counterparts = [k.replace("-rubric", "-perfect") for k in rubric]
    assert {k for k in counterparts if k.startswith("chart-graded")} == {
        k for k in perfect if k.startswith("chart-graded")
    }
    assert len(counterparts) == len([k for k in counterparts if k in perfect]) + elsewhere
    titles = page.locator("section.analysis-card:has([data-chart]) h2").all_inner_texts()
    assert titles and all(t.startswith("Perfect rate %") for t in titles)
    # what each chart draws is what the API returns for the same filter
    maps = api(page, "/api/analysis/heatmaps?metric=perfect")["maps"]
    assert len(maps) == len(perfect)
    for m in maps:
        drawn = perfect[f"chart-{m['id']}"]
        assert rounded(drawn) == [[c["value"] for c in row["cells"]] for row in m["rows"]], m["id"]
    # and the graded rubric maps differ from the perfect ones somewhere (the switch changed them)
    assert rubric["chart-graded-type-rubric"] != perfect["chart-graded-type-perfect"]


def test_scaling_charts_draw_the_apis_numbers(small, page):
    page.goto(small.url + "/analysis/scaling/")
    wait_for_charts(page)
    drawn = {d["id"]: d["y"] for d in page.evaluate(DRAWN)}
    runs = api(page, "/api/analysis/scaling")["runs"]
    # the step-budget line is drawn from the points where it steps: the API's curve there
    xs = page.evaluate("() => document.querySelector('[data-chart=\"chart-step-budget\"]').data[0].x")
    curve = runs[0]["step_budget"]
    assert len(xs) < len(curve["x"]) and xs[0] == 0 and xs[-1] == curve["x"][-1]
    assert [round(y, 2) for y in drawn["chart-step-budget"][0]] == [curve["y"][x] for x in xs]
    steps = sorted(set(curve["y"]))
    assert sorted(set(drawn["chart-step-budget"][0])) == steps
    by_count = [[None if v is None else round(v, 2) for v in ys] for ys in drawn["chart-apps-count"]]
    assert by_count == [[c["value"] for c in r["perfect_by_apps_touched"].values()] for r in runs]
    assert [round(y, 2) for y in drawn["chart-profile"][1]] == runs[1]["performance_profile"]["y"]


def test_wide_app_heatmap_fits_a_desktop_with_a_colour_legend_and_best_of_k_is_labelled(wide, page, dark_page, shot):
    for p, suffix in ((page, ""), (dark_page, "-dark")):
        p.goto(wide + "/analysis/")
        wait_for_charts(p)
        chart = p.locator('[data-chart="chart-graded-app-rubric"]')
        ticks = chart.locator(".xtick text")
        assert ticks.count() == 17
        assert "rotate(-45" in (ticks.first.get_attribute("transform") or "")
        scroller = p.locator('.chart-scroll:has([data-chart="chart-graded-app-rubric"])')
        # 17 apps fit a 1280 px screen without sideways scrolling, cells still readable (not squeezed)
        assert scroller.evaluate("el => el.scrollWidth <= el.clientWidth")
        assert chart.locator(".xtick text").nth(1).bounding_box()["x"] - ticks.first.bounding_box()["x"] >= 45
        assert p.locator('.chart-scroll:has([data-chart="chart-graded-app-rubric"]) + .heat-legend').count() == 1
        chart.scroll_into_view_if_needed()
        shot(p, "analysis-heatmaps-17-apps" + suffix)
        p.goto(wide + "/analysis/scaling/")
        wait_for_charts(p)
        header = p.locator("#success-table thead").text_content()
        assert "Perfect %" in header and "Best-of-k / replay-equivalent upper bound" in header
        assert "upper bound" in p.locator("#success-table tbody tr").first.inner_text()
        assert p.locator('[data-chart="chart-tokens"][data-rendered=true]').count() == 1
        assert p.locator('[data-chart="chart-apps-count"][data-rendered=true]').count() == 1
        shot(p, "analysis-scaling-attempts" + suffix)


def test_heatmap_filters_round_trip_through_the_url(small, page, shot):
    page.goto(small.url + "/analysis/")
    wait_for_charts(page)
    # choosing a behavioural type reloads the page with it in the URL (no Apply click needed)
    with page.expect_navigation():
        page.select_option("select[name=type]", "personal_lookup")
    wait_for_charts(page)
    assert page.url.endswith("/analysis/?type=personal_lookup")
    with page.expect_navigation():
        page.select_option("select[name=weighting]", "equal")
    wait_for_charts(page)
    assert "type=personal_lookup" in page.url and "weighting=equal" in page.url
    with page.expect_navigation():
        page.get_by_role("link", name="Perfect rate %").click()
    wait_for_charts(page)
    query = page.url.split("?", 1)[1]
    assert set(query.split("&")) == {"type=personal_lookup", "weighting=equal", "metric=perfect"}
    drawn = {d["id"]: d["z"] for d in page.evaluate(DRAWN)}
    # what is drawn is what the API answers for the same query string
    for m in api(page, "/api/analysis/heatmaps?" + query)["maps"]:
        assert rounded(drawn[f"chart-{m['id']}"]) == [[c["value"] for c in row["cells"]] for row in m["rows"]]
    # personal lookups touch HooliCalendar and HooliMail only; the by-type map keeps one column
    assert page.locator('[data-chart="chart-graded-app-perfect"] .xtick text').count() == 2
    assert page.locator('[data-chart="chart-graded-type-perfect"] .xtick text').count() == 1
    assert page.locator("select[name=type] option:checked").inner_text() == "Personal lookup"
    assert page.locator("select[name=weighting] option:checked").inner_text() == "equal weights"
    shot(page, "analysis-heatmaps-filtered")
    # the permalink opens the same state; the hover of a cell gives n and the interval
    permalink = page.locator("a.permalink").get_attribute("href")
    page.goto(small.url + "/analysis/" + permalink)
    wait_for_charts(page)
    assert {d["id"]: d["z"] for d in page.evaluate(DRAWN)} == drawn
    chart = page.locator('[data-chart="chart-graded-app-perfect"]')
    chart.scroll_into_view_if_needed()
    box = chart.locator(".nsewdrag").first.bounding_box()
    x, y = box["x"] + box["width"] * 0.75, box["y"] + box["height"] * 0.25  # Alpha run x HooliMail
    page.mouse.move(x, y)
    hover = page.locator(".hoverlayer .hovertext").first
    hover.wait_for()
    assert "HooliMail" in hover.text_content() and "n = 1 tasks" in hover.text_content()
    # the cell opens the trajectories of its run, app and the filtered type
    with page.expect_navigation():
        page.mouse.click(x, y)
    assert "run=alpha-run" in page.url and "type=personal_lookup" in page.url and "app=hoolimail" in page.url
    assert page.locator("table.data tbody tr td:nth-child(2)").all_inner_texts() == ["lookup-1"]
    # the tabs carry the filters each page offers
    page.go_back()
    wait_for_charts(page)
    with page.expect_navigation():
        page.get_by_role("link", name="Failure taxonomy").click()
    assert page.url.endswith("/analysis/failures/?type=personal_lookup")
    assert page.locator("select[name=type] option:checked").inner_text() == "Personal lookup"
    assert page.locator("select[name=weighting]").count() == 0
