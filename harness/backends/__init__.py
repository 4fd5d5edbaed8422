"""Backends: where the guest an agent drives runs. One module per backend behind one interface
(``base.Environment``: start, reset, screenshot, execute, run_action, stop): ``remote`` (a guest already
running at a URL), ``fake`` (the fake guest), ``local`` (our local desktop guest), and the released VM
image under ``qemu`` or ``docker`` (one slot each; what they share is in ``vm``). A backend that cannot
start says why before trying.

Adding a backend: a new module with an ``Environment`` subclass (its ``name``, ``preflight``, ``start``,
``reset``, ``stop`` and ``from_options``), and one line in ``REGISTRY`` below.

May use: ``harness.control``, ``harness.actions`` and the guests (``harness.guest``, imported when a
backend starts). The run, the site's evaluations and the test guests use this room; they import the
names exported here."""

from harness.backends.base import (
    ANSWER_PATH,
    BackendOptions,
    BackendUnavailable,
    Environment,
    ScreenSizeMismatch,
)
from harness.backends.docker import DockerEnv
from harness.backends.fake import FakeEnv
from harness.backends.local import LocalEnv
from harness.backends.qemu import QemuEnv, find_ovmf
from harness.backends.remote import RemoteEnv
from harness.backends.vm import BootFailed, SlotPorts, VMConfig, VMEnv, kvm_problem, port_taken
from harness.control import PostBootConfig

# Every backend by the name --backend takes, in the order the command line lists them.
REGISTRY: dict[str, type[Environment]] = {
    "fake": FakeEnv,
    "remote": RemoteEnv,
    "local": LocalEnv,
    "qemu": QemuEnv,
    "docker": DockerEnv,
}
BACKENDS = tuple(REGISTRY)


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def make_env(backend: str, *, url: str = "", screen_size=(1280, 800), start_url: str = "about:blank",
             vm: VMConfig | None = None, wait_seconds: float = 2.0, ready_timeout: float = 900.0,
             adopt_screen_size: bool = False, post_boot: PostBootConfig | None = None, reset_command: str = "",
             reset_url: str = "") -> Environment:  # fmt: skip
    """The backend ``backend``; ``ready_timeout`` is how long remote and VM guests get to answer;
    ``post_boot`` (qemu, docker, remote) is the setup run once the guest answers."""
    chosen = REGISTRY.get(backend)
    if (reset_command or reset_url) and not (chosen and chosen.takes_reset_hook):
        hooked = _listed([name for name, env in REGISTRY.items() if env.takes_reset_hook])
        raise ValueError(f"--reset-command / --reset-url: only the {hooked} backend takes a reset hook (got {backend})")
    if post_boot is not None and post_boot.parts and not (chosen and chosen.takes_post_boot):
        setup = _listed([name for name, env in REGISTRY.items() if env.takes_post_boot])
        raise ValueError(f"--setup: post-boot setup is for the {setup} backends (got {backend})")
    if chosen is None:
        raise ValueError(f"unknown backend {backend!r} (expected one of {', '.join(BACKENDS)})")
    options = BackendOptions(url=url, screen_size=screen_size, start_url=start_url, vm=vm, wait_seconds=wait_seconds,
                             ready_timeout=ready_timeout, adopt_screen_size=adopt_screen_size, post_boot=post_boot,
                             reset_command=reset_command, reset_url=reset_url)  # fmt: skip
    return chosen.from_options(options)


__all__ = [
    "ANSWER_PATH",
    "BACKENDS",
    "REGISTRY",
    "BackendOptions",
    "BackendUnavailable",
    "BootFailed",
    "DockerEnv",
    "Environment",
    "FakeEnv",
    "LocalEnv",
    "QemuEnv",
    "RemoteEnv",
    "ScreenSizeMismatch",
    "SlotPorts",
    "VMConfig",
    "VMEnv",
    "find_ovmf",
    "kvm_problem",
    "make_env",
    "port_taken",
]
