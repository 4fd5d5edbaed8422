"""The player's pictures in Debian's Chromium: the stage shows the AVIF derivative through its
<picture> and prefetches the next step's AVIF; when AVIF is refused, the WebP is shown instead,
with the action drawn over it, step after step."""

import io
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from leaderboard.management.commands.load_demo import DEMO_RUN_NAME
from trajectories.models import Trajectory
from trajectories.recording import media

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def avif_demo(live_server, settings):
    # Derivatives for the one trajectory shown, not the whole demo: AVIF's quality search is the slow part.
    settings.MYPCBENCH_DERIVATIVES = "off"
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    trajectory = Trajectory.objects.filter(run__name=DEMO_RUN_NAME, task__task_id="demo-d003").get()
    assert media.make_trajectory_derivatives(trajectory.pk).made == trajectory.steps.count()
    return SimpleNamespace(url=f"{live_server.url}/trajectories/{trajectory.pk}/play/", trajectory=trajectory)


def step_to(page, key: str, index: int):
    page.keyboard.press(key)
    page.wait_for_function("n => window.__playerPainted && window.__playerPainted.index === n", arg=index)


def shown(page) -> dict:
    return page.evaluate(
        "() => { const i = document.getElementById('stage-image');"
        " return {current: i.currentSrc, width: i.naturalWidth, hidden: i.hidden,"
        " marks: document.querySelectorAll('#stage-overlay circle').length,"
        " placeholder: !document.getElementById('stage-placeholder').hidden}; }"
    )


def test_the_stage_shows_the_avif_and_prefetches_the_next_one(avif_demo, page):
    steps = list(avif_demo.trajectory.steps.order_by("index"))
    avifs = [s.display_avif.url for s in steps]
    webps = [s.display_image.url for s in steps]
    assert all(name.endswith(".avif") for name in avifs) and all(name.endswith(".webp") for name in webps)
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(avif_demo.url)
    page.wait_for_function("() => window.__playerPainted && window.__playerPainted.index === 1")
    first = shown(page)
    assert first["current"].endswith(avifs[0]) and first["width"] > 0 and first["marks"] > 0
    # The next step's AVIF is fetched before it is asked for, so stepping paints it from memory.
    page.wait_for_function("u => performance.getEntriesByType('resource').some(e => e.name.endsWith(u))", arg=avifs[1])
    step_to(page, "ArrowRight", 2)
    assert shown(page)["current"].endswith(avifs[1])
    # No display WebP was fetched at all: Chromium took the AVIF every time.
    assert not [url for url in asked if any(url.endswith(w) for w in webps)]
    assert not page.console_errors


def test_a_prefetched_picture_moves_onto_the_stage_and_back(avif_demo, page):
    """Stepping onto a prefetched picture puts that decoded element on the stage instead of loading it
    again: the stage still shows the step's own AVIF with its marks and its alt text, under the one
    #stage-image the page has, and stepping back brings the first picture back."""
    steps = list(avif_demo.trajectory.steps.order_by("index"))
    avifs = [s.display_avif.url for s in steps]
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(avif_demo.url)
    page.wait_for_function("() => window.__playerPainted && window.__playerPainted.index === 1")
    page.wait_for_function("u => performance.getEntriesByType('resource').some(e => e.name.endsWith(u))", arg=avifs[1])
    page.wait_for_timeout(300)  # the prefetch decodes after it arrives
    marks = {1: shown(page)["marks"]}
    assert marks[1] > 0
    for key, index in (("ArrowRight", 2), ("ArrowLeft", 1), ("ArrowRight", 2)):
        step_to(page, key, index)
        now = shown(page)
        assert now["current"].endswith(avifs[index - 1]) and now["width"] > 0, (index, now)
        assert now["marks"] == marks.setdefault(index, now["marks"])  # the step's marks drawn again over it
        assert page.locator("#stage-image").count() == 1 and page.locator("#stage-avif").count() == 1
        assert page.locator("#stage-image").get_attribute("alt").startswith(f"Screenshot after step {index}")
    assert page.locator(".stage-figure picture").count() == 1
    assert sum(url.endswith(avifs[1]) for url in asked) == 1  # fetched once, by the prefetch
    assert not page.console_errors


def test_when_avif_is_refused_the_player_shows_the_webp(avif_demo, page):
    """Chromium 156 has no switch to turn AVIF off, and <picture> chooses by type, so a browser
    without AVIF never asks for the .avif at all. What can be tested here is a browser that asks and
    cannot show it: every .avif request is failed by request interception (page.route aborts it),
    and the player must then show each step's WebP, with its marks, and stop asking for AVIF."""
    steps = list(avif_demo.trajectory.steps.order_by("index"))
    refused = []

    def refuse(route):
        refused.append(route.request.url)
        route.abort()

    page.route("**/*.avif", refuse)
    page.goto(avif_demo.url)
    page.wait_for_function("() => window.__playerPainted && window.__playerPainted.index === 1")
    first = shown(page)
    assert first["current"].endswith(steps[0].display_image.url), first
    assert first["width"] > 0 and not first["hidden"] and not first["placeholder"] and first["marks"] > 0
    asked_before = len(refused)
    for index in range(2, 5):
        step_to(page, "ArrowRight", index)
        now = shown(page)
        assert now["current"].endswith(steps[index - 1].display_image.url) and not now["placeholder"]
    # Once refused, AVIF is not asked for again.
    assert len(refused) == asked_before >= 1
    assert all("Failed to load resource" in e for e in page.console_errors)
