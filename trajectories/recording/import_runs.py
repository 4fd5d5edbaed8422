"""The rows an import writes besides its trajectories: the run, its model, scores rows, the run's
import notes; shared by the folder import (import_results) and the archive import (archive_import)."""

from dataclasses import dataclass, field
from pathlib import Path

from django.utils import timezone

from harness.results import TASK_SCORE_RESULT, JudgeRecord, ResultsTree
from leaderboard.catalog.slugs import create_with_free_slug
from leaderboard.models import JudgeConfig, Model, Run, Suite, Task
from trajectories.recording import import_notes
from trajectories.recording.import_notes import ImportResultsError
from trajectories.recording.ingest import IngestReport

UNKNOWN_MODEL = "unknown model"


@dataclass
class ImportSummary:
    run: Run
    suite: Suite
    model: Model
    report: IngestReport
    layouts: dict = field(default_factory=dict)

    def lines(self) -> list[str]:
        return import_notes.report_lines(self.run, self.suite, self.model, self.report, self.layouts)


def check_run_name(run_name: str) -> str:
    run_name = run_name.strip()
    if not run_name:
        raise ImportResultsError("--run: empty run name (expected a name for the new run)")
    if Run.objects.filter(name=run_name).exists():
        raise ImportResultsError(
            f"--run: a run named {run_name!r} already exists (expected a new name; reruns are new runs)"
        )
    return run_name


def new_run(run_name: str, suite: Suite, model_name: str, publish: bool, source: str, source_hash: str) -> Run:
    """The run row; ``source`` is the imported folder's or archive's name only, never a server path."""
    fields = dict(
        name=run_name,
        suite=suite,
        model=model(model_name),
        provenance=Run.Provenance.IMPORTED,
        status=Run.Status.FINISHED,
        publication=Run.Publication.PUBLISHED if publish else Run.Publication.DRAFT,
        source=source,
        source_hash=source_hash,
        finished_at=timezone.now(),
    )
    return create_with_free_slug(Run, run_name, "run", lambda slug: {**fields, "slug": slug})


def finish_run(run: Run, report: IngestReport, layouts: dict, root: Path) -> None:
    judges = sorted(report.judges)
    if len(judges) == 1:
        run.judge_config = JudgeConfig.objects.get(name=judges[0])
    run.metadata = import_notes.run_metadata(report, layouts, root)
    # the attempt grid scored: the layouts number attempts from 0 without gaps (harness.results.layouts)
    run.attempts_per_task = report.attempts or None
    run.save()


def tree_tasks(tree: ResultsTree, suite: Suite) -> dict[str, Task]:
    return import_notes.suite_tasks(suite, [(b.task_id, b.path.relative_to(tree.root)) for b in tree.bundles])


def model_from_paths(tree: ResultsTree) -> str:
    """The model an OSWorld path names, else the one our harness wrote in bundle.json; several
    different ones are refused (import them as separate runs, or name one with --model)."""
    names = {b.model for b in tree.bundles if b.model}
    if len(names) > 1:
        raise ImportResultsError(
            f"the folders name {len(names)} models ({', '.join(sorted(names))}); import each model's folder "
            "as its own run, or pass --model to name one for all"
        )
    return names.pop() if names else ""


_PROVIDERS = (
    ("claude", Model.Provider.ANTHROPIC),
    ("gpt", Model.Provider.OPENAI),
    ("computer-use", Model.Provider.OPENAI),
    ("gemini", Model.Provider.GOOGLE),
    ("qwen", Model.Provider.OPEN_WEIGHTS),
)


def model(name: str) -> Model:
    model = Model.objects.filter(name=name).first()
    if model is not None:
        return model
    provider = next((p for needle, p in _PROVIDERS if needle in name.lower()), Model.Provider.OTHER)
    fields = {"name": name, "provider": provider, "api_model": name if name != UNKNOWN_MODEL else ""}
    return create_with_free_slug(Model, name, "model", lambda slug: {**fields, "slug": slug}, reuse_by_name=True)


def add_scores_row(bundle, tree: ResultsTree) -> None:
    """A task score found only in the top-level scores.json (no per-task judge file) is kept too."""
    if any(j.source_file == TASK_SCORE_RESULT or j.verdicts for j in bundle.judges):
        return
    row = tree.scores.get(bundle.task_id)
    if not row or not isinstance(row.get("score"), int | float) or isinstance(row.get("score"), bool):
        return
    bundle.judges.append(JudgeRecord(source_file=TASK_SCORE_RESULT, model="", score=min(max(row["score"], 0.0), 1.0)))
