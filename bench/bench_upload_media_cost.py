"""Bench: one screenshot named by many rows of an upload, before and after.

Cases, each an upload built here from one 1280x800 noise PNG (about 3 MB, as in the issue):
  rows100-file1   100 rows of traj.jsonl naming the one file (step_num 1..100): the issue's attack
  rows100-files20 the same bytes under 20 file names, each named by 5 rows (within the row bounds):
                  what an upload may still do after the fix, 100 rows of one image

Each case runs submit_archive (validation and ingest, as the upload view does) in a fresh child
process with its own SQLite database and media folder, once with the code of commit BEFORE (a
`git archive` export) and once with the working tree. Printed side by side: media bytes and files
written, wall time of the upload, the peak resident memory the call added over the child's
resident memory just before it, and how it ended. Derivatives are left to the workers (not run).

Run: .venv/bin/python bench/bench_upload_media_cost.py [case ...]
"""

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "49b1495"
TIMEOUT_S = 600
MiB = 1024 * 1024
TASK_ID = "retrieval-f016"


# ---------------------------------------------------------------- building the cases


def noise_png() -> bytes:
    import numpy as np
    from PIL import Image

    pixels = np.random.default_rng(15).integers(0, 256, (800, 1280, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def _row(i: int, name: str) -> dict:
    return {
        "step_num": i + 1,
        "action_timestamp": f"20260411@1200{i % 60:02d}{i:06d}",
        "action": f"pyautogui.click({10 + i}, 20)",
        "response": f"turn {i + 1}",
        "reward": 0,
        "done": False,
        "info": {},
        "screenshot_file": name,
    }


def build(case: str, png: bytes) -> bytes:
    names = ["shot.png"] * 100 if case == "rows100-file1" else [f"shot{i // 5:02d}.png" for i in range(100)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in dict.fromkeys(names):
            archive.writestr(f"{TASK_ID}/{name}", png)
        archive.writestr(f"{TASK_ID}/traj.jsonl", "".join(json.dumps(_row(i, n)) + "\n" for i, n in enumerate(names)))
        archive.writestr(f"{TASK_ID}/result.txt", "1.0\n")
    return buffer.getvalue()


CASES = ("rows100-file1", "rows100-files20")


# ---------------------------------------------------------------- one measurement (child process)


def _peak_rss_kib() -> int:
    """This process's peak resident memory (VmHWM), not carried over from the parent."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def child(checkout: Path, archive_path: Path) -> None:
    sys.path.insert(0, str(checkout))
    os.chdir(checkout)
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    from leaderboard.models import Suite, Task
    from trajectories.submissions.uploads import submit_archive

    call_command("migrate", verbosity=0)
    suite = Suite.objects.create(name="bench", version="eval-round0", slug="mypcbench-eval-round0")
    Task.objects.create(
        suite=suite, task_id=TASK_ID, position=1, category="retrieval", behavioural_type="personal_lookup",
        type_source="derived", instruction="Find the invoice.", content_hash="bench",
    )  # fmt: skip
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    upload = SimpleUploadedFile("run.zip", archive_path.read_bytes())
    metadata = {"suite": suite.slug, "model": "Bench model", "turn_budget": 100}

    before = _peak_rss_kib()
    started = time.perf_counter()
    try:
        result = submit_archive(author, upload, metadata)
        outcome = f"accepted: {result.submission.validation_report[-1]['problem']}"
    except Exception as exc:  # the point: how it ended, and with what message
        report = getattr(exc, "report", None)
        outcome = f"{type(exc).__name__}: " + (
            "; ".join(f"{p.file}: {p.problem}" for p in report if p.level == "error") if report else str(exc)
        )
    elapsed = time.perf_counter() - started
    peak = _peak_rss_kib()
    media = Path(settings.MEDIA_ROOT)
    files = [p for p in media.rglob("*") if p.is_file() and p.parts[len(media.parts)] == "screenshots"]
    print(
        json.dumps(
            {
                "seconds": elapsed,
                "added_mib": max(peak - before, 0) / 1024,
                "media_mib": sum(p.stat().st_size for p in files) / MiB,
                "media_files": len(files),
                "outcome": outcome,
            }
        )
    )


# ---------------------------------------------------------------- the table


def measure(checkout: Path, archive_path: Path, var: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_MEDIA_ROOT")}
    env.update(MYPCBENCH_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="mypcbench_site.settings")
    command = [sys.executable, __file__, "--child", str(checkout), str(archive_path)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, cwd=checkout)
    except subprocess.TimeoutExpired:
        return {"seconds": TIMEOUT_S, "added_mib": float("nan"), "media_mib": float("nan"), "media_files": -1,
                "outcome": f"killed after {TIMEOUT_S} s"}  # fmt: skip
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"seconds": float("nan"), "added_mib": float("nan"), "media_mib": float("nan"), "media_files": -1,
                "outcome": f"child died: {done.stderr[-300:]}"}  # fmt: skip
    return json.loads(lines[-1])


def _export(commit: str, folder: Path) -> None:
    data = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")


def main(names: list[str]) -> None:
    names = names or list(CASES)
    png = noise_png()
    with tempfile.TemporaryDirectory(prefix="bench-media-cost-") as tmp:
        tmp = Path(tmp)
        old = tmp / "before"
        _export(BEFORE, old)
        print(f"before: {BEFORE} (git archive), after: the working tree; one noise PNG of {len(png):,} bytes")
        print(
            f"{'case':16} {'upload':>8} | {'before: media':>13} {'files':>5} {'s':>6} {'+MiB':>5}"
            f"  {'after: media':>12} {'files':>5} {'s':>6} {'+MiB':>5} | {'media ratio':>11}"
        )
        endings = []
        for name in names:
            archive_path = tmp / f"{name}.zip"
            archive_path.write_bytes(build(name, png))
            a = measure(old, archive_path, tmp / f"var-before-{name}")
            b = measure(ROOT, archive_path, tmp / f"var-after-{name}")
            ratio = f"{a['media_mib'] / b['media_mib']:10.0f}x" if b["media_mib"] else "nothing"
            print(
                f"{name:16} {archive_path.stat().st_size / MiB:6.1f}MB | {a['media_mib']:11.1f}MB {a['media_files']:5} "
                f"{a['seconds']:6.2f} {a['added_mib']:5.0f}  {b['media_mib']:10.1f}MB {b['media_files']:5} "
                f"{b['seconds']:6.2f} {b['added_mib']:5.0f} | {ratio:>11}",
                flush=True,
            )
            endings.append((name, a["outcome"], b["outcome"]))
        print("\nhow each ended (before / after):")
        for name, a, b in endings:
            print(f"  {name}\n    before: {a[:220]}\n    after:  {b[:220]}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        main(sys.argv[1:])
