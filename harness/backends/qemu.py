"""The qemu backend: the released qcow2 under QEMU, one copy-on-write overlay per slot."""

import shutil
import socket
import subprocess
import time
from pathlib import Path

from harness.backends.base import BackendOptions, BackendUnavailable
from harness.backends.vm import API_PORT, SSH_PORT, VNC_PORT, VMConfig, VMEnv, kvm_problem
from harness.control import ControlClient, ControlError

SNAPSHOT_NAME = "mypcbench-ready"
OVMF_DIRS = ("/usr/share/OVMF", "/usr/share/ovmf", "/usr/share/edk2/ovmf", "/usr/share/qemu")


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


class QemuEnv(VMEnv):
    """The released qcow2 booted under QEMU with a copy-on-write overlay per slot. Reset is a cold
    boot from a fresh overlay (upstream has no snapshots either); a guest that has just booted and
    was sent nothing yet is kept. With ``config.kernel`` the kernel is booted directly (the test guest
    of harness/testing/qemu_guest.py boots this way). Logs: <work_dir>/<slot>-serial.log and -qemu.log."""

    name = "qemu"

    @classmethod
    def from_options(cls, options: BackendOptions) -> "QemuEnv":
        return cls(options.vm or VMConfig(), wait_seconds=options.wait_seconds, ready_timeout=options.ready_timeout,
                   post_boot=options.post_boot, screen_size=options.screen_size,
                   adopt_screen_size=options.adopt_screen_size)  # fmt: skip

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
        if self._fresh and self._exit_problem() is None and self.api.health():
            return
        started = time.monotonic()
        if self.config.snapshot_reset and self.snapshot_taken and self._exit_problem() is None:
            try:
                self.hmp(f"loadvm {SNAPSHOT_NAME}")
                # connections kept open from before the snapshot point at sockets the guest no longer has
                self.api.close()
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
