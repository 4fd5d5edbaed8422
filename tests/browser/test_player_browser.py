"""The trajectory player and the compare page in Debian's Chromium over the committed demo run:
keyboard stepping, play/pause, permalinks, rubric highlight and jump, missing screenshots, live
steps arriving through ingest.add_step, and synchronised comparison. Screenshots go to test-artifacts/."""

import io
from types import SimpleNamespace

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command

from harness.results import StepRecord
from leaderboard.management.commands.load_demo import DEMO_RESULTS_DIR, DEMO_RUN_NAME
from tests.browser.conftest import ARTIFACTS
from tests.factories import png_bytes
from trajectories.models import Judgment, Step, Trajectory
from trajectories.recording import ingest
from trajectories.recording.import_results import import_results

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Console noise a missing image legitimately causes; anything else in the console is a bug.
RESOURCE_404 = "Failed to load resource"


@pytest.fixture
def demo(live_server, settings):
    settings.MYPCBENCH_DERIVATIVES = "inline"
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    # the careful plan's run; the hasty one has other step counts
    runs = Trajectory.objects.filter(run__name=DEMO_RUN_NAME).select_related("task", "run")
    by_task = {t.task.task_id: t for t in runs}
    return SimpleNamespace(url=live_server.url, by_task=by_task)


def open_player(page, url, step=None):
    page.goto(url + (f"?step={step}" if step else ""))
    page.wait_for_function("() => window.__playerPainted !== undefined")
    return page


def current(page) -> str:
    return page.locator("#step-heading-index").inner_text()


def wait_step(page, index: int):
    page.wait_for_function("n => window.__playerPainted && window.__playerPainted.index === n", arg=index)


def real_errors(page):
    return [e for e in page.console_errors if RESOURCE_404 not in e]


def test_keyboard_stepping_permalink_and_help(demo, page, shot):
    t = demo.by_task["demo-d003"]
    base = f"{demo.url}/trajectories/{t.pk}/play/"
    open_player(page, base)
    assert current(page) == "1 of 9"
    # The display WebP is what the stage shows, with the click drawn over it.
    src = page.locator("#stage-image").get_attribute("src")
    assert src.endswith(".webp")
    assert page.locator("#stage-overlay circle.mark-ring").count() == 1
    assert "Click at (1110, 205)" in page.locator("#stage-image").get_attribute("alt")
    for key, expected in [("ArrowRight", 2), ("k", 3), ("j", 2), ("ArrowLeft", 1), ("End", 9), ("Home", 1)]:
        page.keyboard.press(key)
        wait_step(page, expected)
        assert page.evaluate("location.search") == f"?step={expected}"
    # Number keys then Enter jump.
    page.keyboard.press("5")
    page.keyboard.press("Enter")
    wait_step(page, 5)
    assert current(page) == "5 of 9"
    assert "ctrl" in page.locator("#step-details kbd").first.inner_text()
    # Typed text appears in words and verbatim.
    page.keyboard.press("ArrowLeft")
    wait_step(page, 4)
    assert "Hulu" in page.locator("#step-details pre.typed").inner_text()
    shot(page, "player-step4")
    # Permalink round trip: the copied URL opens at the same step.
    link = page.evaluate("location.href")
    other = page.context.new_page()
    open_player(other, link)
    assert current(other) == "4 of 9"
    other.close()
    # Help overlay opens with ? and Esc closes it, giving focus back.
    page.keyboard.press("?")
    assert page.locator("#help-overlay").is_visible()
    shot(page, "player-help")
    page.keyboard.press("Escape")
    assert page.locator("#help-overlay").is_hidden()
    # Focus is visible on keyboard navigation.
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    assert real_errors(page) == []


def test_play_and_pause(demo, page):
    t = demo.by_task["demo-d003"]
    open_player(page, f"{demo.url}/trajectories/{t.pk}/play/")
    page.select_option("#speed", "4")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("Space")
    assert page.locator("#btn-play").get_attribute("aria-pressed") == "true"
    wait_step(page, 3)
    page.keyboard.press("Space")
    assert page.locator("#btn-play").inner_text() == "Play"
    stopped = page.evaluate("window.__playerPainted.index")
    page.wait_for_timeout(800)
    assert page.evaluate("window.__playerPainted.index") == stopped
    # Playing runs to the end and stops there.
    page.keyboard.press("Space")
    wait_step(page, 9)
    page.wait_for_function("() => document.getElementById('btn-play').textContent === 'Play'")


