"""What every backend is: a guest reached over the Control API (``Environment``: start, reset, screenshot,
execute, run_action, stop, with the post-boot setup and the screen-size check every backend shares), the
errors a backend raises, and ``BackendOptions``, what a run asks of its backend (each backend's
``from_options`` takes what it uses)."""

import base64
import shlex
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from harness.actions import parse_action
from harness.control import (
    ControlClient,
    ControlError,
    ExecResult,
    PostBootConfig,
    needs_fast_typing,
    nudge_network,
    png_size,
    run_post_boot,
    shell_command,
    spare_keycodes,
    typing_plan,
)

ANSWER_PATH = "/tmp/mypcbench_agent_response.txt"


class BackendUnavailable(RuntimeError):
    """The backend cannot start here; ``problems`` lists each reason."""

    def __init__(self, backend: str, problems: list[str]):
        self.backend = backend
        self.problems = problems
        super().__init__(f"the {backend} backend cannot start: " + "; ".join(problems))


class ScreenSizeMismatch(ControlError):
    """The guest's screen is not the size the run was set up for (agents would click in the wrong place)."""


ANSWER_CHUNK = 64_000  # base64 characters per command: one argument may not exceed 128 KiB on Linux


@dataclass(frozen=True)
class BackendOptions:
    """What a run asks of its backend (``make_env``'s arguments); each backend takes the ones it uses."""

    url: str = ""
    screen_size: tuple = (1280, 800)
    start_url: str = "about:blank"
    vm: Any = None  # a harness.backends.vm.VMConfig for the VM backends
    wait_seconds: float = 2.0
    ready_timeout: float = 900.0
    adopt_screen_size: bool = False
    post_boot: PostBootConfig | None = None
    reset_command: str = ""
    reset_url: str = ""


