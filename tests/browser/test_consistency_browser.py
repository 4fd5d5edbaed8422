"""The consistency and cost figures as a visitor meets them on a phone (390x844) and a desktop (1280x800),
in Chromium on the demo content: the four-try run's page draws its pass^k curve and lists its tasks without
the page scrolling sideways; the demo leaderboard draws the cost frontier chart, its pass^k and cost cells
inside the screen."""

import io

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
PAGE_WIDER_THAN_SCREEN = "() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1"


@pytest.fixture
def repeated_demo(live_server, settings):
    from leaderboard.management.commands.load_demo import DEMO_REPEATED_RUN_NAME
    from leaderboard.models import Run

    settings.MYPCBENCH_DERIVATIVES = "off"
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    run = Run.objects.get(name=DEMO_REPEATED_RUN_NAME)
    return {"url": live_server.url, "run": run.slug, "suite": run.suite.slug}


def test_the_curve_the_tasks_and_the_cost_note_fit_a_phone_and_a_desktop(chromium_browser, repeated_demo, shot):
    for size, (width, height) in SIZES.items():
        context = chromium_browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(f"{repeated_demo['url']}/runs/{repeated_demo['run']}/")
        page.wait_for_selector("[data-chart='chart-consistency'] .main-svg")
        assert page.locator("#consistency-by-k tbody tr").count() == 4
        assert page.locator("#consistency-task-table tbody tr").count() == 12
        assert not page.evaluate(PAGE_WIDER_THAN_SCREEN), f"the run page scrolls sideways on a {size}"
        shot(page, f"consistency-run-{size}")
        page.close()

        page = context.new_page()
        page.goto(f"{repeated_demo['url']}/leaderboard/?suite={repeated_demo['suite']}")
        page.wait_for_selector("#cost-note")  # the demo's runs all cost $0: a sentence, not a chart
        assert not page.evaluate(PAGE_WIDER_THAN_SCREEN), f"the leaderboard scrolls sideways on a {size}"
        cell = page.locator(f"tr[data-run='{repeated_demo['run']}'] td[data-col='pass_hat_k']")
        assert "all 4 attempts perfect" in cell.inner_text()
        shot(page, f"consistency-board-{size}")
        page.close()
        context.close()