def test_rubric_lights_up_at_cited_steps_and_jumps(demo, page, dark_page, shot):
    t = demo.by_task["demo-d003"]
    url = f"{demo.url}/trajectories/{t.pk}/play/"
    open_player(page, url, step=4)
    items = page.locator("#rubric-list .rubric-item")
    assert items.count() == 7
    # R2 cites steps 4 and 9: lit at step 4, R1 (2, 9) is not.
    assert "lit" in items.nth(1).get_attribute("class")
    assert "lit" not in items.nth(0).get_attribute("class")
    assert "Failure" in items.nth(4).inner_text()
    # Cited steps 2, 4, 6, 8, 9 are marked on the scrubber.
    assert page.locator("#scrubber-marks .mark").count() == 5
    shot(page, "player-rubric-lit")
    # Choosing R3 (cites 6, 9) jumps to step 6 by keyboard.
    items.nth(2).focus()
    page.keyboard.press("Enter")
    wait_step(page, 6)
    assert "lit" in items.nth(2).get_attribute("class")
    # At the last step every item that cited it lights up.
    page.keyboard.press("End")
    wait_step(page, 9)
    assert page.locator("#rubric-list .rubric-item.lit").count() == 7
    # Reading the last rubric item, the screenshot stays in view beside it.
    page.locator("#rubric-list .rubric-item").last.scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    box = page.locator("#stage").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 900
    page.screenshot(path=str(ARTIFACTS / "player-rubric-scrolled.png"))
    # Dark theme follows the system preference.
    dark_page.goto(url + "?step=9")
    dark_page.wait_for_function("() => window.__playerPainted !== undefined")
    assert dark_page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(17, 20, 24)"
    shot(dark_page, "player-dark")


def test_missing_and_corrupt_screenshots_show_a_placeholder(demo, page, shot):
    t = demo.by_task["demo-d009"]
    step2 = Step.objects.get(trajectory=t, index=2)
    # Both display pictures gone from storage: the AVIF the stage asks for first, then the WebP it falls back to.
    default_storage.delete(step2.display_avif.name)
    default_storage.delete(step2.display_image.name)
    Step.objects.filter(trajectory=t, index=3).update(
        display_image="",
        thumbnail="",
        display_avif="",
        media_error="screenshot is not a readable image: step_3.png (truncated)",
    )
    open_player(page, f"{demo.url}/trajectories/{t.pk}/play/")
    page.keyboard.press("ArrowRight")
    wait_step(page, 2)
    assert page.locator("#stage-placeholder").is_visible()
    assert "could not be loaded" in page.locator("#stage-placeholder-reason").inner_text()
    page.keyboard.press("ArrowRight")
    wait_step(page, 3)
    assert "truncated" in page.locator("#stage-placeholder-reason").inner_text()
    shot(page, "player-placeholder")
    page.keyboard.press("ArrowRight")
    wait_step(page, 4)
    assert page.locator("#stage-image").is_visible()
    assert "FAIL" in page.locator("#step-details").inner_text()
    assert "Infeasible" in page.locator("#ended-by").inner_text() or "Fail" in page.locator("#ended-by").inner_text()
    assert real_errors(page) == []


def test_live_trajectory_appends_steps_as_they_are_recorded(demo, page, shot):
    done = demo.by_task["demo-d001"]
    live = ingest.start_trajectory(done.run, done.task, attempt=1)
    ingest.add_step(
        live,
        StepRecord(
            index=1,
            turn=1,
            tool="computer",
            action={"type": "click", "x": 100, "y": 50},
            action_text="pyautogui.click(100, 50)",
        ),
        png_bytes(1280, 800),
        screenshot_name="step_1.png",
    )
    open_player(page, f"{demo.url}/trajectories/{live.pk}/play/")
    assert current(page) == "1 of 1"
    assert page.locator("#player-status").inner_text() == "Running"
    ingest.add_step(
        live,
        StepRecord(
            index=2,
            turn=2,
            tool="bash",
            action={"type": "bash", "command": "ls ~/Documents"},
            action_text="ls ~/Documents",
            tool_output="notes.txt",
        ),
    )
    # The viewer was on the last step, so it follows the new one.
    page.wait_for_function("() => window.__playerPainted.index === 2", timeout=10_000)
    assert "ls ~/Documents" in page.locator("#step-details pre.command").inner_text()
    assert "notes.txt" in page.locator("#step-details pre.tool-output").inner_text()
    assert page.locator("#stage-placeholder").is_visible()
    ingest.finish_trajectory(live, ended_by="done", final_answer="All done.")
    page.wait_for_function("() => document.getElementById('player-status').textContent === 'Finished'", timeout=10_000)
    assert page.locator("#final-answer").inner_text() == "All done."
    shot(page, "player-live")


