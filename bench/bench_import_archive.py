"""Bench: peak memory (RSS) of `import_results` on a generated OSWorld-style .zip at two sizes, side by
side. The archive is read as a stream, one task folder at a time, so the peak should not grow with the
archive's size (only the member list does, a few hundred bytes per member).

Each archive holds results/pyautogui/screenshot/<model>/<domain>/<uuid>/ task folders of --steps steps,
each with a traj.jsonl row and a distinct ~3 MB PNG screenshot (stored, not compressed, as PNGs are), and
result.txt. Each import runs in a fresh child process on its own SQLite database and media folder, so
its peak RSS (getrusage) is that import's alone.

Run: .venv/bin/python bench/bench_import_archive.py [--sizes 0.5,2] [--steps 15] [--keep]
"""

import argparse
import io
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MODEL = "bench-org/bench-model-7B"
SIDE = 1024  # 1024x1024 RGB noise: about 3 MiB as a PNG


def screenshot(seed: int) -> bytes:
    from PIL import Image

    rng = random.Random(seed)
    image = Image.frombytes("RGB", (SIDE, SIDE), rng.randbytes(SIDE * SIDE * 3))
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def make_archive(target: Path, gigabytes: float, steps: int) -> dict:
    """An OSWorld run.py tree in a zip, about ``gigabytes`` GB. Screenshots differ by a few bytes, so
    no two members are the same file (the import stores each)."""
    base = screenshot(0)
    per_task = steps * len(base)
    tasks = max(1, int(gigabytes * 1024**3 // per_task))
    rng = random.Random(7)
    ids = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(tasks)]
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for n, task_id in enumerate(ids):
            folder = f"results/pyautogui/screenshot/{MODEL}/chrome/{task_id}"
            rows = []
            for step in range(1, steps + 1):
                stamp = f"20250101@12{step:04d}000000"
                name = f"step_{step}_{stamp}.png"
                # A distinct PNG text chunk per file keeps the image valid and every file unique.
                data = base[:33] + _text_chunk(f"{n}-{step}") + base[33:]
                archive.writestr(f"{folder}/{name}", data)
                action = "DONE" if step == steps else f"pyautogui.click({step}, {step})"
                rows.append({"step_num": step, "action_timestamp": stamp, "action": action, "response": "",
                             "reward": 0, "done": step == steps, "info": {}, "screenshot_file": name})  # fmt: skip
            archive.writestr(f"{folder}/traj.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
            archive.writestr(f"{folder}/result.txt", f"{n % 2}\n")
    return {"tasks": ids, "members": tasks * (steps + 2), "bytes": target.stat().st_size}


def _text_chunk(text: str) -> bytes:
    import struct
    import zlib

    body = b"tEXt" + b"bench\x00" + text.encode()
    return struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def child(archive: Path, ids_file: Path) -> None:
    """One import in this process; prints peak RSS (KiB) and seconds as JSON."""
    os.environ["MYPCBENCH_DERIVATIVES"] = "off"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from leaderboard.models import Suite, Task
    from trajectories.recording.import_results import import_results

    call_command("migrate", verbosity=0, interactive=False)
    suite = Suite.objects.create(name="OSWorld", version="bench", slug="osworld-bench", kind="osworld")
    Task.objects.bulk_create(
        Task(
            suite=suite,
            task_id=t,
            position=i,
            category="chrome",
            behavioural_type="",
            type_source="derived",
            instruction="bench",
            content_hash=t,
        )  # fmt: skip
        for i, t in enumerate(json.loads(ids_file.read_text()), start=1)
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    summary = import_results(archive, "bench run")
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = summary.report
    print(json.dumps({"peak_kib": peak, "before_kib": before, "seconds": seconds,
                      "trajectories": report.trajectories, "screenshots": report.screenshots}))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.5,2", help="archive sizes in GB, comma-separated (default 0.5,2)")
    parser.add_argument("--steps", type=int, default=15, help="steps (screenshots) per task folder")
    parser.add_argument("--keep", action="store_true", help="keep the generated archives and databases")
    parser.add_argument("--child", nargs=2, metavar=("ARCHIVE", "IDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]))
        return
    work = Path(tempfile.mkdtemp(prefix="bench-import-archive-"))
    results = []
    try:
        for size in [float(s) for s in args.sizes.split(",")]:
            archive = work / f"results-{size:g}GB.zip"
            start = time.perf_counter()
            facts = make_archive(archive, size, args.steps)
            made = time.perf_counter() - start
            ids = work / f"ids-{size:g}.json"
            ids.write_text(json.dumps(facts["tasks"]))
            var = work / f"var-{size:g}"
            var.mkdir()
            env = dict(os.environ, MYPCBENCH_VAR_DIR=str(var), PYTHONUNBUFFERED="1")
            env.pop("DATABASE_URL", None)
            out = subprocess.run([sys.executable, __file__, "--child", str(archive), str(ids)], cwd=ROOT, env=env,
                                 capture_output=True, text=True, check=False)  # fmt: skip
            if out.returncode != 0:
                raise SystemExit(f"the import of {archive.name} failed:\n{out.stderr[-3000:]}")
            row = json.loads(out.stdout.strip().splitlines()[-1])
            results.append((size, facts, made, row))
            if not args.keep:
                archive.unlink()
                shutil.rmtree(var)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    header = ("archive", "members", "screenshots", "import s", "peak RSS MiB", "after setup MiB")
    print("{:>10} {:>8} {:>11} {:>9} {:>13} {:>16}".format(*header))
    for _size, facts, _made, row in results:
        print(f"{facts['bytes'] / 1024**3:>8.2f}GB {facts['members']:>8} {row['screenshots']:>11} "
              f"{row['seconds']:>9.1f} {row['peak_kib'] / 1024:>13.1f} {row['before_kib'] / 1024:>16.1f}")  # fmt: skip
    if len(results) >= 2:
        (_, f1, _, r1), (_, f2, _, r2) = results[0], results[-1]
        print(f"archive {f2['bytes'] / f1['bytes']:.1f}x larger -> peak RSS {r2['peak_kib'] / r1['peak_kib']:.2f}x")


if __name__ == "__main__":
    main()
