"""harness/archive.py on its own (no Django): what a safe extraction writes, what it refuses, and
that a refused archive leaves its target folder empty."""

import io
import tarfile

import pytest

from harness.results import ArchiveError, ArchiveLimits, extract_archive, safe_member_path
from tests.submission_data import tar_gz_bytes, zip_bytes


@pytest.mark.parametrize(
    "name, problem",
    [
        ("../x", "escapes the archive root"),
        ("a/../../x", "escapes the archive root"),
        ("/etc/passwd", "is an absolute path"),
        ("C:/Windows/x", "is an absolute path"),
        ("a\\..\\x", "contains a backslash"),
        ("./", "names the archive root itself"),
        ("", "empty name"),
    ],
)
def test_unsafe_names(name, problem):
    with pytest.raises(ArchiveError, match=problem):
        safe_member_path(name)


def test_safe_names_are_normalised():
    assert str(safe_member_path("./a//b/./c.png")) == "a/b/c.png"


def test_tar_gz_extracts_files_and_folders(tmp_path):
    folder = tarfile.TarInfo("task")
    folder.type = tarfile.DIRTYPE
    data = tar_gz_bytes([(folder, None), (tarfile.TarInfo("task/traj.jsonl"), b'{"step_num": 1}\n')])
    (tmp_path / "a.tgz").write_bytes(data)
    assert extract_archive(tmp_path / "a.tgz", tmp_path / "out") == "tar.gz"
    assert (tmp_path / "out" / "task" / "traj.jsonl").read_bytes() == b'{"step_num": 1}\n'


def test_a_refused_archive_leaves_the_folder_empty(tmp_path):
    data = zip_bytes([("task/a.txt", b"a" * 10), ("task/b.txt", b"b" * 10), ("../c.txt", b"c")])
    (tmp_path / "a.zip").write_bytes(data)
    with pytest.raises(ArchiveError, match=r"^\.\./c\.txt: escapes"):
        extract_archive(tmp_path / "a.zip", tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_lying_tar_header_is_caught_by_counting_bytes(tmp_path):
    # The ratio is checked on bytes actually produced, whatever the headers declare.
    limits = ArchiveLimits(max_ratio=10, ratio_floor_bytes=1000)
    data = tar_gz_bytes([(tarfile.TarInfo("zeros.bin"), b"\0" * 200_000)])
    (tmp_path / "b.tgz").write_bytes(data)
    with pytest.raises(ArchiveError, match="expands more than 10 times"):
        extract_archive(tmp_path / "b.tgz", tmp_path / "out", limits)


def test_case_insensitive_duplicates_are_refused(tmp_path):
    (tmp_path / "c.zip").write_bytes(zip_bytes([("task/Shot.png", b"1"), ("task/shot.png", b"2")]))
    with pytest.raises(ArchiveError, match="task/shot.png: appears more than once"):
        extract_archive(tmp_path / "c.zip", tmp_path / "out")


def test_an_empty_archive_is_refused(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz"):
        pass
    (tmp_path / "d.tgz").write_bytes(buffer.getvalue())
    with pytest.raises(ArchiveError, match="the archive holds no files"):
        extract_archive(tmp_path / "d.tgz", tmp_path / "out")
