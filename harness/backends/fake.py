"""The fake backend: the fake guest (harness.guest.fake) on a loopback port, for tests and smoke runs."""

from harness.backends.base import BackendOptions, Environment
from harness.control import ControlClient


class FakeEnv(Environment):
    """The fake guest on a loopback port; reset clears its screen and command log."""

    name = "fake"
    takes_post_boot = False

    @classmethod
    def from_options(cls, options: BackendOptions) -> "FakeEnv":
        return cls(screen_size=options.screen_size, adopt_screen_size=options.adopt_screen_size)

    def __init__(self, *, screen_size=(1280, 800), wait_seconds: float = 0.0, **kwargs):
        super().__init__("", screen_size=screen_size, wait_seconds=wait_seconds, **kwargs)
        self.guest = None
        self.server = None

    def preflight(self) -> list[str]:
        return []

    def start(self) -> None:
        from harness.guest.fake import start_fake_guest

        self.guest, self.server = start_fake_guest(*self.screen_size)
        self.url = self.server.url
        self.client = ControlClient(self.url, retry_delay=0.05)
        self.client.wait_ready(timeout=10, interval=0.05)
        self.after_boot()

    def reset(self, task=None) -> None:
        self.guest.reset()

    def stop(self) -> None:
        super().stop()
        if self.server is not None:
            self.server.stop()
            self.server = None
