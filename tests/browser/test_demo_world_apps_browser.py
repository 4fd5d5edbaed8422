"""The demo apps filled from a seeded world work in Chromium as the scripted agent uses them: the
mail search finds the trip's booking and opens it, the card's older pages turn, a chat opens; no
script error on any page."""

import json

import pytest
from playwright.sync_api import expect

from seeding import demo_world_apps
from seeding.world.build import build
from tests.seeding.test_demo_world_apps import ANCHOR
from tests.seeding.test_seeding_world import SMALL

pytestmark = pytest.mark.browser


def test_the_filled_pages_work_as_the_agent_uses_them(page, tmp_path):
    persona = tmp_path / "pat_tester.json"
    persona.write_text(json.dumps(SMALL))
    build(persona, tmp_path / "world", ANCHOR)
    demo_world_apps.render(tmp_path / "world", tmp_path / "pages")
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto((tmp_path / "pages" / "hoolimail.html").as_uri())
    page.click("#search")
    page.keyboard.type("DN-11111\n")
    expect(page.locator("#count")).to_contain_text("results for")
    page.locator(".mail").first.click()
    expect(page.locator("#reader")).to_contain_text("DN-11111")

    page.goto((tmp_path / "pages" / "gringotts.html").as_uri())
    expect(page.locator("#page")).to_contain_text("Page 1 of")
    if page.locator("#next").is_enabled():
        page.click("#next")
        expect(page.locator("#page")).to_contain_text("Page 2 of")

    page.goto((tmp_path / "pages" / "hoolichat.html").as_uri())
    page.locator(".chat").first.click()
    expect(page.locator("#thread .msg").first).to_be_visible()

    page.goto((tmp_path / "pages" / "hoolicalendar.html").as_uri())
    expect(page.locator(".ev").first).to_be_visible()
    assert errors == []
