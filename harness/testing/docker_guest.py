"""Builds the Docker *test* image: the userland of the QEMU test guest (harness/testing/qemu_guest.py), that is
busybox, Debian's Python and the harness's headless Control API guest with the pyautogui stand-in,
written as a tar stream straight into ``docker import``, with a command serving the Control API on
port 5000. No registry, no Dockerfile and no base image are involved: the packages come from
``apt-get download`` and share the QEMU test guest's cache.

It is a stand-in for the released image (which runs the MyPCBench VM under QEMU inside the container
and has to be pulled from a registry), so that the docker backend (harness.backends.DockerEnv) runs for
real: a container per slot, ports published on loopback, waiting for readiness, reset to a fresh
container, removal. It is not the benchmark VM: no desktop, no apps, no VM inside.

The image is tagged ``mypcbench-test-guest:<key>``, the key being a hash of the packages and of the
guest's sources, and reused while they stay the same.

    python -m harness.testing --docker [--cache DIR]   # build (or reuse); print how to run on it
"""

import fcntl
import hashlib
import io
import json
import subprocess
import tarfile
import tempfile
from pathlib import Path

from harness.backends import kvm_problem
from harness.testing.qemu_guest import GUEST_SOURCES, BuildError, cache_dir, fetch_debs, run_step, skip_userland

REPOSITORY = "mypcbench-test-guest"
SCREEN = "1280x800"
COMMAND = ["python3", "-m", "harness.guest.headless", "--host", "0.0.0.0", "--allow-remote", "--port", "5000",
           "--size", SCREEN, "--apps", "/data"]  # fmt: skip
ENVIRONMENT = {
    "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/root",
    "PYTHONPATH": "/opt/guest",
    "PYTHONUNBUFFERED": "1",
    "MYPCBENCH_SCREEN": SCREEN,
}
ETC_FILES = {
    "etc/passwd": "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
    "etc/group": "root:x:0:\nnogroup:x:65534:\n",
}
# Empty directories the guest expects (mode); /proc, /sys and /dev are mounted over by Docker.
DIRECTORIES = {"tmp": 0o1777, "root": 0o700, "var/log": 0o755, "proc": 0o555, "sys": 0o555, "dev": 0o755}


def image_key(debs: dict[str, Path]) -> str:
    """Hash of what goes into the image: package file names, the guest's sources and this builder."""
    digest = hashlib.sha256()
    for role in sorted(debs):
        if role != "kernel":  # the container shares the host's kernel
            digest.update(f"{role}={debs[role].name}\n".encode())
    for name in sorted(GUEST_SOURCES):
        digest.update(name.encode() + b"\0" + GUEST_SOURCES[name].read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:16]


def image_exists(tag: str, docker: str = "docker") -> bool:
    return subprocess.run([docker, "image", "inspect", tag], capture_output=True).returncode == 0


class _Tar:
    """A tar stream of the image's root file system: every entry owned by root, each path written once."""

    def __init__(self, fileobj):
        self.tar = tarfile.open(fileobj=fileobj, mode="w|", format=tarfile.PAX_FORMAT)
        self.names: set[str] = set()

    def _add(self, info: tarfile.TarInfo, data: bytes | None = None) -> None:
        if info.name in self.names:
            return
        self.names.add(info.name)
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        self.tar.addfile(info, io.BytesIO(data) if data is not None else None)

    def _parents(self, name: str) -> None:
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            self.directory("/".join(parts[:i]))

    def directory(self, name: str, mode: int = 0o755) -> None:
        self._parents(name)
        info = tarfile.TarInfo(name)
        info.type, info.mode = tarfile.DIRTYPE, mode
        self._add(info)

    def file(self, name: str, data: bytes, mode: int = 0o644) -> None:
        self._parents(name)
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), mode
        self._add(info, data)

    def symlink(self, name: str, target: str) -> None:
        self._parents(name)
        info = tarfile.TarInfo(name)
        info.type, info.linkname, info.mode = tarfile.SYMTYPE, target, 0o777
        self._add(info)

    def tree(self, root: Path) -> None:
        """Everything under ``root`` (unpacked packages) that the guest has a use for."""
        for path in sorted(root.rglob("*")):
            relative = path.relative_to(root).as_posix()
            if skip_userland(relative):
                continue
            if path.is_symlink():
                self.symlink(relative, str(path.readlink()))
            elif path.is_dir():
                self.directory(relative, path.stat().st_mode & 0o7777)
            elif path.is_file():
                self.file(relative, path.read_bytes(), path.stat().st_mode & 0o7777)

    def close(self) -> None:
        self.tar.close()