def test_compare_steps_both_sides_and_highlights_differing_verdicts(demo, page, shot):
    first = demo.by_task["demo-d003"]
    second_run = import_results(DEMO_RESULTS_DIR, "Second demo run", suite_slug=first.task.suite.slug, publish=True).run
    second = Trajectory.objects.get(run=second_run, task=first.task)
    Judgment.objects.filter(trajectory=second, rubric_item__rubric_id="R5").update(verdict="success")
    # From the task page: pick two trajectories.
    page.goto(f"{demo.url}/tasks/{first.task.suite.slug}/{first.task.task_id}/")
    page.select_option("select[name=a]", str(first.pk))
    page.select_option("select[name=b]", str(second.pk))
    with page.expect_navigation():
        page.get_by_role("button", name="Compare side by side").click()
    assert f"a={first.pk}" in page.url and f"b={second.pk}" in page.url
    page.wait_for_selector("#compare:not([hidden])")
    lines = page.locator(".step-line")
    assert lines.nth(0).inner_text().startswith("Step 1 of 9")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert lines.nth(0).inner_text().startswith("Step 3 of 9")
    assert lines.nth(1).inner_text().startswith("Step 3 of 9")
    differs = page.locator("table.compare-rubric tr.differs")
    assert differs.count() == 1
    assert "R5" in differs.first.inner_text()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.side-image')].every(i => i.complete && i.naturalWidth > 0)"
    )
    shot(page, "compare")
    assert real_errors(page) == []


def make_trajectory_of(run, task, actions, *, attempt=0, size=(64, 40)):
    """A finished trajectory whose step i does ``actions[i-1]`` (a pyautogui line), each with a
    small PNG, recorded through the one ingest path."""
    t = ingest.start_trajectory(run, task, attempt=attempt)
    for i, line in enumerate(actions, start=1):
        ingest.add_step(
            t,
            StepRecord(index=i, turn=i, tool="computer", action={"type": "other", "text": line}, action_text=line),
            png_bytes(*size, colour=(i % 250, 90, 160)),
            screenshot_name=f"step_{i}.png",
        )
    ingest.finish_trajectory(t, ended_by="done", final_answer="Done.")
    return t


@pytest.fixture
def own_run(live_server):
    from leaderboard.models import Model, Run
    from tests.factories import make_suite

    suite = make_suite(["retrieval-f500"], slug="player-long")
    model = Model.objects.create(name="Long model", slug="long-model")
    run = Run.objects.create(name="Long run", slug="long-run", suite=suite, model=model, publication="published")
    return SimpleNamespace(url=live_server.url, run=run, task=suite.tasks.get(), model=model, suite=suite)


def thumbs(page) -> int:
    return page.locator("#filmstrip-track img").count()


def test_a_500_step_trajectory_keeps_the_filmstrip_bounded(own_run, page, shot):
    t = make_trajectory_of(own_run.run, own_run.task, [f"pyautogui.click({i}, {i})" for i in range(1, 501)])
    open_player(page, f"{own_run.url}/trajectories/{t.pk}/play/")
    assert current(page) == "1 of 500"
    # Only the slots in view (plus a small margin) exist, however long the trajectory is.
    assert 0 < thumbs(page) <= 30
    page.keyboard.press("End")
    wait_step(page, 500)
    assert current(page) == "500 of 500"
    assert page.locator(".thumb.active .thumb-label").inner_text() == "500"
    assert 0 < thumbs(page) <= 30
    page.keyboard.press("ArrowLeft")
    wait_step(page, 499)
    page.keyboard.press("Home")
    wait_step(page, 1)
    assert page.locator(".thumb.active .thumb-label").inner_text() == "1"
    # Scrolling the strip by hand swaps slots instead of adding them.
    page.evaluate("document.getElementById('filmstrip').scrollLeft = 136 * 240")
    page.wait_for_function("() => [...document.querySelectorAll('.thumb-label')].some(l => l.textContent === '250')")
    assert 0 < thumbs(page) <= 30
    # Jumping by number keys reaches the middle.
    for key in "250":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    wait_step(page, 250)
    shot(page, "player-500-steps")
    assert real_errors(page) == []


