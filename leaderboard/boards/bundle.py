"""A portable run: one run written as a static folder (run page, trajectory list, a player per trajectory
with its screenshots' lightest derivatives, the rubric verdicts) that opens from any static host or from
``file://``. Every link is relative, and every player's data is embedded in its page: nothing is fetched."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from django.contrib.auth.models import AnonymousUser, User
from django.contrib.staticfiles import finders
from django.core.files.storage import default_storage
from django.template.loader import render_to_string

from harness.results import world_variants_words
from leaderboard.boards import board_display
from leaderboard.models import Run
from leaderboard.scoring.one_trajectory import trajectory_score
from trajectories.evaluations import run_table
from trajectories.models import Step, Trajectory
from trajectories.player import payloads

# The site's own files the pages use, copied as they are (the player's script drives the bundle too).
STATIC_FILES = ("css/site.css", "css/player.css", "css/reliability.css", "css/run_progress.css", "js/player.js")
# Above this many trajectories the command prints a progress line as it goes.
PROGRESS_EVERY = 10

KINDS = {
    ".html": "pages",
    ".css": "styles",
    ".js": "scripts",
    ".webp": "images",
    ".avif": "images",
    ".png": "images",
    ".jpg": "images",
    ".jpeg": "images",
}


class BundleError(Exception):
    """Why a bundle cannot be written, in words naming what was wrong."""


@dataclass
class SizeReport:
    """What a bundle holds: files and bytes by kind (pages, images, scripts, styles)."""

    folder: Path
    trajectories: int = 0
    files: Counter = field(default_factory=Counter)
    bytes: Counter = field(default_factory=Counter)
    missing_media: int = 0

    def add(self, path: Path) -> None:
        kind = KINDS.get(path.suffix.lower(), "other")
        self.files[kind] += 1
        self.bytes[kind] += path.stat().st_size

    def lines(self) -> list[str]:
        out = [f"Wrote {self.folder} ({self.trajectories} trajectories): open index.html"]
        for kind in sorted(self.files, key=lambda k: -self.bytes[k]):
            out.append(f"  {kind:<8} {self.files[kind]:>6} files {human_bytes(self.bytes[kind]):>10}")
        out.append(f"  {'total':<8} {sum(self.files.values()):>6} files {human_bytes(sum(self.bytes.values())):>10}")
        if self.missing_media:
            missing = self.missing_media
            out.append(f"  {missing} screenshot file(s) missing from storage: those steps show a placeholder")
        return out


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def find_run(ref: str) -> Run:
    """A run by id (digits) or slug; BundleError naming the reference when there is none."""
    ref = (ref or "").strip()
    run = None
    if ref.isdigit():
        run = Run.objects.filter(pk=int(ref)).first()
    if run is None and ref:
        run = Run.objects.filter(slug=ref).first()
    if run is None:
        known = ", ".join(Run.objects.order_by("slug").values_list("slug", flat=True)[:20]) or "none"
        raise BundleError(f"no run with id or slug {ref!r} (known runs: {known})")
    return run


def check_allowed(run: Run, as_maintainer: bool) -> None:
    """Unpublished runs leave the site only when a maintainer asks for it explicitly."""
    if run.is_reported:
        raise BundleError(f"run {run.slug!r} holds published figures only (no trajectories to play); nothing to bundle")
    if run.publication != Run.Publication.PUBLISHED and not as_maintainer:
        raise BundleError(
            f"run {run.slug!r} is not published ({run.get_publication_display().lower()}); a bundle can be handed "
            "to anyone, so unpublished runs are exported only with --as-maintainer"
        )


def prepare_folder(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise BundleError(f"{out} exists and is not a folder; name a new or empty folder")
    if out.exists() and any(out.iterdir()):
        raise BundleError(f"{out} is not empty; name a new or empty folder (nothing is overwritten)")
    out.mkdir(parents=True, exist_ok=True)


def viewer_for(run: Run):
    """Who the figures are computed for: a visitor for a published run, a maintainer otherwise."""
    if run.publication == Run.Publication.PUBLISHED:
        return AnonymousUser()
    return User(username="bundle-maintainer", is_staff=True)


class MediaCopier:
    """Copies the files a step's payload shows into media/<trajectory>/ and gives their paths relative to
    the bundle; the original is copied only when the step has no derivative."""

    def __init__(self, out: Path, report: SizeReport, originals: bool = False):
        self.out, self.report, self.originals = out, report, originals
        self.copied: dict[str, str] = {}  # path inside the bundle: itself, or "" when storage lacked it

    def step_files(self, step: Step) -> dict[str, tuple[str, str]]:
        """{URL the site serves: (field name, stored name)} for every file the step has (the original and
        every derivative, whatever derivatives the site makes)."""
        files = {}
        for f in step._meta.get_fields():
            if getattr(f, "get_internal_type", lambda: "")() != "FileField":
                continue
            stored = getattr(step, f.name)
            if stored:
                files[stored.url] = (f.name, stored.name)
        return files

    def copy(self, step: Step, trajectory_pk: int, field_name: str, stored_name: str) -> str:
        """The file's path inside the bundle, or "" when storage no longer holds it."""
        suffix = PurePosixPath(stored_name).suffix.lower() or ".bin"
        rel = f"media/{trajectory_pk}/{step.index}-{field_name}{suffix}"
        if rel in self.copied:
            return self.copied[rel]
        target = self.out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with default_storage.open(stored_name, "rb") as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst)
        except OSError:
            target.unlink(missing_ok=True)
            self.report.missing_media += 1
            self.copied[rel] = ""
            return ""
        self.report.add(target)
        self.copied[rel] = rel
        return rel

    def bundle_step(self, step: Step, trajectory_pk: int, payload: dict, prefix: str) -> dict:
        """A step's payload with the site's media URLs turned into the bundle's relative paths. Unless
        ``originals`` is set, the original is not copied for its own sake: its link and the O key show
        the image the stage shows."""
        files = self.step_files(step)
        out = dict(payload)
        for key, value in payload.items():
            if (key == "original" and not self.originals) or not isinstance(value, str):
                continue
            if value in files:
                rel = self.copy(step, trajectory_pk, *files[value])
                out[key] = prefix + rel if rel else ""
            elif key in ("image", "thumb", "original") and value:
                out[key] = ""  # not a file of this step's: the player shows its placeholder
        if payload.get("image") and not out.get("image"):
            out["problem"] = out.get("problem") or "Screenshot missing from the site's storage when this copy was made."
        if not self.originals or not out.get("original"):
            out["original"] = out.get("image") or ""
        return out


