"""The docker backend for real: DockerEnv runs the Docker test image of harness/testing/docker_guest.py
(the QEMU test guest's userland, busybox + Debian's Python + the headless Control API guest, made with
``docker import``, no registry) on a real Docker daemon, one container per slot, its ports published
on 127.0.0.1, and the harness talks to it over the Control API.

Nothing is mocked. The image stands in for the released one, which runs the VM under QEMU inside and
has to be pulled from a registry; here the container serves the Control API itself. The tests skip
when no Docker daemon is reachable (bin/test installs docker.io and starts one where it can)."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends import BackendUnavailable, BootFailed, DockerEnv, VMConfig, kvm_problem
from harness.testing.docker_guest import build_test_image
from harness.testing.qemu_guest import BuildError
from tests.vm_slots import assert_demo_plan_ran, start_side_by_side, write_demo_plan
from tests.vm_slots import free_slot as _free_slot
from tests.vm_slots import shell as _shell

ROOT = Path(__file__).resolve().parents[2]
DEMO_SUITE = ROOT / "seeding" / "demo_suite.json"
READY_TIMEOUT = 60.0  # generous: the guest answers about a second after docker run


def free_slot(count: int = 1) -> int:
    return _free_slot(count, first_from=300)


def shell(env, command: str) -> str:
    return _shell(env, command, where="container")


def _docker_problem() -> str | None:
    try:
        info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True,
                              timeout=30)  # fmt: skip
    except FileNotFoundError:
        return "the docker CLI is not installed (apt-get install docker.io; bin/test does it)"
    except subprocess.TimeoutExpired:
        return "docker info gave no answer in 30 s"
    if info.returncode != 0:
        return f"no Docker daemon is reachable ({' '.join(info.stderr.split())[:200]}); bin/test starts one as root"
    return None


DOCKER_PROBLEM = _docker_problem()
pytestmark = [
    pytest.mark.vm,
    pytest.mark.skipif(bool(DOCKER_PROBLEM), reason=f"docker backend not testable: {DOCKER_PROBLEM}"),
]


@pytest.fixture(scope="module")
def image():
    try:
        return build_test_image(log=print)
    except BuildError as exc:
        pytest.fail(f"the Docker test image could not be built: {exc}")


def docker_env(image, slot: int, **overrides) -> DockerEnv:
    config = VMConfig(image=image, slot=slot, allow_tcg=True, privileged=False, **overrides)
    return DockerEnv(config, ready_timeout=READY_TIMEOUT)


def docker(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=120)


def container_id(name: str) -> str | None:
    shown = docker("inspect", "--format", "{{.Id}}", name)
    return shown.stdout.strip() if shown.returncode == 0 else None


def test_container_answers_and_reset_throws_away_what_it_wrote(image):
    env = docker_env(image, free_slot())
    name = env.config.slot_name
    try:
        env.start()
        print(f"docker run to Control API ready: {env.boot_seconds:.1f} s")
        png = env.screenshot()
        assert png.startswith(b"\x89PNG") and png[16:24] == (1280).to_bytes(4, "big") + (800).to_bytes(4, "big")
        first = container_id(name)
        assert first is not None

        env.reset()  # just started and nothing sent to it: kept
        assert container_id(name) == first

        # /dev/kvm goes in only when KVM can run a stock guest here (this image never needs it)
        has_kvm = env.execute("test -e /dev/kvm", shell=True).returncode == 0
        assert has_kvm == (kvm_problem() is None)
        assert env.execute(["python", "-c", "print(6 * 7)"]).output == "42\n"  # as OSWorld's client calls it
        assert shell(env, "echo {a,b}; [[ 2 -gt 1 ]] && echo bash") == "a b\nbash\n"
        shell(env, "echo written-by-the-guest > /root/marker.txt")
        assert shell(env, "cat /root/marker.txt") == "written-by-the-guest\n"
        assert env.run_action("pyautogui.click(10, 20)").ok
        logged = [json.loads(line) for line in shell(env, "cat /var/log/pyautogui.jsonl").splitlines()]
        assert logged == [{"call": "click", "args": [10, 20], "kwargs": {}}]

        env.reset()  # the guest was written to: a fresh container
        second = container_id(name)
        assert second not in (None, first)
        assert env.execute("test -e /root/marker.txt", shell=True).returncode == 1
        assert env.execute("test -e /var/log/pyautogui.jsonl", shell=True).returncode == 1
    finally:
        env.stop()
    assert container_id(name) is None and env.container_state() is None
    # What the backend controls: the container, and so its port mappings, are gone. (Whether a host
    # port is free afterwards depends on every other process of a shared machine, so it is not asserted.)
    assert docker("ps", "-a", "--filter", f"name={name}", "-q").stdout.strip() == ""


def test_two_slots_run_side_by_side_on_their_own_ports(image):
    first = free_slot(2)
    envs = [docker_env(image, slot) for slot in (first, first + 1)]
    try:
        start_side_by_side(envs)
        one, two = envs
        assert one.url != two.url
        assert container_id(one.config.slot_name) != container_id(two.config.slot_name)
        for env in envs:  # every port published on loopback only, at the slot's host port
            published = docker("port", env.config.slot_name).stdout.splitlines()
            assert f"5000/tcp -> 127.0.0.1:{env.config.ports.api}" in published
            assert f"3018/tcp -> 127.0.0.1:{env.config.ports.apps[3018]}" in published
            assert len(published) == len(env.config.ports.all())
            assert all(" -> 127.0.0.1:" in line for line in published)
        shell(one, "echo only-in-slot-one > /root/marker.txt")
        assert shell(one, "ls /root").split() == ["marker.txt"]
        assert shell(two, "ls /root").split() == []
    finally:
        for env in envs:
            env.stop()
    for env in envs:  # what the backend controls: its container and so its port mappings are gone
        assert container_id(env.config.slot_name) is None
        assert docker("ps", "-a", "--filter", f"name={env.config.slot_name}", "-q").stdout.strip() == ""


def test_preflight_names_an_unreachable_daemon_a_missing_image_and_a_taken_port(image, monkeypatch):
    slot = free_slot()
    missing = docker_env("mypcbench-test-guest:no-such-build", slot)
    assert missing.preflight() == [
        "image mypcbench-test-guest:no-such-build is not present locally (docker pull it first; "
        "python -m harness.testing --docker builds the small test image)"
    ]
    problem = kvm_problem()  # on this machine /dev/kvm may be missing or unusable (PVM)
    strict = DockerEnv(VMConfig(image=image, slot=slot))
    assert strict.preflight() == ([problem] if problem else [])

    env = docker_env(image, slot)
    with socket.socket() as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind(("127.0.0.1", env.config.ports.api))
        holder.listen()
        with pytest.raises(BackendUnavailable) as caught:
            env.start()
    assert str(caught.value) == (
        f"the docker backend cannot start: host port(s) {env.config.ports.api} of slot {slot} are already in use"
    )
    assert container_id(env.config.slot_name) is None  # nothing was run

    with monkeypatch.context() as patched:
        patched.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # where no daemon listens
        unreachable = docker_env(image, slot).preflight()
    assert unreachable == [
        "the Docker daemon is not reachable (Cannot connect to the Docker daemon at unix:///nonexistent/docker.sock. "
        "Is the docker daemon running?); start dockerd, or check DOCKER_HOST and access to /var/run/docker.sock"
    ]


def derived_image(image: str, suffix: str, command: list[str]) -> str:
    """The test image with another command (``docker commit --change CMD``), tagged ``<image>-<suffix>``."""
    tag, maker = f"{image}-{suffix}", f"mypcbench-test-maker-{os.getpid()}"
    assert docker("create", "--name", maker, image).returncode == 0
    try:
        made = docker("commit", "--change", f"CMD {json.dumps(command)}", maker, tag)
        assert made.returncode == 0, made.stderr
    finally:
        docker("rm", "-f", maker)
    return tag


def test_a_container_that_exits_or_never_answers_fails_with_its_last_log_lines_and_is_removed(image):
    exits = derived_image(image, "exits", ["python3", "-c", "print('test guest: giving up'); raise SystemExit(3)"])
    silent = derived_image(
        image, "silent", ["python3", "-c", "print('test guest: not listening'); __import__('time').sleep(3600)"]
    )
    try:
        env = docker_env(exits, free_slot())
        with pytest.raises(BootFailed) as caught:
            env.start()
        name = env.config.slot_name
        assert str(caught.value) == (
            f"{env.url}: container {name} is exited (exit code 3) before the guest was ready; "
            f"docker logs {name} ends with: test guest: giving up"
        )
        assert container_id(name) is None

        env = DockerEnv(VMConfig(image=silent, slot=free_slot(), allow_tcg=True, privileged=False), ready_timeout=3)
        with pytest.raises(BootFailed) as caught:
            env.start()
        name, message = env.config.slot_name, str(caught.value)
        assert message.startswith(f"{env.url}: guest not ready after ")
        assert message.endswith(
            f"(no HTTP 200 on /health; ready timeout 3 s); docker logs {name} ends with: test guest: not listening"
        )
        assert container_id(name) is None
    finally:
        docker("rmi", "-f", exits, silent)


def test_python_m_harness_run_on_the_docker_backend(image, tmp_path):
    built = subprocess.run([sys.executable, "-m", "harness.testing", "--docker"], cwd=ROOT, capture_output=True,
                           text=True, timeout=600)  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith(f"image: {image}  (a stand-in for the released image")
    assert f"run on it: python -m harness run --backend docker --image {image} " in built.stdout

    plan = write_demo_plan(tmp_path)
    slot, out = free_slot(), tmp_path / "results"
    done = subprocess.run(
        [str(arg) for arg in [sys.executable, "-m", "harness", "run", "--tasks", DEMO_SUITE, "--task", "demo-d001",
         "--backend", "docker", "--image", image, "--slot", slot, "--allow-tcg", "--unprivileged",
         "--ready-timeout", READY_TIMEOUT,
         "--agent", "scripted", "--plan", plan, "--out", out, "--settle", "0", "--sleep-after", "0",
         "--no-progress"]],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert_demo_plan_ran(done, out, "docker")
    assert container_id(f"mypcbench-slot{slot}") is None  # the run removed its container
