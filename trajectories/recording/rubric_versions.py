"""Rubric versions and the judges of imported verdicts, for the ingest path: the stored rubric version
whose content a bundle's rubric is (a non-current historical version when none matches, reported),
the rubric a run was graded against when it differs from the suite's current one, and the JudgeConfig
labelling a source's own judge."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING

from harness.results import FULL_TRAJ_RESULT, PER_STEP_RESULT, JudgeRecord, TrajectoryBundle
from harness.tasks import RubricSpec
from leaderboard.models import JudgeConfig, RubricItem, Run, Task

if TYPE_CHECKING:
    from trajectories.recording.ingest import IngestReport


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _same_rubric(items: list[RubricItem], entries: list[RubricSpec]) -> bool:
    return len(items) == len(entries) and all(
        _same_text(item.criterion, entry.criterion)
        and _same_text(item.verification, entry.verification)
        and math.isclose(item.weight, entry.weight, rel_tol=1e-9, abs_tol=1e-12)
        for item, entry in zip(items, entries, strict=True)
    )


def rubric_version_for(
    task: Task, entries: list[RubricSpec], report: IngestReport, run: Run | None = None
) -> dict[int, RubricItem]:
    """The stored rubric version whose content is ``entries`` (current first), as {position: item}.
    When none matches, a non-current historical version is created and reported."""
    versions: dict[int, list[RubricItem]] = defaultdict(list)
    for item in task.rubric_items.order_by("version", "position"):
        versions[item.version].append(item)
    ordered = sorted(versions.items(), key=lambda kv: (not kv[1][0].is_current, -kv[0]))
    for _version, items in ordered:
        if _same_rubric(items, entries):
            return {item.position: item for item in items}
    version = max(versions, default=0) + 1
    created = RubricItem.objects.bulk_create(
        RubricItem(task=task, version=version, **RubricItem.spec_fields(entry), is_current=False, source_run=run)
        for entry in entries
    )
    report.new_rubric_versions.append(
        f"{task.task_id}: the judged rubric matches no stored version; kept as historical version {version}"
    )
    return {item.position: item for item in created}


def _provider(model: str) -> str:
    name = model.lower()
    for needle, provider in (("gemini", "google"), ("claude", "anthropic"), ("gpt", "openai")):
        if needle in name:
            return provider
    return ""


def imported_judge(record: JudgeRecord) -> JudgeConfig:
    """The JudgeConfig labelling a source's own judge, e.g. "upstream full-trajectory judge (gemini-...)"."""
    if record.source_file == FULL_TRAJ_RESULT:
        kind = "upstream full-trajectory judge"
    elif record.source_file == PER_STEP_RESULT:
        kind = "upstream per-step judge"
    elif record.source_file == "result.txt":
        kind = "OSWorld evaluator score"
    else:
        kind = "upstream judge_results.py score"
    model = record.model if record.model and record.model != "OSWorld evaluator" else ""
    name = f"{kind} ({model})" if model else kind
    judge, _ = JudgeConfig.objects.get_or_create(
        name=name,
        defaults={
            "origin": JudgeConfig.Origin.IMPORTED,
            "provider": _provider(model),
            "model": model,
            "max_images": record.settings.get("max_images")
            if isinstance(record.settings.get("max_images"), int)
            else None,
            "settings": {"source_file": record.source_file, **record.settings},
        },
    )
    return judge


def record_rubric_drift(run: Run, task: Task, bundle: TrajectoryBundle, report: IngestReport) -> None:
    """rubric_bundle.json is the rubric the run was graded against; when it differs from the suite's
    current rubric, keep it as a version of its own (tied to this run) and say so."""
    if not bundle.rubric:
        return
    current = list(task.current_rubric())
    if _same_rubric(current, bundle.rubric):
        return
    created_before = len(report.new_rubric_versions)
    items = rubric_version_for(task, bundle.rubric, report, run)
    version = next(iter(items.values())).version
    kept = (
        "kept as rubric version {} of this run"
        if len(report.new_rubric_versions) > created_before
        else ("the same as stored rubric version {}")
    )
    message = (
        f"{task.task_id}: rubric_bundle.json ({len(bundle.rubric)} items) differs from the suite's current rubric "
        f"(version {task.rubric_version}, {len(current)} items); " + kept.format(version)
    )
    if not any(line.startswith(f"{task.task_id}: ") for line in report.rubric_drift):  # once per task
        report.rubric_drift.append(message)


def same_entries(a: list[RubricSpec], b: list[RubricSpec]) -> bool:
    return len(a) == len(b) and all(
        _same_text(x.criterion, y.criterion) and math.isclose(x.weight, y.weight, rel_tol=1e-9, abs_tol=1e-12)
        for x, y in zip(a, b, strict=True)
    )
