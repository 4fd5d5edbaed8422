"""The docker backend: the released Docker image (the VM under QEMU inside), one container per slot."""

import subprocess

from harness.backends.base import BackendOptions, BackendUnavailable
from harness.backends.vm import API_PORT, VNC_PORT, VMConfig, VMEnv, kvm_problem


class DockerEnv(VMEnv):
    """The released Docker image (the VM under QEMU inside), one container per slot named after it, its
    ports published on 127.0.0.1. Reset removes the container and runs a fresh one (a container that has
    just started and was sent nothing yet is kept); stop removes it. /dev/kvm is passed in only when KVM
    is usable here; without it the backend refuses unless ``allow_tcg``. harness/testing/docker_guest.py
    builds a small stand-in image that runs the Control API guest directly."""

    name = "docker"

    @classmethod
    def from_options(cls, options: BackendOptions) -> "DockerEnv":
        return cls(options.vm or VMConfig(), wait_seconds=options.wait_seconds, ready_timeout=options.ready_timeout,
                   post_boot=options.post_boot, screen_size=options.screen_size,
                   adopt_screen_size=options.adopt_screen_size)  # fmt: skip

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
