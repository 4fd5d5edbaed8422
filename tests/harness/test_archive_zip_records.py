"""The zip reader's own walk over the central directory (harness/archive.py, _check_zip_directory),
pinned word for word: a directory at exactly its byte limit passes and one byte less of limit refuses
it; an end record that understates the entries is caught by the walk, which must step over each
entry's extra field and comment to reach the next record; a name flagged UTF-8 must be UTF-8, and one
not flagged is read as the zip standard's cp437; Finder's litter before the files is skipped without
stopping the reading; an I/O error while reading an entry is a refusal. Expectations are the zip
format's (APPNOTE) and zipfile's own reading."""

import errno
import io
import struct
import zipfile

import pytest

from harness.results import ArchiveError, ArchiveLimits, extract_archive


def zip_of(entries) -> bytes:
    """``entries``: (name or ZipInfo, bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def end_record(data: bytes) -> tuple:
    """The end-of-central-directory record's fields (no archive comment: the last 22 bytes)."""
    return struct.unpack(zipfile.structEndArchive, data[-zipfile.sizeEndCentDir :])


def declaring(data: bytes, entries: int) -> bytes:
    """The same zip with its end record saying it holds ``entries`` entries (both counts)."""
    fields = list(end_record(data))
    fields[3] = fields[4] = entries  # entries on this disk, entries in all
    return data[: -zipfile.sizeEndCentDir] + struct.pack(zipfile.structEndArchive, *fields)


def run(tmp_path, data: bytes, limits: ArchiveLimits | None = None):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "upload.zip"
    path.write_bytes(data)
    return extract_archive(path, tmp_path / "out", limits)


def refusal(tmp_path, data: bytes, limits: ArchiveLimits | None = None) -> str:
    with pytest.raises(ArchiveError) as refused:
        run(tmp_path, data, limits)
    return str(refused.value)


def test_a_directory_at_exactly_its_byte_limit_passes_and_one_byte_over_is_refused(tmp_path):
    data = zip_of([("task/a.txt", b"a"), ("task/b.txt", b"b")])
    size = end_record(data)[5]  # the central directory's size in bytes
    assert size == 2 * (zipfile.sizeCentralDir + len("task/a.txt"))
    assert run(tmp_path, data, ArchiveLimits(max_total_header_bytes=size)) == "zip"
    assert refusal(tmp_path, data, ArchiveLimits(max_total_header_bytes=size - 1)) == (
        f"the zip's central directory is {size} bytes (expected at most {size - 1} bytes of directory)"
    )


def entry_with_extra_and_comment(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.extra = struct.pack("<HH", 0xCAFE, 5) + b"12345"  # one extra block: id, size, data (APPNOTE 4.5)
    info.comment = b"a comment of this entry"
    return info


def test_an_end_record_that_understates_the_entries_is_caught_by_walking_every_record(tmp_path):
    entries = [(entry_with_extra_and_comment(f"task/{n}.txt"), b"x") for n in "abc"]
    data = declaring(zip_of(entries), 1)
    assert [i.comment for i in zipfile.ZipFile(io.BytesIO(data)).infolist()] == [b"a comment of this entry"] * 3
    # The walk reaches the third record only by stepping over each one's name, extra field and comment.
    assert refusal(tmp_path, data, ArchiveLimits(max_files=2)) == (
        "more than 2 entries in the archive (more than its end record says) (expected at most 2 files)"
    )
    assert run(tmp_path / "three", data, ArchiveLimits(max_files=3)) == "zip"


def test_the_end_record_alone_refuses_too_many_entries(tmp_path):
    data = zip_of([("task/a.txt", b"a"), ("task/b.txt", b"b"), ("task/c.txt", b"c")])
    assert refusal(tmp_path, data, ArchiveLimits(max_files=2)) == (
        "3 entries in the archive (expected at most 2 files)"
    )


def with_name_bytes(data: bytes, placeholder: bytes, raw: bytes, utf8_flag: bool) -> bytes:
    """``placeholder`` in every header's name replaced by ``raw`` (same length), and the UTF-8 flag
    (bit 11) set or cleared in the local and central headers."""
    data = bytearray(data.replace(placeholder, raw))
    local, central = 0, data.index(zipfile.stringCentralDir)
    for flags_at in (local + 6, central + 8):
        flags = struct.unpack_from("<H", data, flags_at)[0]
        struct.pack_into("<H", data, flags_at, flags | 0x800 if utf8_flag else flags & ~0x800)
    return bytes(data)


def test_a_name_flagged_utf8_must_be_utf8_and_one_not_flagged_is_cp437(tmp_path):
    data = zip_of([("task/caf?.txt", b"coffee")])
    unflagged = with_name_bytes(data, b"caf?", b"caf\x82", utf8_flag=False)
    assert run(tmp_path / "cp437", unflagged) == "zip"
    assert (tmp_path / "cp437" / "out" / "task" / "café.txt").read_bytes() == b"coffee"  # 0x82 is é in cp437

    flagged = with_name_bytes(data, b"caf?", b"caf\x82", utf8_flag=True)
    assert refusal(tmp_path / "utf8", flagged) == (
        "task/caf\\x82.txt: the name is marked as UTF-8 but is not valid UTF-8 (expected UTF-8 file names)"
    )


def test_finder_litter_before_the_files_is_skipped_and_the_files_after_it_are_read(tmp_path):
    data = zip_of([("__MACOSX/task/._a.txt", b"\x00\x05\x16\x07"), ("task/._a.txt", b"\x00"), ("task/a.txt", b"a")])
    assert run(tmp_path, data) == "zip"
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")) == [
        "task",
        "task/a.txt",
    ]


def test_folders_alone_are_no_files(tmp_path):
    assert refusal(tmp_path, zip_of([("task/", b""), ("task/inner/", b"")])) == (
        "the archive holds no files (expected one or more task folders)"
    )


def test_an_input_output_error_while_reading_an_entry_is_a_refusal_naming_it(tmp_path, monkeypatch):
    # The one fault injected here: the disk failing under the upload (EIO), which cannot be made to happen.
    def failing_read(self, n=-1):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(zipfile.ZipExtFile, "read", failing_read)
    assert refusal(tmp_path, zip_of([("task/a.txt", b"a")])) == (
        "task/a.txt: cannot be read (Input/output error) (expected an intact zip entry)"
    )
