"""The fake backend: the fake guest (harness.guest.fake) on a loopback port, for tests and smoke runs."""

from typing import TYPE_CHECKING

from harness.backends.base import BackendOptions, Environment
from harness.control import ControlClient, ControlError

if TYPE_CHECKING:  # the guest is imported when the backend starts
    from harness.guest.fake import FakeGuest
    from harness.guest.server import ControlServer


class FakeEnv(Environment):
    """The fake guest on a loopback port; reset clears its screen and command log."""

    name = "fake"
    takes_post_boot = False
    serves_world_variants = True  # it draws no world, so every variant is the same blank screen to it

    @classmethod
    def from_options(cls, options: BackendOptions) -> "FakeEnv":
        return cls(screen_size=options.screen_size, adopt_screen_size=options.adopt_screen_size)

    def __init__(self, *, screen_size=(1280, 800), wait_seconds: float = 0.0, **kwargs):
        super().__init__("", screen_size=screen_size, wait_seconds=wait_seconds, **kwargs)
        self.guest: FakeGuest | None = None
        self.server: ControlServer | None = None

    def preflight(self) -> list[str]:
        return []

    def start(self) -> None:
        from harness.guest.fake import start_fake_guest

        guest, server = start_fake_guest(*self.screen_size)
        self.guest, self.server = guest, server
        self.url = server.url
        self.client = ControlClient(self.url, retry_delay=0.05)
        self.client.wait_ready(timeout=10, interval=0.05)
        self.after_boot()

    def reset(self, task=None) -> None:
        if self.guest is None:
            raise ControlError(self.name, "the fake guest has not been started")
        self.guest.reset()

    def stop(self) -> None:
        super().stop()
        if self.server is not None:
            self.server.stop()
            self.server = None
