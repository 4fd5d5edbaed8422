"""Who leads, at a glance, in Chromium at 390x844 and 1280x800 on the published figures (`load_reported`):
the default leaderboard shows each model once with its position and "reported by the paper" beside it,
no column of dashes, and the one click to every published version; no cell cut off; screenshots in
test-artifacts/."""

import pytest
from django.core.cache import cache

from leaderboard.catalog.reported import load_reported
from tests.browser.test_layout_browser import CLIPPED_CELLS, SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def positions(page) -> list[str]:
    return page.locator('#board-table td[data-col="rank"]').evaluate_all(
        "cells => cells.map(c => c.innerText.replace(/\\s+/g, ' ').trim())"
    )


def test_the_default_board_shows_each_model_once_with_its_position_at_both_sizes(chromium_browser, live_server, shot):
    cache.clear()
    load_reported()
    for size, (width, height) in SIZES.items():
        context = chromium_browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(live_server.url + "/leaderboard/")
        shown = positions(page)
        assert len(shown) == 7, shown  # 6 arXiv v1 rows and GPT-5.4, published only in the submission version
        assert shown[0] == "1 (no interval) reported by the paper"
        assert all("reported by the paper" in p and "(no interval)" in p for p in shown)
        for col in ("tokens", "cost", "graded"):
            assert page.locator(f'#board-table [data-col="{col}"], a[data-sort="{col}"]').count() == 0
        assert page.locator("#unpublished-note").is_visible()
        # the first row's position is on the first screen and inside it
        box = page.locator('#board-table td[data-col="rank"]').first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width
        assert page.evaluate(CLIPPED_CELLS) == []
        shot(page, f"board-positions-{size}")

        with page.expect_navigation():
            page.locator('a[data-versions="all"]').click()
        assert "versions=all" in page.url
        assert len(positions(page)) == 12
        assert page.locator("#board-table .badge-older").count() == 5
        assert page.evaluate(CLIPPED_CELLS) == []
        shot(page, f"board-positions-all-{size}")
        context.close()
