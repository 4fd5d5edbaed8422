"""A recorded session in Chromium: the player's user lane (each turn jumps to the first step that
answered it and lights up while its steps play) and the intents panel's jumps; the run page and the
leaderboard with session figures. Screenshots at 390 and 1280 px go to test-artifacts/."""

import pytest

from tests.session_data import RIDE, import_hand_run
from trajectories.models import Trajectory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def session_site(live_server, settings, tmp_path):
    settings.MYPCBENCH_DERIVATIVES = "inline"
    run = import_hand_run(tmp_path)
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    return live_server.url, run, ride


def _painted(page, index: int):
    page.wait_for_function("n => window.__playerPainted && window.__playerPainted.index === n", arg=index)


def test_the_user_lane_and_the_intents_panel_jump_to_their_steps(session_site, page, shot):
    url, _run, ride = session_site
    page.goto(f"{url}/trajectories/{ride.pk}/play/")
    page.wait_for_function("() => window.__playerPainted !== undefined")
    lane = page.locator("#user-lane .user-turn")
    assert lane.count() == 3
    assert lane.nth(0).get_attribute("aria-current") == "true"  # step 1 answers the request
    lane.nth(2).locator("button").click()  # "Oh, and Pickup from the office at 4pm." opened step 5
    _painted(page, 5)
    assert page.locator("#step-heading-index").inner_text() == "5 of 5"
    assert lane.nth(2).get_attribute("aria-current") == "true" and lane.nth(0).get_attribute("aria-current") == "false"
    page.locator("#intents-list [data-intent='I2'] button").click()  # inferred: settled at step 2
    _painted(page, 2)
    assert lane.nth(0).get_attribute("aria-current") == "true"
    intent = page.locator("#intents-list [data-intent='I2']").inner_text()
    assert "Inferred" in intent and "Tip the driver" not in intent  # a visitor: the intents are not revealed
    assert not [e for e in page.console_errors if "Failed to load resource" not in e]
    shot(page, "session-player-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_function("() => window.__playerPainted !== undefined")
    assert page.locator("#user-lane").is_visible() and page.locator("#intents-panel").is_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways at 390 px ({width} px wide)"
    shot(page, "session-player-390")


def test_run_page_leaderboard_and_analysis_with_sessions_at_both_widths(session_site, page, shot):
    url, run, _ride = session_site
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{url}/runs/{run.slug}/")
        assert "Proactivity" in page.locator("#run-sessions").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"session-run-page-{width}")
        page.goto(f"{url}/leaderboard/?suite={run.suite.slug}")
        assert "Proc" in page.locator("#board-table").inner_text()
        shot(page, f"session-board-{width}")
        page.goto(f"{url}/analysis/sessions/")
        page.wait_for_selector("#proc-comp .chart .main-svg")  # plotly drew the scatter
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"session-analysis-{width}")
