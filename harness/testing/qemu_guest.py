"""Builds the QEMU *test* guest: a Debian kernel and a small initramfs (busybox, Debian's Python and
the harness's own headless Control API guest) that QemuEnv boots in seconds under KVM, plus small ext4
base disks for it. It exists so the qemu backend is exercised for real on machines without the released
MyPCBench image; it is not the benchmark VM and has no desktop.

Everything comes from Debian packages fetched with ``apt-get download`` and unpacked with ``dpkg-deb``:
nothing is installed, mounted or run as root. The packages and the built kernel + initramfs are cached
under $MYPCBENCH_CACHE_DIR (default $XDG_CACHE_HOME/mypcbench, i.e. ~/.cache/mypcbench)/qemu-test-guest;
the initramfs is rebuilt when the guest's sources change.

Inside the guest, /dev/vda (the slot's overlay of the base disk) is mounted at /mnt/disk and the
Control API listens on port 5000; pyautogui calls are logged to /var/log/pyautogui.jsonl; stand-ins for
the web apps (harness/guest/apps_stub.py) answer post-boot pre-warming on ports 3001-3017 and seed /data.

    python -m harness.testing [--cache DIR] [--disk PATH]   # build (or reuse); print how to boot it
    python -m harness.testing --docker [--cache DIR]        # the same userland as a Docker image
"""

import fcntl
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.backends import VMConfig

HERE = Path(__file__).resolve().parents[1]  # the harness package (this module is in harness/testing/)
KERNEL_META = "linux-image-cloud-amd64"  # Debian's kernel for VMs: virtio drivers, ext4 built in
# bash: the harness runs shell commands under bash, as on the benchmark VM (libtinfo6 is what it links);
# libsqlite3-0: Python's sqlite3, which the app stand-ins and post-boot pre-warming use.
FIXED_PACKAGES = ("busybox-static", "libc6", "zlib1g", "libexpat1", "bash", "libtinfo6", "libsqlite3-0")
# Modules to load, dependencies found from each module's own "depends=" (built-in ones are skipped).
MODULES = ("virtio_pci", "virtio_blk", "virtio_net")
# Guest files from this project: path in the guest -> source here.
GUEST_SOURCES = {
    "opt/guest/harness/__init__.py": HERE / "__init__.py",
    "opt/guest/harness/guest/__init__.py": HERE / "guest" / "__init__.py",
    "opt/guest/harness/guest/server.py": HERE / "guest" / "server.py",
    "opt/guest/harness/guest/headless.py": HERE / "guest" / "headless.py",
    "opt/guest/harness/guest/apps_stub.py": HERE / "guest" / "apps_stub.py",
    "opt/guest/harness/apps.py": HERE / "apps.py",
    "opt/guest/pyautogui.py": HERE / "guest" / "pyautogui_log.py",
}
# Unpacked package content the guest has no use for.
SKIP_PREFIXES = ("usr/share/", "usr/lib/x86_64-linux-gnu/gconv/")
SKIP_PYTHON = ("pydoc_data", "ensurepip", "idlelib", "tkinter", "turtledemo", "lib2to3", "test", "unittest")
SKIP_DYNLOAD = re.compile(r"^(_test|_ctypes_test|_xxtestfuzz|xxlimited|_xxsubinterpreters)")
APPEND = "console=ttyS0 quiet"
DISK_MOUNT = "/mnt/disk"
PYAUTOGUI_LOG = "/var/log/pyautogui.jsonl"

INIT = """#!/bin/busybox sh
# /init of the MyPCBench QEMU test guest (built by harness/testing/qemu_guest.py; not the benchmark VM).
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /root /var/log /mnt/disk /sbin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for module in $(cat /etc/modules); do insmod "/lib/modules/$module.ko" || echo "test guest: insmod $module failed"; done
ip link set lo up
ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2
for i in $(seq 50); do [ -b /dev/vda ] && break; usleep 100000; done
if [ -b /dev/vda ]; then mount /dev/vda /mnt/disk || echo "test guest: cannot mount /dev/vda"; fi
size=$(sed -n 's/.*mypcbench.screen=\\([0-9]*x[0-9]*\\).*/\\1/p' /proc/cmdline)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root PYTHONPATH=/opt/guest MYPCBENCH_SCREEN="${size:-1280x800}"
echo "test guest: serving the Control API on port 5000"
exec python3 -m harness.guest.headless --host 0.0.0.0 --allow-remote --port 5000 --size "$MYPCBENCH_SCREEN" \\
    --apps /data
"""


