"""Fetch the published task suites at pinned commits: every file named in upstream_tasks.json (beside
this module: repository, commit, path and sha256 of each file) is downloaded from the repository's raw
file host, checked against its sha256, and written to a cache folder that import_tasks then reads, so
a user needs no copy of anyone's workspace. A file already cached with the right hash is not fetched
again. Django-free.

Sources (see README): MyPCBench's flat graded task file from ljang0/MyPCBench and its behavioural types
from a mirror that carries task_types.json; OSWorld's 369 Ubuntu task definitions from a public fork of
OSWorld whose evaluation_examples/ were checked against the copy used in our conformance tests."""

import hashlib
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

MANIFEST = Path(__file__).with_name("upstream_tasks.json")
RAW_BASE = "https://raw.githubusercontent.com"
BASE_ENV = "MYPCBENCH_UPSTREAM_BASE_URL"  # another host serving <repo>/<commit>/<path> (a mirror, a test server)
TIMEOUT = 60
MAX_FILE_BYTES = 16 * 1024 * 1024  # task files are small; a larger answer is not one


class UpstreamError(ValueError):
    """A download that failed or did not match its pinned checksum; names the file and the URL."""


@dataclass
class Fetched:
    folder: Path  # what import_tasks reads
    task_types: Path | None  # --task-types file, when the source has one
    downloaded: int
    cached: int


def sources() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mypcbench" / "upstream"


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:  # noqa: S310 (https or a configured host)
            data = response.read(MAX_FILE_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise UpstreamError(f"{url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise UpstreamError(f"{url}: cannot be reached ({reason})") from exc
    if len(data) > MAX_FILE_BYTES:
        raise UpstreamError(f"{url}: more than {MAX_FILE_BYTES} bytes (expected a task file)")
    return data


def fetch(name: str, *, dest: Path | None = None, base_url: str | None = None, progress=None) -> Fetched:
    """Download source ``name`` ("mypcbench" or "osworld") into ``dest`` (default: the user cache);
    every file is checked against its pinned sha256 before it is written. ``progress(done, total)``."""
    known = sources()
    if name not in known:
        raise UpstreamError(f"--upstream: {name!r} is not a known source (expected one of {', '.join(known)})")
    base = (base_url or os.environ.get(BASE_ENV) or RAW_BASE).rstrip("/")
    entries = [(src, path, sha) for src in known[name]["sources"] for path, sha in src["files"].items()]
    first = known[name]["sources"][0]
    folder = Path(dest) if dest else cache_root() / name / first["commit"][:12]
    downloaded = cached = 0
    for done, (src, path, sha) in enumerate(entries, start=1):
        target = folder / path.removeprefix(src["strip"])
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == sha:
            cached += 1
        else:
            url = f"{base}/{src['repo']}/{src['commit']}/{path}"
            data = _get(url)
            got = hashlib.sha256(data).hexdigest()
            if got != sha:
                raise UpstreamError(
                    f"{url}: sha256 {got} does not match the pinned {sha} (the file changed or the host served "
                    "something else); nothing was imported"
                )
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(target.suffix + ".part")
            partial.write_bytes(data)
            partial.replace(target)
            downloaded += 1
        if progress:
            progress(done, len(entries))
    types = folder / "task_types.json"
    if name == "mypcbench":
        folder_to_read = folder / "all_tasks_with_grading.json"
    else:
        folder_to_read = folder
    return Fetched(folder_to_read, types if types.is_file() else None, downloaded, cached)
