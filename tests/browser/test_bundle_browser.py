"""The exported bundle of the demo run opened over file:// in Debian's Chromium, with no site running:
the run page leads to a player that steps by keyboard, shows the display derivatives and lights the
rubric at the judge's cited steps. Screenshots go to test-artifacts/."""

import io

import pytest
from django.core.management import call_command

from leaderboard.management.commands.load_demo import DEMO_RUN_NAME
from leaderboard.models import Run
from trajectories.models import Trajectory

pytestmark = [pytest.mark.browser, pytest.mark.django_db]


@pytest.fixture
def bundle(settings, tmp_path):
    settings.MYPCBENCH_DERIVATIVES = "inline"
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    run = Run.objects.get(name=DEMO_RUN_NAME)
    # derivatives are made after commit, which this test's transaction never reaches: make them now
    call_command("make_derivatives", run=run.slug, verbosity=0, stdout=io.StringIO())
    folder = tmp_path / "demo-bundle"
    call_command("export_bundle", run.slug, str(folder), stdout=io.StringIO())
    return folder


def wait_step(page, index: int):
    page.wait_for_function("n => window.__playerPainted && window.__playerPainted.index === n", arg=index)


def test_bundle_player_over_file_url(bundle, page, shot):
    page.goto(bundle.joinpath("index.html").as_uri())
    assert DEMO_RUN_NAME in page.locator("h1").inner_text()
    shot(page, "bundle-index")
    d003 = Trajectory.objects.get(run__name=DEMO_RUN_NAME, task__task_id="demo-d003")
    row = page.locator(f'#run-trajectories tr[data-trajectory="{d003.pk}"]')
    row.get_by_role("link", name="Play", exact=True).click()
    page.wait_for_function("() => window.__playerPainted !== undefined")
    assert page.url.startswith("file://")
    assert page.locator("#step-heading-index").inner_text() == "1 of 9"
    # The stage shows the display WebP copied into the bundle, and it loaded.
    src = page.locator("#stage-image").get_attribute("src")
    assert src.startswith("../media/") and src.endswith(".webp")
    assert page.evaluate("document.getElementById('stage-image').naturalWidth") > 0
    for key, expected in [("ArrowRight", 2), ("k", 3), ("j", 2), ("End", 9), ("Home", 1)]:
        page.keyboard.press(key)
        wait_step(page, expected)
    page.keyboard.press("4")
    page.keyboard.press("Enter")
    wait_step(page, 4)
    # R2 cites steps 4 and 9: lit at step 4, R1 (2, 9) is not.
    items = page.locator("#rubric-list .rubric-item")
    assert items.count() == 7
    assert "lit" in items.nth(1).get_attribute("class")
    assert "lit" not in items.nth(0).get_attribute("class")
    shot(page, "bundle-player-step4")
    # Choosing R3 (cites 6, 9) jumps to step 6.
    items.nth(2).focus()
    page.keyboard.press("Enter")
    wait_step(page, 6)
    page.keyboard.press("End")
    wait_step(page, 9)
    assert page.locator("#rubric-list .rubric-item.lit").count() == 7
    # The filmstrip's thumbnails come from the bundle too.
    thumbs = page.locator("#filmstrip-track img")
    assert thumbs.count() > 0 and thumbs.first.get_attribute("src").startswith("../media/")
    # The verdicts are there as text with the judge's explanations.
    assert page.locator("#verdicts table tbody tr").count() >= 7
    assert not page.console_errors


def test_bundle_pages_fit_a_phone(bundle, chromium_browser, shot):
    context = chromium_browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(bundle.joinpath("index.html").as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.locator("#run-trajectories a", has_text="Play").first.click()
        page.wait_for_function("() => window.__playerPainted !== undefined")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shot(page, "bundle-player-phone")
    finally:
        context.close()
