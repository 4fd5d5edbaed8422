"""The pages in a real browser: the reported leaderboard, task filters, a task's rubric, a
trajectory; no CSP violations; full-page screenshots kept in test-artifacts/."""

import pytest

from leaderboard.catalog.reported import load_reported
from tests.catalog_data import build_catalog

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(live_server):
    catalog = build_catalog()
    load_reported()
    catalog.url = live_server.url
    return catalog


def test_home_leads_to_the_leaderboard_best_first(site, page, shot):
    page.goto(site.url + "/")
    bars = page.locator(".headline-chart .hc-row")
    assert bars.count() == 7  # each model's published figures once (the paper's newest version)
    first = bars.first.inner_text()
    assert "Claude Opus 4.6" in first and "55.4" in first
    # The values printed beside the bars read best first.
    values = [float(v) for v in page.locator(".headline-chart .hc-value").all_inner_texts()]
    assert values == sorted(values, reverse=True)
    shot(page, "home")
    with page.expect_navigation():
        page.get_by_role("link", name="See the leaderboard").click()
    # each model's published figures once, from the paper's newest version; every version one click away
    assert page.locator("#board-table tbody tr.reported").count() == 7
    with page.expect_navigation():
        page.get_by_role("link", name="Show all published versions").click()
    assert page.locator("#board-table tbody tr.reported").count() == 12
    assert page.console_errors == []


def test_task_filter_changes_rows(site, page, shot):
    page.goto(site.url + "/tasks/")
    rows = page.locator("table.tasks tbody tr")
    assert rows.count() == 4
    # Choosing a type applies the filter at once (static/js/site.js) and gives a shareable URL.
    with page.expect_navigation():
        page.select_option("select[name=type]", "bounded_action")
    assert page.url.endswith("/tasks/?type=bounded_action")
    assert rows.count() == 2
    assert page.locator("table.tasks tbody tr td:first-child a").all_inner_texts() == ["action-b002", "demo-001"]
    with page.expect_navigation():
        page.select_option("select[name=suite]", "demo-v1")
    assert rows.count() == 1
    shot(page, "tasks-filtered")
    assert page.console_errors == []


def test_task_page_shows_the_rubric(site, page, shot):
    page.goto(site.url + "/tasks/")
    page.get_by_role("link", name="retrieval-f016").click()
    page.wait_for_url("**/tasks/mypcbench-eval-round0/retrieval-f016/")
    rubric = page.locator("table.rubric tbody tr")
    assert rubric.count() == 2
    assert rubric.nth(1).locator("td").last.inner_text() == "75.0%"
    assert "Check the reply text." in rubric.first.inner_text()
    shot(page, "task")


def test_trajectory_page_renders_untrusted_text_inert(site, page, dark_page, shot):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{site.url}/trajectories/{site.traj.pk}/")
    assert page.locator("li.step").count() == 2
    assert "<script>alert('owned')</script>" in page.locator("#step-1 .model-text").inner_text()
    # Screenshots load from our media URL.
    img = page.locator("#step-1 img")
    img.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())
    assert dialogs == []
    shot(page, "trajectory")
    dark_page.goto(site.url + "/")
    bg = dark_page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(17, 20, 24)"
    shot(dark_page, "home-dark")


def test_suite_and_run_pages(site, page, shot):
    page.goto(site.url + "/suites/mypcbench-eval-round0/")
    facts = page.locator("dl.facts").first.inner_text()
    assert "3" in facts and "6" in facts
    shot(page, "suite")
    page.goto(site.url + "/runs/")
    assert page.locator("table.runs tbody tr").count() == 13  # 12 reported + 1 published; the draft is hidden
    shot(page, "runs")
    page.goto(site.url + "/runs/published-run/")
    assert page.locator('table.trajectories tbody tr [data-cell="judgments"]').last.inner_text().startswith("1 / 2")
    shot(page, "run")


def test_reported_run_page_and_narrow_screen(site, chromium_browser, page, shot):
    page.goto(site.url + "/runs/reported-submission-native-cua-gpt-54/")
    assert page.get_by_text("Reported (published figures, not recomputed).").count() == 1
    assert page.locator("section table").count() >= 4  # overall, by type, by apps touched, failure modes
    shot(page, "run-reported")
    # On a phone-sized screen the page itself never scrolls sideways (wide tables scroll inside).
    context = chromium_browser.new_context(viewport={"width": 390, "height": 800})
    phone = context.new_page()
    for path in ["/", "/tasks/", f"/trajectories/{site.traj.pk}/"]:
        phone.goto(site.url + path)
        assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
    shot(phone, "home-phone")
    context.close()
