"""The reliability page and the state-check badge in the player, in Chromium (screenshots under test-artifacts/)."""

import pytest

from tests.test_reliability import build

pytestmark = pytest.mark.django_db(transaction=True)


def test_reliability_page_and_state_check_badge(live_server, page, shot):
    run, ts, *_ = build()
    page.goto(f"{live_server.url}/runs/{run.slug}/reliability/")
    assert page.locator("[data-metric=flip]").inner_text() == "2 of 3 (66.7%)"
    assert "κ 0.40" in page.locator("[data-metric=state]").inner_text()
    shot(page, "reliability-run")
    page.locator(f"a[href='/trajectories/{ts[0].pk}/play/']").first.click()
    page.wait_for_selector(".state-check")
    assert page.locator(".state-check").first.inner_text() == "state check: passed"
    shot(page, "reliability-player-state-check")
    assert page.console_errors == []
