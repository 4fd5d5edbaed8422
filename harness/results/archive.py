"""Safe extraction of uploaded archives (zip, tar.gz): every entry is checked against size, count,
depth and compression-ratio limits and refused if it escapes the target folder, is a link or a
device, or repeats a name. The cost of reading an archive's own structure is bounded too: a zip's
entry count and directory size are read from its end records before zipfile parses the directory,
and a tar's extended headers (pax, GNU long names), which tarfile reads whole into memory, are
measured before tarfile reads them. Folder entries are checked and counted but make nothing on
disk (folders appear when a file in them is written; empty ones are not kept), so thousands of them
cost no mkdir. Finder's resource-fork litter (``__MACOSX/``, ``._*``) is skipped. Django-free; the
site calls it before reading any uploaded file."""

import gzip
import os
import shutil
import stat
import struct
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from harness.results.pacing import pace
from harness.results.safe_names import printable

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class ArchiveLimits:
    max_archive_bytes: int = 1024**3  # the uploaded file itself
    max_total_bytes: int = 4 * 1024**3  # everything extracted
    max_files: int = 20_000
    max_depth: int = 12  # folders below the archive root
    max_file_bytes: int = 64 * 1024**2
    max_ratio: float = 100.0  # extracted bytes per archive byte
    ratio_floor_bytes: int = 1024**2  # below this, a high ratio is harmless (small JSON files compress well)
    # One tar extended header (pax, GNU long name), which tarfile holds whole in memory.
    max_header_bytes: int = 1024**2
    # All of a tar's extended headers together (tarfile keeps them for every entry), or a zip's
    # central directory (zipfile reads it whole).
    max_total_header_bytes: int = 32 * 1024**2


class ArchiveError(ValueError):
    """An archive refused before anything in it is used: which entry, what is wrong, what was expected."""

    def __init__(self, problem: str, *, entry: str = "", expected: str = ""):
        # Entry names come from the upload: control and bidirectional characters are shown escaped.
        entry = printable(entry)
        self.entry = entry
        self.problem = problem
        self.expected = expected
        text = f"{entry}: {problem}" if entry else problem
        if expected:
            text += f" (expected {expected})"
        super().__init__(text)


def archive_kind(path: Path) -> str:
    """ "zip" or "tar.gz", decided by the file's first bytes (the name may lie)."""
    with open(path, "rb") as handle:
        head = handle.read(4)
    if head.startswith(ZIP_MAGIC):
        return "zip"
    if head.startswith(GZIP_MAGIC):
        return "tar.gz"
    raise ArchiveError("not a zip or gzip-compressed tar archive", entry=Path(path).name, expected="a .zip or .tar.gz")


def safe_member_path(name: str) -> PurePosixPath:
    """The relative path an entry may be written to; refuses absolute paths, drive letters,
    backslashes and ``..`` so nothing lands outside the target folder."""
    if not name or "\x00" in name:
        raise ArchiveError("empty name or a NUL character in the name", entry=repr(name), expected="a file name")
    if any("\ud800" <= char <= "\udfff" for char in name):  # bytes tarfile could not decode
        raise ArchiveError("the name is not valid UTF-8", entry=name, expected="UTF-8 file names")
    if "\\" in name:
        raise ArchiveError("contains a backslash", entry=name, expected="'/' as the only path separator")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError("is an absolute path", entry=name, expected="a path relative to the archive root")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveError("escapes the archive root with '..'", entry=name, expected="a path inside the archive")
    if not parts:
        raise ArchiveError("names the archive root itself", entry=name, expected="a file or folder name")
    return PurePosixPath(*parts)