def test_compare_aligns_both_sides_at_the_first_step_in_an_app(own_run, page, dark_page, shot):
    # A opens HooliMail (port 3016) at step 2 and Gringotts (3001) at step 5; B opens Gringotts at
    # step 2 and HooliMail at step 4. Judges cite different steps on each side.
    a = make_trajectory_of(
        own_run.run,
        own_run.task,
        [
            "pyautogui.hotkey('ctrl', 'l')",
            "pyautogui.typewrite('localhost:3016/inbox\\n')",
            "pyautogui.click(10, 10)",
            "pyautogui.click(20, 20)",
            "pyautogui.typewrite('http://localhost:3001/accounts\\n')",
            "pyautogui.click(30, 30)",
        ],
    )
    b = make_trajectory_of(
        own_run.run,
        own_run.task,
        [
            "pyautogui.hotkey('ctrl', 'l')",
            "pyautogui.typewrite('localhost:3001/\\n')",
            "pyautogui.click(10, 10)",
            "pyautogui.typewrite('127.0.0.1:3016/inbox\\n')",
        ],
        attempt=1,
    )
    from leaderboard.models import JudgeConfig

    judge = JudgeConfig.objects.create(name="our-judge", origin="ours", model="m")
    for t, verdicts, cited in ((a, ("success", "failure"), ([2], [5, 6])), (b, ("success", "success"), ([4], [2]))):
        for item, verdict, steps in zip(
            own_run.task.rubric_items.order_by("position")[:2], verdicts, cited, strict=True
        ):
            Judgment.objects.create(trajectory=t, rubric_item=item, judge=judge, verdict=verdict, cited_steps=steps)

    page.goto(f"{own_run.url}/trajectories/compare/?a={a.pk}&b={b.pk}")
    page.wait_for_selector("#compare:not([hidden])")
    lines = page.locator(".step-line")
    # Each side's slider marks its own cited steps.
    assert page.locator("#side-a .side-marks .mark").count() == 3
    assert page.locator("#side-b .side-marks .mark").count() == 2
    assert "R2" in page.locator('#side-a .side-marks .mark[data-step="5"]').get_attribute("title")
    options = page.locator("#cmp-align option").all_inner_texts()
    assert "at the first step in HooliMail" in options and "at the first step in Gringotts" in options
    page.select_option("#cmp-align", "HooliMail")
    assert lines.nth(0).inner_text().startswith("Step 2 of 6 · HooliMail")
    assert lines.nth(1).inner_text().startswith("Step 4 of 4 · HooliMail")
    # One step back moves both sides together from their own anchors.
    page.locator("body").click(position={"x": 2, "y": 2})
    page.keyboard.press("ArrowLeft")
    assert lines.nth(0).inner_text().startswith("Step 1 of 6")
    assert lines.nth(1).inner_text().startswith("Step 3 of 4")
    page.select_option("#cmp-align", "Gringotts")
    assert lines.nth(0).inner_text().startswith("Step 5 of 6 · Gringotts")
    assert lines.nth(1).inner_text().startswith("Step 2 of 4 · Gringotts")
    assert "align=Gringotts" in page.url
    # Dragging B's own slider to its step 4 moves A by the same amount.
    page.locator("#side-b .side-range").fill("4")
    assert lines.nth(1).inner_text().startswith("Step 4 of 4")
    assert lines.nth(0).inner_text().startswith("Step 6 of 6")
    # R2 failed on A and passed on B: that row is highlighted.
    differs = page.locator("table.compare-rubric tr.differs")
    assert differs.count() == 1 and "R2" in differs.first.inner_text()
    shot(page, "compare-aligned")
    assert real_errors(page) == []
    dark_page.goto(page.url)
    dark_page.wait_for_selector("#compare:not([hidden])")
    shot(dark_page, "compare-dark")


def test_a_far_jump_fetches_its_picture_before_the_thumbnails_around_it(own_run, page):
    t = make_trajectory_of(own_run.run, own_run.task, [f"pyautogui.click({i}, {i})" for i in range(1, 61)])
    open_player(page, f"{own_run.url}/trajectories/{t.pk}/play/")
    page.wait_for_load_state("networkidle")
    events = []
    page.on("request", lambda r: events.append(("asked", r.url)) if "/media/" in r.url else None)
    page.on("requestfinished", lambda r: events.append(("received", r.url)) if "/media/" in r.url else None)
    for key in "40":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    wait_step(page, 40)
    assert current(page) == "40 of 60"
    # The filmstrip around step 40 fills in once the picture is shown.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#filmstrip-track img')].every(i => i.complete && i.naturalWidth > 0)"
    )
    assert page.locator(".thumb.active .thumb-label").inner_text() == "40"
    picture = page.evaluate("() => document.getElementById('stage-image').currentSrc")
    received = events.index(("received", picture))
    others_asked = [i for i, (what, url) in enumerate(events) if what == "asked" and url != picture]
    assert others_asked, "the thumbnails around step 40 were never fetched"
    # Nothing else was asked of the server until the picture the reader jumped to had arrived.
    assert received < min(others_asked), events
    assert real_errors(page) == []