class BuildError(RuntimeError):
    """The test guest could not be built; the message says which step and why."""


@dataclass(frozen=True)
class BuiltGuest:
    kernel: Path
    initrd: Path
    append: str = APPEND

    def vm_config(self, image, **overrides) -> VMConfig:
        """A VMConfig that boots this guest over ``image`` (small memory, one CPU unless overridden)."""
        settings = {"kernel": str(self.kernel), "initrd": str(self.initrd), "append": self.append, "memory": "256M",
                    "cpus": 1, **overrides}  # fmt: skip
        return VMConfig(image=str(image), **settings)


def cache_dir() -> Path:
    base = os.environ.get("MYPCBENCH_CACHE_DIR") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "mypcbench"
    )
    return Path(base) / "qemu-test-guest"


def find_tool(name: str) -> str | None:
    """``name`` on PATH, or in /usr/sbin or /sbin (mke2fs lives there, off a normal user's PATH)."""
    found = shutil.which(name)
    return found or next((p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.access(p, os.X_OK)), None)


def run_step(args: list[str], step: str, **kwargs) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(args, capture_output=True, text=True, **kwargs)
    except FileNotFoundError:
        raise BuildError(f"{step}: {args[0]} is not installed")
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip()[-600:]
        raise BuildError(f"{step}: {' '.join(args)} exited with {done.returncode}: {detail}")
    return done


def _depends_on(package: str, pattern: str) -> str:
    """The package ``package`` depends on whose name matches ``pattern`` (from the local apt lists)."""
    shown = run_step(["apt-cache", "show", "--no-all-versions", package], f"looking up {package}").stdout
    for line in shown.splitlines():
        if line.startswith(("Depends:", "Pre-Depends:")):
            for name in re.findall(r"[a-z0-9][a-z0-9.+-]+", line.split(":", 1)[1]):
                if re.fullmatch(pattern, name):
                    return name
    raise BuildError(f"looking up {package}: no dependency matching {pattern} (run apt-get update?)")


def fetch_debs(debs: Path) -> dict[str, Path]:
    """The packages the guest is made of, downloaded once into ``debs``: role or name -> .deb path."""
    debs.mkdir(parents=True, exist_ok=True)
    manifest = debs / "manifest.json"
    if manifest.is_file():
        found = {role: debs / name for role, name in json.loads(manifest.read_text()).items()}
        if all(path.is_file() for path in found.values()) and set(FIXED_PACKAGES) <= set(found):
            return found
    python = _depends_on("python3-minimal", r"python3\.\d+-minimal")
    version = python.removeprefix("python").removesuffix("-minimal")
    wanted = {
        "kernel": _depends_on(KERNEL_META, r"linux-image-.+"),
        "python": python,
        "libpython-minimal": f"libpython{version}-minimal",
        "libpython-stdlib": f"libpython{version}-stdlib",
        **{name: name for name in FIXED_PACKAGES},
    }
    found = {}
    for role, package in wanted.items():
        existing = sorted(debs.glob(f"{package}_*.deb"))
        if not existing:
            run_step(["apt-get", "download", package], f"downloading {package}", cwd=debs, timeout=600)
            existing = sorted(debs.glob(f"{package}_*.deb"))
        if not existing:
            raise BuildError(f"downloading {package}: apt-get download left no {package}_*.deb in {debs}")
        found[role] = existing[-1]
    manifest.write_text(json.dumps({role: path.name for role, path in found.items()}, indent=2) + "\n")
    return found


def module_order(modules_root: Path, wanted=MODULES) -> list[tuple[str, Path]]:
    """(name, .ko path) of ``wanted`` and what they depend on, dependencies first, built-ins left out."""
    builtin = set()
    builtin_list = modules_root / "modules.builtin"
    if builtin_list.is_file():
        builtin = {Path(line).name.split(".ko")[0].replace("-", "_") for line in builtin_list.read_text().split()}
    files = {}
    for path in (modules_root / "kernel").rglob("*.ko*"):
        files[path.name.split(".ko")[0].replace("-", "_")] = path
    order: list[tuple[str, Path]] = []

    def visit(name: str, chain: tuple = ()) -> None:
        if name in builtin or any(name == done for done, _ in order):
            return
        if name not in files:
            needed_by = " <- ".join(chain) or "the guest"
            raise BuildError(f"kernel module {name} (needed by {needed_by}) is not in the kernel package")
        for dependency in filter(None, _modinfo(files[name]).get("depends", "").split(",")):
            visit(dependency.replace("-", "_"), (name, *chain))
        order.append((name, files[name]))

    for name in wanted:
        visit(name)
    return order


