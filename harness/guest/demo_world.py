"""The demo apps of a world variant, as the local desktop guest serves them: for variant K, the persona
world built from the upstream spec at the demo's anchor day (``python -m seeding build --variant K``), the
demo apps filled from it in variant K's interface (``python -m seeding demo-apps``), served on a loopback
port. Seeding runs as commands, as an operator would run it, so the harness imports nothing of it. Each
variant's world is built once per cache folder and reused; its pages are filled anew once per guest."""

import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO_ANCHOR = "2026-04-13"  # the day the demo tasks call today
DEMO_PAGES = ("index.html", "hoolimail.html", "hoolicalendar.html", "gringotts.html", "hoolichat.html")
BUILD_TIMEOUT = 900.0


class DemoWorldError(RuntimeError):
    """A variant's world or its demo apps could not be built; says which command failed and why."""


def default_spec() -> Path:
    """The upstream persona spec (``michael_scott.json`` in MYPCBENCH_UPSTREAM_DIR, else the shipped copy)."""
    upstream = os.environ.get("MYPCBENCH_UPSTREAM_DIR") or str(REPO / "upstream" / "mypcbench")
    return Path(upstream) / "michael_scott.json"


def is_demo_page(url: str) -> bool:
    """Whether ``url`` names a page of the demo apps (a bare page name such as ``hoolimail.html``)."""
    return url.split("#", 1)[0].split("?", 1)[0] in DEMO_PAGES


def _run(args: list[str], what: str) -> None:
    try:
        done = subprocess.run([sys.executable, "-m", "seeding", *args], cwd=REPO, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise DemoWorldError(f"{what}: no answer within {BUILD_TIMEOUT:g} s") from exc
    if done.returncode != 0:
        raise DemoWorldError(f"{what} failed: {(done.stderr or done.stdout).strip()[-400:]}")


def _handler(root_of, served):
    class Pages(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root_of()), **kwargs)

        def do_GET(self):
            super().do_GET()
            served()

        def log_message(self, *args):
            pass

    return Pages


class DemoWorlds:
    """Builds (once) and serves the demo apps of one world variant at a time.

    ``cache``: where the variants' worlds and pages are kept (``world-K/``, ``pages-K/``); default a
    temporary folder removed by ``stop``. ``spec``: the persona spec (default ``default_spec()``)."""

    def __init__(self, cache: str | Path | None = None, spec: str | Path | None = None):
        self._own_cache = cache is None
        self.cache = Path(cache) if cache else Path(tempfile.mkdtemp(prefix="mypcbench-demo-worlds-"))
        self.cache.mkdir(parents=True, exist_ok=True)
        self.spec = Path(spec) if spec else default_spec()
        self.variant: int | None = None
        self._root = self.cache
        self._server: http.server.ThreadingHTTPServer | None = None
        self._rendered: set[int] = set()
        self.requests = 0  # pages and files served so far (the guest waits for its page to be fetched)

    def pages(self, variant: int) -> Path:
        """The folder of variant ``variant``'s demo apps, building its world and pages when missing."""
        world, pages = self.cache / f"world-{variant}", self.cache / f"pages-{variant}"
        if not (world / "manifest.json").is_file():
            if not self.spec.is_file():
                raise DemoWorldError(f"{self.spec}: no persona spec to build world variant {variant} from "
                                     "(set MYPCBENCH_UPSTREAM_DIR)")  # fmt: skip
            scratch = Path(tempfile.mkdtemp(prefix=f".world-{variant}-", dir=self.cache))
            _run(["build", "--persona", str(self.spec), "--out", str(scratch), "--anchor", DEMO_ANCHOR,
                  "--variant", str(variant), "--quiet"], f"building world variant {variant}")  # fmt: skip
            shutil.rmtree(world, ignore_errors=True)
            scratch.rename(world)
        if variant not in self._rendered:  # filled anew once per guest: the pages follow the code's interface
            scratch = Path(tempfile.mkdtemp(prefix=f".pages-{variant}-", dir=self.cache))
            _run(["demo-apps", str(world), str(scratch)], f"filling the demo apps of world variant {variant}")
            shutil.rmtree(pages, ignore_errors=True)
            scratch.rename(pages)
            self._rendered.add(variant)
        return pages

    def show(self, variant: int) -> str:
        """Serve variant ``variant``'s demo apps (built when missing); returns the base URL they are at."""
        self._root = self.pages(variant)
        self.variant = variant
        if self._server is None:
            root = self
            self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(lambda: root._root, root._served))
            threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self.base_url

    def _served(self) -> None:
        self.requests += 1

    def wait_for_request(self, after: int, timeout: float = 15.0) -> bool:
        """Wait until more than ``after`` requests were served (the page the guest opened, then its style)."""
        deadline = time.monotonic() + timeout
        while self.requests <= after and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.requests > after

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}" if self._server else ""

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._own_cache:
            shutil.rmtree(self.cache, ignore_errors=True)
