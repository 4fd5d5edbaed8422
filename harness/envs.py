"""Environment backends behind one interface (start, reset, screenshot, execute, run_action, stop):
a guest already running at a URL, the fake guest, our local desktop guest, and the released VM image
under QEMU or Docker, one slot each. A backend that cannot start says why before trying."""

import base64
import os
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

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

API_PORT, VNC_PORT, SSH_PORT = 5000, 5901, 22
APP_PORTS = tuple(range(3001, 3019))
SLOT_WINDOW = 30  # ports per slot, as upstream's parallel runner lays them out
ANSWER_PATH = "/tmp/mypcbench_agent_response.txt"
SNAPSHOT_NAME = "mypcbench-ready"
OVMF_DIRS = ("/usr/share/OVMF", "/usr/share/ovmf", "/usr/share/edk2/ovmf", "/usr/share/qemu")


class BootFailed(ControlError):
    """A VM was started but its guest never answered the Control API (or QEMU exited first)."""


class BackendUnavailable(RuntimeError):
    """The backend cannot start here; ``problems`` lists each reason."""

    def __init__(self, backend: str, problems: list[str]):
        self.backend = backend
        self.problems = problems
        super().__init__(f"the {backend} backend cannot start: " + "; ".join(problems))


@dataclass(frozen=True)
class SlotPorts:
    api: int
    vnc: int
    novnc: int
    ssh: int
    apps: dict = field(default_factory=dict)  # guest app port -> host port

    @classmethod
    def for_slot(cls, slot: int, base: int = 25000) -> "SlotPorts":
        start = base + SLOT_WINDOW * slot
        apps = {guest: start + 10 + i for i, guest in enumerate(APP_PORTS)}
        return cls(api=start, vnc=start + 1, novnc=start + 2, ssh=start + 3, apps=apps)

    def all(self) -> list[int]:
        return [self.api, self.vnc, self.novnc, self.ssh, *self.apps.values()]


def port_taken(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def kvm_problem(path: str = "/dev/kvm", cpuinfo: str = "/proc/cpuinfo") -> str | None:
    """Why KVM cannot run a stock guest here, or None. For a real device node the CPU is checked too:
    some sandboxes offer /dev/kvm without hardware virtualisation (PVM, module kvm_pvm), which runs only
    PVM-enabled guest kernels and crawls through an ordinary one under instruction emulation."""
    if not os.path.exists(path):
        return f"no {path} (KVM is not available: enable virtualisation or run on a host with KVM)"
    if not os.access(path, os.R_OK | os.W_OK):
        return f"{path} is not readable and writable by this user (add the user to the kvm group)"
    if stat.S_ISCHR(os.stat(path).st_mode) and not _cpu_has_virtualisation(cpuinfo):
        backing = " (it is PVM: module kvm_pvm)" if os.path.isdir("/sys/module/kvm_pvm") else ""
        return (f"{path} is there but the CPU has no hardware virtualisation (no vmx/svm in {cpuinfo}){backing}: "
                "an ordinary guest kernel would boot under instruction emulation, slower than TCG")  # fmt: skip
    return None


def _cpu_has_virtualisation(cpuinfo: str) -> bool:
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True  # cannot tell: let QEMU try
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), None)
    return flags is None or "vmx" in flags or "svm" in flags


class ScreenSizeMismatch(ControlError):
    """The guest's screen is not the size the run was set up for (agents would click in the wrong place)."""


ANSWER_CHUNK = 64_000  # base64 characters per command: one argument may not exceed 128 KiB on Linux


