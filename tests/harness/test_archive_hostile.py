"""harness/archive.py against hostile archives built here from bytes: what costs the server memory
or time before any limit applied (huge tar extended headers, folder entries, a zip's directory of a
million entries), what crashed instead of refusing (invalid UTF-8 names, a file and a folder of
one name, corrupt data), and Finder's litter, which is skipped. Memory is measured with
tracemalloc around the extraction."""

import gzip
import io
import random
import re
import struct
import tarfile
import tracemalloc
import zipfile

import pytest

from harness.results import ArchiveError, ArchiveLimits, extract_archive

MiB = 1024 * 1024


# ---------------------------------------------------------------- builders


def header(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0) -> bytes:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = size
    info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    return info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")


def padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % tarfile.BLOCKSIZE)


def member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE) -> bytes:
    return header(name, kind, len(data)) + padded(data)


def pax(records: dict) -> bytes:
    """A pax extended header carrying ``records`` for the member after it."""
    body = b""
    for key, value in records.items():
        text = f" {key}={value}\n".encode()
        length = len(text) + len(str(len(text)))
        length = len(text) + len(str(length))  # the length counts its own digits
        body += str(length).encode() + text
    return member("././@PaxHeader", body, tarfile.XHDTYPE)


def tar_gz(*parts: bytes) -> bytes:
    return gzip.compress(b"".join(parts) + b"\0" * 1024, compresslevel=1)


def write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def refusal(path, tmp_path, limits=None) -> str:
    with pytest.raises(ArchiveError) as caught:
        extract_archive(path, tmp_path / "out", limits)
    assert list((tmp_path / "out").iterdir()) == [], "a refused archive left files behind"
    return str(caught.value)


def extract_measured(path, tmp_path, limits=None) -> tuple[str, int]:
    """(the refusal, peak bytes Python allocated while extracting)."""
    tracemalloc.start()
    try:
        message = refusal(path, tmp_path, limits)
        return message, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def zip_of_empty_files(names, *, declared: int | None = None, zip64_declared: int | None = None) -> bytes:
    """A stored zip of empty files written record by record (fast for 100k entries); its end
    record may declare another count, and a zip64 end record may be added."""
    local, central, offset = [], [], 0
    for name in names:
        raw = name.encode()
        flags = 0x800 if not raw.isascii() else 0
        local_header = struct.pack(zipfile.structFileHeader, zipfile.stringFileHeader, 20, 3, flags, 0, 0, 33, 0, 0, 0,
                                   len(raw), 0) + raw  # fmt: skip
        central.append(
            struct.pack(
                zipfile.structCentralDir,
                zipfile.stringCentralDir,
                20,
                3,
                20,
                0,
                flags,
                0,
                0,
                33,
                0,
                0,
                0,
                len(raw),
                0,
                0,
                0,
                0,
                0o100644 << 16,
                offset,
            )
            + raw  # fmt: skip
        )
        local.append(local_header)
        offset += len(local_header)
    directory = b"".join(central)
    count = len(central) if declared is None else declared
    if count > 0xFFFF and zip64_declared is None:
        zip64_declared = count
    tail = b""
    if zip64_declared is not None:
        record64_at = offset + len(directory)
        tail = struct.pack(zipfile.structEndArchive64, zipfile.stringEndArchive64, 44, 45, 45, 0, 0, zip64_declared,
                           zip64_declared, len(directory), offset)  # fmt: skip
        tail += struct.pack(zipfile.structEndArchive64Locator, zipfile.stringEndArchive64Locator, 0, record64_at, 1)
        count = 0xFFFF
    end = struct.pack(zipfile.structEndArchive, zipfile.stringEndArchive, 0, 0, count, count, len(directory), offset, 0)
    return b"".join(local) + directory + tail + end


def zip_bytes(entries) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


# ---------------------------------------------------------------- item 2: tar extended headers


