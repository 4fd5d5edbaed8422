"""The reliability pages, the state-check badge in the player and the admin's labelling page, in Chromium
(screenshots under test-artifacts/)."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from tests.factories import png_bytes
from tests.trajectories.judging.test_reliability import build
from tests.trajectories.judging.test_reliability_items import build as build_items
from trajectories.models import Judgment, Step, Trajectory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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


def test_per_item_reliability_sorts_and_links(live_server, page, shot):
    suite, (t1, _), *_ = build_items()
    page.goto(f"{live_server.url}/tasks/{suite.slug}/{t1.task_id}/")
    page.get_by_role("link", name="judge reliability").click()
    page.wait_for_url(f"**/tasks/{suite.slug}/{t1.task_id}/reliability/")
    assert page.locator("tbody tr").count() == 2
    page.get_by_role("link", name="Every item of the suite").click()
    assert page.locator("[data-metric=flip]").inner_text() == "2 of 4 (50.0%)"
    page.locator("a.sort-link[data-sort=flip]").click()
    page.wait_for_url("**sort=flip**")
    rows = page.locator("tbody tr")
    assert [rows.nth(i).get_attribute("data-item") for i in range(3)] == [
        "retrieval-r001/R1", "retrieval-r002/R1", "retrieval-r001/R2"]  # fmt: skip
    assert page.locator("th[aria-sort=descending]").inner_text().lower().startswith("flip rate")
    first = rows.nth(0)
    first.locator("summary").click()
    assert first.locator("ul.flags li").first.inner_text().startswith("ra #0")
    assert "re-judging flipped: failure → success" in first.locator("ul.flags").inner_text()
    shot(page, "reliability-items-suite")
    assert page.console_errors == []


def test_labelling_page_in_the_admin(live_server, page, shot, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    suite, _, items, *_, maintainer = build_items()
    maintainer.set_password("pw-label-2026")
    maintainer.save()
    failure = Judgment.objects.get(rubric_item=items[1], verdict="failure", judge__name="A")
    Judgment.objects.filter(pk=failure.pk).update(
        cited_steps=[2, 3], explanation="The reply was typed in step 2 but never sent; step 3 shows the draft."
    )
    Trajectory.objects.filter(pk=failure.trajectory_id).update(n_steps=3)
    for i, colour in enumerate([(40, 90, 160), (200, 120, 40), (60, 160, 90)], start=1):
        name = default_storage.save(f"derivatives/shot-{i}.png", ContentFile(png_bytes(320, 200, colour)))
        Step.objects.create(trajectory_id=failure.trajectory_id, index=i, turn=i, thumbnail=name)

    page.goto(f"{live_server.url}/admin/login/?next=/admin/trajectories/judgment/label/")
    page.fill("#id_username", "maintainer")
    page.fill("#id_password", "pw-label-2026")
    page.click("input[type=submit]")
    page.wait_for_url("**/judgment/label/")
    assert page.locator(".label-count strong").inner_text() == "4"  # unlabelled failures
    card = page.locator(f"fieldset[data-judgment='{failure.pk}']")
    assert card.locator(".label-shots img").count() == 2
    assert card.locator("img").first.evaluate("img => img.naturalWidth") == 320  # the thumbnail loads
    card.get_by_label("success").check()
    shot(page, "labelling-admin")
    page.locator("input[type=submit][value='Save labels']").first.click()
    page.wait_for_selector(".messagelist")
    assert "1 human label recorded." in page.locator(".messagelist").inner_text()
    assert page.locator(".label-count strong").inner_text() == "3"
