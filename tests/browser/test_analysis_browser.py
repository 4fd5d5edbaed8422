"""Analysis pages in Chromium under the strict CSP: charts render (plotly draws SVG from the JSON
data blocks), a heatmap cell opens the trajectories behind it, a taxonomy bar opens its
judgments; screenshots in light and dark kept in test-artifacts/."""

import pytest
from django.core.cache import cache

from leaderboard.catalog.reported import load_reported
from tests.analysis_data import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(live_server):
    cache.clear()
    world = build_world()
    load_reported()
    world.url = live_server.url
    yield world
    cache.clear()


def csp_errors(page):
    """CSP violations other than plotly.js's attempts at inline style: those are blocked
    harmlessly (its base styles come from static/vendor/plotly/plotly.css and it styles its own
    elements through the CSSOM, which the policy allows)."""
    return [
        e
        for e in page.console_errors
        if ("Content Security Policy" in e or "Refused" in e) and "Applying inline style" not in e
    ]


def wait_for_charts(page):
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-chart]')].every(el => el.dataset.rendered === 'true')"
    )


def test_heatmap_renders_and_a_cell_opens_its_trajectories(site, page, shot):
    page.goto(site.url + "/analysis/")
    wait_for_charts(page)
    chart = page.locator('[data-chart="chart-graded-app-rubric"]')
    assert chart.locator("svg.main-svg").count() >= 1
    shot(page, "analysis-heatmaps")
    chart.scroll_into_view_if_needed()
    # Alpha run x HooliMail: rows are reversed (first run on top), columns sorted by name.
    plot = chart.locator(".nsewdrag").first
    box = plot.bounding_box()
    cols, rows = 3, 2
    x = box["x"] + box["width"] * (1.5 / cols)  # HooliMail, the second column
    y = box["y"] + box["height"] * (0.5 / rows)  # Alpha run, the first row
    page.mouse.move(x, y)
    with page.expect_navigation():
        page.mouse.click(x, y)
    assert "run=alpha-run" in page.url and "app=hoolimail" in page.url
    tasks = sorted(page.locator("table.data tbody tr td:nth-child(2)").all_inner_texts())
    assert tasks == ["action-2", "lookup-1"]
    assert csp_errors(page) == []


def test_heatmaps_without_js_charts_still_have_tables(site, page):
    page.goto(site.url + "/analysis/?metric=perfect")
    wait_for_charts(page)
    assert page.locator("a.chip-active").inner_text() == "Perfect rate %"
    assert page.locator("table.heatmap-table").count() >= 3
    assert csp_errors(page) == []


def test_taxonomy_bar_opens_its_judgments(site, page, shot):
    page.goto(site.url + "/analysis/failures/")
    wait_for_charts(page)
    assert page.locator("[data-chart] svg.main-svg").count() >= 2
    shot(page, "analysis-taxonomy")
    bar = page.locator('[data-chart="chart-taxonomy-0"] .bars .point path').first
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    with page.expect_navigation():
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    # The first bar: Beta (most failed items, listed first), premature done: one judgment.
    assert "/analysis/failures/judgments/?model=beta&mode=premature_done" in page.url
    assert page.locator("table.data tbody tr").count() == 1
    assert "action-2" in page.locator("table.data tbody tr").inner_text()
    assert csp_errors(page) == []


def test_scaling_model_and_task_pages_in_light_and_dark(site, page, dark_page, shot):
    for p, suffix in ((page, ""), (dark_page, "-dark")):
        p.goto(site.url + "/analysis/scaling/")
        wait_for_charts(p)
        # apps touched (exact and bins), step budget, profile, action shape, cost, reported apps
        # touched (no tokens recorded in this world: no tokens chart)
        assert p.locator("[data-chart][data-rendered=true]").count() == 7
        shot(p, "analysis-scaling" + suffix)
        p.goto(site.url + "/analysis/")
        wait_for_charts(p)
        shot(p, "analysis-heatmaps" + suffix)
    page.goto(site.url + "/models/alpha/")
    shot(page, "analysis-model")
    page.goto(site.url + "/tasks/mypcbench-eval-round0/action-4/")
    assert page.locator("#run-outcomes tbody tr").count() == 2
    shot(page, "analysis-task-outcomes")
    assert csp_errors(page) == []
