"""The parts of import_results that decide and report rather than write: which suite results belong
to, refusing gaps unless told, what the run records about its import (counts, warnings, rubric
drift, missing screenshots), and the report printed at the end. Messages never carry the server's
path of the imported folder: only its name."""

from collections import Counter
from pathlib import Path

from harness.results import result_files
from leaderboard.models import Suite, Task

ALLOW_MISSING_FLAG = "--allow-missing-screenshots"


class ImportResultsError(ValueError):
    """An import that was refused; nothing was written."""


def store_outage(name: str, exc: Exception) -> ImportResultsError:
    """The refusal of an import that met the media store not answering (the database kept nothing;
    screenshots stored before the cut that could not be removed are left to ``manage.py sweep_media``)."""
    return ImportResultsError(
        f"{name}: the media store did not answer ({exc}); nothing was imported. "
        "Run the import again once the store answers."
    )


def without_root(text: str, root: Path) -> str:
    """``text`` with the imported folder's absolute path replaced by its name."""
    root = Path(root)
    for form in {str(root.resolve()), str(root), str(root.absolute())}:
        if form not in ("", "."):
            text = text.replace(form.rstrip("/") + "/", root.name + "/").replace(form, root.name)
    return text


GAPS_HINT = (
    f"Pass {ALLOW_MISSING_FLAG} to import the steps without their screenshots (the player shows a "
    "placeholder, the run page counts them, and our judge will not grade those trajectories unless told)."
)


def refuse_gaps(gaps: list, allow: bool, root: Path, problems=None) -> None:
    """Missing screenshots (and LFS pointers in their place) stop the import, all listed together with
    any other ``problems``, unless allowed."""
    problems = problems if problems is not None else result_files.Problems()
    if not allow:
        for gap in gaps:
            problems.add(gap.where, gap.problem, kind=gap.kind)
    if problems:
        raise ImportResultsError(without_root(problems.summary(GAPS_HINT if gaps and not allow else ""), root))


def pick_suite(suite_slug: str | None, task_ids: list[str]) -> Suite:
    """The suite named, else the one suite holding every task id found (non-demo suites first when
    several do); when none or several fit, say which suites would and how many ids each holds."""
    suites = list(Suite.objects.order_by("slug"))
    known = ", ".join(s.slug for s in suites) or "none; import tasks first"
    if suite_slug:
        for suite in suites:
            if suite.slug == suite_slug:
                return suite
        raise ImportResultsError(f"--suite: no suite {suite_slug!r} (known suites: {known})")
    wanted = set(task_ids)
    held = Counter(
        Task.objects.filter(task_id__in=wanted).values_list("suite_id", flat=True)  # one row per (suite, id)
    )
    full = [s for s in suites if held.get(s.pk) == len(wanted)]
    if len(full) > 1:
        benchmark = [s for s in full if not s.is_demo]
        full = benchmark if len(benchmark) == 1 else full
    if len(full) == 1:
        return full[0]
    if len(full) > 1:
        raise ImportResultsError(
            f"--suite: {len(full)} suites hold all {len(wanted)} task ids ({', '.join(s.slug for s in full)}); "
            "pass --suite to choose one"
        )
    partial = sorted(((held.get(s.pk, 0), s.slug) for s in suites if held.get(s.pk)), reverse=True)
    if len(partial) == 1:
        # The only suite that knows any of them: the ids it lacks are listed one by one next.
        return next(s for s in suites if s.slug == partial[0][1])
    example = ", ".join(sorted(wanted)[:3])
    if partial:
        detail = "; ".join(f"{slug} holds {n}" for n, slug in partial)
        raise ImportResultsError(
            f"--suite: no suite holds all {len(wanted)} task ids found ({example}...): {detail}. "
            "Import the missing tasks, or pass --suite to pick one and see which ids it lacks"
        )
    raise ImportResultsError(
        f"--suite: no suite holds any of the {len(wanted)} task ids found (e.g. {example}); known suites: {known}. "
        "Import the task definitions first (import_tasks)"
    )


def suite_tasks(suite: Suite, found: list[tuple[str, Path]]) -> dict[str, Task]:
    """The suite's tasks by id; every id it lacks is listed at once."""
    tasks = {t.task_id: t for t in Task.objects.filter(suite=suite, task_id__in=[task_id for task_id, _ in found])}
    problems = result_files.Problems()
    for task_id, rel in found:
        if task_id not in tasks:
            problems.add(str(rel), f"task id {task_id!r} (the folder name) is not a task of suite {suite.slug!r}")
    if problems:
        examples = ", ".join(suite.tasks.values_list("task_id", flat=True)[:3]) or "none"
        raise ImportResultsError(
            problems.summary(f"Expected the suite's task ids ({suite.tasks.count()}, e.g. {examples}).")
        )
    return tasks


def run_metadata(report, layouts: dict, root: Path) -> dict:
    """What the run keeps about its import, shown on its page; folder name only, never a server path
    (the report's own lists are rewritten the same way, for the printed report)."""
    for name in ("judge_errors", "warnings", "new_rubric_versions", "rubric_drift"):
        setattr(report, name, [without_root(t, root) for t in getattr(report, name)])
    return {
        "layouts": layouts,
        "judge_errors": report.judge_errors,
        "warnings": report.warnings,
        "new_rubric_versions": report.new_rubric_versions,
        "import": {
            "trajectories": report.trajectories,
            "tasks": len(report.tasks),
            "attempts": report.attempts,
            "steps": report.steps,
            "screenshots": report.screenshots,
            "missing_screenshots": report.missing_screenshots,
            "rubric_drift": report.rubric_drift,
        },
    }


SHOWN_LINES = 10  # warnings listed one per line in the report; the rest are counted


def report_lines(run, suite, model, report, layouts: dict) -> list[str]:
    """The report printed at the end of an import: what was imported, what was missing, which judges
    the source carried, what rubric versions were created, and the warnings (the first few listed)."""
    r = report
    out = [
        f"Imported run {run.name!r} ({run.slug}) on suite {suite.slug}, model {model.name}",
        f"  tasks: {len(r.tasks)}  attempts per task: {r.attempts}  trajectories: {r.trajectories}  steps: {r.steps}",
        f"  screenshots: {r.screenshots} imported, {r.missing_screenshots} missing",
        f"  layouts: {', '.join(f'{k} {v}' for k, v in sorted(layouts.items())) or 'none'}",
        f"  judges found: {len(r.judges)}{' (' + '; '.join(sorted(r.judges)) + ')' if r.judges else ''}; "
        f"judgments: {r.judgments}",
        f"  rubric versions created: {len(r.new_rubric_versions)}",
    ]
    sections = (
        ("rubric drift (graded on a rubric other than the suite's)", r.rubric_drift),
        ("judge errors (not failures)", r.judge_errors),
        ("warnings", r.warnings),
    )
    for title, items in sections:
        if not items:
            continue
        out.append(f"  {title}: {len(items)}")
        out += [f"    - {item}" for item in items[:SHOWN_LINES]]
        if len(items) > SHOWN_LINES:
            out.append(f"    ... and {len(items) - SHOWN_LINES} more (kept on the run page)")
    return out
