"""The whole site on the demo content, as a visitor, an author and a maintainer, on a phone
(390x844) and a desktop (1280x800): every page fits the screen (no sideways scrolling of the page),
logs no console error and loses no request; and every public page passes axe-core's accessibility
rules with no serious or critical violation. One browser for all of it, one demo load per test."""

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from tests.site_pages import AUTHOR_SEEDS, PUBLIC_SEEDS, STAFF_SEEDS, check_page, discover, log_in, problems_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
AXE_VERSION = "4.10.3"  # axe-core from the npm registry, installed once per cache folder
AXE_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mypcbench" / f"axe-core-{AXE_VERSION}"
PASSWORD = "pw-site-check-2026"


@pytest.fixture
def axe_script() -> Path:
    """axe.min.js, installed with npm into a cache folder the first time."""
    script = AXE_CACHE / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("the accessibility check needs npm to install axe-core (apt-get install npm)")
        AXE_CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--prefix", str(AXE_CACHE), f"axe-core@{AXE_VERSION}", "--no-audit", "--no-fund"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0 and script.exists(), f"npm install axe-core@{AXE_VERSION} failed: {done.stderr}"
    return script


@pytest.fixture
def demo_site(live_server, settings, tmp_path):
    """The demo content, an author with one upload (the guide's sample archive), and a maintainer."""
    from django.contrib.auth import get_user_model

    from trajectories.submissions.uploads import submit_archive

    settings.MYPCBENCH_DERIVATIVES = "off"  # the pages fall back to the original screenshots
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    users = get_user_model().objects
    author = users.create_user("author", password=PASSWORD)
    users.create_user("maintainer", password=PASSWORD, is_staff=True, is_superuser=True)
    sample = Client().get("/submit/sample.zip").content
    import zipfile

    meta = json.loads(zipfile.ZipFile(io.BytesIO(sample)).read("meta.json"))
    submit_archive(author, SimpleUploadedFile("sample.zip", sample), meta)
    return live_server.url


def pages_of(browser, base: str, seeds: list[str], user: str | None):
    context = browser.new_context()
    if user:
        log_in(context, base, user, PASSWORD)

    def fetch(path):
        response = context.request.get(base + path)
        return response.text() if response.ok and "html" in response.headers.get("content-type", "") else ""

    pages = discover(fetch, seeds)
    context.close()
    return pages


def test_every_page_fits_a_phone_and_a_desktop_without_errors(demo_site, chromium_browser):
    problems = []
    visited = set()
    for user, seeds in ((None, PUBLIC_SEEDS), ("author", AUTHOR_SEEDS), ("maintainer", STAFF_SEEDS)):
        pages = pages_of(chromium_browser, demo_site, seeds, user)
        visited |= {name for name, _ in pages}
        for size, (width, height) in SIZES.items():
            context = chromium_browser.new_context(viewport={"width": width, "height": height})
            if user:
                log_in(context, demo_site, user, PASSWORD)
            for _name, path in pages:
                page = context.new_page()
                result = check_page(page, demo_site + path, path)
                page.close()
                problems += [f"{user or 'visitor'} {size} {path}: {p}" for p in problems_of(result)]
            context.close()
    # the crawl reached every kind of page, so a page left out cannot pass unseen
    for kind in ("suite", "task", "run", "run-reported", "model", "trajectory", "player", "board-compare",
                 "trajectory-compare", "submission", "run-reliability", "task-reliability"):  # fmt: skip
        assert kind in visited, f"no {kind} page was found to check"
    assert problems == [], "\n".join(problems)


def test_every_public_page_has_no_serious_accessibility_violation(demo_site, chromium_browser, axe_script):
    pages = pages_of(chromium_browser, demo_site, PUBLIC_SEEDS, None)
    # axe is injected as an inline script: this context only lets it past our own CSP
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    found = []
    for _name, path in pages:
        page = context.new_page()
        page.goto(demo_site + path, wait_until="networkidle")
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
