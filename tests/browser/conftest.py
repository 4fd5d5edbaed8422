"""Playwright fixtures driving Debian's Chromium against pytest-django's live server."""

import hashlib
import os
from pathlib import Path

import pytest

from harness.chromium import CHROMIUM, launch_options

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session", autouse=True)
def display_encodes_remembered():
    """The display encoders run once per distinct picture for the whole test process: every browser test
    that loads the demo with inline derivatives would otherwise search AVIF and WebP qualities again for
    the same screenshots (most of a demo load's time). The encoders themselves are the real ones, and the
    bytes a test gets are what they made for those pixels."""
    from trajectories.recording import media

    real = {name: getattr(media, name) for name in ("encode_display", "encode_display_avif")}
    made: dict[tuple, tuple] = {}

    def remembering(name):
        def encode(image, *args):
            key = (name, hashlib.sha256(image.tobytes()).hexdigest(), image.mode, image.size, args)
            if key not in made:
                made[key] = real[name](image, *args)
            return made[key]

        return encode

    patcher = pytest.MonkeyPatch()
    for name in real:
        patcher.setattr(media, name, remembering(name))
    yield
    patcher.undo()


# Module scope: Playwright's sync API keeps an event loop running while it is open, which would
# break other tests in the session that start Playwright themselves.
@pytest.fixture(scope="module")
def chromium_browser():
    if not CHROMIUM.exists():
        pytest.skip("browser tests need Debian's Chromium at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; Django's ORM calls made by the
    # test around it are still synchronous.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(**launch_options())
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.console_errors = errors
    yield page
    context.close()


@pytest.fixture
def dark_page(chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    yield context.new_page()
    context.close()


@pytest.fixture
def shot():
    """Save a full-page screenshot under test-artifacts/ (gitignored) for a human to look at."""
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name):
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