class Environment:
    """A guest reached over the Control API. Subclasses decide how it is started and reset.

    After the guest answers, ``after_boot`` runs the post-boot setup (when configured) and asks the guest
    its screen size: a guest whose screen differs from ``screen_size`` is refused, unless
    ``adopt_screen_size`` (then the run uses the guest's size). Every screenshot's size is checked too."""

    name = "remote"

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

    # lifecycle -----------------------------------------------------------
    def preflight(self) -> list[str]:
        """Reasons this backend cannot start here (empty when it can)."""
        return [] if self.url else ["no guest URL given (expected e.g. http://127.0.0.1:5000)"]

    def start(self) -> None:
        problems = self.preflight()
        if problems:
            raise BackendUnavailable(self.name, problems)
        self.client.wait_ready(timeout=self.ready_timeout, interval=1.0, on_wait=self.while_waiting)
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
        size = self.client.screen_size()
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
            self.client._url("/screen_size"),
            f"the guest's screen is {w}x{h} but the run is set up for {rw}x{rh} (--width/--height): agents would "
            f"see a squeezed screen and click in the wrong place ({fix}; or pass --width {w} --height {h}, or "
            "--adopt-screen-size to run at the guest's size)",
        )

    def _xrandr_ran(self) -> bool:
        return bool(self.post_boot_record and self.post_boot_record.get("xrandr", {}).get("status") != "off")

    def reset(self, task=None) -> None:
        """A remote guest is not ours to restore: it is only checked to be up."""
        self.client.wait_ready(timeout=self.ready_timeout, interval=1.0)

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()

    def describe(self) -> dict:
        return {"backend": self.name, "url": self.url, "screen_size": list(self.screen_size)}

    def protocol(self) -> dict:
        """What the run's bundle.json records about the guest: the real screen size and what was asked for,
        the post-boot setup each part did, how tasks are isolated."""
        data = {"screen_size": list(self.screen_size), "screen_size_requested": list(self.requested_screen_size)}
        if self.guest_screen_size is not None:
            data["guest_screen_size"] = list(self.guest_screen_size)
        data["post_boot"] = self.post_boot_record or {"status": "off"}
        data["reset"] = self.reset_mode()
        return data

    def reset_mode(self) -> str:
        return "fresh guest"

    # actions -------------------------------------------------------------
    def screenshot(self) -> bytes:
        data = self.client.screenshot()
        size = png_size(data)
        if size is not None and size != tuple(self.screen_size):
            (w, h), (rw, rh) = size, self.screen_size
            raise ScreenSizeMismatch(self.client._url("/screenshot"),
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
            return self.client.execute(shell_command(command), shell=False)
        return self.client.execute(command, shell=False)

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
        return self.client.run_pyautogui(action)

    def _type_fast(self, text: str) -> ExecResult | None:
        """Type with xdotool (non-ASCII characters mapped first, see harness.control.typing_plan); None
        when the guest has no xdotool, so the caller falls back to pyautogui."""
        spare = []
        if not text.isascii():
            keymap = self.client.execute(["xmodmap", "-pke"], shell=False)
            spare = spare_keycodes(keymap.output) if keymap.ok else []
        result, typed = ExecResult(returncode=0), False
        for argv in typing_plan(text, spare):
            if argv[0] == "sleep":
                time.sleep(float(argv[1]))
                continue
            result = self.client.execute(argv, shell=False)
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
            return self.client.execute(f"echo {encoded} | base64 -d > {ANSWER_PATH}", shell=True)
        staging = f"{ANSWER_PATH}.b64"
        for i in range(0, len(encoded), ANSWER_CHUNK):
            redirect = ">" if i == 0 else ">>"
            result = self.client.execute(f"printf %s {encoded[i : i + ANSWER_CHUNK]} {redirect} {staging}", shell=True)
            if not result.ok:
                return result
        return self.client.execute(f"base64 -d {staging} > {ANSWER_PATH} && rm -f {staging}", shell=True)


def _typed_text(action: str) -> str | None:
    """The text of an action that only types (one typewrite / write call), else None."""
    if "typewrite" not in action and "write(" not in action:
        return None
    parsed = parse_action(action)
    if parsed.get("type") != "type" or "actions" in parsed or parsed.get("via"):
        return None
    return parsed["text"]


class RemoteEnv(Environment):
    """A guest already running at a URL. Nothing listening there fails fast (connection refused for
    ``refused_grace`` seconds); a guest that answers but is not ready gets ``ready_timeout``. Reset runs
    ``reset_command`` (a shell command on this machine) or POSTs ``reset_url`` when given, waits for the
    guest and repeats the post-boot setup; without either, tasks share the guest's state (warned)."""

    name = "remote"

    def __init__(self, url: str = "", *, reset_command: str = "", reset_url: str = "", refused_grace: float = 10.0,
                 warn=None, **kwargs):  # fmt: skip
        super().__init__(url, **kwargs)
        self.reset_command = reset_command
        self.reset_url = reset_url
        self.refused_grace = refused_grace
        self.warn = warn or (lambda message: print(f"warning: {message}", file=sys.stderr))
        self.shared_tasks = 0  # tasks started on a guest a previous task had used

    def start(self) -> None:
        problems = self.preflight()
        if problems:
            raise BackendUnavailable(self.name, problems)
        self.client.wait_ready(
            timeout=self.ready_timeout, interval=1.0, refused_grace=self.refused_grace, on_wait=self.while_waiting
        )
        self.after_boot()

    def reset_mode(self) -> str:
        if self.reset_command:
            return "reset command"
        if self.reset_url:
            return "reset URL"
        return "none (tasks share the remote guest's state)"

    def reset(self, task=None) -> None:
        if self._fresh:
            return
        if not (self.reset_command or self.reset_url):
            self.shared_tasks += 1
            if self.shared_tasks == 1:
                self.warn("the remote guest is not reset between tasks (no --reset-command or --reset-url): "
                          "each task starts on the screen and files the previous one left")  # fmt: skip
            self.client.wait_ready(timeout=self.ready_timeout, interval=1.0, refused_grace=self.refused_grace)
            return
        if self.reset_command:
            try:
                done = subprocess.run(self.reset_command, shell=True, capture_output=True, text=True,
                                      timeout=self.ready_timeout)  # fmt: skip
            except subprocess.TimeoutExpired:
                raise ControlError(self.url, f"--reset-command did not finish in {self.ready_timeout:g} s") from None
            if done.returncode != 0:
                detail = " ".join((done.stderr or done.stdout).split())[-300:]
                raise ControlError(self.url, f"--reset-command exited {done.returncode}: {detail}")
        else:
            try:
                answer = self.client.session.post(self.reset_url, timeout=(5, self.ready_timeout))
            except Exception as exc:
                raise ControlError(self.reset_url, f"reset URL failed: {type(exc).__name__}: {exc}") from exc
            if answer.status_code >= 300:
                raise ControlError(self.reset_url, f"reset URL answered HTTP {answer.status_code}: {answer.text[:200]}")
        self.client.wait_ready(
            timeout=self.ready_timeout, interval=1.0, refused_grace=self.refused_grace, on_wait=self.while_waiting
        )
        self.after_boot()


class FakeEnv(Environment):
    """The fake guest on a loopback port; reset clears its screen and command log."""

    name = "fake"

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


class LocalEnv(Environment):
    """Our local desktop guest (Xvfb + Chromium + xdotool); reset reopens the start page in a fresh profile."""

    name = "local"

    def __init__(self, *, start_url: str = "about:blank", screen_size=(1280, 800), **kwargs):
        super().__init__("", screen_size=screen_size, **kwargs)
        self.start_url = start_url
        self.guest = None

    def preflight(self) -> list[str]:
        from harness.guest.desktop import missing_tools

        return [f"missing {tool}" for tool in missing_tools()]

    def start(self) -> None:
        from harness.guest.desktop import LocalDesktopGuest

        problems = self.preflight()
        if problems:
            raise BackendUnavailable(self.name, problems)
        self.guest = LocalDesktopGuest(*self.screen_size, url=self.start_url)
        self.url = self.guest.start()
        self.client = ControlClient(self.url, retry_delay=0.2)
        self.client.wait_ready(timeout=30, interval=0.2)
        self.after_boot()

    def reset(self, task=None) -> None:
        self.guest.desktop.open(self.start_url)

    def stop(self) -> None:
        super().stop()
        if self.guest is not None:
            self.guest.stop()
            self.guest = None


@dataclass
class VMConfig:
    """What a VM slot needs; defaults follow upstream (8 GB, 4 CPUs, ports from 25000, 30 per slot)."""

    image: str = ""  # qcow2 base (qemu) or image tag (docker)
    slot: int = 0
    port_base: int = 25000
    memory: str = "8G"
    cpus: int = 4
    work_dir: str = "/tmp"
    persona: str = "michael_scott"
    world: str = "scranton-office"
    allow_tcg: bool = False  # boot without KVM (very slow; off unless asked for)
    privileged: bool = True  # docker only: --privileged, as the released image is documented to run
    # qemu only: reset by loading a memory snapshot taken in the slot's overlay once the guest was first
    # ready (savevm / loadvm over QMP) instead of a cold boot from a fresh overlay.
    snapshot_reset: bool = False
    # qemu only: boot this kernel directly (no firmware, no boot loader) with its initramfs and
    # command line; the disk overlay stays attached as /dev/vda.
    kernel: str = ""
    initrd: str = ""
    append: str = ""

    @property
    def ports(self) -> SlotPorts:
        return SlotPorts.for_slot(self.slot, self.port_base)

    @property
    def slot_name(self) -> str:
        return f"mypcbench-slot{self.slot}"


class _VMEnv(Environment):
    def __init__(self, config: VMConfig, *, which=shutil.which, kvm_path: str = "/dev/kvm", **kwargs):
        self.config = config
        self.which = which
        self.kvm_path = kvm_path
        super().__init__(f"http://127.0.0.1:{config.ports.api}", **kwargs)

    def _port_problems(self) -> list[str]:
        taken = [p for p in self.config.ports.all() if port_taken(p)]
        if not taken:
            return []
        return [f"host port(s) {', '.join(map(str, taken))} of slot {self.config.slot} are already in use"]

    def _kvm_problems(self) -> list[str]:
        problem = kvm_problem(self.kvm_path)
        return [problem] if problem and not self.config.allow_tcg else []

    # lifecycle shared by the VM backends: subclasses boot (_launch), tell whether the guest still
    # runs (_exit_problem), say what its logs end with (_not_ready_detail) and tear it down (_kill).
    boot_seconds: float | None = None  # how long the last boot took to answer the Control API

    def start(self) -> None:
        problems = self.preflight()
        if problems:
            raise BackendUnavailable(self.name, problems)
        self._boot()

    def _boot(self) -> None:
        """Launch, then wait for the Control API; on failure nothing is left running."""
        self._launch()
        try:
            self.boot_seconds = self._wait_ready()
        except BootFailed:
            self.stop()
            raise
        self.after_boot()

    def _wait_ready(self) -> float:
        """Seconds until /health answers 200; BootFailed when the guest exits or ``ready_timeout`` passes."""
        started = time.monotonic()
        probe = ControlClient(self.url)  # its timeouts shrink so the last poll ends by the deadline
        try:
            while True:
                exited = self._exit_problem()
                if exited:
                    raise BootFailed(self.url, exited)
                remaining = self.ready_timeout - (time.monotonic() - started)
                probe.connect_timeout = probe.health_timeout = max(0.2, min(5.0, remaining))
                state = probe.probe()
                if state == "ready":
                    return time.monotonic() - started
                waited = time.monotonic() - started
                self.while_waiting(waited, state)
                if waited >= self.ready_timeout:
                    raise BootFailed(self.url, f"guest not ready after {waited:.0f} s (no HTTP 200 on /health; "
                                               f"ready timeout {self.ready_timeout:g} s); "
                                               f"{self._not_ready_detail()}")  # fmt: skip
                time.sleep(min(1.0, max(0.0, self.ready_timeout - waited)))
        finally:
            probe.close()

    def reset(self, task=None) -> None:
        """A fresh guest, unless the guest has just booted and nothing was sent to it."""
        if self._fresh and self._exit_problem() is None and self.client.health():
            return
        self._kill()
        deadline = time.monotonic() + 90
        while self._port_problems() and time.monotonic() < deadline:
            time.sleep(1)
        self._boot()

    def _launch(self) -> None:
        raise NotImplementedError

    def _exit_problem(self) -> str | None:
        """Why the guest is not running any more (None while it runs)."""
        raise NotImplementedError

    def _not_ready_detail(self) -> str:
        raise NotImplementedError

    def _kill(self) -> None:
        raise NotImplementedError


def find_ovmf(dirs=OVMF_DIRS) -> tuple[str, str] | None:
    """UEFI CODE and VARS files from the distro, preferring 4M builds, never secure-boot variants."""
    for directory in dirs:
        root = Path(directory)
        if not root.is_dir():
            continue
        names = sorted(p.name for p in root.iterdir())

        def pick(kind: str, names=names):
            candidates = [
                n
                for n in names
                if kind in n and n.endswith(".fd") and not any(s in n for s in (".ms.", "secboot", "snakeoil"))
            ]
            candidates.sort(key=lambda n: (0 if "_4M" in n else 1, n))
            return candidates[0] if candidates else None

        code, variables = pick("CODE"), pick("VARS")
        if code and variables:
            return str(root / code), str(root / variables)
    return None


class QemuEnv(_VMEnv):
    """The released qcow2 booted under QEMU with a copy-on-write overlay per slot. Reset is a cold
    boot from a fresh overlay (upstream has no snapshots either); a guest that has just booted and
    was sent nothing yet is kept. With ``config.kernel`` the kernel is booted directly (the test guest
    of harness/testing/qemu_guest.py boots this way). Logs: <work_dir>/<slot>-serial.log and -qemu.log."""

    name = "qemu"
    process: subprocess.Popen | None = None

    @property
    def overlay_path(self) -> str:
        return str(Path(self.config.work_dir) / f"{self.config.slot_name}-overlay.qcow2")

    def preflight(self) -> list[str]:
        problems = []
        for tool in ("qemu-system-x86_64", "qemu-img"):
            if self.which(tool) is None:
                problems.append(f"{tool} is not installed (apt-get install qemu-system-x86 qemu-utils)")
        if not self.config.image:
            problems.append("no base image given (expected the released mypcbench qcow2 path)")
        elif not Path(self.config.image).is_file():
            problems.append(f"base image {self.config.image} does not exist")
        if self.config.kernel:
            for what in ("kernel", "initrd"):
                path = getattr(self.config, what)
                if path and not Path(path).is_file():
                    problems.append(f"{what} {path} does not exist")
        elif self.config.initrd or self.config.append:
            problems.append("initrd / append given without a kernel (they only apply to direct kernel boot)")
        return problems + self._kvm_problems() + self._port_problems()

    def overlay_command(self) -> list[str]:
        return ["qemu-img", "create", "-f", "qcow2", "-b", str(Path(self.config.image).resolve()), "-F", "qcow2",
                self.overlay_path]  # fmt: skip

    def qemu_command(self, ovmf: tuple[str, str] | None = None) -> list[str]:
        config, ports = self.config, self.config.ports
        kvm = kvm_problem(self.kvm_path) is None
        forwards = [f"hostfwd=tcp:127.0.0.1:{ports.api}-:{API_PORT}", f"hostfwd=tcp:127.0.0.1:{ports.vnc}-:{VNC_PORT}",
                    f"hostfwd=tcp:127.0.0.1:{ports.ssh}-:{SSH_PORT}"]  # fmt: skip
        forwards += [f"hostfwd=tcp:127.0.0.1:{host}-:{guest}" for guest, host in ports.apps.items()]
        work = Path(config.work_dir)
        command = [
            "qemu-system-x86_64",
            "-name", config.slot_name,
            "-machine", "q35,accel=kvm" if kvm else "q35,accel=tcg",
            "-cpu", "host" if kvm else "qemu64",
            "-m", config.memory,
            "-smp", str(config.cpus),
            "-drive", f"if=virtio,file={self.overlay_path},format=qcow2,cache=unsafe,aio=threads",
            "-netdev", "user,id=net0," + ",".join(forwards),
            "-device", "virtio-net-pci,netdev=net0",
            "-vga", "virtio",
            "-display", "none",
            "-vnc", f"127.0.0.1:{ports.novnc - 5900}",
            "-serial", f"file:{work / (config.slot_name + '-serial.log')}",
            "-pidfile", str(work / f"{config.slot_name}.pid"),
        ]  # fmt: skip
        if config.snapshot_reset:
            command += ["-qmp", f"unix:{self.qmp_path},server=on,wait=off"]
        if config.kernel:
            command += ["-kernel", config.kernel]
            command += ["-initrd", config.initrd] if config.initrd else []
            command += ["-append", config.append] if config.append else []
        if ovmf:
            # savevm needs every writable drive in qcow2, the firmware's variables too
            kind = "qcow2" if config.snapshot_reset else "raw"
            vars_copy = work / f"{config.slot_name}-OVMF_VARS.{'qcow2' if kind == 'qcow2' else 'fd'}"
            command += ["-drive", f"if=pflash,format=raw,readonly=on,file={ovmf[0]}",
                        "-drive", f"if=pflash,format={kind},file={vars_copy}"]  # fmt: skip
        return command

    def _slot_file(self, suffix: str) -> Path:
        return Path(self.config.work_dir) / f"{self.config.slot_name}{suffix}"

    def _launch(self) -> None:
        """A fresh overlay, then QEMU."""
        Path(self.overlay_path).unlink(missing_ok=True)
        made = subprocess.run(self.overlay_command(), capture_output=True, text=True, timeout=120)
        if made.returncode != 0:
            raise BackendUnavailable(self.name, [f"qemu-img could not create the overlay: {made.stderr.strip()[:300]}"])
        # Direct kernel boot needs no UEFI firmware (SeaBIOS loads the kernel, and boots faster).
        ovmf = None if self.config.kernel else find_ovmf()
        if ovmf:
            if self.config.snapshot_reset:
                subprocess.run(["qemu-img", "convert", "-f", "raw", "-O", "qcow2", ovmf[1],
                                str(self._slot_file("-OVMF_VARS.qcow2"))], check=True, timeout=60)  # fmt: skip
            else:
                shutil.copyfile(ovmf[1], self._slot_file("-OVMF_VARS.fd"))
        self.snapshot_taken = False  # a fresh overlay holds no snapshot
        with open(self._slot_file("-qemu.log"), "wb") as log:  # QEMU's own messages; kept after stop
            self.process = subprocess.Popen(self.qemu_command(ovmf), stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT)  # fmt: skip

    def _exit_problem(self) -> str | None:
        code = self.process.poll() if self.process is not None else -1
        if code is None:
            return None
        return f"qemu exited with code {code} before the guest was ready; {self._tail('-qemu.log', 'QEMU output')}"

    def _not_ready_detail(self) -> str:
        return self._tail("-serial.log", "serial console")

    def _tail(self, suffix: str, what: str, lines: int = 6) -> str:
        path = self._slot_file(suffix)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return f"no {what} log at {path}"
        last = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
        return f"{what} ({path}) ends with: " + (" | ".join(last) if last else "(nothing)")

    def _kill(self) -> None:
        self._fresh = False
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)

    # snapshot reset --------------------------------------------------------------------------
    snapshot_taken = False
    last_reset: dict | None = None  # {"how": "snapshot" | "cold boot", "seconds": ...} of the last reset
    _qmp_dir: str | None = None

    @property
    def qmp_path(self) -> str:
        """QEMU's QMP socket (in a short temporary folder: a socket path may not exceed 107 bytes)."""
        if self._qmp_dir is None:
            import tempfile

            self._qmp_dir = tempfile.mkdtemp(prefix="mypcbench-qmp-")
        return str(Path(self._qmp_dir) / f"{self.config.slot}.sock")

    def _boot(self) -> None:
        super()._boot()
        if self.config.snapshot_reset and not self.snapshot_taken:
            self.hmp(f"savevm {SNAPSHOT_NAME}")
            self.snapshot_taken = True

    def reset(self, task=None) -> None:
        """Load the snapshot taken when the guest was first ready (memory and disk as they were then);
        without one, or when loading fails, a cold boot from a fresh overlay."""
        if self._fresh and self._exit_problem() is None and self.client.health():
            return
        started = time.monotonic()
        if self.config.snapshot_reset and self.snapshot_taken and self._exit_problem() is None:
            try:
                self.hmp(f"loadvm {SNAPSHOT_NAME}")
                # connections kept open from before the snapshot point at sockets the guest no longer has
                self.client.close()
                self.client = ControlClient(self.url)
                self.client.wait_ready(timeout=min(60.0, self.ready_timeout), interval=0.05)
                self._fresh = True
                self.last_reset = {"how": "snapshot", "seconds": round(time.monotonic() - started, 3)}
                return
            except (ControlError, OSError) as exc:
                self.last_reset = {"how": "cold boot", "snapshot_failed": str(exc)[:300]}
        super().reset(task)
        self.last_reset = {**(self.last_reset or {}), "how": "cold boot",
                           "seconds": round(time.monotonic() - started, 3)}  # fmt: skip

    def nudge_link(self) -> str | None:
        """Unplug and replug the virtual network cable (QMP ``set_link``), when QEMU has a monitor."""
        if not self.config.snapshot_reset or self._exit_problem() is not None:
            return None
        self.hmp("set_link net0 off", timeout=10)
        time.sleep(1)
        self.hmp("set_link net0 on", timeout=10)
        return "virtual network cable unplugged and replugged (QMP set_link net0)"

    def reset_mode(self) -> str:
        return "memory snapshot (loadvm)" if self.config.snapshot_reset else "cold boot from a fresh overlay"

    def hmp(self, command_line: str, timeout: float = 300.0) -> str:
        """Run a QEMU monitor command over QMP; raises ControlError when QEMU reports an error (savevm and
        loadvm report theirs as text)."""
        import json as _json

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            try:
                sock.connect(self.qmp_path)
            except OSError as exc:
                raise ControlError(self.qmp_path, f"cannot reach QEMU's monitor: {exc}") from exc
            stream = sock.makefile("rwb")

            def send(message: dict) -> dict:
                stream.write(_json.dumps(message).encode() + b"\n")
                stream.flush()
                while True:
                    line = stream.readline()
                    if not line:
                        raise ControlError(self.qmp_path, f"QEMU closed its monitor during {command_line!r}")
                    answer = _json.loads(line)
                    if "return" in answer or "error" in answer:
                        return answer

            stream.readline()  # the greeting
            send({"execute": "qmp_capabilities"})
            answer = send({"execute": "human-monitor-command", "arguments": {"command-line": command_line}})
        if "error" in answer:
            raise ControlError(self.qmp_path, f"{command_line}: {answer['error'].get('desc', answer['error'])}")
        text = str(answer.get("return") or "").strip()
        if text:  # HMP prints nothing on success
            raise ControlError(self.qmp_path, f"{command_line}: {text[:300]}")
        return text

    def stop(self) -> None:
        """Kill QEMU and remove the overlay (the serial and QEMU logs stay for a post-mortem)."""
        self._kill()
        super().stop()
        for leftover in (self.overlay_path, self._slot_file(".pid"), self._slot_file("-OVMF_VARS.fd"),
                         self._slot_file("-OVMF_VARS.qcow2")):  # fmt: skip
            Path(leftover).unlink(missing_ok=True)
        if self._qmp_dir is not None:
            shutil.rmtree(self._qmp_dir, ignore_errors=True)
            self._qmp_dir = None


