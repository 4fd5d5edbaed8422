"""Environment backends: the QEMU and Docker command lines per slot, and the reasons a backend gives
when it cannot start (no KVM, no image, no qemu, port taken). The released image is not on this
machine, so the commands are checked as built, and tools are found through an injected `which`
(tests/harness/test_harness_qemu.py and tests/harness/test_harness_docker.py run both backends for real on test
guests)."""

import socket
import subprocess

import pytest

from harness.backends import (
    BackendUnavailable,
    DockerEnv,
    QemuEnv,
    RemoteEnv,
    SlotPorts,
    VMConfig,
    find_ovmf,
    make_env,
)


def has_all(tool):
    return f"/usr/bin/{tool}"


def has_none(tool):
    return None


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "mypcbench.qcow2"
    path.write_bytes(b"QFI\xfb")
    return path


@pytest.fixture
def kvm(tmp_path):
    path = tmp_path / "kvm"
    path.write_bytes(b"")
    return str(path)


def test_slots_get_disjoint_port_windows():
    first, second = SlotPorts.for_slot(0), SlotPorts.for_slot(1)
    assert (first.api, first.vnc, first.novnc, first.ssh) == (25000, 25001, 25002, 25003)
    assert first.apps[3001] == 25010 and first.apps[3018] == 25027
    assert second.api == 25030
    assert not set(first.all()) & set(second.all())


def test_qemu_overlay_and_command_line_per_slot(image, kvm, tmp_path):
    config = VMConfig(image=str(image), slot=2, memory="6G", cpus=2, work_dir=str(tmp_path))
    env = QemuEnv(config, which=has_all, kvm_path=kvm)
    assert env.url == "http://127.0.0.1:25060"
    overlay = env.overlay_command()
    assert overlay[:3] == ["qemu-img", "create", "-f"] and overlay[-1] == str(
        tmp_path / "mypcbench-slot2-overlay.qcow2"
    )
    assert overlay[overlay.index("-b") + 1] == str(image.resolve())
    command = env.qemu_command(("/fw/CODE_4M.fd", "/fw/VARS_4M.fd"))
    joined = " ".join(command)
    assert command[0] == "qemu-system-x86_64"
    assert "q35,accel=kvm" in command and "host" in command
    assert command[command.index("-m") + 1] == "6G" and command[command.index("-smp") + 1] == "2"
    assert "hostfwd=tcp:127.0.0.1:25060-:5000" in joined and "hostfwd=tcp:127.0.0.1:25070-:3001" in joined
    assert f"file={tmp_path / 'mypcbench-slot2-overlay.qcow2'},format=qcow2" in joined
    assert "if=pflash,format=raw,readonly=on,file=/fw/CODE_4M.fd" in joined


def test_qemu_without_kvm_uses_tcg_only_when_allowed(image, tmp_path):
    config = VMConfig(image=str(image), allow_tcg=True, work_dir=str(tmp_path))
    env = QemuEnv(config, which=has_all, kvm_path=str(tmp_path / "no-kvm"))
    assert env.preflight() == []
    assert "q35,accel=tcg" in env.qemu_command() and "qemu64" in env.qemu_command()
    strict = QemuEnv(VMConfig(image=str(image)), which=has_all, kvm_path=str(tmp_path / "no-kvm"))
    assert any("KVM is not available" in p for p in strict.preflight())


def test_qemu_says_every_reason_it_cannot_start(tmp_path):
    env = QemuEnv(VMConfig(image=str(tmp_path / "missing.qcow2")), which=has_none, kvm_path=str(tmp_path / "kvm"))
    with pytest.raises(BackendUnavailable) as caught:
        env.start()
    message = str(caught.value)
    assert message.startswith("the qemu backend cannot start: ")
    assert "qemu-system-x86_64 is not installed" in message and "qemu-img is not installed" in message
    assert f"base image {tmp_path / 'missing.qcow2'} does not exist" in message
    assert f"no {tmp_path / 'kvm'}" in message


def test_a_taken_port_is_named(image, kvm):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        env = QemuEnv(VMConfig(image=str(image), port_base=port), which=has_all, kvm_path=kvm)
        problems = env.preflight()
    # the window's other ports are ephemeral ones something else on this machine may hold too
    assert len(problems) == 1 and problems[0].startswith(f"host port(s) {port}")
    assert problems[0].endswith("of slot 0 are already in use")


class FakeDocker:
    """Stands in for the docker CLI, so these checks run where Docker is not installed (the real daemon
    is exercised in tests/harness/test_harness_docker.py); records what was run."""

    def __init__(self, daemon=True, image=True, run=True):
        self.daemon, self.image, self.run, self.calls = daemon, image, run, []

    def __call__(self, args, **kwargs):
        self.calls.append(args)
        ok = {"info": self.daemon, "image": self.image, "run": self.run}.get(args[1], True)
        error = {"info": "Cannot connect to the daemon", "run": "Bind for 127.0.0.1:25000 failed: port is\n"
                 "already allocated"}.get(args[1], "failed")  # fmt: skip
        return subprocess.CompletedProcess(args, 0 if ok else 125, "", "" if ok else error)


