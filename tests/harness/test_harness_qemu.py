"""The qemu backend for real: QemuEnv boots the small test guest of harness/testing/qemu_guest.py (a Debian
kernel + an initramfs running the harness's headless Control API guest) over a copy-on-write overlay
of a small ext4 base disk, and the harness talks to it through QEMU's user-mode port forwards.

Nothing is mocked. KVM is used when it can run a stock kernel; otherwise (no /dev/kvm, or a /dev/kvm
without hardware virtualisation such as PVM) the guest boots under TCG, which takes seconds for this
guest. The tests skip only when QEMU's tools are not installed (bin/test installs them)."""

import hashlib
import json
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends import BackendUnavailable, BootFailed, QemuEnv, VMConfig, kvm_problem, port_taken
from harness.testing.qemu_guest import BuildError, build_test_guest, find_tool, make_disk
from tests.vm_slots import assert_demo_plan_ran, start_side_by_side, write_demo_plan
from tests.vm_slots import free_slot as _free_slot
from tests.vm_slots import shell as _shell

ROOT = Path(__file__).resolve().parents[2]
DEMO_SUITE = ROOT / "seeding" / "demo_suite.json"
READY_TIMEOUT = 180.0  # generous: a TCG boot on a busy 2-core machine; KVM takes a second or two
MISSING = [tool for tool in ("qemu-system-x86_64", "qemu-img", "mke2fs") if find_tool(tool) is None]

needs_qemu = pytest.mark.skipif(
    bool(MISSING), reason=f"{', '.join(MISSING)} not installed (apt-get install qemu-system-x86 qemu-utils e2fsprogs)"
)
pytestmark = pytest.mark.vm  # every test here boots the QEMU test guest or builds it


@pytest.fixture(scope="module")
def guest():
    try:
        return build_test_guest(log=print)
    except BuildError as exc:
        pytest.fail(f"the QEMU test guest could not be built: {exc}")


@pytest.fixture(scope="module")
def base_disk(tmp_path_factory):
    return make_disk(tmp_path_factory.mktemp("disk") / "base.qcow2", {"hello.txt": "from the base image\n"})


def free_slot(count: int = 1) -> int:
    return _free_slot(count, first_from=100)


def shell(env, command: str) -> str:
    return _shell(env, command, where="guest")


def qemu_env(guest, image, work_dir, slot: int, ready_timeout: float = READY_TIMEOUT, **overrides) -> QemuEnv:
    config = guest.vm_config(image, slot=slot, work_dir=str(work_dir), allow_tcg=True, **overrides)
    return QemuEnv(config, ready_timeout=ready_timeout)


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except FileNotFoundError:
        return False


def qemu_pids(slot_name: str) -> list[int]:
    """QEMU processes started for ``slot_name`` (found by their -name argument)."""
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[0].endswith(b"qemu-system-x86_64") and slot_name.encode() in argv and alive(int(proc.name)):
            pids.append(int(proc.name))
    return pids


@needs_qemu
def test_guest_answers_and_reset_throws_away_what_it_wrote(guest, base_disk, tmp_path):
    base_before = sha256(base_disk)
    env = qemu_env(guest, base_disk, tmp_path, free_slot())
    try:
        env.start()
        print(f"boot to Control API ready: {env.boot_seconds:.1f} s")
        png = env.screenshot()
        assert png.startswith(b"\x89PNG") and struct.unpack(">II", png[16:24]) == (1280, 800)

        booted = env.process.pid
        env.reset()  # just booted and nothing sent to it: kept, no second boot
        assert env.process.pid == booted

        assert shell(env, "cat /mnt/disk/hello.txt") == "from the base image\n"
        # what OSWorld's client and our agents' shell tool need from a guest: python, and bash
        assert env.execute(["python", "-c", "print(6 * 7)"]).output == "42\n"
        assert shell(env, "echo {a,b}; [[ 2 -gt 1 ]] && echo bash") == "a b\nbash\n"
        shell(env, "echo written-by-the-guest > /mnt/disk/marker.txt && sync")
        assert shell(env, "cat /mnt/disk/marker.txt") == "written-by-the-guest\n"
        assert env.run_action("pyautogui.click(10, 20)").ok
        logged = [json.loads(line) for line in shell(env, "cat /var/log/pyautogui.jsonl").splitlines()]
        assert logged == [{"call": "click", "args": [10, 20], "kwargs": {}}]

        env.reset()  # the guest was written to: cold boot from a fresh overlay
        assert env.process.pid != booted and not alive(booted)
        assert shell(env, "ls /mnt/disk").split() == ["hello.txt", "lost+found"]
        assert env.execute("test -e /var/log/pyautogui.jsonl", shell=True).returncode == 1
    finally:
        env.stop()
    assert sha256(base_disk) == base_before
    assert env.process.poll() is not None and not alive(env.process.pid)
    assert not Path(env.overlay_path).exists()


@needs_qemu
def test_snapshot_reset_brings_memory_and_disk_back_without_a_boot(guest, base_disk, tmp_path):
    env = qemu_env(guest, base_disk, tmp_path, free_slot(), snapshot_reset=True)
    try:
        env.start()
        assert env.snapshot_taken and env.reset_mode() == "memory snapshot (loadvm)"
        running = env.process.pid
        for round_ in range(2):
            shell(env, f"echo {round_} > /root/in-memory.txt && echo {round_} > /mnt/disk/on-disk.txt && sync")
            assert shell(env, "cat /mnt/disk/on-disk.txt") == f"{round_}\n"
            env.reset()
            assert env.last_reset["how"] == "snapshot", env.last_reset
            print(f"snapshot reset to ready: {env.last_reset['seconds']:.2f} s (boot took {env.boot_seconds:.1f} s)")
            assert env.process.pid == running  # the same QEMU: loaded, not booted
            assert env.execute("test -e /root/in-memory.txt", shell=True).returncode == 1
            assert shell(env, "ls /mnt/disk").split() == ["hello.txt", "lost+found"]
    finally:
        env.stop()
    assert not Path(env.overlay_path).exists()


