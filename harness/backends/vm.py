"""What the VM backends (qemu, docker) share: a slot's configuration and host ports, the KVM and port checks,
and ``VMEnv``, the boot / wait / reset lifecycle each VM backend fills in."""

import os
import shutil
import socket
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.backends.base import BackendUnavailable, Environment
from harness.control import ControlClient, ControlError

API_PORT, VNC_PORT, SSH_PORT = 5000, 5901, 22
APP_PORTS = tuple(range(3001, 3019))
SLOT_WINDOW = 30  # ports per slot, as upstream's parallel runner lays them out


class BootFailed(ControlError):
    """A VM was started but its guest never answered the Control API (or QEMU exited first)."""


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


class VMEnv(Environment):
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
        if self._fresh and self._exit_problem() is None and self.api.health():
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