class Environment:
    """A guest reached over the Control API. Subclasses decide how it is started and reset.

    After the guest answers, ``after_boot`` runs the post-boot setup (when configured) and asks the guest
    its screen size: a guest whose screen differs from ``screen_size`` is refused, unless
    ``adopt_screen_size`` (then the run uses the guest's size). Every screenshot's size is checked too."""

    name = "remote"
    takes_post_boot: ClassVar[bool] = True  # runs the post-boot setup (--setup) once the guest answers
    takes_reset_hook: ClassVar[bool] = False  # takes the caller's --reset-command / --reset-url
    # Builds the persona world's variants (--world-variant K > 0). The released image holds the canonical
    # world only, and a guest that cannot build a variant refuses K > 0 rather than record a world it lacks.
    serves_world_variants: ClassVar[bool] = False
    world_variant_refusal: ClassVar[str] = "runs the released image, which holds the canonical world (variant 0) only"

    world_variant: int = 0  # the variant the next tasks run on (``use_world_variant``)

    def use_world_variant(self, variant: int) -> None:
        """Run the next tasks on world variant ``variant``; a backend that cannot serve it says so by name."""
        problem = self.world_variant_problem(variant)
        if problem:
            raise ValueError(problem)
        self.world_variant = variant

    @classmethod
    def world_variant_problem(cls, variant: int) -> str:
        """Why this backend cannot run ``variant`` ("" when it can)."""
        if variant == 0 or cls.serves_world_variants:
            return ""
        return f"world variant {variant}: the {cls.name} backend {cls.world_variant_refusal}"

    def __init__(self, url: str = "", *, screen_size=(1280, 800), wait_seconds: float = 2.0, ready_timeout=900.0,
                 adopt_screen_size: bool = False, post_boot: PostBootConfig | None = None):  # fmt: skip
        self.url = url
        self.screen_size = tuple(screen_size)
        self.requested_screen_size = tuple(screen_size)
        self.guest_screen_size: tuple[int, int] | None = None
        self.adopt_screen_size = adopt_screen_size
        self.post_boot = post_boot
        self.post_boot_record: dict | None = None
        self._nudge: dict | None = None  # what the network nudge did while waiting for this boot
        self.wait_seconds = wait_seconds
        self.ready_timeout = ready_timeout
        self.client: ControlClient | None = ControlClient(url) if url else None
        self._fresh = False  # started or reset, and nothing sent to the guest since

    @classmethod
    def from_options(cls, options: BackendOptions) -> "Environment":
        """This backend as ``options`` ask for it (each backend takes the options it uses)."""
        raise NotImplementedError

    @property
    def api(self) -> ControlClient:
        """The Control API client of the guest (there is none before a backend that finds its URL starts)."""
        if self.client is None:
            raise ControlError(self.url or self.name, "the guest has not been started (no Control API client yet)")
        return self.client

    # lifecycle -----------------------------------------------------------
    def preflight(self) -> list[str]:
        """Reasons this backend cannot start here (empty when it can)."""
        return [] if self.url else ["no guest URL given (expected e.g. http://127.0.0.1:5000)"]

    def start(self) -> None:
        problems = self.preflight()
        if problems:
            raise BackendUnavailable(self.name, problems)
        self.api.wait_ready(timeout=self.ready_timeout, interval=1.0, on_wait=self.while_waiting)
        self.after_boot()

    def while_waiting(self, waited: float, state: str) -> None:
        """Called on each poll while the guest is not ready: nudges NetworkManager once per boot after
        ``post_boot.nudge_after`` seconds when the ``network_nudge`` part is on."""
        config = self.post_boot
        if config is None or "network_nudge" not in config.parts or self._nudge is not None:
            return
        if waited >= config.nudge_after:
            self._nudge = nudge_network(self, config, waited, state)

    def nudge_link(self) -> str | None:
        """The backend's own way to make the guest's network reconnect; None when it has none."""
        return None

    def after_boot(self) -> None:
        """Post-boot setup, then the screen-size check; leaves the guest counted as fresh."""
        nudge, self._nudge = self._nudge, None
        if self.post_boot is not None and self.post_boot.parts:
            self.post_boot.resolution = self.requested_screen_size
            self.post_boot_record = run_post_boot(self, self.post_boot, nudge)
        self.check_screen()
        self._fresh = True

    def check_screen(self) -> None:
        """Ask the guest (POST /screen_size); refuse a different size unless told to adopt it."""
        size = self.api.screen_size()
        self.guest_screen_size = size
        if size == tuple(self.screen_size):
            return
        if self.adopt_screen_size:
            self.screen_size = size
            return
        (w, h), (rw, rh) = size, self.screen_size
        fix = ("post-boot setup ran xrandr but the size did not change" if self._xrandr_ran()
               else "--setup xrandr forces it with xrandr where the guest has a display")  # fmt: skip
        raise ScreenSizeMismatch(
            self.api._url("/screen_size"),
            f"the guest's screen is {w}x{h} but the run is set up for {rw}x{rh} (--width/--height): agents would "
            f"see a squeezed screen and click in the wrong place ({fix}; or pass --width {w} --height {h}, or "
            "--adopt-screen-size to run at the guest's size)",
        )

    def _xrandr_ran(self) -> bool:
        return bool(self.post_boot_record and self.post_boot_record.get("xrandr", {}).get("status") != "off")

    def reset(self, task=None) -> None:
        """A remote guest is not ours to restore: it is only checked to be up."""
        self.api.wait_ready(timeout=self.ready_timeout, interval=1.0)

    def stop(self) -> None:
        if self.client is not None:
            self.api.close()

    def describe(self) -> dict:
        return {"backend": self.name, "url": self.url, "screen_size": list(self.screen_size)}

    def protocol(self) -> dict:
        """What the run's bundle.json records about the guest: the real screen size and what was asked for,
        the post-boot setup each part did, how tasks are isolated."""
        data: dict = {"screen_size": list(self.screen_size), "screen_size_requested": list(self.requested_screen_size)}
        if self.guest_screen_size is not None:
            data["guest_screen_size"] = list(self.guest_screen_size)
        data["post_boot"] = self.post_boot_record or {"status": "off"}
        data["reset"] = self.reset_mode()
        return data

    def reset_mode(self) -> str:
        return "fresh guest"

    # actions -------------------------------------------------------------
    def screenshot(self) -> bytes:
        data = self.api.screenshot()
        size = png_size(data)
        if size is not None and size != tuple(self.screen_size):
            (w, h), (rw, rh) = size, self.screen_size
            raise ScreenSizeMismatch(self.api._url("/screenshot"),
                                     f"the screenshot is {w}x{h} but the guest's screen was {rw}x{rh} at start "
                                     "(did the resolution change?)")  # fmt: skip
        return data

    def execute(self, command, shell: bool = False) -> ExecResult:
        """Run a command on the guest. A shell command (``shell=True``; a list is joined into one) runs
        under bash through the harness's wrapper (see harness.control.SHELL_WRAPPER)."""
        self._fresh = False
        if shell:
            if isinstance(command, list):  # the server would run only its first element
                command = shlex.join(str(part) for part in command)
            return self.api.execute(shell_command(command), shell=False)
        return self.api.execute(command, shell=False)

    def run_action(self, action: str) -> ExecResult:
        """One agent action: WAIT sleeps, DONE and FAIL touch nothing, anything else is pyautogui code
        (long or non-ASCII typing goes through xdotool, see harness.control.needs_fast_typing)."""
        if action == "WAIT":
            time.sleep(self.wait_seconds)
            return ExecResult(returncode=0)
        if action in ("DONE", "FAIL"):
            return ExecResult(returncode=0)
        self._fresh = False
        text = _typed_text(action)
        if text is not None and needs_fast_typing(text):
            fast = self._type_fast(text)
            if fast is not None:
                return fast
        return self.api.run_pyautogui(action)

    def _type_fast(self, text: str) -> ExecResult | None:
        """Type with xdotool (non-ASCII characters mapped first, see harness.control.typing_plan); None
        when the guest has no xdotool, so the caller falls back to pyautogui."""
        spare = []
        if not text.isascii():
            keymap = self.api.execute(["xmodmap", "-pke"], shell=False)
            spare = spare_keycodes(keymap.output) if keymap.ok else []
        result, typed = ExecResult(returncode=0), False
        for argv in typing_plan(text, spare):
            if argv[0] == "sleep":
                time.sleep(float(argv[1]))
                continue
            result = self.api.execute(argv, shell=False)
            if argv[0] == "xdotool" and not typed and result.returncode == -1 and "not found" in result.error:
                return None  # nothing typed yet: pyautogui can still do it all
            if not result.ok:
                break
            typed = typed or argv[0] == "xdotool"
        result.via = "xdotool"
        return result

    def write_answer(self, text: str) -> ExecResult:
        """Leave the final answer in the guest, where upstream's checks look for it. A long answer goes in
        pieces (one command-line argument may not exceed 128 KiB), then is decoded in place."""
        self._fresh = False
        encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
        if len(encoded) <= ANSWER_CHUNK:
            return self.api.execute(f"echo {encoded} | base64 -d > {ANSWER_PATH}", shell=True)
        staging = f"{ANSWER_PATH}.b64"
        for i in range(0, len(encoded), ANSWER_CHUNK):
            redirect = ">" if i == 0 else ">>"
            result = self.api.execute(f"printf %s {encoded[i : i + ANSWER_CHUNK]} {redirect} {staging}", shell=True)
            if not result.ok:
                return result
        return self.api.execute(f"base64 -d {staging} > {ANSWER_PATH} && rm -f {staging}", shell=True)


def _typed_text(action: str) -> str | None:
    """The text of an action that only types (one typewrite / write call), else None."""
    if "typewrite" not in action and "write(" not in action:
        return None
    parsed = parse_action(action)
    if parsed.get("type") != "type" or "actions" in parsed or parsed.get("via"):
        return None
    return parsed["text"]