@needs_qemu
def test_two_slots_run_side_by_side_on_their_own_ports(guest, base_disk, tmp_path):
    first = free_slot(2)
    envs = [qemu_env(guest, base_disk, tmp_path, slot) for slot in (first, first + 1)]
    try:
        start_side_by_side(envs)
        one, two = envs
        assert one.url != two.url and one.overlay_path != two.overlay_path
        assert one.process.pid != two.process.pid and all(alive(env.process.pid) for env in envs)
        shell(one, "echo only-in-slot-one > /mnt/disk/marker.txt && sync")
        assert shell(one, "ls /mnt/disk").split() == ["hello.txt", "lost+found", "marker.txt"]
        assert shell(two, "ls /mnt/disk").split() == ["hello.txt", "lost+found"]
    finally:
        for env in envs:
            env.stop()
    for env in envs:
        assert not alive(env.process.pid) and not Path(env.overlay_path).exists()
        assert not [p for p in env.config.ports.all() if port_taken(p)]  # the forwards went with QEMU


@needs_qemu
def test_preflight_names_a_missing_image_a_missing_kernel_and_a_taken_port(guest, base_disk, tmp_path):
    missing = qemu_env(guest, tmp_path / "nope.qcow2", tmp_path, free_slot(), kernel=str(tmp_path / "vmlinuz"))
    problems = missing.preflight()
    assert f"base image {tmp_path / 'nope.qcow2'} does not exist" in problems
    assert f"kernel {tmp_path / 'vmlinuz'} does not exist" in problems

    slot = free_slot()
    env = qemu_env(guest, base_disk, tmp_path, slot)
    with socket.socket() as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # an earlier test's QEMU may have used it
        holder.bind(("127.0.0.1", env.config.ports.api))
        holder.listen()
        with pytest.raises(BackendUnavailable) as caught:
            env.start()
    assert str(caught.value) == (
        f"the qemu backend cannot start: host port(s) {env.config.ports.api} of slot {slot} are already in use"
    )
    assert env.process is None and not Path(env.overlay_path).exists()

    no_kernel = QemuEnv(VMConfig(image=str(base_disk), initrd=str(guest.initrd), allow_tcg=True))
    assert "initrd / append given without a kernel" in no_kernel.preflight()[0]


@needs_qemu
def test_a_guest_that_never_answers_fails_by_its_ready_timeout_and_leaves_nothing(guest, base_disk, tmp_path):
    timeout = 8.0
    env = qemu_env(guest, base_disk, tmp_path, free_slot(), append=guest.append + " rdinit=/no-such-init",
                   ready_timeout=timeout)  # fmt: skip
    with pytest.raises(BootFailed) as caught:
        env.start()
    message = str(caught.value)
    assert message.startswith(f"{env.url}: guest not ready after ")
    assert f"ready timeout {timeout:g} s" in message and f"{env.config.slot_name}-serial.log" in message
    waited = float(message.split("not ready after ")[1].split(" s")[0])
    # It waits the whole timeout, and its last health poll is cut short to end near it (not timed
    # tightly: the bound only catches a poll that outlives the deadline by its full 5 s timeout).
    assert timeout <= waited < timeout + 4
    assert env.process is not None and not alive(env.process.pid)
    assert not Path(env.overlay_path).exists()


@needs_qemu
def test_python_m_harness_run_on_the_qemu_backend(guest, base_disk, tmp_path):
    plan = write_demo_plan(tmp_path)
    slot, out = free_slot(), tmp_path / "results"
    done = subprocess.run(
        [str(arg) for arg in [sys.executable, "-m", "harness", "run", "--tasks", DEMO_SUITE, "--task", "demo-d001",
         "--backend", "qemu", "--image", base_disk, "--slot", slot, "--kernel", guest.kernel,
         "--initrd", guest.initrd, "--append", guest.append, "--memory", "256M", "--cpus", "1", "--allow-tcg",
         "--ready-timeout", READY_TIMEOUT, "--work-dir", tmp_path, "--agent", "scripted", "--plan", plan, "--out", out,
         "--settle", "0", "--sleep-after", "0", "--no-progress"]],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert_demo_plan_ran(done, out, "qemu")
    assert sorted(p.name for p in tmp_path.glob("mypcbench-slot*")) == [  # no overlay left, the logs kept
        f"mypcbench-slot{slot}-qemu.log",
        f"mypcbench-slot{slot}-serial.log",
    ]
    assert qemu_pids(f"mypcbench-slot{slot}") == []


def test_a_kvm_device_without_hardware_virtualisation_is_not_used(tmp_path):
    # /dev/null stands in for a /dev/kvm device node (any character device does); what decides is the
    # CPU: this machine's own /dev/kvm is PVM, on a CPU without vmx/svm, and boots a stock kernel
    # slower than TCG does.
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 hypervisor\n")
    problem = kvm_problem("/dev/null", cpuinfo=str(cpuinfo))
    assert problem.startswith("/dev/null is there but the CPU has no hardware virtualisation")
    assert f"(no vmx/svm in {cpuinfo})" in problem and problem.endswith("slower than TCG")
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 vmx\n")
    assert kvm_problem("/dev/null", cpuinfo=str(cpuinfo)) is None