class DockerEnv(_VMEnv):
    """The released Docker image (the VM under QEMU inside), one container per slot named after it, its
    ports published on 127.0.0.1. Reset removes the container and runs a fresh one (a container that has
    just started and was sent nothing yet is kept); stop removes it. /dev/kvm is passed in only when KVM
    is usable here; without it the backend refuses unless ``allow_tcg``. harness/testing/docker_guest.py
    builds a small stand-in image that runs the Control API guest directly."""

    name = "docker"
    released_image = "ljang/mypcbench-qemu:eval-round0"

    def __init__(self, config: VMConfig, *, run=subprocess.run, **kwargs):
        self.run = run
        super().__init__(config, **kwargs)

    def _docker(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """``docker ARGS``; a CLI that does not answer within ``timeout`` counts as a failure (exit 124)."""
        command = ["docker", *args]
        try:
            return self.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(command, 124, "", f"docker {args[0]} gave no answer in {timeout:g} s")

    def preflight(self) -> list[str]:
        if self.which("docker") is None:
            return ["docker is not installed (expected the docker CLI on PATH; apt-get install docker.io)"]
        problems = []
        info = self._docker("info", "--format", "{{.ServerVersion}}", timeout=30)
        if info.returncode != 0:
            detail = " ".join((info.stderr or info.stdout or "").split())[:300] or f"exit {info.returncode}"
            problems.append(f"the Docker daemon is not reachable ({detail}); start dockerd, or check DOCKER_HOST "
                            "and access to /var/run/docker.sock")  # fmt: skip
        if not self.config.image:
            problems.append(f"no image given (expected e.g. {self.released_image})")
        elif info.returncode == 0 and self._docker("image", "inspect", self.config.image).returncode != 0:
            problems.append(f"image {self.config.image} is not present locally (docker pull it first; "
                            "python -m harness.testing --docker builds the small test image)")  # fmt: skip
        return problems + self._kvm_problems() + self._port_problems()

    def run_command(self) -> list[str]:
        config, ports = self.config, self.config.ports
        publish = [(ports.api, API_PORT), (ports.vnc, VNC_PORT), (ports.novnc, 6080), (ports.ssh, 2222)]
        publish += [(host, guest) for guest, host in ports.apps.items()]
        command = ["docker", "run", "-d", *(["--privileged"] if config.privileged else []), "--name", config.slot_name,
                   "-e", f"PERSONA={config.persona}", "-e", f"VM_ID={config.persona}", "-e", f"WORLD={config.world}",
                   "-e", f"RAM_SIZE={config.memory}", "-e", f"CPU_CORES={config.cpus}"]  # fmt: skip
        if kvm_problem(self.kvm_path) is None:  # else allow_tcg was given (preflight refuses otherwise)
            command += ["--device", f"{self.kvm_path}:/dev/kvm"]
        for host, guest in publish:
            command += ["-p", f"127.0.0.1:{host}:{guest}"]
        return [*command, config.image]

    def reset_mode(self) -> str:
        return "fresh container"

    def remove_command(self) -> list[str]:
        return ["docker", "rm", "-f", self.config.slot_name]

    def _launch(self) -> None:
        # A stopped container of this slot left by an earlier run is removed; a running one holds the
        # slot's ports, so preflight has already refused to start.
        self._remove()
        done = self._docker(*self.run_command()[1:], timeout=300)
        if done.returncode != 0:
            self._remove()  # docker run leaves a created container behind when publishing fails
            detail = " ".join((done.stderr or "").split())[:400]
            raise BackendUnavailable(self.name, [f"docker run {self.config.image} failed: {detail}"])

    def container_state(self) -> tuple[str, int] | None:
        """(status, exit code) of this slot's container, e.g. ("running", 0); None when there is none."""
        shown = self._docker("inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", self.config.slot_name)
        if shown.returncode != 0:
            return None
        status, _, code = shown.stdout.strip().partition(" ")
        return status, int(code or 0)

    def _exit_problem(self) -> str | None:
        state = self.container_state()
        if state is None:
            return f"container {self.config.slot_name} is gone (removed from outside the harness?)"
        status, code = state
        if status == "running":
            return None
        return (f"container {self.config.slot_name} is {status} (exit code {code}) before the guest was ready; "
                f"{self._logs_tail()}")  # fmt: skip

    def _not_ready_detail(self) -> str:
        return self._logs_tail()

    def _logs_tail(self, lines: int = 6) -> str:
        shown = self._docker("logs", "--tail", str(lines), self.config.slot_name)
        text = (shown.stdout or "") + (shown.stderr or "")
        last = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
        return f"docker logs {self.config.slot_name} ends with: " + (" | ".join(last) if last else "(nothing)")

    def _remove(self) -> None:
        self._docker("rm", "-f", self.config.slot_name, timeout=120)

    def _kill(self) -> None:
        self._fresh = False
        self._remove()

    def stop(self) -> None:
        """Remove the container (and with it the slot's published ports)."""
        self._kill()
        super().stop()


BACKENDS = ("fake", "remote", "local", "qemu", "docker")


def make_env(backend: str, *, url: str = "", screen_size=(1280, 800), start_url: str = "about:blank",
             vm: VMConfig | None = None, wait_seconds: float = 2.0, ready_timeout: float = 900.0,
             adopt_screen_size: bool = False, post_boot: PostBootConfig | None = None, reset_command: str = "",
             reset_url: str = "") -> Environment:  # fmt: skip
    """The backend ``backend``; ``ready_timeout`` is how long remote and VM guests get to answer;
    ``post_boot`` (qemu, docker, remote) is the setup run once the guest answers."""
    common = {"screen_size": screen_size, "adopt_screen_size": adopt_screen_size}
    if (reset_command or reset_url) and backend != "remote":
        raise ValueError(f"--reset-command / --reset-url: only the remote backend takes a reset hook (got {backend})")
    if post_boot is not None and post_boot.parts and backend not in ("remote", "qemu", "docker"):
        raise ValueError(f"--setup: post-boot setup is for the remote, qemu and docker backends (got {backend})")
    if backend == "fake":
        return FakeEnv(**common)
    if backend == "remote":
        return RemoteEnv(url, wait_seconds=wait_seconds, ready_timeout=ready_timeout, post_boot=post_boot,
                         reset_command=reset_command, reset_url=reset_url, **common)  # fmt: skip
    if backend == "local":
        return LocalEnv(start_url=start_url, wait_seconds=wait_seconds, **common)
    if backend == "qemu":
        return QemuEnv(vm or VMConfig(), wait_seconds=wait_seconds, ready_timeout=ready_timeout, post_boot=post_boot,
                       **common)  # fmt: skip
    if backend == "docker":
        return DockerEnv(vm or VMConfig(), wait_seconds=wait_seconds, ready_timeout=ready_timeout,
                         post_boot=post_boot, **common)  # fmt: skip
    raise ValueError(f"unknown backend {backend!r} (expected one of {', '.join(BACKENDS)})")
