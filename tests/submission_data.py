"""Test helpers for submissions: archives built from bytes (zip and tar.gz, good and hostile),
PNG headers that lie about their size, and the checks that nothing was stored."""

import io
import struct
import tarfile
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import write_task_dir

TASK_IDS = ["retrieval-f016", "writing-a001"]
METADATA = {
    "suite": "mypcbench-eval-round0",
    "model": "Claude Opus 4.6",
    "agent": "claude-cua",
    "tool_surface": "computer+bash",
    "turn_budget": 50,
    "harness_version": "1.2.0",
    "image_version": "mypcbench-vm:2026-04",
    "notes": "Run on our own cluster.",
    "links": ["https://example.org/report"],
}


def zip_bytes(entries) -> bytes:
    """``entries``: (name or ZipInfo, bytes) pairs, written exactly as given (duplicates too)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def tar_gz_bytes(members) -> bytes:
    """``members``: (TarInfo, bytes or None) pairs."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(info)
    return buffer.getvalue()


def folder_entries(root: Path, prefix: str = "") -> list[tuple[str, bytes]]:
    return [
        (prefix + str(path.relative_to(root)), path.read_bytes()) for path in sorted(root.rglob("*")) if path.is_file()
    ]


def result_folder(tmp_path: Path, task_ids=TASK_IDS, **kwargs) -> Path:
    root = tmp_path / "results"
    for task_id in task_ids:
        write_task_dir(root, task_id, **kwargs)
    return root


def good_entries(tmp_path: Path, task_ids=TASK_IDS, **kwargs) -> list[tuple[str, bytes]]:
    return folder_entries(result_folder(tmp_path, task_ids, **kwargs))


def upload(data: bytes, name: str = "run.zip") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` pixels (a decompression bomb's header)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", zlib.compress(b"\x00" * 16))
        + png_chunk(b"IEND", b"")
    )


def stored_counts() -> dict:
    from leaderboard.models import Model, Run
    from trajectories.models import Judgment, Step, Submission, Trajectory

    return {
        "submissions": Submission.objects.count(),
        "runs": Run.objects.count(),
        "models": Model.objects.count(),
        "trajectories": Trajectory.objects.count(),
        "steps": Step.objects.count(),
        "judgments": Judgment.objects.count(),
    }


def files_under(folder: Path) -> list[Path]:
    return [p for p in Path(folder).rglob("*") if p.is_file()] if Path(folder).exists() else []


# Our judge's answer in the provider simulator: every rubric item passes.
JUDGE_SUCCESS = '{"reasoning": "Seen in the steps.", "cited_steps": [1], "verdict": "success"}'


@contextmanager
def our_judge(settings, monkeypatch, reply: str = JUDGE_SUCCESS):
    """Our judge as settings configure it, answering through the real Anthropic SDK from the
    provider simulator on 127.0.0.1 (no network, no API key here; the simulator takes any key)."""
    from tests.simulators import ProviderSimulator
    from trajectories.judge_spec import JudgeSpec
    from trajectories.judging.our_judge import build_judge

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with ProviderSimulator(lambda request: reply) as sim:
        settings.MYPCBENCH_JUDGE = {"provider": "anthropic", "base_url": sim.url, "attempts": 1, "concurrency": 2}
        yield build_judge(JudgeSpec.from_settings())
