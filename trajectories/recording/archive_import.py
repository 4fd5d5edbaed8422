"""import_results on a .zip or .tar.gz: the archive is read as a stream, one task folder at a time
(harness.results.archive_stream), through the same layout reader, bundle reader and ingest path as a folder.
All-or-nothing like a folder import: every problem and gap is collected over the whole archive and
reported together, and a refused import leaves no rows and no media files."""

import hashlib
from pathlib import Path, PurePosixPath

from harness.results import (
    ArchiveError,
    BundleError,
    iter_task_folders,
    layouts,
    list_archive,
    read_scores,
    read_task_dir,
    result_files,
)
from leaderboard.models import Suite
from mypcbench_site.outages import STORAGE_UNAVAILABLE
from trajectories.recording import import_notes, import_runs
from trajectories.recording.import_notes import ImportResultsError
from trajectories.recording.ingest import IngestError, IngestReport, all_or_nothing, ingest_bundle


def _archive_name(path: Path) -> str:
    name = path.name
    for suffix in (".tar.gz", ".tgz", ".zip"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)] or name
    return name


def import_archive(
    path,
    run_name: str,
    *,
    model_name: str | None = None,
    suite_slug: str | None = None,
    publish: bool = False,
    progress=None,
    layout: str | None = None,
    attempts_from_folders: bool = False,
    allow_missing_screenshots: bool = False,
):
    path = Path(path)
    listing, folders = _listing_and_folders(path, suite_slug, layout, attempts_from_folders)
    by_rel = {PurePosixPath(f.rel): f for f in folders}
    suite = import_notes.pick_suite(suite_slug, [f.task_id for f in folders])
    tasks = import_notes.suite_tasks(suite, [(f.task_id, f.rel) for f in folders])
    models = {f.model for f in folders if f.model}
    if len(models) > 1 and not model_name:
        raise ImportResultsError(
            f"the folders name {len(models)} models ({', '.join(sorted(models))}); import each model's folder "
            "as its own run, or pass --model to name one for all"
        )

    report = IngestReport()
    problems = result_files.Problems()
    gaps: list = []
    scores: dict = {}
    found_models: set[str] = set(models)
    layouts_seen: dict[str, int] = {}
    hashes: list[str] = []
    total = len(folders)
    name = _archive_name(path)
    try:
        with all_or_nothing() as written:
            first_model = model_name or (next(iter(models)) if len(models) == 1 else import_runs.UNKNOWN_MODEL)
            run = import_runs.new_run(run_name, suite, first_model, publish, path.name, "")
            if progress:
                progress(0, total, "")
            done = 0
            for rel, copy in iter_task_folders(path, listing):
                if rel in listing.extra:
                    try:
                        scores.update(read_scores(copy, report.warnings))
                    except BundleError as exc:
                        problems.add(str(rel), exc.problem)
                    continue
                folder = by_rel[rel]
                try:
                    bundle = read_task_dir(copy, folder=folder)
                except BundleError as exc:
                    problems.add(f"{name}/{rel}", _in_archive(str(exc), copy, rel), problem=exc.problem)
                    continue
                finally:
                    done += 1
                    if progress:
                        progress(done, total, folder.task_id)
                bundle.warnings = [_in_archive(w, copy, rel) for w in bundle.warnings]
                if bundle.gaps:
                    gaps += [g.at(_in_archive(g.where, copy, rel)) for g in bundle.gaps]
                    if not allow_missing_screenshots:
                        continue  # reported at the end with every other gap; nothing of it is kept
                if problems or (gaps and not allow_missing_screenshots):
                    continue  # the import will be refused: stop writing, keep reading for the report
                if bundle.model:
                    found_models.add(bundle.model)
                # _Scores has the one attribute add_scores_row reads of a ResultsTree
                import_runs.add_scores_row(bundle, _Scores(scores))  # type: ignore[arg-type]
                _ingest_member(run, bundle, tasks[bundle.task_id], written, report, problems, name, rel, copy)
                hashes.append(f"{bundle.task_id}#{bundle.attempt}:{bundle.traj_sha256}")
                layouts_seen[bundle.layout] = layouts_seen.get(bundle.layout, 0) + 1
            import_notes.refuse_gaps(gaps, allow_missing_screenshots, path, problems)
            if not model_name and not models and len(found_models) == 1:
                run.model = import_runs.model(found_models.pop())  # named by our harness's bundle.json
            run.source_hash = hashlib.sha256("\n".join(sorted(hashes)).encode()).hexdigest()
            import_runs.finish_run(run, report, layouts_seen, path)
    except (ArchiveError, OSError) as exc:
        raise ImportResultsError(f"{path.name}: {exc}") from exc
    except STORAGE_UNAVAILABLE as exc:
        raise import_notes.store_outage(path.name, exc) from exc
    return import_runs.ImportSummary(run=run, suite=suite, model=run.model, report=report, layouts=layouts_seen)


def _listing_and_folders(path: Path, suite_slug: str | None, layout: str | None, attempts_from_folders: bool):
    """The archive's listing and its task folders as the layout reads them (a named suite settles
    how result.txt reads when no layout is given)."""
    if suite_slug and layout is None:
        layout = Suite.objects.filter(slug=suite_slug).values_list("kind", flat=True).first()
    try:
        listing = list_archive(path)
        folders = layouts.detect(
            [d.as_posix() for d in listing.task_dirs],
            layout=layout,
            attempts_from_folders=attempts_from_folders,
            root_name=_archive_name(path),
        )
    except (ArchiveError, layouts.LayoutError) as exc:
        raise ImportResultsError(f"{path.name}: {exc}") from exc
    return listing, folders


def _ingest_member(run, bundle, task, written, report: IngestReport, problems, name: str, rel, copy: Path) -> None:
    """One task folder of the archive through the ingest path; its problems, judge errors and warnings
    name the member in the archive, not the scratch copy."""
    before = len(report.judge_errors), len(report.warnings)
    try:
        ingest_bundle(run, bundle, task=task, written=written, report=report, source_path=f"{name}/{rel}")
    except IngestError as exc:
        problems.add(f"{name}/{rel}", _in_archive(str(exc), copy, rel))
    for attr, start in zip(("judge_errors", "warnings"), before, strict=True):
        items = getattr(report, attr)
        items[start:] = [_in_archive(t, copy, rel) for t in items[start:]]


class _Scores:
    """The shape import_runs.add_scores_row reads (a tree's scores.json rows by task id)."""

    def __init__(self, scores: dict):
        self.scores = scores


def _in_archive(text: str, copy: Path, rel: PurePosixPath) -> str:
    """A message about the scratch copy, naming the member in the archive instead."""
    return text.replace(str(copy), str(rel))
