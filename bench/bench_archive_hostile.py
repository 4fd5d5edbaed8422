"""Bench: hostile uploads against the Django-free readers, before and after hardening.

Worst cases, each built here into a temporary folder (removed at the end):
  pax-huge      a tar.gz of a few MB holding one 512 MiB pax header (tarfile reads headers whole;
                `--pax-mib 1024` for the issue's 1 GiB, which takes the old code over a minute)
  pax-each-1mib 300 entries each with a 1 MiB pax header (tarfile keeps every entry's headers)
  pax-chain     5,000 pax headers in a row (tarfile nests one call per header)
  tar-dirs-200k 200,000 folder entries (each a mkdir, uncounted before)
  zip-1m        a zip of 1,000,000 empty entries, about 92 MB (zipfile parses its whole directory)
  json-deep     a traj.jsonl row nested 50,000 deep, read by the bundle reader
  json-values   a 16 MiB usage.json of 1.5M small objects (a few bytes of JSON, ~200 of Python each)
  json-allowed  the largest shallow document still accepted (500k values, brackets to measure):
                the cost every accepted upload may pay, before and after

Each case runs in a fresh child process, once with the code of commit 856f52a (the module text
taken from `git show`, imported under another name) and once with the working tree, with the
default limits. Printed side by side: wall time of the validation (extraction into a temporary
folder and its removal, or reading the task folder), the peak resident memory the call added over
the child's resident memory just before it, and how it ended.

Run: .venv/bin/python bench/bench_archive_hostile.py [--pax-mib N] [case ...]
"""

import gzip
import importlib.util
import json
import resource
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BEFORE = "856f52a"
TIMEOUT_S = 60  # each case stays under a minute; the old code is stopped there
MiB = 1024 * 1024


# ---------------------------------------------------------------- building the cases


def _header(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0) -> bytes:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    return info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")


def _member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE) -> bytes:
    return _header(name, kind, len(data)) + data + b"\0" * (-len(data) % 512)


def _pax_record(key: str, value: str) -> bytes:
    text = f" {key}={value}\n".encode()
    length = len(text) + len(str(len(text)))
    return str(len(text) + len(str(length))).encode() + text


PAX_MIB = [512]


def build_pax_huge(path: Path) -> None:
    zeros = b"\0" * MiB
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(_header("././@PaxHeader", tarfile.XHDTYPE, PAX_MIB[0] * MiB))
        for _ in range(PAX_MIB[0]):
            out.write(zeros)
        out.write(_member("task/traj.jsonl", b"{}\n") + b"\0" * 1024)


def build_pax_each_1mib(path: Path) -> None:
    record = _pax_record("comment", "x" * (MiB - 32))
    with gzip.open(path, "wb", compresslevel=1) as out:
        for i in range(300):
            out.write(_member("././@PaxHeader", record, tarfile.XHDTYPE))
            out.write(_member(f"task/{i:04d}.txt", b"x"))
        out.write(b"\0" * 1024)


def build_pax_chain(path: Path) -> None:
    header = _member("././@PaxHeader", _pax_record("comment", "x"), tarfile.XHDTYPE)
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(header * 5000 + _member("task/traj.jsonl", b"{}\n") + b"\0" * 1024)


def build_tar_dirs_200k(path: Path) -> None:
    with gzip.open(path, "wb", compresslevel=6) as out:
        for i in range(200_000):
            out.write(_header(f"d{i:06d}/", tarfile.DIRTYPE))
        out.write(_member("task/traj.jsonl", b"{}\n") + b"\0" * 1024)


def build_zip_1m(path: Path) -> None:
    n, local, central, offset = 1_000_000, [], [], 0
    for i in range(n):
        name = b"f/%07d" % i
        head = struct.pack(zipfile.structFileHeader, zipfile.stringFileHeader, 20, 3, 0, 0, 0, 33, 0, 0, 0, 9, 0)
        central.append(
            struct.pack(
                zipfile.structCentralDir,
                zipfile.stringCentralDir,
                45,
                3,
                20,
                0,
                0,
                0,
                0,
                33,
                0,
                0,
                0,
                9,
                0,
                0,
                0,
                0,
                0o100644 << 16,
                offset,
            )
            + name  # fmt: skip
        )
        local.append(head + name)
        offset += len(head) + 9
    directory = b"".join(central)
    end64_at = offset + len(directory)
    tail = struct.pack(zipfile.structEndArchive64, zipfile.stringEndArchive64, 44, 45, 45, 0, 0, n, n,
                       len(directory), offset)  # fmt: skip
    tail += struct.pack(zipfile.structEndArchive64Locator, zipfile.stringEndArchive64Locator, 0, end64_at, 1)
    tail += struct.pack(zipfile.structEndArchive, zipfile.stringEndArchive, 0, 0, 0xFFFF, 0xFFFF,
                        len(directory), offset, 0)  # fmt: skip
    path.write_bytes(b"".join(local) + directory + tail)


def build_json_deep(path: Path) -> None:
    task = path / "retrieval-f016"
    task.mkdir(parents=True)
    row = '{"step_num": 1, "action": "WAIT", "info": ' + "[" * 50_000 + "]" * 50_000 + "}"
    (task / "traj.jsonl").write_text('{"step_num": 0, "action": "WAIT"}\n' + row + "\n")


