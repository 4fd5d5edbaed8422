"""Importing agent result folders or archives as a new run (the command import_results, uploads' reader,
the demo and tests all come through here). Imported failed verdicts that carry no failure mode are
classified from the trajectories' signals before the summary is returned, whoever calls."""

from collections.abc import Callable
from pathlib import Path

from harness.results import BundleError, read_results
from leaderboard.models import Suite
from mypcbench_site.outages import STORAGE_UNAVAILABLE
from trajectories.recording import import_notes
from trajectories.recording.archive_import import import_archive
from trajectories.recording.failure_signals import classify_unclassified
from trajectories.recording.import_notes import ImportResultsError
from trajectories.recording.import_runs import (
    UNKNOWN_MODEL,
    ImportSummary,
    add_scores_row,
    check_run_name,
    finish_run,
    model_from_paths,
    new_run,
    tree_tasks,
)
from trajectories.recording.ingest import IngestError, IngestReport, all_or_nothing, ingest_bundle


def import_results(
    path,
    run_name: str,
    model_name: str | None = None,
    suite_slug: str | None = None,
    publish: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    *,
    layout: str | None = None,
    attempts_from_folders: bool = False,
    allow_missing_screenshots: bool = False,
) -> ImportSummary:
    """Import every task folder under ``path`` (a folder, or a .zip / .tar.gz read as a stream) as one
    new run. All-or-nothing: on any error no rows and no media files remain. Every problem in the
    source is reported at once, grouped. ``progress(done, total, task_id)`` is called after each
    trajectory. Failed verdicts without a failure mode get one from the trajectory's signals
    (trajectories.recording.failure_signals)."""
    summary = _import(path, run_name, model_name, suite_slug, publish, progress, layout=layout,
                      attempts_from_folders=attempts_from_folders,
                      allow_missing_screenshots=allow_missing_screenshots)  # fmt: skip
    classify_unclassified(summary.run.trajectories.all())
    return summary


def _import(path, run_name, model_name, suite_slug, publish, progress, *, layout, attempts_from_folders,
            allow_missing_screenshots) -> ImportSummary:  # fmt: skip
    path = Path(path)
    run_name = check_run_name(run_name)
    if path.is_file():
        return import_archive(
            path, run_name, model_name=model_name, suite_slug=suite_slug, publish=publish, progress=progress,
            layout=layout, attempts_from_folders=attempts_from_folders,
            allow_missing_screenshots=allow_missing_screenshots,
        )  # fmt: skip
    if suite_slug and layout is None:
        # A named suite settles how result.txt reads: its kind says whose results these are.
        layout = Suite.objects.filter(slug=suite_slug).values_list("kind", flat=True).first()
    try:
        tree = read_results(
            path,
            layout=layout,
            attempts_from_folders=attempts_from_folders,
            gaps_hint="" if allow_missing_screenshots else import_notes.GAPS_HINT,
        )
    except BundleError as exc:
        raise ImportResultsError(import_notes.without_root(str(exc), path)) from exc
    suite = import_notes.pick_suite(suite_slug, [b.task_id for b in tree.bundles])
    tasks = tree_tasks(tree, suite)
    model_name = model_name or model_from_paths(tree) or UNKNOWN_MODEL
    run = None
    report = IngestReport(warnings=list(tree.warnings))
    layouts: dict[str, int] = {}
    try:
        with all_or_nothing() as written:
            run = new_run(run_name, suite, model_name, publish, path.name, tree.sha256)
            total = len(tree.bundles)
            if progress:
                progress(0, total, "")
            ordered = sorted(tree.bundles, key=lambda b: (tasks[b.task_id].position, b.attempt))
            for done, bundle in enumerate(ordered, start=1):
                add_scores_row(bundle, tree)
                ingest_bundle(run, bundle, task=tasks[bundle.task_id], written=written, report=report)
                layouts[bundle.layout] = layouts.get(bundle.layout, 0) + 1
                if progress:
                    progress(done, total, bundle.task_id)
            finish_run(run, report, layouts, path)
    except (IngestError, BundleError, OSError) as exc:
        raise ImportResultsError(import_notes.without_root(str(exc), path)) from exc
    except STORAGE_UNAVAILABLE as exc:
        raise import_notes.store_outage(path.name, exc) from exc
    return ImportSummary(run=run, suite=suite, model=run.model, report=report, layouts=layouts)
