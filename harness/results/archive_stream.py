"""Read a result archive (.zip or .tar.gz, e.g. a published OSWorld trajectory archive of many GB)
task folder by task folder without extracting it whole: the member list says where the task folders
are (so layouts.detect reads it like a folder on disk), then each task folder's members alone are
written to a scratch folder, handed to the caller, and removed before the next.

Memory: the member names (a zip's central directory, a tar's names from a first streaming pass: a few
hundred bytes per member) plus the file being copied, in 1 MiB chunks. Disk: the task folders in
progress (one at a time for a zip, and for a tar whose members are grouped by folder, as tar writes
them). Neither grows with the size of the archive's screenshots. Every member name is checked as
safe (no absolute paths, no '..', no links or devices). Django-free."""

import shutil
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from harness.results.archive import ArchiveError, archive_kind, safe_member_path
from harness.results.sessions import SESSION_ERROR, SESSION_RECORD

_CHUNK = 1024 * 1024
TRAJ_FILE = "traj.jsonl"
_SKIPPED_DIRS = {"_tasks", "__pycache__", "__MACOSX"}


@dataclass
class ArchiveListing:
    kind: str  # "zip" or "tar.gz"
    files: list[PurePosixPath]  # every regular file, checked as safe
    task_dirs: list[PurePosixPath]  # folders holding traj.jsonl, context/ or session.json (the outermost)
    extra: list[PurePosixPath] = field(default_factory=list)  # scores.json files outside task folders
    total_bytes: int = 0  # uncompressed, as declared

    def owner(self, rel: PurePosixPath) -> PurePosixPath | None:
        """The task folder a member belongs to, or None."""
        for parent in (rel, *rel.parents):
            if parent in self._task_set:
                return parent
        return None

    def __post_init__(self):
        self._task_set = set(self.task_dirs)


def _check_zip_member(info: zipfile.ZipInfo) -> None:
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise ArchiveError("is a symbolic link", entry=info.filename, expected="regular files and folders only")
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise ArchiveError("is a device or special file", entry=info.filename, expected="regular files only")
    if info.flag_bits & 0x1:
        raise ArchiveError("is encrypted", entry=info.filename, expected="unencrypted files")


def _check_tar_member(member: tarfile.TarInfo) -> None:
    if member.issym() or member.islnk():
        raise ArchiveError(f"is a link to {member.linkname!r}", entry=member.name, expected="regular files only")
    if not (member.isfile() or member.isdir()):
        raise ArchiveError("is a device, pipe or other special file", entry=member.name, expected="regular files")


def _open_tar(path: Path):
    try:
        return tarfile.open(path, mode="r|gz")  # a stream: no seeking, no index of members kept
    except (tarfile.TarError, OSError) as exc:
        raise ArchiveError(f"not a readable tar.gz archive ({exc})", entry=path.name, expected="a valid .tar.gz")


def list_archive(path) -> ArchiveListing:
    """The archive's files and where its task folders are; refuses unsafe names and duplicates."""
    path = Path(path)
    kind = archive_kind(path)
    files: list[PurePosixPath] = []
    total = 0
    seen: set[str] = set()
    if kind == "zip":
        try:
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    _check_zip_member(info)
                    if not info.is_dir():
                        files.append(safe_member_path(info.filename))
                        total += info.file_size
        except (zipfile.BadZipFile, OSError) as exc:
            raise ArchiveError(f"not a readable zip archive ({exc})", entry=path.name, expected="a valid .zip")
    else:
        try:
            with _open_tar(path) as archive:
                for member in archive:
                    _check_tar_member(member)
                    if member.isfile():
                        files.append(safe_member_path(member.name))
                        total += member.size
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise ArchiveError(f"cannot be read ({exc})", entry=path.name, expected="an intact .tar.gz")
    for rel in files:
        key = str(rel).casefold()
        if key in seen:
            raise ArchiveError("appears more than once in the archive", entry=str(rel), expected="each name once")
        seen.add(key)
    task_dirs: set[PurePosixPath] = set()
    for rel in files:
        if any(part.startswith(".") or part in _SKIPPED_DIRS for part in rel.parts[:-1]):
            continue
        if rel.name in (TRAJ_FILE, SESSION_RECORD, SESSION_ERROR):  # a session folder holds its turns
            task_dirs.add(rel.parent)
        elif "context" in rel.parts[:-1]:
            task_dirs.add(PurePosixPath(*rel.parts[: rel.parts.index("context")]))
    # The outermost task folder wins: folders inside a task folder are part of it.
    outer = sorted(d for d in task_dirs if not any(p in task_dirs for p in d.parents))
    if not outer:
        raise ArchiveError("holds no task folders", entry=path.name, expected=f"folders holding {TRAJ_FILE}")
    listing = ArchiveListing(kind=kind, files=files, task_dirs=outer, total_bytes=total)
    listing.extra = [rel for rel in files if rel.name == "scores.json" and listing.owner(rel) is None]
    return listing