def _module_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    if path.name.endswith(".ko.xz"):
        return lzma.decompress(data)
    if path.name.endswith(".ko.gz"):
        return gzip.decompress(data)
    if not path.name.endswith(".ko"):
        raise BuildError(f"kernel module {path.name}: compression not supported (expected .ko, .ko.xz or .ko.gz)")
    return data


def _modinfo(path: Path) -> dict[str, str]:
    info: dict[str, str] = {}
    for match in re.finditer(rb"(?<=\0)(depends|name|vermagic)=([^\0]*)", _module_bytes(path)):
        info.setdefault(match.group(1).decode(), match.group(2).decode())
    return info


class Cpio:
    """An initramfs archive in the kernel's "newc" cpio format, written without root (device nodes too)."""

    def __init__(self):
        self.out = io.BytesIO()
        self.inode = 300000
        self.names: set[str] = set()

    def _entry(self, name: str, mode: int, data: bytes = b"", rdev=(0, 0)) -> None:
        if name in self.names:
            return
        self.names.add(name)
        self.inode += 1
        encoded = name.encode() + b"\0"
        fields = (self.inode, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(encoded), 0)
        header = b"070701" + b"".join(b"%08X" % value for value in fields)
        self.out.write(header + encoded + b"\0" * (-(len(header) + len(encoded)) % 4))
        self.out.write(data + b"\0" * (-len(data) % 4))

    def directory(self, name: str) -> None:
        parts = name.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            self._entry("/".join(parts[:i]), 0o040755)

    def _parent(self, name: str) -> None:
        if "/" in name:
            self.directory(name.rsplit("/", 1)[0])

    def file(self, name: str, data: bytes, mode: int = 0o644) -> None:
        self._parent(name)
        self._entry(name, 0o100000 | mode, data)

    def symlink(self, name: str, target: str) -> None:
        self._parent(name)
        self._entry(name, 0o120777, target.encode())

    def char_device(self, name: str, major: int, minor: int, mode: int = 0o600) -> None:
        self._entry(name, 0o020000 | mode, rdev=(major, minor))

    def tree(self, root: Path, skip=lambda relative: False) -> None:
        """Everything under ``root`` (regular files, directories, symlinks) as the guest's /."""
        for path in sorted(root.rglob("*")):
            relative = path.relative_to(root).as_posix()
            if skip(relative):
                continue
            if path.is_symlink():
                self.symlink(relative, os.readlink(path))
            elif path.is_dir():
                self.directory(relative)
            elif path.is_file():
                self.file(relative, path.read_bytes(), path.stat().st_mode & 0o7777)

    def finish(self) -> bytes:
        self._entry("TRAILER!!!", 0)
        return gzip.compress(self.out.getvalue(), compresslevel=6, mtime=0)


def skip_userland(relative: str) -> bool:
    if relative.startswith(SKIP_PREFIXES) or relative + "/" in SKIP_PREFIXES:
        return True
    parts = relative.split("/")
    if len(parts) >= 4 and parts[:2] == ["usr", "lib"] and parts[2].startswith("python3"):
        if parts[3] in SKIP_PYTHON or parts[3] == "__pycache__":
            return True
        if parts[3] == "lib-dynload" and len(parts) > 4 and SKIP_DYNLOAD.match(parts[4]):
            return True
    return False


def _inputs_key(debs: dict[str, Path]) -> str:
    digest = hashlib.sha256()
    for role in sorted(debs):
        digest.update(f"{role}={debs[role].name}\n".encode())
    for name in sorted(GUEST_SOURCES):
        digest.update(name.encode() + b"\0" + GUEST_SOURCES[name].read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:16]