def _usage_json(path: Path, unit: str, count: int) -> None:
    task = path / "retrieval-f016"
    task.mkdir(parents=True)
    (task / "traj.jsonl").write_text('{"step_num": 1, "action": "WAIT"}\n')
    (task / "usage.json").write_text('{"rows": [' + (unit + ", ") * count + "0]}")


def build_json_values(path: Path) -> None:
    unit = json.dumps({"a": [1]}, separators=(",", ":"))
    _usage_json(path, unit, 16 * MiB // (len(unit) + 2))


def build_json_allowed(path: Path) -> None:
    # 12 counted a unit (commas and opening brackets, those in the string too): 40,000 stay under 500k.
    unit = json.dumps({"a": [[[[1, 2], [3]]]], "b": "text [with] {brackets}"})
    _usage_json(path, unit, 40_000)


CASES = {
    "pax-huge": ("tgz", build_pax_huge),
    "pax-each-1mib": ("tgz", build_pax_each_1mib),
    "pax-chain": ("tgz", build_pax_chain),
    "tar-dirs-200k": ("tgz", build_tar_dirs_200k),
    "zip-1m": ("zip", build_zip_1m),
    "json-deep": ("dir", build_json_deep),
    "json-values": ("dir", build_json_values),
    "json-allowed": ("dir", build_json_allowed),
}


# ---------------------------------------------------------------- one measurement (child process)


def _module(name: str, source: Path):
    spec = importlib.util.spec_from_file_location(name, source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def child(version: str, kind: str, path: Path, old_dir: Path) -> None:
    if kind == "dir":
        reader = _module("old_bundle", old_dir / "bundle.py") if version == "old" else _import("harness.results")
        task = next(path.iterdir())

        def work():
            reader.read_task_dir(task)

    else:
        archive = _module("old_archive", old_dir / "archive.py") if version == "old" else _import("harness.results")

        def work():
            dest = Path(tempfile.mkdtemp(prefix="bench-out-", dir=path.parent))
            try:
                archive.extract_archive(path, dest)
            finally:
                shutil.rmtree(dest, ignore_errors=True)

    before = _peak_rss_kib()
    started = time.perf_counter()
    try:
        work()
        outcome = "accepted"
    except Exception as exc:  # the point: which exceptions escape, and with what message
        outcome = f"{type(exc).__name__}: {str(exc).replace(str(path.parent), '')}"
    elapsed = time.perf_counter() - started
    peak = _peak_rss_kib()
    print(json.dumps({"seconds": elapsed, "added_mib": max(peak - before, 0) / 1024, "outcome": outcome}))


def _peak_rss_kib() -> int:
    """This process's peak resident memory (VmHWM). Not getrusage's ru_maxrss: Linux carries that
    over exec from the forked copy of the parent, which holds the cases it built."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _import(name: str):
    return importlib.import_module(name)


# ---------------------------------------------------------------- the table


def measure(version: str, kind: str, path: Path, old_dir: Path) -> dict:
    command = [sys.executable, __file__, "--child", version, kind, str(path), str(old_dir)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"seconds": TIMEOUT_S, "added_mib": float("nan"), "outcome": f"killed after {TIMEOUT_S} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"seconds": float("nan"), "added_mib": float("nan"), "outcome": f"child died: {done.stderr[-200:]}"}
    return json.loads(lines[-1])


def main(names: list[str]) -> None:
    names = names or list(CASES)
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        tmp = Path(tmp)
        old_dir = tmp / "old"
        old_dir.mkdir()
        for module in ("archive", "bundle"):
            text = subprocess.run(
                ["git", "show", f"{BEFORE}:harness/{module}.py"], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout
            (old_dir / f"{module}.py").write_text(text)
        print(f"before: {BEFORE} (git show), after: the working tree; default limits; one child process per run")
        print(f"pax-huge: one pax header of {PAX_MIB[0]} MiB")
        print(f"{'case':14} {'upload':>10} | {'before: s':>9} {'+MiB':>7}  {'after: s':>8} {'+MiB':>7}")
        endings = []
        for name in names:
            kind, build = CASES[name]
            path = tmp / (name + ("" if kind == "dir" else f".{kind}"))
            build(path)
            size = (
                sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if kind == "dir" else path.stat().st_size
            )
            old = measure("old", kind, path, old_dir)
            new = measure("new", kind, path, old_dir)
            print(f"{name:14} {size / MiB:8.1f}MB | {old['seconds']:9.2f} {old['added_mib']:7.0f}  "
                  f"{new['seconds']:8.2f} {new['added_mib']:7.0f}", flush=True)  # fmt: skip
            endings.append((name, old["outcome"], new["outcome"]))
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        print("\nhow each ended (before / after):")
        for name, old, new in endings:
            print(f"  {name}\n    before: {old[:150]}\n    after:  {new[:150]}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5]))
    else:
        args = sys.argv[1:]
        if args[:1] == ["--pax-mib"]:
            PAX_MIB[0] = int(args[1])
            args = args[2:]
        main(args)