def write_userland(debs: dict[str, Path], fileobj, scratch: Path) -> None:
    """The image's root file system as a tar stream on ``fileobj``: the packages (not the kernel)
    unpacked under ``scratch``, busybox's applets as links, the guest's sources under /opt/guest."""
    userland = scratch / "root"
    for role, deb in debs.items():
        if role != "kernel":
            run_step(["dpkg-deb", "-x", str(deb), str(userland)], f"unpacking {deb.name}")
    busybox = userland / "bin" / "busybox"
    pythons = sorted((userland / "usr" / "bin").glob("python3.*[0-9]"))
    if not busybox.is_file() or not pythons:
        raise BuildError(f"the unpacked packages in {userland} have no bin/busybox or usr/bin/python3.X")
    applets = run_step([str(busybox), "--list-full"], "listing busybox's applets").stdout.split()

    tar = _Tar(fileobj)
    for name, mode in DIRECTORIES.items():
        tar.directory(name, mode)
    tar.tree(userland)
    tar.symlink("usr/bin/python3", pythons[-1].name)
    tar.symlink("usr/bin/python", pythons[-1].name)  # OSWorld's client runs ``python -c``
    for applet in applets:  # after the packages, so a real program of the same name wins
        tar.symlink(applet.strip("/"), "/bin/busybox")
    for name, text in ETC_FILES.items():
        tar.file(name, text.encode())
    for guest_path, source in GUEST_SOURCES.items():
        tar.file(guest_path, source.read_bytes())
    tar.close()


def import_command(tag: str, docker: str = "docker") -> list[str]:
    changes = [f"CMD {json.dumps(COMMAND)}", "WORKDIR /root", "EXPOSE 5000"]
    changes += [f"ENV {name}={value}" for name, value in ENVIRONMENT.items()]
    command = [docker, "import", "--message", "MyPCBench test guest (harness/testing/docker_guest.py), not the VM"]
    for change in changes:
        command += ["--change", change]
    return [*command, "-", tag]


def build_test_image(cache: Path | None = None, *, docker: str = "docker", log=lambda message: None) -> str:
    """The tag of the Docker test image, imported on first use and reused while nothing changed.
    Raises BuildError naming the step that failed (a missing package, an unreachable daemon)."""
    cache = Path(cache) if cache else cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs building at once wait for each other
        debs = fetch_debs(cache / "debs")
        tag = f"{REPOSITORY}:{image_key(debs)}"
        if image_exists(tag, docker):
            return tag
        log(f"importing the Docker test image {tag}")
        with tempfile.TemporaryDirectory(dir=cache, prefix="image-") as scratch, tempfile.TemporaryFile() as errors:
            try:
                importer = subprocess.Popen(import_command(tag, docker), stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=errors)  # fmt: skip
            except FileNotFoundError:
                raise BuildError(f"importing the test image: {docker} is not installed")
            stdin = importer.stdin  # a pipe: started with stdin=PIPE
            assert stdin is not None
            try:
                write_userland(debs, stdin, Path(scratch))
            except BrokenPipeError:
                pass  # docker import stopped reading; its exit code and message follow
            except BaseException:
                importer.kill()
                importer.wait()
                raise
            finally:
                if not stdin.closed:
                    try:
                        stdin.close()
                    except BrokenPipeError:
                        pass
            code = importer.wait(timeout=600)
            if code != 0:
                errors.seek(0)
                detail = errors.read().decode(errors="replace").strip()[-600:]
                raise BuildError(f"importing the test image: docker import exited with {code}: {detail}")
        _remove_older_tags(tag, docker)
        return tag


def _remove_older_tags(tag: str, docker: str) -> None:
    """Drop test images built from earlier sources (one still used by a container stays)."""
    listed = subprocess.run([docker, "images", REPOSITORY, "--format", "{{.Repository}}:{{.Tag}}"],
                            capture_output=True, text=True)  # fmt: skip
    for old in listed.stdout.split():
        if old != tag:
            subprocess.run([docker, "rmi", old], capture_output=True)


def run_line(tag: str) -> str:
    """The command that runs tasks on the test image with the docker backend (--allow-tcg where KVM is
    unusable: the backend asks for KVM because the released image needs it; this image never uses it)."""
    tcg = f" --allow-tcg  (no usable KVM: {problem})" if (problem := kvm_problem()) else ""
    return f"python -m harness run --backend docker --image {tag} --unprivileged --settle 0 --tasks ... --out ...{tcg}"