def _copy(source, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "xb") as out:
        while chunk := source.read(_CHUNK):
            out.write(chunk)


def iter_task_folders(path, listing: ArchiveListing, scratch=None) -> Iterator[tuple[PurePosixPath, Path]]:
    """Yield (task folder as named in the archive, its copy on disk) one folder at a time; the copy is
    removed when the caller asks for the next one. Files outside task folders are skipped, except
    top-level scores.json files, which are yielded first as (name, copy) with ``name.name == 'scores.json'``."""
    path = Path(path)
    owned: dict[PurePosixPath, int] = {}
    for rel in listing.files:
        owner = listing.owner(rel)
        if owner is not None:
            owned[owner] = owned.get(owner, 0) + 1
    with tempfile.TemporaryDirectory(prefix="mypcbench-archive-", dir=scratch) as tmp:
        root = Path(tmp)
        if listing.kind == "zip":
            yield from _zip_folders(path, listing, root)
        else:
            yield from _tar_folders(path, listing, owned, root)


def _zip_folders(path: Path, listing: ArchiveListing, root: Path):
    by_folder: dict[PurePosixPath, list[zipfile.ZipInfo]] = {}
    extras = []
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            rel = safe_member_path(info.filename)
            owner = listing.owner(rel)
            if owner is not None:
                by_folder.setdefault(owner, []).append(info)
            elif rel in listing.extra:
                extras.append((rel, info))
        for rel, info in extras:
            target = root / "_extra" / Path(*rel.parts)
            with archive.open(info) as source:
                _copy(source, target)
            yield rel, target
        for folder in listing.task_dirs:
            target_root = root / "task"
            for info in by_folder.get(folder, []):
                rel = safe_member_path(info.filename)
                with archive.open(info) as source:
                    _copy(source, target_root / Path(*rel.parts))
            yield folder, target_root / Path(*folder.parts)
            shutil.rmtree(target_root, ignore_errors=True)


def _tar_folders(path: Path, listing: ArchiveListing, owned: dict, root: Path):
    remaining = dict(owned)
    pending: list[PurePosixPath] = []
    with _open_tar(path) as archive:
        for member in archive:
            if not member.isfile():
                continue
            rel = safe_member_path(member.name)
            owner = listing.owner(rel)
            if owner is None and rel not in listing.extra:
                continue
            base = root / ("_extra" if owner is None else "task")
            source = archive.extractfile(member)
            _copy(source, base / Path(*rel.parts))
            if owner is None:
                pending.insert(0, rel)  # scores.json: handed over before the task folders that follow
                continue
            remaining[owner] -= 1
            if remaining[owner] == 0:
                pending.append(owner)
            while pending:
                done = pending.pop(0)
                if done in owned:
                    yield done, root / "task" / Path(*done.parts)
                    shutil.rmtree(root / "task" / Path(*done.parts), ignore_errors=True)
                else:
                    yield done, root / "_extra" / Path(*done.parts)
