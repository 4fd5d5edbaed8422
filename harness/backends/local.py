"""The local backend: our local desktop guest (harness.guest.desktop: Xvfb, Chromium, xdotool)."""

from typing import TYPE_CHECKING

from harness.backends.base import BackendOptions, BackendUnavailable, Environment
from harness.control import ControlClient, ControlError

if TYPE_CHECKING:  # the guest is imported when the backend starts
    from harness.guest.desktop import LocalDesktopGuest


class LocalEnv(Environment):
    """Our local desktop guest (Xvfb + Chromium + xdotool); reset reopens the start page in a fresh profile."""

    name = "local"
    takes_post_boot = False
    world_variant_refusal = "shows --start-url as it is and cannot build a world variant yet (use variant 0)"

    @classmethod
    def from_options(cls, options: BackendOptions) -> "LocalEnv":
        return cls(start_url=options.start_url, wait_seconds=options.wait_seconds, screen_size=options.screen_size,
                   adopt_screen_size=options.adopt_screen_size)  # fmt: skip

    def __init__(self, *, start_url: str = "about:blank", screen_size=(1280, 800), **kwargs):
        super().__init__("", screen_size=screen_size, **kwargs)
        self.start_url = start_url
        self.guest: LocalDesktopGuest | None = None

    def preflight(self) -> list[str]:
        from harness.guest.desktop import missing_tools

        return [f"missing {tool}" for tool in missing_tools()]

    def start(self) -> None:
        from harness.guest.desktop import LocalDesktopGuest

        problems = self.preflight()
        if problems:
            raise BackendUnavailable(self.name, problems)
        width, height = self.screen_size
        guest = self.guest = LocalDesktopGuest(width, height, url=self.start_url)
        self.url = guest.start()
        self.client = ControlClient(self.url, retry_delay=0.2)
        self.client.wait_ready(timeout=30, interval=0.2)
        self.after_boot()

    def reset(self, task=None) -> None:
        if self.guest is None:
            raise ControlError(self.name, "the local desktop guest has not been started")
        self.guest.desktop.open(self.start_url)

    def stop(self) -> None:
        super().stop()
        if self.guest is not None:
            self.guest.stop()
            self.guest = None
