"""Every refusal of the archive reader, word for word, on zips and tar.gz files built here: the
message is what an author reads to fix an upload, so each names the entry, what is wrong with it
and what was expected (found by mutation testing: checks that only looked for a fragment let a
wrong entry or a lost "expected" part through). Limits are tried at their edge and one past it."""

import gzip
import io
import stat
import tarfile
import warnings
import zipfile

import pytest

from harness.results import ArchiveError, ArchiveLimits, extract_archive, safe_member_path
from tests.submission_data import tar_gz_bytes

BOTH = "expected each name used for a file or a folder, not both"
LONG = "d" * 300  # longer than any file system's name limit (255 bytes)


def zip_of(entries, *, compression=zipfile.ZIP_STORED) -> bytes:
    """``entries``: (name or ZipInfo, bytes)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of duplicate names, which some cases are
        with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return buffer.getvalue()


def zip_info(name: str, mode: int = 0) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    return info


def flagged_encrypted(data: bytes) -> bytes:
    """The one entry's "encrypted" flag (bit 0 of its flags) set in its local header and in the
    central directory, as an encrypting zip tool writes it (zipfile cannot write one)."""
    data = bytearray(data)
    data[6] |= 0x1  # local header: signature (4), version (2), flags
    central = data.index(zipfile.stringCentralDir)
    data[central + 8] |= 0x1  # central directory: signature (4), versions (2 + 2), flags
    return bytes(data)


def tar_info(name: str, kind=tarfile.REGTYPE, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def refusal(tmp_path, data: bytes, name: str = "upload.zip", limits: ArchiveLimits | None = None) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ArchiveError) as refused:
        extract_archive(path, tmp_path / "out", limits)
    return str(refused.value)


def extracts(tmp_path, data: bytes, name: str = "upload.zip", limits: ArchiveLimits | None = None) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return extract_archive(path, tmp_path / "out", limits)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        pytest.param(
            [(zip_info("task/link", stat.S_IFLNK | 0o777), b"/etc/passwd")],
            "task/link: is a symbolic link (expected regular files and folders only)",
            id="symbolic link",
        ),
        pytest.param(
            [(zip_info("task/tty", stat.S_IFCHR | 0o644), b"")],
            "task/tty: is a device or special file (expected regular files only)",
            id="device file",
        ),
        pytest.param(
            [("task/Notes.txt", b"a"), ("task/notes.txt", b"b")],
            "task/notes.txt: appears more than once in the archive (expected each name once)",
            id="one name twice, differing in case",
        ),
        pytest.param(
            [("task/a", b"a"), ("task/a/b.txt", b"b")],
            f"task/a/b.txt: is inside 'task/a', which the archive also holds as a file ({BOTH})",
            id="a file under a file",
        ),
        pytest.param(
            [("task/a/b.txt", b"b"), ("task/a", b"a")],
            f"task/a: is a file, and the archive also holds a folder of that name ({BOTH})",
            id="a file named as a folder",
        ),
        pytest.param(
            [("a", b"a"), ("a/b.txt", b"b")],
            f"a/b.txt: is inside 'a', which the archive also holds as a file ({BOTH})",
            id="a file under a top-level file",
        ),
        pytest.param(
            [("a/b.txt", b"b"), ("a", b"a")],
            f"a: is a file, and the archive also holds a folder of that name ({BOTH})",
            id="a top-level file named as a folder",
        ),
        pytest.param(
            [("task/a", b"a"), ("task/a/", b"")],
            f"task/a: is a folder, and the archive also holds a file of that name ({BOTH})",
            id="a folder named as a file",
        ),
        pytest.param(
            [(f"task/{LONG}.txt", b"a")],
            f"task/{LONG}.txt: cannot be written (File name too long) (expected a valid file name)",
            id="file name too long",
        ),
        pytest.param(
            [(f"task/{LONG}/a.txt", b"a")],
            f"task/{LONG}/a.txt: cannot be written (File name too long) (expected a valid file name)",
            id="folder name too long",
        ),
    ],
)
def test_each_zip_refusal_word_for_word(tmp_path, entries, message):
    assert refusal(tmp_path, zip_of(entries)) == message


def test_an_encrypted_entry_is_refused(tmp_path):
    data = flagged_encrypted(zip_of([("task/secret.txt", b"????")]))
    assert zipfile.ZipFile(io.BytesIO(data)).infolist()[0].flag_bits & 0x1
    assert refusal(tmp_path, data) == "task/secret.txt: is encrypted (expected unencrypted files)"


def test_a_damaged_zip_entry_and_a_file_that_is_no_zip(tmp_path):
    data = bytearray(zip_of([("task/a.txt", b"hello world")]))
    data[data.index(b"hello world")] = ord("j")  # the stored bytes no longer match their CRC
    assert refusal(tmp_path, bytes(data)) == (
        "task/a.txt: cannot be read (Bad CRC-32 for file 'task/a.txt') (expected an intact zip entry)"
    )
    assert refusal(tmp_path, b"PK\x03\x04" + b"\x00" * 100, name="upload2.zip") == (
        "upload2.zip: not a readable zip archive (File is not a zip file) (expected a valid .zip)"
    )


def test_nesting_at_the_limit_passes_and_one_more_level_is_refused(tmp_path):
    limits = ArchiveLimits(max_depth=2)
    assert extracts(tmp_path, zip_of([("a/b/c.txt", b"x"), ("a/b/", b"")]), limits=limits) == "zip"
    assert refusal(tmp_path, zip_of([("a/b/c/d.txt", b"x")]), name="deep.zip", limits=limits) == (
        "a/b/c/d.txt: nested 3 folders deep (expected at most 2 levels)"
    )
    assert refusal(tmp_path, zip_of([("a/b/c/", b"")]), name="deep2.zip", limits=limits) == (
        "a/b/c: nested 3 folders deep (expected at most 2 levels)"
    )


def test_a_file_at_the_size_limit_passes_and_one_byte_more_is_refused(tmp_path):
    limits = ArchiveLimits(max_file_bytes=10)
    assert extracts(tmp_path, zip_of([("task/ten.txt", b"0123456789")]), limits=limits) == "zip"
    message = "task/big.txt: larger than the 10-byte limit per file (expected files of at most 10 bytes)"
    big = b"0123456789A"
    assert refusal(tmp_path, zip_of([("task/big.txt", big)]), name="big.zip", limits=limits) == message
    big_tar = tar_gz_bytes([(tar_info("task/big.txt"), big)])
    assert refusal(tmp_path, big_tar, name="big.tar.gz", limits=limits) == message
    ten_tar = tar_gz_bytes([(tar_info("task/ten.txt"), b"0123456789")])
    (tmp_path / "tar").mkdir()
    assert extracts(tmp_path / "tar", ten_tar, name="ten.tar.gz", limits=limits) == "tar.gz"


def test_the_size_limit_counts_every_chunk_of_a_file(tmp_path):
    # a file longer than one read of the copy (1 MiB): its size is the sum of the chunks, not the last one
    limits = ArchiveLimits(max_file_bytes=1024 * 1024 + 1)
    message = "task/big.bin: larger than the 1048577-byte limit per file (expected files of at most 1048577 bytes)"
    data = zip_of([("task/big.bin", b"\x01" * (1024 * 1024 + 2))])
    assert refusal(tmp_path, data, limits=limits) == message
    just = zip_of([("task/ok.bin", b"\x01" * (1024 * 1024 + 1))])
    assert extracts(tmp_path, just, name="just.zip", limits=limits) == "zip"


def test_a_zip_bomb_is_refused_by_its_ratio_and_plain_data_is_not(tmp_path):
    limits = ArchiveLimits(max_ratio=5, ratio_floor_bytes=1000)
    zeros = zip_of([("task/zeros.bin", b"\0" * 20_000)], compression=zipfile.ZIP_DEFLATED)
    assert len(zeros) < 20_000 / 5
    assert refusal(tmp_path, zeros, limits=limits) == (
        "task/zeros.bin: expands more than 5 times its compressed size (a zip bomb?) "
        "(expected a compression ratio of at most 5)"
    )
    stored = zip_of([("task/plain.bin", bytes(range(256)) * 80)])  # 20 KB stored as is: ratio about 1
    assert extracts(tmp_path, stored, name="plain.zip", limits=limits) == "zip"


@pytest.mark.parametrize(
    ("members", "message"),
    [
        pytest.param(
            [(tar_info("task/link", tarfile.SYMTYPE, "/etc/passwd"), None)],
            "task/link: is a symbolic link to '/etc/passwd' (expected regular files and folders only)",
            id="symbolic link",
        ),
        pytest.param(
            [(tar_info("task/a.txt"), b"a"), (tar_info("task/hard", tarfile.LNKTYPE, "task/a.txt"), None)],
            "task/hard: is a hard link to 'task/a.txt' (expected regular files and folders only)",
            id="hard link",
        ),
        pytest.param(
            [(tar_info("task/pipe", tarfile.FIFOTYPE), None)],
            "task/pipe: is a device, pipe or other special file (expected regular files only)",
            id="named pipe",
        ),
        pytest.param(
            [(tar_info("task/a.txt"), b"a"), (tar_info("task/a.txt"), b"b")],
            "task/a.txt: appears more than once in the archive (expected each name once)",
            id="one name twice",
        ),
    ],
)
def test_each_tar_refusal_word_for_word(tmp_path, members, message):
    assert refusal(tmp_path, tar_gz_bytes(members), name="upload.tar.gz") == message


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "'': empty name or a NUL character in the name (expected a file name)"),
        ("task/a\x00.txt", "'task/a\\x00.txt': empty name or a NUL character in the name (expected a file name)"),
        ("task\\a.txt", "task\\a.txt: contains a backslash (expected '/' as the only path separator)"),
        ("/etc/passwd", "/etc/passwd: is an absolute path (expected a path relative to the archive root)"),
        ("C:/x.txt", "C:/x.txt: is an absolute path (expected a path relative to the archive root)"),
        ("task/../../x", "task/../../x: escapes the archive root with '..' (expected a path inside the archive)"),
        ("./", "./: names the archive root itself (expected a file or folder name)"),
        # a byte tarfile could not decode: shown as the byte it was
        ("task/\udcff.txt", "task/\\xff.txt: the name is not valid UTF-8 (expected UTF-8 file names)"),
        # the first and the last surrogate: never a character of valid UTF-8
        ("task/\ud800.txt", "task/\\ud800.txt: the name is not valid UTF-8 (expected UTF-8 file names)"),
        ("task/\udfff.txt", "task/\\udfff.txt: the name is not valid UTF-8 (expected UTF-8 file names)"),
        ("C:", "C:: is an absolute path (expected a path relative to the archive root)"),
    ],
)
def test_each_unsafe_entry_name_is_refused_word_for_word(name, message):
    with pytest.raises(ArchiveError) as refused:
        safe_member_path(name)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("name", "path"),
    [("a", "a"), (":", ":"), ("./task//a.txt", "task/a.txt"), ("task/./b/", "task/b"), ("..a/b..", "..a/b..")],
)
def test_names_that_are_safe_are_kept_as_written(name, path):
    assert str(safe_member_path(name)) == path


def test_what_is_not_an_archive_or_holds_no_files_is_refused_word_for_word(tmp_path):
    assert refusal(tmp_path, b"just some notes", name="notes.zip") == (
        "notes.zip: not a zip or gzip-compressed tar archive (expected a .zip or .tar.gz)"
    )
    assert refusal(tmp_path, zip_of([("task/", b"")]), name="empty.zip") == (
        "the archive holds no files (expected one or more task folders)"
    )
    assert refusal(
        tmp_path, zip_of([("task/a.txt", b"a")]), name="big.zip", limits=ArchiveLimits(max_archive_bytes=50)
    ) == (f"the archive is {len(zip_of([('task/a.txt', b'a')]))} bytes (expected an archive of at most 50 bytes)")
    message = refusal(tmp_path, gzip.compress(b"not a tar " * 100), name="upload.tar.gz")
    assert message.startswith("upload.tar.gz: not a readable tar.gz archive (")
    assert message.endswith(") (expected a valid .tar.gz)")