class _Budget:
    """Running totals over the whole archive, checked as bytes are actually written (declared
    sizes in headers can lie)."""

    def __init__(self, limits: ArchiveLimits, archive_bytes: int):
        self.limits = limits
        self.archive_bytes = max(archive_bytes, 1)
        self.total = 0
        self.entries = 0  # every entry: files, folders, skipped and refused ones
        self.holds_files = False  # any regular file (folders alone are no submission)
        self.file_names: set[str] = set()  # casefolded: a case-insensitive disk would merge them
        self.folder_names: set[str] = set()  # folders named by an entry or by a path through them

    def count_entry(self) -> None:
        """Every entry costs work (a folder entry a mkdir), so each counts against the limit."""
        self.entries += 1
        limit = self.limits.max_files
        if self.entries > limit:
            raise ArchiveError(
                f"more than {limit} files in the archive (folders and other entries count too)",
                expected=f"at most {limit} entries",
            )

    def admit(self, rel: PurePosixPath, is_dir: bool) -> None:
        limits = self.limits
        parts = rel.parts
        for i in range(1, len(parts)):
            if "/".join(parts[:i]).casefold() in self.file_names:
                raise ArchiveError(
                    f"is inside {'/'.join(parts[:i])!r}, which the archive also holds as a file",
                    entry=str(rel),
                    expected="each name used for a file or a folder, not both",
                )
        key = str(rel).casefold()
        if is_dir:
            if key in self.file_names:
                raise ArchiveError(
                    "is a folder, and the archive also holds a file of that name",
                    entry=str(rel),
                    expected="each name used for a file or a folder, not both",
                )
        else:
            if key in self.file_names:
                raise ArchiveError("appears more than once in the archive", entry=str(rel), expected="each name once")
            if key in self.folder_names:
                raise ArchiveError(
                    "is a file, and the archive also holds a folder of that name",
                    entry=str(rel),
                    expected="each name used for a file or a folder, not both",
                )
            self.file_names.add(key)
            self.holds_files = True
        self.folder_names.update("/".join(parts[:i]).casefold() for i in range(1, len(parts) + is_dir))
        depth = len(rel.parts) - (0 if is_dir else 1)
        if depth > limits.max_depth:
            raise ArchiveError(
                f"nested {depth} folders deep", entry=str(rel), expected=f"at most {limits.max_depth} levels"
            )

    def add_bytes(self, rel: PurePosixPath, written: int, n: int) -> None:
        limits = self.limits
        self.total += n
        if written > limits.max_file_bytes:
            raise ArchiveError(
                f"larger than the {limits.max_file_bytes}-byte limit per file",
                entry=str(rel),
                expected=f"files of at most {limits.max_file_bytes} bytes",
            )
        if self.total > limits.max_total_bytes:
            raise ArchiveError(
                f"extracts to more than {limits.max_total_bytes} bytes",
                expected=f"at most {limits.max_total_bytes} bytes in all",
            )
        if self.total > limits.ratio_floor_bytes and self.total / self.archive_bytes > limits.max_ratio:
            raise ArchiveError(
                f"expands more than {limits.max_ratio:g} times its compressed size (a zip bomb?)",
                entry=str(rel),
                expected=f"a compression ratio of at most {limits.max_ratio:g}",
            )


def _is_finder_litter(rel: PurePosixPath) -> bool:
    """macOS adds resource forks and metadata as ``__MACOSX/...`` (Finder's zips) and ``._name``
    AppleDouble files (its tar): not the author's data, skipped rather than refused."""
    return rel.parts[0] == "__MACOSX" or rel.name.startswith("._")


def _mkdir(folder: Path, rel: PurePosixPath) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # the names were checked; what is left is the disk (too long a name, full)
        raise ArchiveError(f"cannot be written ({exc.strerror})", entry=str(rel), expected="a valid file name")


def _copy(source, target: Path, rel: PurePosixPath, budget: _Budget) -> None:
    _mkdir(target.parent, rel)
    written = 0
    # "xb": a name already on disk is a duplicate, never overwritten (the names were checked already).
    try:
        out = open(target, "xb")
    except FileExistsError:
        raise ArchiveError("appears more than once in the archive", entry=str(rel), expected="each name once")
    except OSError as exc:
        raise ArchiveError(f"cannot be written ({exc.strerror})", entry=str(rel), expected="a valid file name")
    with out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            budget.add_bytes(rel, written, len(chunk))
            out.write(chunk)
    pace()  # a worker held to a share of a CPU rests here (harness/results/pacing.py)


# ---------------------------------------------------------------- zip

# zipfile's own record layouts (sizes, signatures, struct formats): undocumented module constants its
# type stubs leave out. The directory is measured with exactly the constants zipfile parses it with.
ZIP_RECORDS: Any = zipfile


