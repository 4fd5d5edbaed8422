"""How we start Debian's Chromium headless (page tests, the demo recorder, the local guest):
Playwright's own browser download cannot work here, and without these flags Chromium keeps
trying to reach the network."""

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
# For any Chromium we start, headless or on a virtual display.
QUIET_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HEADLESS_ARGS = ["--headless", *QUIET_ARGS]


def launch_options() -> dict:
    """Keyword arguments for Playwright's ``chromium.launch``."""
    return {"executable_path": str(CHROMIUM), "args": list(HEADLESS_ARGS)}
