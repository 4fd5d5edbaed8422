"""Backup and restore of everything the site stores: the database as Django fixtures (every app's
rows, natural keys for content types and permissions, so it loads into any freshly migrated database,
PostgreSQL or SQLite) and the media files, read and written through the configured storage (a local
folder or S3-compatible object storage alike). A backup folder holds database.json, media/ and
manifest.json (counts and every file's sha256); restore refuses a database that already holds data."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from django.apps import apps
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import transaction

EXCLUDED = ["contenttypes", "auth.permission", "sessions", "admin.logentry"]  # rebuilt by migrate, or ephemeral
GUARD_MODELS = ("leaderboard.Suite", "leaderboard.Run", "trajectories.Trajectory")


class BackupError(ValueError):
    """The backup cannot be written or restored as asked; says why."""


def media_names(storage=default_storage, folder: str = "") -> list[str]:
    """Every file under ``folder`` in ``storage``, sorted."""
    try:
        dirs, files = storage.listdir(folder)
    except FileNotFoundError:
        return []
    names = [f"{folder}/{f}" if folder else f for f in files]
    for d in dirs:
        names += media_names(storage, f"{folder}/{d}" if folder else d)
    return sorted(names)


def backup(dest: str | Path, progress=None) -> dict:
    """Write the database and the media into the new folder ``dest``; returns the manifest."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise BackupError(f"{dest} is not empty (expected a new folder for the backup)")
    (dest / "media").mkdir(parents=True, exist_ok=True)
    with open(dest / "database.json", "w", encoding="utf-8") as fh:
        call_command("dumpdata", natural_foreign=True, exclude=EXCLUDED, stdout=fh, verbosity=0)
    files = {}
    names = media_names()
    for i, name in enumerate(names, start=1):
        with default_storage.open(name, "rb") as fh:
            data = fh.read()
        target = dest / "media" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files[name] = hashlib.sha256(data).hexdigest()
        if progress:
            progress(i, len(names))
    rows = len(json.loads((dest / "database.json").read_text(encoding="utf-8")))
    manifest = {"format": 1, "rows": rows, "media_files": len(files), "media": files}
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
    return manifest


def restore(src: str | Path, progress=None) -> dict:
    """Load a backup folder into this (migrated, empty) database and this storage; returns its manifest."""
    src = Path(src)
    try:
        manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BackupError(f"{src / 'manifest.json'}: not a backup folder ({exc})") from exc
    for label in GUARD_MODELS:
        if apps.get_model(label).objects.exists():
            raise BackupError(f"this database already holds {label} rows (expected a fresh, migrated database)")
    for name, digest in manifest["media"].items():
        path = src / "media" / name
        data = path.read_bytes() if path.is_file() else b""
        if hashlib.sha256(data).hexdigest() != digest:
            raise BackupError(f"{path} is missing or changed since the backup (sha256 differs)")
    written = []
    try:
        with transaction.atomic():
            call_command("loaddata", str(src / "database.json"), verbosity=0)
            names = sorted(manifest["media"])
            for i, name in enumerate(names, start=1):
                if default_storage.exists(name):
                    default_storage.delete(name)
                saved = default_storage.save(name, ContentFile((src / "media" / name).read_bytes()))
                written.append(saved)
                if saved != name:
                    raise BackupError(f"the storage kept {name} as {saved} (expected the same name)")
                if progress:
                    progress(i, len(names))
    except BaseException:
        for name in written:
            default_storage.delete(name)
        raise
    return manifest
