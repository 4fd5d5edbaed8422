"""Rubric errata as a visitor sees them on a phone (390x844) and a desktop (1280x800), in Chromium on
the hand-built board (tests/board_data.py) with one erratum: the suite's changelog page and the
leaderboard's superseded-rubric flag read whole, nothing sticks out sideways, and the flag's link
opens the changelog."""

import pytest

from leaderboard.models import RubricErratum
from tests.board_data import build_board

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}


def test_the_changelog_and_the_flag_read_whole_on_a_phone_and_a_desktop(chromium_browser, live_server, shot):
    b = build_board()
    old, new = b.items["t6-old"], b.items["t6"]
    RubricErratum.objects.bulk_create(
        [
            RubricErratum(
                task=b.tasks["t6"], version=2, rubric_id=o.rubric_id, change="reworded", old_item=o, new_item=n,
                reason="The first wording accepted any calendar date; the audit asks for the one in the mail.",
                source_url="https://example.org/audit/2026-08-12#t6",
            )
            for o, n in zip(old, new, strict=False)
        ]
    )  # fmt: skip
    for size, (width, height) in SIZES.items():
        context = chromium_browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(live_server.url + "/leaderboard/")
        flag = page.locator('tr[data-run="run-b"] [data-rubric="superseded"]').first
        assert "judged on a superseded rubric" in flag.inner_text()
        assert flag.is_visible() and flag.bounding_box()["x"] + flag.bounding_box()["width"] <= width + 1
        flag.get_by_role("link", name="rubric changelog").click()
        page.wait_for_load_state("networkidle")
        assert page.url.endswith("/suites/board-suite/changelog/")
        assert page.get_by_role("heading", level=1).inner_text().startswith("Rubric changelog")
        assert page.locator('tr[data-change="reworded"]').count() == 2
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"errata-changelog-{size}")
        context.close()