def zip_directory(handle) -> tuple[int, int, int] | None:
    """(entries declared, directory offset, directory size) from a zip's end-of-central-directory
    record and, when present, its zip64 record: found exactly as zipfile finds them, so the
    directory measured here is the one zipfile would parse. None when there is no end record."""
    handle.seek(0, os.SEEK_END)
    file_size = handle.tell()
    if file_size < ZIP_RECORDS.sizeEndCentDir:
        return None
    handle.seek(-ZIP_RECORDS.sizeEndCentDir, os.SEEK_END)
    data = handle.read()
    if data[:4] == ZIP_RECORDS.stringEndArchive and data[-2:] == b"\0\0":
        location = file_size - ZIP_RECORDS.sizeEndCentDir
        record = data
    else:  # an archive comment follows the end record (up to 64 KiB)
        search_from = max(file_size - (1 << 16) - ZIP_RECORDS.sizeEndCentDir, 0)
        handle.seek(search_from)
        data = handle.read()
        found = data.rfind(ZIP_RECORDS.stringEndArchive)
        record = data[found : found + ZIP_RECORDS.sizeEndCentDir] if found >= 0 else b""
        if len(record) != ZIP_RECORDS.sizeEndCentDir:
            return None
        location = search_from + found
    fields = struct.unpack(ZIP_RECORDS.structEndArchive, record)
    entries, size, offset = fields[4], fields[5], fields[6]
    concat = location - size - offset  # data prepended to the zip (self-extractors) shifts everything
    # zip64: a locator right before the end record, and the zip64 end record right before that.
    locator_at = location - ZIP_RECORDS.sizeEndCentDir64Locator
    if locator_at >= 0:
        handle.seek(locator_at)
        locator = handle.read(ZIP_RECORDS.sizeEndCentDir64Locator)
        if locator[:4] == ZIP_RECORDS.stringEndArchive64Locator:
            record64_at = locator_at - ZIP_RECORDS.sizeEndCentDir64
            handle.seek(max(record64_at, 0))
            record64 = handle.read(ZIP_RECORDS.sizeEndCentDir64)
            if record64_at >= 0 and record64[:4] == ZIP_RECORDS.stringEndArchive64:
                fields64 = struct.unpack(ZIP_RECORDS.structEndArchive64, record64)
                entries, size, offset = fields64[7], fields64[8], fields64[9]
                concat = location - size - offset - ZIP_RECORDS.sizeEndCentDir64 - ZIP_RECORDS.sizeEndCentDir64Locator
    return entries, offset + concat, size


def _check_zip_directory(path: Path, budget: _Budget) -> None:
    """Refuse a zip whose entry count or directory size is over the limits before zipfile builds
    an object per entry (1M entries cost it about 5x the archive in memory); then walk the
    directory the way zipfile will, counting the entries really there and checking that names
    flagged as UTF-8 are UTF-8."""
    limits = budget.limits
    with open(path, "rb") as handle:
        directory = zip_directory(handle)
        if directory is None:
            return  # zipfile says what is wrong
        declared, start, size = directory
        if declared > limits.max_files:
            # Read from the end record alone, before anything per entry is built.
            raise ArchiveError(f"{declared} entries in the archive", expected=f"at most {limits.max_files} files")
        if size > limits.max_total_header_bytes:
            raise ArchiveError(
                f"the zip's central directory is {size} bytes",
                expected=f"at most {limits.max_total_header_bytes} bytes of directory",
            )
        if start < 0:
            return
        handle.seek(start)
        data = handle.read(size)
    position = count = 0
    while position < size:
        record = data[position : position + ZIP_RECORDS.sizeCentralDir]
        if len(record) != ZIP_RECORDS.sizeCentralDir or record[:4] != ZIP_RECORDS.stringCentralDir:
            return  # damaged: zipfile refuses it with its own message
        fields = struct.unpack(ZIP_RECORDS.structCentralDir, record)
        flags, name_length = fields[5], fields[12]
        name_at = position + ZIP_RECORDS.sizeCentralDir
        name = data[name_at : name_at + name_length]
        count += 1
        if count > limits.max_files:
            raise ArchiveError(
                f"more than {limits.max_files} entries in the archive (more than its end record says)",
                expected=f"at most {limits.max_files} files",
            )
        if flags & 0x800:
            try:
                name.decode("utf-8")
            except UnicodeDecodeError:
                raise ArchiveError(
                    "the name is marked as UTF-8 but is not valid UTF-8",
                    entry=name.decode("utf-8", "backslashreplace"),
                    expected="UTF-8 file names",
                )
        position = name_at + name_length + fields[13] + fields[14]