def player_page_payload(trajectory: Trajectory, copier: MediaCopier) -> dict:
    payload = payloads.player_payload(trajectory)
    steps_by_index = {s.index: s for s in trajectory.steps.all()}
    payload["steps"] = [
        copier.bundle_step(steps_by_index[step["index"]], trajectory.pk, step, "../") for step in payload["steps"]
    ]
    payload["live"] = None
    payload["trajectory"]["detail_url"] = f"{trajectory.pk}.html"
    payload["trajectory"]["play_url"] = f"{trajectory.pk}.html"
    return payload


def _write(out: Path, rel: str, text: str, report: SizeReport) -> None:
    target = out / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    report.add(target)


def _copy_static(out: Path, report: SizeReport) -> None:
    for name in STATIC_FILES:
        source = finders.find(name)
        if not source:
            raise BundleError(f"the site's static file {name} is missing; run from a complete checkout")
        target = out / "static" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(str(source), target)
        report.add(target)


def export_bundle(
    run: Run,
    out: Path,
    *,
    as_maintainer: bool = False,
    originals: bool = False,
    progress: Callable[[str], None] | None = None,
) -> SizeReport:
    """Write ``run`` as a static folder at ``out`` (new or empty) and say what it holds; ``originals``
    adds every step's original screenshot (for full resolution) beside its derivatives."""
    check_allowed(run, as_maintainer)
    prepare_folder(out)
    report = SizeReport(folder=out)
    _copy_static(out, report)
    copier = MediaCopier(out, report, originals)
    rows = run_table.trajectory_rows(run)
    trajectories = (
        Trajectory.objects.filter(run=run)
        .select_related("run", "run__model", "run__suite", "task", "task__suite")
        .prefetch_related("steps", "judgments__rubric_item", "judgments__judge")
        .order_by("task__position", "task__task_id", "attempt")
    )
    total = len(rows)
    thumbs: dict[int, str] = {}
    written: set[int] = set()
    exported_at = datetime.now(UTC)
    for done, trajectory in enumerate(trajectories.iterator(chunk_size=50), start=1):
        payload = player_page_payload(trajectory, copier)
        trajectory.task.instruction_display = trajectory.task.instruction.strip()  # type: ignore[attr-defined]
        with_image = [s for s in payload["steps"] if s["thumb"]]
        thumbs[trajectory.pk] = with_image[-1]["thumb"][len("../") :] if with_image else ""
        judges = payload["judges"]
        written.add(trajectory.pk)
        html = render_to_string(
            "bundle/player.html",
            {
                "payload": payload,
                "trajectory": trajectory,
                "run": run,
                "task": trajectory.task,
                "score": trajectory_score(trajectory),
                "judges": judges,
                "root": "../",
                "exported_at": exported_at,
            },
        )
        _write(out, f"trajectories/{trajectory.pk}.html", html, report)
        report.trajectories += 1
        if progress and total > PROGRESS_EVERY and (done % PROGRESS_EVERY == 0 or done == total):
            progress(f"{done} of {total} trajectories written")
    for row in rows:
        row["bundle_player"] = f"trajectories/{row['id']}.html" if row["id"] in written else ""
        row["bundle_thumb"] = thumbs.get(row["id"], "")
    index = render_to_string(
        "bundle/run.html",
        {
            "run": run,
            "headline_rows": board_display.run_rows(viewer_for(run), run),
            "trajectories": rows,
            "world_words": world_variants_words(row["world_variant"] for row in rows),
            "varied_worlds": any(row["world_variant"] for row in rows),
            "verdicts_judge": run_table.verdicts_judge(run) if rows else None,
            "root": "",
            "exported_at": exported_at,
        },
    )
    _write(out, "index.html", index, report)
    return report
