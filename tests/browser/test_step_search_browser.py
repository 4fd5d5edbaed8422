"""Step search on the demo in Chromium on a phone (390x844) and a desktop (1280x800): the form and the
hits read whole without widening the page, every field has its label, and a hit opens the player at
its step."""

import io
import re

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}


@pytest.fixture
def demo_for_step_search(live_server, settings):
    settings.MYPCBENCH_DERIVATIVES = "off"  # the player falls back to the original screenshots
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    return live_server.url


def test_hits_read_whole_and_open_the_player_at_their_step(chromium_browser, demo_for_step_search, shot):
    for size, (width, height) in SIZES.items():
        context = chromium_browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(demo_for_step_search + "/search/")
        page.get_by_role("link", name="Search the steps of trajectories").click()
        page.get_by_label("Words").fill("click")
        page.get_by_role("button", name="Search steps").click()
        page.wait_for_load_state("networkidle")
        hits = page.locator(".step-hit")
        assert hits.count() >= 1, page.content()[:2000]
        for name in ("Words", "Run", "Task id", "App", "Verdict", "Failure mode"):
            assert page.get_by_label(re.compile(f"^{name}\\b")).count() == 1, name
        assert page.evaluate("document.documentElement.scrollWidth") <= width, size
        box = hits.first.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (size, box)
        shot(page, f"step-search-{size}")
        link = hits.first.locator("h2 a")
        step = int(re.search(r"step=(\d+)", link.get_attribute("href")).group(1))
        link.click()
        page.wait_for_function(f"() => window.__playerPainted && window.__playerPainted.index === {step}")
        assert page.locator("#step-heading-index").inner_text().startswith(f"{step} of ")
        context.close()
