"""The World pages and task review in Chromium on a phone-sized screen (390x844) and a laptop's
(1280x800): every page, answer keys and figures included, fits the screen with no console error or failed
request and no serious accessibility violation (axe-core), and the review page's one-key shortcut approves."""

import copy
import datetime as dt
import json

import pytest
from django.contrib.auth.models import Permission, User

from seeding.world.build import build
from seeding.world.check import check
from tests.browser.test_site_browser import axe_script  # noqa: F401 - the fixture installing axe-core
from tests.factories import make_suite
from tests.seeding.test_seeding_world import SMALL
from tests.site_pages import check_page, log_in, problems_of
from world.models import TaskReview
from world.records.loading import load_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-world-check-2026"


@pytest.fixture
def world_site(live_server, tmp_path):
    persona = tmp_path / "pat.json"
    persona.write_text(json.dumps(copy.deepcopy(SMALL)))
    build(persona, tmp_path / "out", dt.date(2026, 4, 13))
    keys = tmp_path / "keys"
    keys.mkdir()
    facts = [
        {"need": "Every transaction, for the long rows", "app": "vaultbank", "sql": "SELECT * FROM transactions"},
        {"need": "A booking the world lacks", "app": "cheskepdia", "sql": "SELECT id FROM bookings WHERE 0"},
    ]
    (keys / "retrieval-w01.json").write_text(json.dumps({"task": "retrieval-w01", "facts": facts}))
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"id": "retrieval-w01"}, {"id": "retrieval-w02"}]))
    check(tmp_path / "out", tasks, keys)  # the answer key block and the figures on the pages
    load_world(tmp_path / "out")
    suite = make_suite(["retrieval-w01", "retrieval-w02"])
    suite.tasks.filter(task_id="retrieval-w01").update(instruction="When is my Harbor Inn stay (HI-22222)?")
    user = User.objects.create_user("reviewer", password=PASSWORD, is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="review_tasks"))
    return live_server.url, suite


PAGES = [
    "/world/",
    "/world/vaultbank/?q=harbor",
    "/world/mail/",
    "/world/events/",
    "/world/events/trips%5B0%5D.hotel/",
    "/world/cheskepdia/bookings/1/",
    "/tasks/{suite}/retrieval-w01/",
    "/world/review/",
    "/world/review/{suite}/retrieval-w01/",
]


def test_world_and_review_pages_fit_a_phone_and_a_key_approves(world_site, chromium_browser):
    base, suite = world_site
    context = chromium_browser.new_context(viewport={"width": 390, "height": 844})
    log_in(context, base, "reviewer", PASSWORD)
    for path in [p.format(suite=suite.slug) for p in PAGES]:
        page = context.new_page()
        result = check_page(page, base + path, path)
        assert result["status"] == 200, path
        assert problems_of(result) == [], path
        page.close()
    wide = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    log_in(wide, base, "reviewer", PASSWORD)
    for path in [p.format(suite=suite.slug) for p in PAGES]:
        page = wide.new_page()
        result = check_page(page, base + path, path)
        assert result["status"] == 200 and problems_of(result) == [], path
        page.close()
    wide.close()
    page = context.new_page()
    page.goto(base + f"/world/review/{suite.slug}/retrieval-w01/")
    with page.expect_navigation():
        page.keyboard.press("a")
    assert page.url.endswith(f"/world/review/{suite.slug}/retrieval-w02/")
    assert list(TaskReview.objects.values_list("task__task_id", "reviewer__username", "verdict")) == [
        ("retrieval-w01", "reviewer", "approved")
    ]
    # Typing the same letter into the note does not approve anything.
    page.fill("textarea[name=note]", "")
    page.focus("textarea[name=note]")
    page.keyboard.type("a")
    page.wait_for_timeout(500)
    assert page.input_value("textarea[name=note]") == "a"
    assert page.url.endswith(f"/world/review/{suite.slug}/retrieval-w02/")
    assert TaskReview.objects.filter(task__task_id="retrieval-w02").count() == 0
    context.close()


def test_world_and_review_pages_have_no_serious_accessibility_violation(world_site, chromium_browser, axe_script):  # noqa: F811
    base, suite = world_site
    # axe is injected as an inline script: this context only lets it past our own CSP
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    log_in(context, base, "reviewer", PASSWORD)
    found = []
    for path in [p.format(suite=suite.slug) for p in PAGES]:
        page = context.new_page()
        page.goto(base + path, wait_until="networkidle")
        page.add_script_tag(path=str(axe_script))
        violations = page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
                 .filter(v => v.impact === "serious" || v.impact === "critical")
                 .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}x, e.g. ${v.nodes[0].target})`)"""
        )
        found += [f"{path}: {v}" for v in violations]
        page.close()
    context.close()
    assert found == [], "\n".join(found)
