"""Whether a page's images really paint in Chromium (deploy/run-topology --check): a status code of 200
for the image's URL is not enough, since the page's Content-Security-Policy, mixed content (an HTTPS page,
an HTTP bucket) or a redirect the browser refuses each leave an empty frame while curl sees 200.

    python deploy/paint_check.py URL [SELECTOR]   # prints each image; exit 1 when one does not paint
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from harness.chromium import CHROMIUM, launch_options  # noqa: E402 - after the path

UNPAINTED = """sel => [...document.querySelectorAll(sel)].filter(i => !(i.complete && i.naturalWidth > 0))
    .map(i => i.currentSrc || i.getAttribute('src') || '(no src)')"""
PAINTED = "sel => [...document.querySelectorAll(sel)].filter(i => i.complete && i.naturalWidth > 0).length"
SETTLED = "sel => [...document.querySelectorAll(sel)].every(i => i.complete)"


def unpainted_images(url: str, selector: str = "img", *, timeout_ms: int = 20_000) -> list[str]:
    """Problems with the images matching ``selector`` on the page at ``url``: none painted, or one that
    did not (with the browser's own complaints: refused by the policy, blocked, failed). Certificates
    are not checked (the topology's are self-signed)."""
    if not CHROMIUM.exists():
        return [f"the image check needs Chromium at {CHROMIUM} (apt-get install chromium)"]
    from playwright.sync_api import Error, sync_playwright

    complaints: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options())
        try:
            page = browser.new_context(ignore_https_errors=True).new_page()
            page.on("console", lambda m: complaints.append(m.text) if m.type in ("error", "warning") else None)
            page.on("requestfailed", lambda r: complaints.append(f"{r.url}: {r.failure}"))
            page.goto(url, wait_until="load", timeout=timeout_ms)
            try:
                page.wait_for_selector(f"{selector}[src]", state="attached", timeout=timeout_ms)
                page.wait_for_function(SETTLED, arg=selector, timeout=timeout_ms)
            except Error as exc:
                return [f"{url}: no image {selector} loaded ({str(exc).splitlines()[0]})", *complaints[:5]]
            painted = page.evaluate(PAINTED, selector)
            unpainted = page.evaluate(UNPAINTED, selector)
        finally:
            browser.close()
    print(f"{url}: {painted} image(s) {selector} painted, {len(unpainted)} not")
    problems = [f"{url}: image {src} did not paint" for src in unpainted]
    if problems or not painted:
        problems = problems or [f"{url}: no image {selector} painted"]
        problems += [f"  the browser said: {text}" for text in complaints[:5]]
    return problems


if __name__ == "__main__":
    found = unpainted_images(sys.argv[1], *sys.argv[2:3])
    print("\n".join(found) or "every image painted")
    sys.exit(1 if found else 0)
