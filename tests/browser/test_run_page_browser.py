"""The run page of a harness run in a real browser: while the test streams steps into a trajectory
through the live ingest service, closes it and judges it, the page's table updates row by row from the
progress endpoint (run_progress.js) without moving its columns, says when it last updated, and stops
polling once the run has ended; a maintainer cancels the run from the page after a confirmation."""

import re

import pytest
from django.contrib.auth import get_user_model

from tests import run_page_data
from trajectories.recording import live_ingest
from trajectories.tasks import run_trajectory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT_MS = 15_000  # polls come every 3 s


@pytest.fixture
def maintainer(settings, monkeypatch):
    from mypcbench_site.celery import app

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_JUDGE_ON_FINISH = False
    settings.MYPCBENCH_VM_LEASE_SECONDS = 600
    # no broker in these tests: a rerun's messages and a cancel's revocations go nowhere
    monkeypatch.setattr(run_trajectory, "apply_async", lambda args, task_id: None)
    monkeypatch.setattr(app.control, "revoke", lambda ids: None)
    return get_user_model().objects.create_superuser("michael", password="pw-scott-2026")


def log_in(page, live_server, next_url):
    page.goto(f"{live_server.url}/accounts/login/?next={next_url}")
    page.fill("#id_username", "michael")
    page.fill("#id_password", "pw-scott-2026")
    page.click("main button[type=submit]")
    page.wait_for_url(f"**{next_url}")


def column_widths(page) -> list[float]:
    return page.evaluate(
        "() => [...document.querySelectorAll('#run-trajectories thead th')].map(th => th.getBoundingClientRect().width)"
    )


def test_the_table_follows_a_trajectory_live_and_stops_when_the_run_ends(page, live_server, maintainer, shot):
    from playwright.sync_api import expect

    run, _ = run_page_data.launch(3)
    first, second, third = run_page_data.trajectories(run)
    run_page_data.start(first)
    run_page_data.record_step(first, 1)
    url = f"/runs/{run.slug}/"
    log_in(page, live_server, url)

    row = page.locator(f'tr[data-trajectory="{first.pk}"]')
    cell = lambda name: row.locator(f'[data-cell="{name}"]')  # noqa: E731
    expect(cell("status")).to_have_text("Running")
    expect(cell("steps")).to_have_text("1")
    expect(cell("player")).to_have_text("Watch")
    widths, table_box = column_widths(page), page.locator("#run-trajectories").bounding_box()

    # steps arrive while the page polls
    run_page_data.record_step(first, 2)
    run_page_data.record_step(first, 3)
    expect(cell("steps")).to_have_text("3", timeout=WAIT_MS)
    expect(page.locator('[data-field="steps"]')).to_have_text("3")
    expect(page.locator('[data-field="updated"]')).to_have_text(re.compile(r"Live: last updated \d"))
    shot(page, "run-page-live")

    # it ends, then its judge answers
    run_page_data.record_step(first, 4, "DONE")
    run_page_data.finish(first, 4)
    expect(cell("status")).to_have_text("Finished", timeout=WAIT_MS)
    expect(cell("ended_by")).to_have_text("Done")
    expect(cell("score")).to_have_text("not judged")
    expect(cell("player")).to_have_text("Play")
    run_page_data.judge(first, ["success", "failure"])
    expect(cell("score")).to_have_text("0.50", timeout=WAIT_MS)
    expect(cell("judgments")).to_have_text("1 / 2")
    expect(page.locator('[data-field="judged"]')).to_have_text("1")
    row.locator("a", has_text="Play").wait_for()
    assert row.locator("a", has_text="Play").get_attribute("href") == f"/trajectories/{first.pk}/play/"

    # the others: one runs out of turns, one errors; columns never moved
    run_page_data.start(second)
    expect(page.locator(f'tr[data-trajectory="{second.pk}"] [data-cell="status"]')).to_have_text(
        "Running", timeout=WAIT_MS
    )
    run_page_data.finish(second, 0, ended_by="budget")
    run_page_data.start(third)
    run_page_data.finish(third, 0, ended_by="error", status="error")
    third_row = page.locator(f'tr[data-trajectory="{third.pk}"]')
    expect(third_row.locator('[data-cell="status"]')).to_have_text("Error", timeout=WAIT_MS)
    expect(page.locator(f'tr[data-trajectory="{second.pk}"] [data-cell="ended_by"]')).to_have_text(
        "Turn budget exhausted"
    )
    assert column_widths(page) == widths, "rows updating in place never resize a column"
    assert page.locator("#run-trajectories").bounding_box()["height"] == table_box["height"]

    # the run has ended: the page says so, hides Cancel and stops asking
    expect(page.locator('[data-field="updated"]')).to_have_text(re.compile(r"This run has ended \(finished\)"))
    expect(page.locator("#run-progress")).to_have_attribute("data-live", "0")
    expect(page.get_by_role("link", name="Cancel run…")).to_be_hidden()
    polls = []
    page.on("request", lambda request: polls.append(request.url) if "/progress" in request.url else None)
    page.wait_for_timeout(7_000)  # more than two poll intervals
    assert polls == [], "no polling after the run ended"
    shot(page, "run-page-ended")
    assert page.console_errors == []


