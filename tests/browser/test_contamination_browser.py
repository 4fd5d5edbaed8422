"""The contamination flag of the demo's hasty run, seen in Chromium on a phone (390x844) and a desktop
(1280x800): the flags section reads whole without widening the page, and its link opens the player at
the flagged step."""

import io

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}


@pytest.fixture
def demo_url(live_server, settings):
    settings.MYPCBENCH_DERIVATIVES = "off"  # the pages fall back to the original screenshots
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    return live_server.url


def test_the_flag_reads_whole_and_opens_the_player_at_its_step(chromium_browser, demo_url, shot):
    for size, (width, height) in SIZES.items():
        context = chromium_browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(demo_url + "/runs/scripted-demo-agent-hasty-plan/")
        page.wait_for_load_state("networkidle")
        flags = page.locator("#contamination li")
        assert flags.count() == 1
        assert "demo-d001, step 1" in flags.first.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= width, size
        box = page.locator("#contamination").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (size, box)
        shot(page, f"contamination-run-{size}")
        flags.first.locator("a").first.click()
        page.wait_for_function("() => window.__playerPainted && window.__playerPainted.index === 1")
        assert page.evaluate("location.search") == "?step=1"
        assert page.locator("#step-heading-index").inner_text().startswith("1 of ")
        context.close()
