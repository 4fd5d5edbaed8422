"""Write-side services for trajectories: importing agent result folders as a new run."""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.utils import timezone
from django.utils.text import slugify

from harness.bundle import TASK_SCORE_RESULT, BundleError, JudgeRecord, ResultsTree, read_results
from leaderboard.models import JudgeConfig, Model, Run, Suite, Task
from trajectories.failure_signals import classify_unclassified
from trajectories.ingest import IngestError, IngestReport, all_or_nothing, ingest_bundle

UNKNOWN_MODEL = "unknown model"


class ImportResultsError(ValueError):
    """An import that was refused; nothing was written."""


@dataclass
class ImportSummary:
    run: Run
    suite: Suite
    model: Model
    report: IngestReport
    layouts: dict = field(default_factory=dict)

    def lines(self) -> list[str]:
        r = self.report
        out = [
            f"Run {self.run.name!r} ({self.run.slug}) on suite {self.suite.slug}, model {self.model.name}",
            f"  trajectories: {r.trajectories}  steps: {r.steps}  screenshots: {r.screenshots}",
            f"  judgments: {r.judgments}  judges: {', '.join(sorted(r.judges)) or 'none'}",
            f"  layouts: {', '.join(f'{k} {v}' for k, v in sorted(self.layouts.items()))}",
        ]
        for title, items in (
            ("new rubric versions", r.new_rubric_versions),
            ("judge errors (not failures)", r.judge_errors),
            ("warnings", r.warnings),
        ):
            out.append(f"  {title}: {len(items)}")
            out.extend(f"    - {item}" for item in items)
        return out


def import_results(
    path,
    run_name: str,
    model_name: str | None = None,
    suite_slug: str | None = None,
    publish: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> ImportSummary:
    """Import every task folder under ``path`` as one new run. All-or-nothing: on any error no rows
    and no media files remain. ``progress(done, total, task_id)`` is called after each trajectory."""
    path = Path(path)
    run_name = run_name.strip()
    if not run_name:
        raise ImportResultsError("--run: empty run name (expected a name for the new run)")
    if Run.objects.filter(name=run_name).exists():
        raise ImportResultsError(
            f"--run: a run named {run_name!r} already exists (expected a new name; reruns are new runs)"
        )
    try:
        tree = read_results(path)
    except BundleError as exc:
        raise ImportResultsError(str(exc)) from exc
    suite = _suite(suite_slug)
    tasks = _tasks(tree, suite)
    model_name = model_name or _model_from_paths(tree) or UNKNOWN_MODEL

    report = IngestReport(warnings=list(tree.warnings))
    layouts: dict[str, int] = {}
    try:
        with all_or_nothing() as written:
            model = _model(model_name)
            run = Run.objects.create(
                name=run_name,
                slug=_unique_run_slug(run_name),
                suite=suite,
                model=model,
                provenance=Run.Provenance.IMPORTED,
                status=Run.Status.FINISHED,
                publication=Run.Publication.PUBLISHED if publish else Run.Publication.DRAFT,
                source=str(path.resolve()),
                source_hash=tree.sha256,
                finished_at=timezone.now(),
            )
            total = len(tree.bundles)
            if progress:
                progress(0, total, "")
            for done, bundle in enumerate(sorted(tree.bundles, key=lambda b: tasks[b.task_id].position), start=1):
                _add_scores_row(bundle, tree)
                ingest_bundle(run, bundle, task=tasks[bundle.task_id], written=written, report=report)
                layouts[bundle.layout] = layouts.get(bundle.layout, 0) + 1
                if progress:
                    progress(done, total, bundle.task_id)
            judges = sorted(report.judges)
            if len(judges) == 1:
                run.judge_config = JudgeConfig.objects.get(name=judges[0])
            run.metadata = {
                "layouts": layouts,
                "judge_errors": report.judge_errors,
                "warnings": report.warnings,
                "new_rubric_versions": report.new_rubric_versions,
            }
            run.save()
            # imported verdicts carry no failure mode: classify failed ones from the trajectory's signals
            classify_unclassified(run.trajectories.all())
    except (IngestError, BundleError, OSError) as exc:
        raise ImportResultsError(str(exc)) from exc
    return ImportSummary(run=run, suite=suite, model=model, report=report, layouts=layouts)


def _suite(suite_slug: str | None) -> Suite:
    suites = list(Suite.objects.order_by("slug"))
    if suite_slug:
        for suite in suites:
            if suite.slug == suite_slug:
                return suite
        known = ", ".join(s.slug for s in suites) or "none; import tasks first"
        raise ImportResultsError(f"--suite: no suite {suite_slug!r} (known suites: {known})")
    benchmark = [s for s in suites if not s.is_demo]
    if len(benchmark) == 1:
        return benchmark[0]
    known = ", ".join(s.slug for s in suites) or "none; import tasks first"
    raise ImportResultsError(f"--suite: choose the suite these results belong to (known suites: {known})")


def _tasks(tree: ResultsTree, suite: Suite) -> dict[str, Task]:
    tasks = {t.task_id: t for t in Task.objects.filter(suite=suite, task_id__in=[b.task_id for b in tree.bundles])}
    for bundle in tree.bundles:
        if bundle.task_id not in tasks:
            raise ImportResultsError(
                f"{bundle.path}: task id {bundle.task_id!r} (the folder name) is not a task of suite "
                f"{suite.slug!r} (expected one of its {suite.tasks.count()} task ids)"
            )
    return tasks


def _model_from_paths(tree: ResultsTree) -> str:
    names = {b.model for b in tree.bundles if b.model}
    return names.pop() if len(names) == 1 else ""


_PROVIDERS = (
    ("claude", Model.Provider.ANTHROPIC),
    ("gpt", Model.Provider.OPENAI),
    ("computer-use", Model.Provider.OPENAI),
    ("gemini", Model.Provider.GOOGLE),
    ("qwen", Model.Provider.OPEN_WEIGHTS),
)


def _model(name: str) -> Model:
    model = Model.objects.filter(name=name).first()
    if model is not None:
        return model
    provider = next((p for needle, p in _PROVIDERS if needle in name.lower()), Model.Provider.OTHER)
    return Model.objects.create(
        name=name,
        slug=_unique_slug(Model, name, "model"),
        provider=provider,
        api_model=name if name != UNKNOWN_MODEL else "",
    )


def _unique_run_slug(name: str) -> str:
    return _unique_slug(Run, name, "run")


def _unique_slug(model_class, name: str, fallback: str) -> str:
    base = slugify(name)[:180] or fallback
    slug, n = base, 2
    while model_class.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def _add_scores_row(bundle, tree: ResultsTree) -> None:
    """A task score found only in the top-level scores.json (no per-task judge file) is kept too."""
    if any(j.source_file == TASK_SCORE_RESULT or j.verdicts for j in bundle.judges):
        return
    row = tree.scores.get(bundle.task_id)
    if not row or not isinstance(row.get("score"), int | float) or isinstance(row.get("score"), bool):
        return
    bundle.judges.append(JudgeRecord(source_file=TASK_SCORE_RESULT, model="", score=min(max(row["score"], 0.0), 1.0)))