def test_docker_run_command_publishes_the_slot_ports_on_loopback(kvm):
    env = DockerEnv(VMConfig(image="ljang/mypcbench-qemu:eval-round0", slot=1), run=FakeDocker(), which=has_all,
                    kvm_path=kvm)  # fmt: skip
    command = env.run_command()
    assert command[:5] == ["docker", "run", "-d", "--privileged", "--name"]
    assert command[-1] == "ljang/mypcbench-qemu:eval-round0"
    assert "127.0.0.1:25030:5000" in command and "127.0.0.1:25032:6080" in command
    assert "127.0.0.1:25040:3001" in command and "PERSONA=michael_scott" in command
    assert command[command.index("--device") + 1] == f"{kvm}:/dev/kvm"  # KVM usable: passed in
    assert env.remove_command() == ["docker", "rm", "-f", "mypcbench-slot1"]


def test_a_failed_docker_run_is_named_and_leaves_no_container(kvm):
    docker = FakeDocker(run=False)
    env = DockerEnv(VMConfig(image="img"), run=docker, which=has_all, kvm_path=kvm)
    with pytest.raises(BackendUnavailable) as caught:
        env._launch()  # after preflight passed: another process took a port in between
    assert str(caught.value) == (
        "the docker backend cannot start: docker run img failed: Bind for 127.0.0.1:25000 failed: port is already "
        "allocated"
    )
    assert docker.calls[-1] == ["docker", "rm", "-f", "mypcbench-slot0"]


def test_docker_passes_kvm_in_only_when_it_is_usable(tmp_path):
    no_kvm = str(tmp_path / "no-kvm")
    allowed = DockerEnv(VMConfig(image="img", allow_tcg=True), run=FakeDocker(), which=has_all, kvm_path=no_kvm)
    assert allowed.preflight() == [] and "--device" not in allowed.run_command()
    strict = DockerEnv(VMConfig(image="img"), run=FakeDocker(), which=has_all, kvm_path=no_kvm)
    assert strict.preflight() == [
        f"no {no_kvm} (KVM is not available: enable virtualisation or run on a host with KVM)"
    ]


def test_docker_reports_daemon_image_and_kvm(tmp_path):
    config = VMConfig(image="mypcbench:missing")
    assert DockerEnv(config, run=FakeDocker(), which=has_none).preflight() == [
        "docker is not installed (expected the docker CLI on PATH; apt-get install docker.io)"
    ]
    docker = FakeDocker(daemon=False)
    problems = DockerEnv(config, run=docker, which=has_all, kvm_path=str(tmp_path / "k")).preflight()
    assert problems[0] == (
        "the Docker daemon is not reachable (Cannot connect to the daemon); start dockerd, or check DOCKER_HOST "
        "and access to /var/run/docker.sock"
    )
    assert not any(call[1] == "image" for call in docker.calls)  # nothing to ask a daemon that is not there
    assert any("KVM" in p for p in problems)
    problems = DockerEnv(config, run=FakeDocker(image=False), which=has_all, kvm_path=str(tmp_path / "k")).preflight()
    assert (
        "image mypcbench:missing is not present locally (docker pull it first; python -m harness.testing --docker "
        "builds the small test image)" in problems
    )
    assert DockerEnv(
        VMConfig(),
        run=FakeDocker(),
        which=has_all,
        kvm_path=str(tmp_path / "k"),
    ).preflight()[0] == ("no image given (expected e.g. ljang/mypcbench-qemu:eval-round0)")


def test_remote_backend_needs_a_url_and_a_live_guest():
    with pytest.raises(BackendUnavailable, match="no guest URL given"):
        RemoteEnv("").start()
    with pytest.raises(ValueError, match="unknown backend 'vmware'"):
        make_env("vmware")


def test_find_ovmf_prefers_4m_and_skips_secure_boot(tmp_path):
    for name in ("OVMF_CODE.fd", "OVMF_CODE_4M.fd", "OVMF_CODE_4M.ms.fd", "OVMF_VARS_4M.fd", "OVMF_VARS_4M.ms.fd"):
        (tmp_path / name).write_bytes(b"")
    assert find_ovmf([str(tmp_path)]) == (str(tmp_path / "OVMF_CODE_4M.fd"), str(tmp_path / "OVMF_VARS_4M.fd"))
    assert find_ovmf([str(tmp_path / "none")]) is None


def test_docker_runs_privileged_unless_told_not_to(kvm):
    released = DockerEnv(VMConfig(image="img"), run=FakeDocker(), which=has_all, kvm_path=kvm)
    test_image = DockerEnv(VMConfig(image="img", privileged=False), run=FakeDocker(), which=has_all, kvm_path=kvm)
    assert "--privileged" in released.run_command() and "--privileged" not in test_image.run_command()