def _zip_entries(path: Path, dest: Path, budget: _Budget) -> None:
    _check_zip_directory(path, budget)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:  # ValueError: UnicodeDecodeError and friends
        raise ArchiveError(f"not a readable zip archive ({exc})", entry=path.name, expected="a valid .zip")
    with archive:
        for info in archive.infolist():
            budget.count_entry()
            rel = safe_member_path(info.filename)
            if _is_finder_litter(rel):
                continue
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveError("is a symbolic link", entry=info.filename, expected="regular files and folders only")
            # Zips written without Unix file types carry permission bits only: those are regular files.
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise ArchiveError("is a device or special file", entry=info.filename, expected="regular files only")
            if info.flag_bits & 0x1:
                raise ArchiveError("is encrypted", entry=info.filename, expected="unencrypted files")
            budget.admit(rel, info.is_dir())
            if info.is_dir():
                continue  # checked and counted; folders are made when a file in them is written
            target = dest.joinpath(*rel.parts)
            try:
                with archive.open(info) as source:
                    _copy(source, target, rel, budget)
            except ArchiveError:  # a limit reached while copying: its own words, not "cannot be read"
                raise
            # ValueError: a local header's name, flagged UTF-8, that is not (UnicodeDecodeError).
            except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, zlib.error,
                    ValueError) as exc:  # fmt: skip
                raise ArchiveError(f"cannot be read ({exc})", entry=info.filename, expected="an intact zip entry")
            except OSError as exc:
                raise ArchiveError(f"cannot be read ({exc.strerror or exc})", entry=info.filename,
                                   expected="an intact zip entry")  # fmt: skip


# ---------------------------------------------------------------- tar.gz

_EXTENDED_HEADERS = {
    tarfile.XHDTYPE: "pax extended header",
    tarfile.XGLTYPE: "pax global header",
    tarfile.SOLARIS_XHDTYPE: "Solaris extended header",
    tarfile.GNUTYPE_LONGNAME: "GNU long name",
    tarfile.GNUTYPE_LONGLINK: "GNU long link name",
}
_WATCHED_TYPES = {*_EXTENDED_HEADERS, tarfile.GNUTYPE_SPARSE}
_MAX_EXTENDED_IN_A_ROW = 8  # tarfile recurses once per extended header, holding each one


class _TarStream:
    """The decompressed tar stream handed to tarfile, watched. tarfile reads an extended header's
    data in one read of the size its 512-byte header declares, and nests one call per extended
    header in a row; so every header block it reads is looked at here first, and an extended header
    too large (alone or with all before it) or one too many in a row is refused before tarfile
    reads it. Member data, read while ``copying`` is set, passes through unwatched."""

    def __init__(self, raw, limits: ArchiveLimits):
        self.raw = raw
        self.limits = limits
        self.copying = False
        self.header_bytes = 0
        self.in_a_row = 0
        self.pending: tarfile.TarInfo | None = None  # an extended header whose data comes next

    def read(self, size=-1) -> bytes:
        data = self.raw.read(size)
        if self.copying:
            return data
        if self.pending is not None:
            header, self.pending = self.pending, None
            if header.type in (tarfile.XHDTYPE, tarfile.XGLTYPE) and b"GNU.sparse." in data:
                raise ArchiveError("is a sparse file", entry=header.name, expected="regular files only")
        elif size == tarfile.BLOCKSIZE and len(data) == tarfile.BLOCKSIZE:
            self._look_at_header(data)
        return data

    def _look_at_header(self, block: bytes) -> None:
        if block[156:157] not in _WATCHED_TYPES:  # the type flag: most headers need no more parsing
            self.in_a_row = 0
            return
        try:
            header = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
        except tarfile.HeaderError:
            return  # not a header to tarfile either: it stops there, or refuses the archive
        kind = _EXTENDED_HEADERS.get(header.type)
        if kind is None:  # the one other watched type: a GNU sparse file
            raise ArchiveError("is a sparse file", entry=header.name, expected="regular files only")
        limits = self.limits
        offset = self.raw.tell() - tarfile.BLOCKSIZE
        if header.size > limits.max_header_bytes:
            raise ArchiveError(
                f"a {kind} of {header.size} bytes (at byte {offset} of the tar)",
                entry=header.name,
                expected=f"at most {limits.max_header_bytes} bytes per header",
            )
        self.header_bytes += header.size
        if self.header_bytes > limits.max_total_header_bytes:
            raise ArchiveError(
                f"the tar's extended headers (pax, long names) add up to more than "
                f"{limits.max_total_header_bytes} bytes (at byte {offset})",
                expected=f"at most {limits.max_total_header_bytes} bytes of extended headers",
            )
        self.in_a_row += 1
        if self.in_a_row > _MAX_EXTENDED_IN_A_ROW:
            raise ArchiveError(
                f"more than {_MAX_EXTENDED_IN_A_ROW} extended headers in a row (at byte {offset} of the tar)",
                entry=header.name,
                expected="a few extended headers before each entry",
            )
        self.pending = header

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        self.pending = None
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()


