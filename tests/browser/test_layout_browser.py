"""What a visitor meets on a phone (390x844) and a desktop (1280x800), measured in Chromium on the
demo content: the run page's table shows every task id whole and breaks headers between words only;
the player's screenshot, play button and scrubber are on the first screen at 1280x800 (signed in
too) and the screenshot near the top on a phone; heatmap cells stay at least 24 px wide on a phone,
the chart scrolling sideways in its own box; no cell of the task list or the compare page is cut off
by its container; the headline chart's published figures are drawn as diamonds, as its key says."""

import io

import pytest
from django.core.management import call_command

from tests.site_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
PASSWORD = "pw-layout-check-2026"

# Cells of tables in <main> that stick out of the nearest box that clips them (or the screen);
# a visually hidden header row (phones' card layout) is not a cell anyone sees.
CLIPPED_CELLS = """() => {
  const out = [];
  const clipBox = (el) => {
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible") return a.getBoundingClientRect();
    }
    return { left: 0, right: document.documentElement.clientWidth };
  };
  for (const cell of document.querySelectorAll("main table td, main table th")) {
    const r = cell.getBoundingClientRect();
    if (!r.width || !cell.offsetParent) continue;
    const head = cell.closest("thead");
    if (head && head.getBoundingClientRect().width <= 1) continue;
    const box = clipBox(cell);
    const right = Math.min(box.right, document.documentElement.clientWidth);
    if (r.right > right + 1 || r.left < Math.max(box.left, 0) - 1) out.push(cell.textContent.trim().slice(0, 40));
  }
  return out;
}"""


@pytest.fixture
def layout_demo(live_server, settings):
    from django.contrib.auth import get_user_model

    from trajectories.models import Trajectory

    settings.MYPCBENCH_DERIVATIVES = "off"  # the pages fall back to the original screenshots
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    get_user_model().objects.create_user("maintainer", password=PASSWORD, is_staff=True, is_superuser=True)
    first = Trajectory.objects.filter(run__slug="scripted-demo-agent").order_by("task__position").first()
    return {"url": live_server.url, "player": f"/trajectories/{first.pk}/play/"}


def open_page(context, url):
    page = context.new_page()
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return page


def test_pages_read_whole_on_a_phone_and_a_desktop(chromium_browser, layout_demo, shot):
    base = layout_demo["url"]
    for size, (width, height) in SIZES.items():
        context = chromium_browser.new_context(viewport={"width": width, "height": height})

        # Run page: every task id whole, headers broken between words only
        page = open_page(context, base + "/runs/scripted-demo-agent/")
        cells = page.evaluate(
            """() => [...document.querySelectorAll('#run-trajectories td.col-task')].map(td => ({
                 text: td.innerText.trim(), link: td.querySelector('a').textContent.trim(),
                 width: td.getBoundingClientRect().width, cut: td.scrollWidth > td.clientWidth + 1}))"""
        )
        assert len(cells) == 12
        for cell in cells:
            assert cell["text"] == cell["link"] and cell["text"].startswith("demo-d0"), cell
            assert not cell["cut"] and cell["width"] >= 150, cell
        assert len({c["text"] for c in cells}) == 12  # rows tell apart
        headers = page.evaluate(
            """() => [...document.querySelectorAll('#run-trajectories thead th')].map(th => ({
                 text: th.textContent.trim(), overflow: th.scrollWidth > th.clientWidth + 1}))"""
        )
        assert [h["text"] for h in headers if h["overflow"]] == []  # a word wider than its column would stick out
        page.close()

        # Player: the screenshot, the play button and the scrubber on the first screen
        page = open_page(context, base + layout_demo["player"])
        page.wait_for_selector("#player:not([hidden])")
        stage, play, scrubber = (page.locator(s).bounding_box() for s in ("#stage", "#btn-play", "#scrubber"))
        if size == "desktop":
            assert play["y"] + play["height"] < height and scrubber["y"] + scrubber["height"] < height, (play, scrubber)
            assert stage["y"] + stage["height"] < height and stage["height"] > 300
        else:
            assert stage["y"] < 400, stage
        shot(page, f"layout-player-{size}")
        page.close()

        # Analysis: heatmap cells at least 24 px wide, the chart scrolling in its own box on a phone
        page = open_page(context, base + "/analysis/")
        page.wait_for_selector("[data-chart][data-rendered=true]")
        charts = page.evaluate(
            """() => [...document.querySelectorAll('[data-chart][data-rendered=true]')].map(el => {
                 const fig = JSON.parse(document.getElementById(el.dataset.chart).textContent);
                 const box = el.closest('.chart-scroll');
                 return {cell: el._fullLayout.xaxis._length / fig.x.length, scrolls: box.scrollWidth > box.clientWidth,
                         legend: box.nextElementSibling.getBoundingClientRect().height};
               })"""
        )
        assert charts and all(c["cell"] >= 24 for c in charts), charts
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if size == "phone":
            assert any(c["scrolls"] for c in charts)
        shot(page, f"layout-analysis-{size}")
        page.close()

        # Tables: no cell cut off by its container
        for path in ("/tasks/", "/compare/?a=scripted-demo-agent&b=scripted-demo-agent-hasty-plan"):
            page = open_page(context, base + path)
            assert page.evaluate(CLIPPED_CELLS) == [], (size, path)
            page.close()

        # Home chart: published figures as diamonds (as wide as tall), as in the key
        page = open_page(context, base + "/")
        marks = page.evaluate(
            """() => [...document.querySelectorAll('.hc-list .hc-diamond, .hc-list .hc-point')].map(m => {
                 const r = m.getBoundingClientRect();
                 return {kind: m.getAttribute('class'), w: r.width, h: r.height};
               })"""
        )
        assert marks and all(abs(m["w"] - m["h"]) <= 1 for m in marks), marks
        assert {m["kind"] for m in marks} <= {"hc-diamond", "hc-point"}
        assert page.locator(".hc-key .hc-diamond").count() == 1 and page.locator(".hc-key .hc-point").count() == 1
        assert "Perfect %" in page.locator(".hc-head").inner_text()
        page.close()
        context.close()

    # Signed in (a longer header): the player's controls still on the first screen at 1280x800
    context = chromium_browser.new_context(viewport=dict(zip(("width", "height"), SIZES["desktop"], strict=True)))
    log_in(context, base, "maintainer", PASSWORD)
    page = open_page(context, base + layout_demo["player"])
    page.wait_for_selector("#player:not([hidden])")
    assert page.locator(".nav-logout").count() == 1
    for selector in ("#stage", "#btn-play", "#scrubber"):
        box = page.locator(selector).bounding_box()
        assert box["y"] + box["height"] < 800, (selector, box)
    context.close()
