"""Judge agreement in Chromium: labelling from the keyboard (s, f, k, w) on the admin's labelling page,
the judge's page at phone and desktop widths without sideways scrolling, and the leaderboard's mark
(screenshots under test-artifacts/)."""

import pytest

from tests.trajectories.judging.test_judge_agreement import labelled_board
from trajectories.models import HumanLabel

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_labelling_from_the_keyboard(live_server, page, shot):
    board, maintainer = labelled_board()
    maintainer.set_password("pw-keys-2026")
    maintainer.save()
    page.goto(f"{live_server.url}/admin/login/?next=/admin/trajectories/judgment/label/%3Fverdict%3Dany")
    page.fill("#id_username", maintainer.username)
    page.fill("#id_password", "pw-keys-2026")
    page.click("input[type=submit]")
    page.wait_for_selector("#label-form")
    cards = page.locator("fieldset.label-card")
    first, second, third = (int(cards.nth(i).get_attribute("data-judgment")) for i in range(3))
    assert cards.nth(0).get_attribute("aria-current") == "true"
    before = HumanLabel.objects.count()
    page.keyboard.press("s")  # success on the first card, on to the second
    assert cards.nth(1).get_attribute("aria-current") == "true"
    page.keyboard.press("k")  # skip the second
    page.keyboard.press("f")  # failure on the third
    assert "Card 3 of" in page.locator("#label-key-status").inner_text()
    page.keyboard.press("p")
    assert cards.nth(2).get_attribute("aria-current") == "true"
    shot(page, "labelling-keys")
    page.keyboard.press("w")
    page.wait_for_selector(".messagelist")
    assert "2 human labels recorded." in page.locator(".messagelist").inner_text()
    assert HumanLabel.objects.count() == before + 2
    assert HumanLabel.objects.get(judgment_id=first).verdict == "success"
    assert HumanLabel.objects.get(judgment_id=third).verdict == "failure"
    assert not HumanLabel.objects.filter(judgment_id=second).exists()
    assert page.console_errors == []


@pytest.mark.parametrize("width", [390, 1280])
def test_the_judge_page_fits_phone_and_desktop(live_server, page, shot, width):
    board, _ = labelled_board()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/judges/{board.ours.pk}/")
    assert page.get_by_role("heading", name="By behavioural type").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"judge-agreement-{width}")
    page.goto(f"{live_server.url}/leaderboard/")
    mark = page.locator("tr[data-run='run-b'][data-judge='upstream judge (test)'] a.judge-check")
    assert mark.inner_text() == "not yet checked"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"board-judge-mark-{width}")
    assert page.console_errors == []
