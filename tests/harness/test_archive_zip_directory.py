"""The zip directory the archive reader measures before anything is parsed (entry count, where the
central directory starts, its size) is the one Python's zipfile then reads: checked against zipfile's
own reading of real zips with archive comments (up to the 64 KiB maximum), data prepended as
self-extractors have, zip64 end records (65,536 entries) and the empty archive."""

import functools
import io
import zipfile

import pytest

from harness.results import ArchiveError, extract_archive
from harness.results.archive import zip_directory


def zip_bytes(names, comment: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in names:
            archive.writestr(name, name.encode())
        archive.comment = comment
    return buffer.getvalue()


def as_zipfile_reads_it(data: bytes) -> tuple[int, int, int]:
    """(entries, start of the central directory in the file, its size in bytes), from zipfile."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        size = sum(
            zipfile.sizeCentralDir + len(info.orig_filename.encode()) + len(info.extra) + len(info.comment)
            for info in infos
        )
        return len(infos), archive.start_dir, size


@functools.cache
def zip64_bytes() -> bytes:
    """65,536 entries: one more than the classic end record can count, so zipfile writes zip64 records."""
    return zip_bytes(f"{i}" for i in range(65536))


THREE = ["task/traj.jsonl", "task/step_1.png", "task/result.txt"]


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(zip_bytes(THREE), id="plain"),
        pytest.param(zip_bytes([]), id="empty (the end record alone, 22 bytes)"),
        pytest.param(zip_bytes(THREE, comment=b"exported by a harness " * 10), id="comment"),
        pytest.param(zip_bytes(THREE, comment=b"c" * 65535), id="longest comment"),
        pytest.param(zip_bytes(THREE, comment=b"c" * 100)[:-50], id="comment cut short (zipfile reads it)"),
        pytest.param(b"#!/bin/sh\nexit 0\n" * 60 + zip_bytes(THREE), id="prepended data"),
        pytest.param(b"MZ" * 500 + zip_bytes(THREE, comment=b"self-extracting"), id="prepended data and a comment"),
        pytest.param(None, id="zip64 end record (65,536 entries)", marks=pytest.mark.slow),
    ],
)
def test_the_directory_measured_is_the_one_zipfile_reads(data):
    data = data if data is not None else zip64_bytes()  # built only when this case runs (2 s)
    measured = zip_directory(io.BytesIO(data))
    assert measured == as_zipfile_reads_it(data)


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_the_zip64_case_really_has_zip64_records():
    data = zip64_bytes()
    assert zipfile.stringEndArchive64 in data[-200:] and zipfile.stringEndArchive64Locator in data[-200:]
    assert zip_directory(io.BytesIO(data))[0] == 65536  # the classic end record says 65,535


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="nothing"),
        pytest.param(zip_bytes([])[:21], id="shorter than an end record"),
        pytest.param(b"not a zip at all " * 100, id="no end record"),
        pytest.param(zip_bytes(THREE)[:-10], id="end record cut short"),
    ],
)
def test_no_directory_where_zipfile_finds_none_either(data):
    assert zip_directory(io.BytesIO(data)) is None
    with pytest.raises(zipfile.BadZipFile):
        zipfile.ZipFile(io.BytesIO(data))


def test_a_comment_holding_the_end_signature_is_refused_as_zipfile_refuses_it(tmp_path):
    # zipfile, like this reader, takes the last signature in the file for the end record
    path = tmp_path / "upload.zip"
    path.write_bytes(zip_bytes(THREE, comment=b"PK\x05\x06 and then some"))
    with pytest.raises(ArchiveError, match="not a readable zip archive"):
        extract_archive(path, tmp_path / "out")
