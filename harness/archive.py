"""Safe extraction of uploaded archives (zip, tar.gz): every entry is checked against size, count,
depth and compression-ratio limits and refused if it escapes the target folder, is a link or a
device, or repeats a name. Django-free; the site calls it before reading any uploaded file."""

import os
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

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


class ArchiveError(ValueError):
    """An archive refused before anything in it is used: which entry, what is wrong, what was expected."""

    def __init__(self, problem: str, *, entry: str = "", expected: str = ""):
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
        self.files = 0
        self.names: set[str] = set()

    def admit(self, rel: PurePosixPath, is_dir: bool) -> None:
        limits = self.limits
        key = str(rel).casefold()
        if not is_dir:
            if key in self.names:
                raise ArchiveError("appears more than once in the archive", entry=str(rel), expected="each name once")
            self.names.add(key)
            self.files += 1
            if self.files > limits.max_files:
                raise ArchiveError(
                    f"more than {limits.max_files} files in the archive", expected=f"at most {limits.max_files}"
                )
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


def _copy(source, target: Path, rel: PurePosixPath, budget: _Budget) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    # "xb": a name already on disk (e.g. a file where a folder was) is a duplicate, never overwritten.
    with open(target, "xb") as out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            budget.add_bytes(rel, written, len(chunk))
            out.write(chunk)


def _zip_entries(path: Path, dest: Path, budget: _Budget) -> None:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ArchiveError(f"not a readable zip archive ({exc})", entry=path.name, expected="a valid .zip")
    with archive:
        infos = archive.infolist()
        if len(infos) > budget.limits.max_files:
            raise ArchiveError(
                f"{len(infos)} entries in the archive", expected=f"at most {budget.limits.max_files} files"
            )
        for info in infos:
            rel = safe_member_path(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveError("is a symbolic link", entry=info.filename, expected="regular files and folders only")
            # Zips written without Unix file types carry permission bits only: those are regular files.
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise ArchiveError("is a device or special file", entry=info.filename, expected="regular files only")
            if info.flag_bits & 0x1:
                raise ArchiveError("is encrypted", entry=info.filename, expected="unencrypted files")
            budget.admit(rel, info.is_dir())
            target = dest.joinpath(*rel.parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            try:
                with archive.open(info) as source:
                    _copy(source, target, rel, budget)
            except FileExistsError:
                raise ArchiveError(
                    "appears more than once in the archive", entry=info.filename, expected="each name once"
                )
            except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError) as exc:
                raise ArchiveError(f"cannot be read ({exc})", entry=info.filename, expected="an intact zip entry")


def _tar_entries(path: Path, dest: Path, budget: _Budget) -> None:
    try:
        archive = tarfile.open(path, mode="r:gz")
    except (tarfile.TarError, OSError) as exc:
        raise ArchiveError(f"not a readable tar.gz archive ({exc})", entry=path.name, expected="a valid .tar.gz")
    with archive:
        try:
            # Stream member by member: the decompressed size is counted as it is produced.
            for member in archive:
                rel = safe_member_path(member.name)
                if member.issym() or member.islnk():
                    kind = "symbolic" if member.issym() else "hard"
                    raise ArchiveError(
                        f"is a {kind} link to {member.linkname!r}",
                        entry=member.name,
                        expected="regular files and folders only",
                    )
                if not (member.isfile() or member.isdir()):
                    raise ArchiveError(
                        "is a device, pipe or other special file", entry=member.name, expected="regular files only"
                    )
                budget.admit(rel, member.isdir())
                target = dest.joinpath(*rel.parts)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                if member.size > budget.limits.max_file_bytes:
                    budget.add_bytes(rel, member.size, 0)
                source = archive.extractfile(member)
                try:
                    _copy(source, target, rel, budget)
                except FileExistsError:
                    raise ArchiveError(
                        "appears more than once in the archive", entry=member.name, expected="each name once"
                    )
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise ArchiveError(f"cannot be read ({exc})", entry=path.name, expected="an intact .tar.gz")


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
    except BaseException:
        clear_folder(dest)
        raise
    if budget.files == 0:
        raise ArchiveError("the archive holds no files", expected="one or more task folders")
    return kind


def clear_folder(folder: Path) -> None:
    """Remove everything inside ``folder`` (not the folder itself), never following links."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