def build_test_guest(cache: Path | None = None, *, log=lambda message: None) -> BuiltGuest:
    """The kernel and initramfs of the test guest, built on first use and reused while nothing changed."""
    cache = Path(cache) if cache else cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs building at once wait for each other
        debs = fetch_debs(cache / "debs")
        out = cache / _inputs_key(debs)
        guest = BuiltGuest(kernel=out / "vmlinuz", initrd=out / "initrd.gz")
        if guest.kernel.is_file() and guest.initrd.is_file():
            return guest
        log(f"building the QEMU test guest in {out}")
        with tempfile.TemporaryDirectory(dir=cache, prefix="build-") as scratch:
            _build(debs, Path(scratch), out)
        for old in cache.glob("[0-9a-f]" * 16):  # builds from earlier sources
            if old != out and (old / "vmlinuz").is_file():
                shutil.rmtree(old, ignore_errors=True)
        return guest


def _build(debs: dict[str, Path], scratch: Path, out: Path) -> None:
    kernel_root, userland = scratch / "kernel", scratch / "root"
    run_step(["dpkg-deb", "-x", str(debs["kernel"]), str(kernel_root)], f"unpacking {debs['kernel'].name}")
    for role, deb in debs.items():
        if role != "kernel":
            run_step(["dpkg-deb", "-x", str(deb), str(userland)], f"unpacking {deb.name}")
    kernels = sorted((kernel_root / "boot").glob("vmlinuz-*"))
    module_dirs = sorted((kernel_root / "lib" / "modules").glob("*"))
    if not kernels or not module_dirs:
        raise BuildError(f"{debs['kernel'].name} has no boot/vmlinuz-* or lib/modules/* (not a kernel package?)")
    pythons = sorted((userland / "usr" / "bin").glob("python3.*[0-9]"))
    if not pythons:
        raise BuildError(f"{debs['python'].name} has no usr/bin/python3.X")

    archive = Cpio()
    for name in ("dev", "proc", "sys", "tmp", "run", "root", "var/log", "mnt/disk", "etc", "lib/modules"):
        archive.directory(name)
    archive.char_device("dev/console", 5, 1)
    archive.file("init", INIT.encode(), 0o755)
    modules = module_order(module_dirs[0])
    archive.file("etc/modules", "".join(f"{name}\n" for name, _ in modules).encode())
    for name, path in modules:
        archive.file(f"lib/modules/{name}.ko", _module_bytes(path))
    for guest_path, source in GUEST_SOURCES.items():
        archive.file(guest_path, source.read_bytes())
    archive.tree(userland, skip=skip_userland)
    archive.symlink("usr/bin/python3", pythons[-1].name)
    archive.symlink("usr/bin/python", pythons[-1].name)  # OSWorld's client runs ``python -c``

    out.mkdir(parents=True, exist_ok=True)
    initrd = archive.finish()
    (out / "initrd.gz.tmp").write_bytes(initrd)
    shutil.copyfile(kernels[-1], out / "vmlinuz.tmp")
    os.replace(out / "initrd.gz.tmp", out / "initrd.gz")
    os.replace(out / "vmlinuz.tmp", out / "vmlinuz")
    (out / "packages.txt").write_text("".join(f"{deb.name}\n" for deb in debs.values()))


def make_disk(path, files: dict[str, str | bytes] | None = None, *, size_mb: int = 32) -> Path:
    """A qcow2 base disk holding one ext4 filesystem with ``files`` (relative path -> content), made with
    ``mke2fs -d`` (no mount, no root). The guest mounts it at /mnt/disk."""
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="disk-") as scratch:
        content, raw = Path(scratch) / "content", Path(scratch) / "disk.raw"
        content.mkdir()
        for relative, data in (files or {}).items():
            target = content / relative
            if not target.resolve().is_relative_to(content.resolve()):
                raise BuildError(f"make_disk: {relative!r} would be written outside the disk")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data.encode() if isinstance(data, str) else data)
        mke2fs = find_tool("mke2fs") or "mke2fs"
        mkfs_args = [mke2fs, "-q", "-F", "-t", "ext4", "-L", "mypcbench-test", "-d", str(content), str(raw)]
        run_step([*mkfs_args, f"{size_mb}M"],
             "making the test disk's filesystem")  # fmt: skip
        run_step(["qemu-img", "convert", "-f", "raw", "-O", "qcow2", str(raw), str(path)], "converting the test disk")
    return path