_TAR_ERRORS = (tarfile.TarError, EOFError, OSError, zlib.error)


def _tar_entries(path: Path, dest: Path, budget: _Budget) -> None:
    raw = gzip.GzipFile(path, "rb")
    stream = _TarStream(raw, budget.limits)
    with raw:
        try:
            # tarfile only reads here; its stub asks of a file object the writing methods too
            archive = tarfile.open(fileobj=stream, mode="r:")  # type: ignore[call-overload]
        except _TAR_ERRORS as exc:
            raise ArchiveError(f"not a readable tar.gz archive ({exc})", entry=path.name, expected="a valid .tar.gz")
        with archive:
            try:
                # Stream member by member: the decompressed size is counted as it is produced.
                for member in archive:
                    _tar_member(archive, member, stream, dest, budget)
            except _TAR_ERRORS as exc:
                raise ArchiveError(f"cannot be read ({exc})", entry=path.name, expected="an intact .tar.gz")


def _tar_member(archive, member: tarfile.TarInfo, stream: _TarStream, dest: Path, budget: _Budget) -> None:
    budget.count_entry()
    rel = safe_member_path(member.name)
    if _is_finder_litter(rel):
        # Not extracted, but tarfile decompresses it to skip it: counted as if written.
        budget.add_bytes(rel, member.size, member.size)
        return
    if member.issym() or member.islnk():
        kind = "symbolic" if member.issym() else "hard"
        raise ArchiveError(
            f"is a {kind} link to {printable(repr(member.linkname))}",
            entry=member.name,
            expected="regular files and folders only",
        )
    if not (member.isfile() or member.isdir()):
        raise ArchiveError("is a device, pipe or other special file", entry=member.name, expected="regular files only")
    budget.admit(rel, member.isdir())
    if member.isdir():
        return  # checked and counted; folders are made when a file in them is written
    target = dest.joinpath(*rel.parts)
    if member.size > budget.limits.max_file_bytes:
        budget.add_bytes(rel, member.size, 0)
    source = archive.extractfile(member)
    stream.copying = True
    try:
        _copy(source, target, rel, budget)
    finally:
        stream.copying = False


def extract_archive(path, dest, limits: ArchiveLimits | None = None) -> str:
    """Extract the archive at ``path`` into the empty folder ``dest`` and return its kind. On any
    refusal the folder is emptied again and ArchiveError says which entry and why."""
    path, dest = Path(path), Path(dest)
    limits = limits or ArchiveLimits()
    size = path.stat().st_size
    if size > limits.max_archive_bytes:
        raise ArchiveError(
            f"the archive is {size} bytes", expected=f"an archive of at most {limits.max_archive_bytes} bytes"
        )
    kind = archive_kind(path)
    dest.mkdir(parents=True, exist_ok=True)
    budget = _Budget(limits, size)
    try:
        (_zip_entries if kind == "zip" else _tar_entries)(path, dest, budget)
        if not budget.holds_files:
            raise ArchiveError("the archive holds no files", expected="one or more task folders")
    except BaseException:
        clear_folder(dest)  # pragma: no mutate (a mutant here empties the mutation run's own folder)
        raise
    return kind


def clear_folder(folder: Path) -> None:  # pragma: no mutate block (as above)
    """Remove everything inside ``folder`` (not the folder itself), never following links."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
