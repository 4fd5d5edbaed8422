"""The local backend: our local desktop guest (harness.guest.desktop: Xvfb, Chromium, xdotool). It serves
world variants as the demo apps filled from each variant's world (harness.guest.demo_world)."""

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from harness.backends.base import BackendOptions, BackendUnavailable, Environment
from harness.control import ControlClient, ControlError

if TYPE_CHECKING:  # the guests are imported when the backend starts
    from harness.guest.demo_world import DemoWorlds
    from harness.guest.desktop import LocalDesktopGuest

BLANK = "about:blank"
PAINT_SECONDS = 0.5  # after a demo page and its style were fetched, before the first screenshot


def demo_cache() -> Path | None:
    """Where built variant worlds are kept between runs: ``$MYPCBENCH_VAR_DIR/demo-worlds`` (none: a
    temporary folder per run)."""
    var = os.environ.get("MYPCBENCH_VAR_DIR")
    return Path(var) / "demo-worlds" if var else None


class LocalEnv(Environment):
    """Our local desktop guest (Xvfb + Chromium + xdotool); reset reopens the start page in a fresh profile.

    ``--start-url`` naming a demo app page (``hoolimail.html``), or any world variant above 0, makes the
    guest show the demo apps filled from the variant's world in that variant's interface (the start page,
    or the demo's index); any other start URL is shown as it is, on the canonical world only."""

    name = "local"
    takes_post_boot = False
    serves_world_variants = True

    @classmethod
    def from_options(cls, options: BackendOptions) -> "LocalEnv":
        return cls(start_url=options.start_url, wait_seconds=options.wait_seconds, screen_size=options.screen_size,
                   adopt_screen_size=options.adopt_screen_size)  # fmt: skip

    def __init__(self, *, start_url: str = BLANK, screen_size=(1280, 800), demo_cache: str | Path | None = None,
                 devtools_port: int = 0, **kwargs):  # fmt: skip
        super().__init__("", screen_size=screen_size, **kwargs)
        self.start_url = start_url
        self.demo_cache = demo_cache
        self.devtools_port = devtools_port  # Chromium's DevTools port for an observer (0: none)
        self.guest: LocalDesktopGuest | None = None
        self.demo_worlds: DemoWorlds | None = None

    def use_world_variant(self, variant: int) -> None:
        from harness.guest.demo_world import DEMO_PAGES, is_demo_page

        if variant and not (is_demo_page(self.start_url) or self.start_url == BLANK):
            raise ValueError(
                f"world variant {variant}: the local backend serves a world variant as the demo apps filled from "
                f"it, so --start-url must name one of their pages ({', '.join(DEMO_PAGES)}), not {self.start_url}"
            )
        super().use_world_variant(variant)

    def page_url(self) -> str:
        """What the guest opens for the current world variant (building its demo apps when they are needed)."""
        from harness.guest.demo_world import DemoWorlds, is_demo_page

        if not is_demo_page(self.start_url) and not self.world_variant:
            return self.start_url
        if self.demo_worlds is None:
            self.demo_worlds = DemoWorlds(self.demo_cache if self.demo_cache is not None else demo_cache())
        base = self.demo_worlds.show(self.world_variant)
        return f"{base}/{self.start_url if is_demo_page(self.start_url) else 'index.html'}"

    def preflight(self) -> list[str]:
        from harness.guest.desktop import missing_tools

        return [f"missing {tool}" for tool in missing_tools()]

    def start(self) -> None:
        from harness.guest.demo_world import DemoWorldError
        from harness.guest.desktop import LocalDesktopGuest

        problems = self.preflight()
        if problems:
            raise BackendUnavailable(self.name, problems)
        try:
            url = self.page_url()
        except DemoWorldError as exc:
            raise BackendUnavailable(self.name, [str(exc)]) from exc
        width, height = self.screen_size
        served = self.demo_worlds.requests if self.demo_worlds else 0
        guest = self.guest = LocalDesktopGuest(width, height, url=url, devtools_port=self.devtools_port)
        self.url = guest.start()
        self._wait_for_page(served)
        self.client = ControlClient(self.url, retry_delay=0.2)
        self.client.wait_ready(timeout=30, interval=0.2)
        self.after_boot()

    def reset(self, task=None) -> None:
        from harness.guest.demo_world import DemoWorldError

        if self.guest is None:
            raise ControlError(self.name, "the local desktop guest has not been started")
        try:
            url = self.page_url()
        except DemoWorldError as exc:
            raise ControlError(self.name, str(exc)) from exc
        served = self.demo_worlds.requests if self.demo_worlds else 0
        self.guest.desktop.open(url)
        self._wait_for_page(served)

    def _wait_for_page(self, served: int) -> None:
        """A demo app page is shown once Chromium has fetched it and its style and had a moment to paint."""
        if self.demo_worlds is not None and self.demo_worlds.wait_for_request(served + 1):
            time.sleep(PAINT_SECONDS)

    def stop(self) -> None:
        super().stop()
        if self.guest is not None:
            self.guest.stop()
            self.guest = None
        if self.demo_worlds is not None:
            self.demo_worlds.stop()
            self.demo_worlds = None