def test_a_maintainer_cancels_the_run_from_its_page(page, live_server, maintainer, shot):
    from playwright.sync_api import expect

    run, _ = run_page_data.launch(3)
    running, queued, _ = run_page_data.trajectories(run)
    run_page_data.start(running)
    run_page_data.record_step(running, 1)
    log_in(page, live_server, f"/runs/{run.slug}/")

    page.get_by_role("link", name="Cancel run…").click()
    page.wait_for_url(f"**/runs/{run.slug}/cancel/")
    expect(page.locator("main")).to_contain_text("Queued trajectories (2) are dropped")
    shot(page, "run-page-cancel-confirm")
    page.get_by_role("button", name="Cancel the run").click()
    page.wait_for_url(f"**/runs/{run.slug}/")
    expect(page.locator(".flash")).to_have_text(
        f"Cancelled {run.name}: 2 queued trajectories dropped; running ones stop after their next step."
    )
    expect(page.locator('.facts [data-field="status_display"]')).to_have_text("Cancelled")
    expect(page.locator(f'tr[data-trajectory="{queued.pk}"] [data-cell="status"]')).to_have_text("Interrupted")
    expect(page.get_by_role("link", name="Cancel run…")).to_have_count(0)

    # the running trajectory stops after its next step, as the worker does; the page follows it
    status = page.locator(f'tr[data-trajectory="{running.pk}"] [data-cell="status"] span')
    expect(status).to_have_text("Running")
    run_page_data.record_step(running, 2)
    live_ingest.close(running, steps=2, ended_by="unknown", status="interrupted",
                      error="run cancelled while this trajectory was running")  # fmt: skip
    expect(status).to_have_text("Interrupted", timeout=WAIT_MS)
    expect(status).to_have_attribute("title", "run cancelled while this trajectory was running")
    expect(page.locator(f'tr[data-trajectory="{running.pk}"] [data-cell="steps"]')).to_have_text("2")
    expect(page.locator('[data-field="updated"]')).to_have_text(re.compile(r"This run has ended \(cancelled\)"))

    # a rerun of what did not finish (all three were interrupted), confirmed first as cancelling is, then a
    # new run linked from the flash message
    page.get_by_role("link", name="Rerun failed or errored…").click()
    expect(page.locator("h1")).to_contain_text("Rerun failed or errored trajectories of")
    page.get_by_role("button", name="Queue the rerun").click()
    page.wait_for_url(f"**/runs/{run.slug}/")
    link = page.locator(".flash a")
    expect(link).to_have_text(re.compile(r"rerun 1 \(failed or errored trajectories\)"))
    shot(page, "run-page-rerun-flash")
    link.click()
    expect(page.locator("h1")).to_contain_text("rerun 1")
    expect(page.locator("#run-trajectories tbody tr")).to_have_count(3)
    assert page.console_errors == []