def test_a_64_mib_pax_header_is_refused_before_it_is_read(tmp_path):
    # 64 MiB of header compress to about 64 KiB: tarfile would read all of it into one bytes object.
    size = 64 * MiB
    stream = io.BytesIO()
    with gzip.GzipFile(fileobj=stream, mode="wb", compresslevel=1) as out:
        out.write(header("././@PaxHeader", tarfile.XHDTYPE, size))
        for _ in range(size // MiB):
            out.write(b"\0" * MiB)
        out.write(member("task/traj.jsonl", b"{}\n") + b"\0" * 1024)
    path = write(tmp_path, "pax.tgz", stream.getvalue())
    assert path.stat().st_size < MiB
    message, peak = extract_measured(path, tmp_path)
    assert message == (
        "././@PaxHeader: a pax extended header of 67108864 bytes (at byte 0 of the tar) "
        "(expected at most 1048576 bytes per header)"
    )
    assert peak < 8 * MiB, f"{peak / MiB:.0f} MiB allocated"


@pytest.mark.parametrize(
    "kind, words",
    [(tarfile.GNUTYPE_LONGNAME, "a GNU long name of 5000"), (tarfile.XGLTYPE, "a pax global header of 5000")],
)
def test_other_extended_headers_are_bounded_too(tmp_path, kind, words):
    data = tar_gz(member("././@LongLink", b"a" * 5000, kind), member("task/a.txt", b"a"))
    message = refusal(write(tmp_path, "long.tgz", data), tmp_path, ArchiveLimits(max_header_bytes=4096))
    assert message == f"././@LongLink: {words} bytes (at byte 0 of the tar) (expected at most 4096 bytes per header)"


def test_extended_headers_are_bounded_all_together(tmp_path):
    # Each is small, but tarfile keeps every entry's headers until the archive is closed.
    parts = [pax({"comment": "x" * 100_000}) + member(f"task/{i}.txt", b"x") for i in range(40)]
    message = refusal(write(tmp_path, "many.tgz", tar_gz(*parts)), tmp_path, ArchiveLimits(max_total_header_bytes=MiB))
    assert re.fullmatch(
        r"the tar's extended headers \(pax, long names\) add up to more than 1048576 bytes \(at byte \d+\) "
        r"\(expected at most 1048576 bytes of extended headers\)",
        message,
    ), message


def test_a_chain_of_extended_headers_is_refused_not_a_recursion_error(tmp_path):
    # tarfile nests one call per header in a row: 2,000 of them exhaust its stack.
    data = tar_gz(*[pax({"comment": "x"})] * 2000, member("task/a.txt", b"a"))
    message = refusal(write(tmp_path, "chain.tgz", data), tmp_path)
    assert re.fullmatch(
        r"\./\./@PaxHeader: more than 8 extended headers in a row \(at byte \d+ of the tar\) "
        r"\(expected a few extended headers before each entry\)",
        message,
    ), message


def test_eight_extended_headers_in_a_row_are_read_and_nine_refused(tmp_path):
    eight = tar_gz(*[pax({"comment": "x"})] * 8, member("task/a.txt", b"a"))
    extract_archive(write(tmp_path, "eight.tgz", eight), tmp_path / "out")
    assert (tmp_path / "out" / "task" / "a.txt").read_bytes() == b"a"
    nine = tar_gz(*[pax({"comment": "x"})] * 9, member("task/a.txt", b"a"))
    assert "more than 8 extended headers in a row" in refusal(write(tmp_path, "nine.tgz", nine), tmp_path / "n")


def test_extended_headers_in_a_row_are_counted_afresh_after_each_entry(tmp_path):
    data = tar_gz(
        *[pax({"comment": "x"})] * 8,
        member("task/a.txt", b"a"),
        *[pax({"comment": "y"})] * 8,
        member("task/b.txt", b"b"),
    )
    extract_archive(write(tmp_path, "twice.tgz", data), tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out" / "task").iterdir()) == ["a.txt", "b.txt"]


def test_an_extended_header_at_exactly_its_limits_is_read_and_one_byte_less_of_limit_refuses_it(tmp_path):
    body = b"4096 comment=" + b"x" * 4082 + b"\n"  # one pax record of 4096 bytes, its length counting itself
    assert len(body) == 4096
    data = tar_gz(member("././@PaxHeader", body, tarfile.XHDTYPE), member("task/a.txt", b"a"))
    exact = ArchiveLimits(max_header_bytes=4096, max_total_header_bytes=4096)
    extract_archive(write(tmp_path, "exact.tgz", data), tmp_path / "out", exact)
    assert (tmp_path / "out" / "task" / "a.txt").read_bytes() == b"a"
    assert refusal(write(tmp_path, "one.tgz", data), tmp_path / "one", ArchiveLimits(max_header_bytes=4095)) == (
        "././@PaxHeader: a pax extended header of 4096 bytes (at byte 0 of the tar) "
        "(expected at most 4095 bytes per header)"
    )
    total = refusal(write(tmp_path, "all.tgz", data), tmp_path / "all", ArchiveLimits(max_total_header_bytes=4095))
    assert total.startswith("the tar's extended headers (pax, long names) add up to more than 4095 bytes"), total


def test_small_pax_headers_as_gnu_tar_writes_them_are_read(tmp_path):
    data = tar_gz(
        pax({"path": "task/" + "long-name-" * 20 + ".json", "mtime": "1700000000.5"}),
        member("task/short-name.json", b"{}"),
        member("task/b.txt", b"b"),
    )
    extract_archive(write(tmp_path, "ok.tgz", data), tmp_path / "out")
    assert (tmp_path / "out" / "task" / ("long-name-" * 20 + ".json")).read_bytes() == b"{}"


def test_a_sparse_entry_is_refused(tmp_path):
    data = tar_gz(member("task/holes.bin", b"x" * 10, tarfile.GNUTYPE_SPARSE))
    message = refusal(write(tmp_path, "s.tgz", data), tmp_path)
    assert message == "task/holes.bin: is a sparse file (expected regular files only)"


def test_a_sparse_entry_declared_in_its_pax_header_is_refused(tmp_path):
    data = tar_gz(pax({"GNU.sparse.size": "10", "GNU.sparse.map": "0,10"}), member("task/holes.bin", b"x" * 10))
    message = refusal(write(tmp_path, "pax-sparse.tgz", data), tmp_path)
    assert message == "././@PaxHeader: is a sparse file (expected regular files only)"


# ---------------------------------------------------------------- item 3: folder entries count


def test_tar_folder_entries_count_against_the_limit(tmp_path):
    folders = [member(f"d{i:05d}/", kind=tarfile.DIRTYPE) for i in range(30)]
    data = tar_gz(*folders, member("task/a.txt", b"a"))
    message = refusal(write(tmp_path, "dirs.tgz", data), tmp_path, ArchiveLimits(max_files=10))
    assert message == (
        "more than 10 files in the archive (folders and other entries count too) (expected at most 10 entries)"
    )


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_folder_entries_make_nothing_on_disk(tmp_path, kind):
    # Checked and counted, but a folder exists only once a file in it is written.
    folders = [f"empty{i}/" for i in range(500)] + ["task/"]
    if kind == "zip":
        data = zip_bytes([*[(f, b"") for f in folders], ("task/a.txt", b"a")])
    else:
        data = tar_gz(*[member(f, kind=tarfile.DIRTYPE) for f in folders], member("task/a.txt", b"a"))
    extract_archive(write(tmp_path, f"folders.{kind}", data), tmp_path / "out")
    assert sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*")) == [
        "task",
        "task/a.txt",
    ]


# ---------------------------------------------------------------- item 4: the zip directory


def test_a_zip_of_100k_entries_is_refused_from_its_end_record(tmp_path):
    path = write(tmp_path, "many.zip", zip_of_empty_files(f"f/{i:06d}" for i in range(100_000)))
    message, peak = extract_measured(path, tmp_path, ArchiveLimits(max_files=1000))
    assert message == "100000 entries in the archive (expected at most 1000 files)"
    assert peak < 2 * MiB, f"{peak / MiB:.0f} MiB allocated"  # zipfile's own parse takes about 50 MiB


def test_the_zip64_end_record_count_is_read(tmp_path):
    # The classic end record says 0xFFFF (65,535, under the limit); the zip64 record says 70,000.
    data = zip_of_empty_files(["task/a.txt"], zip64_declared=70_000)
    message = refusal(write(tmp_path, "z64.zip", data), tmp_path, ArchiveLimits(max_files=66_000))
    assert message == "70000 entries in the archive (expected at most 66000 files)"


def test_an_end_record_that_understates_the_count_is_caught_by_walking_the_directory(tmp_path):
    data = zip_of_empty_files([f"task/{i}.txt" for i in range(30)], declared=2)
    message = refusal(write(tmp_path, "lie.zip", data), tmp_path, ArchiveLimits(max_files=10))
    assert message.startswith("more than 10 entries in the archive (more than its end record says)")


def test_an_oversized_zip_directory_is_refused_before_it_is_read(tmp_path):
    data = zip_of_empty_files([f"task/{i:04d}-{'x' * 200}.txt" for i in range(100)])
    message = refusal(write(tmp_path, "big.zip", data), tmp_path, ArchiveLimits(max_total_header_bytes=10_000))
    assert message.startswith("the zip's central directory is 2")


# ---------------------------------------------------------------- item 9: names and their encoding


def test_a_zip_name_flagged_utf8_but_invalid_is_refused(tmp_path):
    data = zip_bytes([("task/\u00e9.png", b"png"), ("task/a.txt", b"a")])
    assert b"task/\xc3\xa9.png" in data
    data = data.replace(b"task/\xc3\xa9.png", b"task/\xc3\x28.png")  # stays flagged as UTF-8
    message = refusal(write(tmp_path, "bad.zip", data), tmp_path)
    assert message == (
        "task/\\xc3(.png: the name is marked as UTF-8 but is not valid UTF-8 (expected UTF-8 file names)"
    )


def test_a_local_header_name_flagged_utf8_but_invalid_is_refused(tmp_path):
    data = zip_bytes([("task/\u00e9.png", b"png"), ("task/a.txt", b"a")])
    at = data.index(b"task/\xc3\xa9.png")  # the first copy is the local header's
    data = data[:at] + b"task/\xc3\x28.png" + data[at + 11 :]
    message = refusal(write(tmp_path, "local.zip", data), tmp_path)
    assert message.startswith("task/\u00e9.png: cannot be read (")


def test_a_tar_name_that_is_not_utf8_is_refused(tmp_path):
    block = bytearray(header("task/xx.png", size=3))
    block[5:7] = b"\xff\xfe"
    block[148:156] = b"%06o\0 " % (sum(block[:148]) + 8 * 32 + sum(block[156:]))
    data = tar_gz(bytes(block) + padded(b"png"))
    message = refusal(write(tmp_path, "bad.tgz", data), tmp_path)
    assert message == "task/\\xff\\xfe.png: the name is not valid UTF-8 (expected UTF-8 file names)"


def test_refusals_show_bidirectional_and_control_characters_escaped(tmp_path):
    data = zip_bytes([("task/a.txt", b"a"), ("task/\u202egnp.exe\x1b/../../x", b"x")])
    message = refusal(write(tmp_path, "bidi.zip", data), tmp_path)
    assert message.startswith("task/\\u202egnp.exe\\x1b/../../x: escapes the archive root")
    assert "\u202e" not in message and "\x1b" not in message


# ---------------------------------------------------------------- item 11: a file and a folder of one name


@pytest.mark.parametrize(
    "names, words",
    [
        (["task/a", "task/a/"], "task/a: is a folder, and the archive also holds a file of that name"),
        (["task/a/", "task/a"], "task/a: is a file, and the archive also holds a folder of that name"),
        (["task/a", "task/a/b.png"], "task/a/b.png: is inside 'task/a', which the archive also holds as a file"),
        (["task/a/b.png", "task/A"], "task/A: is a file, and the archive also holds a folder of that name"),
    ],
)
@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_a_file_and_a_folder_of_one_name_are_refused(tmp_path, names, words, kind):
    if kind == "zip":
        data = zip_bytes([(name, b"" if name.endswith("/") else b"data") for name in names])
    else:
        data = tar_gz(*[member(n, kind=tarfile.DIRTYPE) if n.endswith("/") else member(n, b"data") for n in names])
    message = refusal(write(tmp_path, f"clash.{kind}", data), tmp_path)
    assert message.startswith(words), message


# ---------------------------------------------------------------- item 13: Finder's litter


def test_finder_zips_are_read_without_their_resource_forks(tmp_path):
    apple_double = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + b"\xff\xfe" * 40
    data = zip_bytes(
        [
            ("task/traj.jsonl", b"{}\n"),
            ("__MACOSX/", b""),
            ("__MACOSX/task/._traj.jsonl", apple_double),
            ("task/._step_1.png", apple_double),
        ]
    )
    extract_archive(write(tmp_path, "finder.zip", data), tmp_path / "out")
    extracted = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*"))
    assert extracted == ["task", "task/traj.jsonl"]


def test_macos_tar_appledouble_files_are_skipped(tmp_path):
    data = tar_gz(member("./._task", b"\x00\x05\x16\x07" * 8), member("./task/traj.jsonl", b"{}\n"))
    extract_archive(write(tmp_path, "mac.tgz", data), tmp_path / "out")
    assert [p.name for p in (tmp_path / "out").rglob("*")] == ["task", "traj.jsonl"]


def test_skipped_litter_still_counts_against_the_limits(tmp_path):
    data = tar_gz(member("task/._big", b"\0" * 5000), member("task/a.txt", b"a"))
    message = refusal(write(tmp_path, "litter.tgz", data), tmp_path, ArchiveLimits(max_file_bytes=4096))
    assert message.startswith("task/._big: larger than the 4096-byte limit per file")


# ---------------------------------------------------------------- damaged data


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_corrupt_compressed_data_is_a_refusal(tmp_path):
    text = "".join(f"{random.Random(i).random()}\n" for i in range(100_000)).encode()
    good = tar_gz(member("task/a.txt", text))
    middle = len(good) // 2
    broken = good[:middle] + bytes(b ^ 0x5A for b in good[middle : middle + 200]) + good[middle + 200 :]
    message = refusal(write(tmp_path, "broken.tgz", broken), tmp_path)
    # zlib's own words inside the brackets (a CRC or a data error, as the corrupted bytes decode)
    assert re.fullmatch(r"broken\.tgz: cannot be read \(.+\) \(expected an intact \.tar\.gz\)", message), message
