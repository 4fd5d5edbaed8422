"""Load the figures published for MyPCBench (leaderboard/data/paper_results.json) as reported
runs: one Model per name, one Run per model and result set, one ReportedFigure per number."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
from django.db import transaction
from django.utils.text import slugify

from leaderboard.models import APPS_TOUCHED_BINS, BehaviouralType, JudgeConfig, Model, ReportedFigure, Run, Suite

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "paper_results.json"

DEFAULT_SUITE_NAME = "MyPCBench"
DEFAULT_SUITE_VERSION = "eval-round0"

FAILURE_MODES = (
    "premature_done",
    "skipped_required_app",
    "surface_error_abandonment",
    "partial_artifact",
    "hallucinated_persona_data",
)

PROVIDER_BY_FAMILY = {
    "Claude": Model.Provider.ANTHROPIC,
    "OpenAI": Model.Provider.OPENAI,
    "Gemini": Model.Provider.GOOGLE,
}

_number_or_null = {"type": ["number", "null"], "minimum": 0}
_number = {"type": "number", "minimum": 0}


def _table(row_keys):
    """A {source, values: {model: {row: number}}} block."""
    return {
        "type": "object",
        "required": ["source", "values"],
        "properties": {
            "source": {"type": "string", "minLength": 1, "maxLength": 300},
            "values": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "propertyNames": {"enum": list(row_keys)},
                    "additionalProperties": _number,
                },
            },
        },
    }


SCHEMA = {
    "type": "object",
    "required": ["suite", "result_sets"],
    "properties": {
        "suite": {
            "type": "object",
            "required": ["name", "version"],
            "properties": {"name": {"type": "string", "minLength": 1}, "version": {"type": "string", "minLength": 1}},
        },
        "judge_model": {"type": "string"},
        "turn_budget": {"type": "integer", "minimum": 1},
        "result_sets": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["id", "label", "source", "tool_surface", "models"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z0-9-]+$"},
                    "label": {"type": "string", "minLength": 1},
                    "short_label": {"type": "string", "minLength": 1, "maxLength": 60},
                    "source": {"type": "string", "minLength": 1, "maxLength": 300},
                    "tool_surface": {"enum": list(Run.ToolSurface.values)},
                    "tool_surface_note": {"type": "string"},
                    "note": {"type": "string"},
                    "models": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["model", "family", "open_weights", "perfect", "rubric"],
                            "properties": {
                                "model": {"type": "string", "minLength": 1, "maxLength": 100},
                                "family": {"type": "string", "maxLength": 50},
                                "open_weights": {"type": "boolean"},
                                "perfect": _number,
                                "rubric": _number,
                                "avg_steps": _number_or_null,
                                "traj_eff": _number_or_null,
                            },
                        },
                    },
                    "rubric_by_task_type": _table(BehaviouralType.values),
                    "rubric_by_apps_touched": _table(APPS_TOUCHED_BINS),
                    "perfect_by_apps_touched": _table(APPS_TOUCHED_BINS),
                    "failure_modes": {
                        "type": "object",
                        "required": ["source", "all_models"],
                        "properties": {
                            "source": {"type": "string", "minLength": 1, "maxLength": 300},
                            "all_models": {
                                "type": "object",
                                "propertyNames": {"enum": list(FAILURE_MODES)},
                                "additionalProperties": {"type": "integer", "minimum": 0},
                            },
                            "by_model": {
                                "type": "object",
                                "additionalProperties": {
                                    "type": "object",
                                    "propertyNames": {"enum": list(FAILURE_MODES)},
                                    "additionalProperties": {"type": "integer", "minimum": 0},
                                },
                            },
                        },
                    },
                    "bash_share": {
                        "type": "object",
                        "required": ["source", "values"],
                        "properties": {
                            "source": {"type": "string", "minLength": 1, "maxLength": 300},
                            "values": {"type": "object", "additionalProperties": _number},
                        },
                    },
                    "avg_steps_zero_score": {
                        "type": "object",
                        "required": ["source", "values"],
                        "properties": {
                            "source": {"type": "string", "minLength": 1, "maxLength": 300},
                            "values": {"type": "object", "additionalProperties": _number},
                        },
                    },
                },
            },
        },
    },
}


class ReportedDataError(ValueError):
    """The reported-figures file is unreadable or has the wrong shape."""


@dataclass
class LoadSummary:
    models_created: int = 0
    runs_created: int = 0
    runs_updated: int = 0
    figures_created: int = 0
    figures_updated: int = 0
    figures_deleted: int = 0
    figures_unchanged: int = 0
    result_sets: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(
            self.models_created
            + self.runs_created
            + self.runs_updated
            + self.figures_created
            + self.figures_updated
            + self.figures_deleted
        )


@dataclass(frozen=True)
class Figure:
    model: str
    metric: str
    slice_kind: str
    slice_value: str
    value: float
    source: str


def read_reported(path: Path | str = DATA_FILE) -> dict:
    """Parse and validate the file; errors name the file, the field and what was expected."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportedDataError(f"{path}: file not found")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportedDataError(f"{path}: not valid JSON ({exc})")
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(SCHEMA).iter_errors(data))
    if error is not None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
        raise ReportedDataError(f"{path}: {where or '(top level)'}: {error.message}")
    seen_sets = set()
    for i, rs in enumerate(data["result_sets"]):
        where = f"{path}: result_sets[{i}]"
        if rs["id"] in seen_sets:
            raise ReportedDataError(f"{where}.id: duplicate result set id {rs['id']!r}")
        seen_sets.add(rs["id"])
        names = [m["model"] for m in rs["models"]]
        if len(set(names)) != len(names):
            raise ReportedDataError(f"{where}.models: a model name appears twice; expected each model once")
        for key in ("rubric_by_task_type", "rubric_by_apps_touched", "perfect_by_apps_touched", "bash_share"):
            for name in rs.get(key, {}).get("values", {}):
                if name not in names:
                    raise ReportedDataError(f"{where}.{key}.values: unknown model {name!r}; expected one of {names}")
        for name in rs.get("failure_modes", {}).get("by_model", {}):
            if name not in names:
                raise ReportedDataError(
                    f"{where}.failure_modes.by_model: unknown model {name!r}; expected one of {names}"
                )
    return data


def figures_for(result_set: dict) -> list[Figure]:
    """Every number in one result set, as (model, metric, slice) figures."""
    return [
        *_overall_figures(result_set),
        *_slice_figures(result_set),
        *_failure_mode_figures(result_set),
        *_extra_figures(result_set),
    ]


def _overall_figures(result_set: dict) -> list[Figure]:
    out: list[Figure] = []
    src = result_set["source"]
    for m in result_set["models"]:
        for metric in ("perfect", "rubric", "avg_steps", "traj_eff"):
            if m.get(metric) is not None:
                out.append(Figure(m["model"], metric, "overall", "", float(m[metric]), src))
    return out


def _slice_figures(result_set: dict) -> list[Figure]:
    out: list[Figure] = []
    slices = (
        ("rubric_by_task_type", "rubric", "task_type"),
        ("rubric_by_apps_touched", "rubric", "apps_touched"),
        ("perfect_by_apps_touched", "perfect", "apps_touched"),
    )
    for key, metric, kind in slices:
        block = result_set.get(key)
        if not block:
            continue
        for model, values in block["values"].items():
            for slice_value, value in values.items():
                out.append(Figure(model, metric, kind, slice_value, float(value), block["source"]))
    return out


def _failure_mode_figures(result_set: dict) -> list[Figure]:
    out: list[Figure] = []
    fm = result_set.get("failure_modes")
    if fm:
        for model, counts in fm.get("by_model", {}).items():
            for mode, value in counts.items():
                out.append(Figure(model, "failure_count", "failure_mode", mode, float(value), fm["source"]))
        # Set-wide totals are not attributable to one model; each run of the set carries them
        # under their own slice kind so they are never summed with per-model counts.
        for m in result_set["models"]:
            for mode, value in fm["all_models"].items():
                out.append(
                    Figure(m["model"], "failure_count", "failure_mode_all_models", mode, float(value), fm["source"])
                )
    return out


def _extra_figures(result_set: dict) -> list[Figure]:
    """The share of bash actions, and the mean steps on the tasks a model scored zero on."""
    out: list[Figure] = []
    if result_set.get("bash_share"):
        block = result_set["bash_share"]
        for model, value in block["values"].items():
            out.append(Figure(model, "bash_share", "overall", "", float(value), block["source"]))
    if result_set.get("avg_steps_zero_score"):
        block = result_set["avg_steps_zero_score"]
        for model, value in block["values"].items():
            if model in {m["model"] for m in result_set["models"]}:
                out.append(Figure(model, "avg_steps", "zero_score_tasks", "", float(value), block["source"]))
    return out


def reported_suite(name: str = DEFAULT_SUITE_NAME, version: str = DEFAULT_SUITE_VERSION) -> Suite:
    """The suite reported runs belong to; the task importer uses the same (name, version)."""
    suite, _ = Suite.objects.get_or_create(name=name, version=version, defaults={"slug": slugify(f"{name} {version}")})
    return suite


def run_slug(result_set_id: str, model_name: str) -> str:
    return slugify(f"reported {result_set_id} {model_name}")[:200]


def _set_fields(obj, values: dict) -> bool:
    changed = False
    for key, value in values.items():
        if getattr(obj, key) != value:
            setattr(obj, key, value)
            changed = True
    return changed


def load_reported(path: Path | str = DATA_FILE) -> LoadSummary:
    """Create or update the reported runs and figures; re-running with the same file changes
    nothing. All-or-nothing: a bad file writes no row."""
    data = read_reported(path)
    summary = LoadSummary()
    with transaction.atomic():
        suite = reported_suite(data["suite"]["name"], data["suite"]["version"])
        judge_model = data.get("judge_model", "")
        judge = None
        if judge_model:
            judge, _ = JudgeConfig.objects.get_or_create(
                name=f"MyPCBench paper judge ({judge_model})",
                defaults={
                    "origin": JudgeConfig.Origin.SELF_REPORTED,
                    "model": judge_model,
                    "prompt_version": "paper",
                },
            )
        for set_pos, rs in enumerate(data["result_sets"]):
            summary.result_sets.append(rs["id"])
            runs: dict[str, Run] = {}
            for model_pos, m in enumerate(rs["models"]):
                model, created = Model.objects.get_or_create(
                    name=m["model"],
                    defaults={
                        "slug": slugify(m["model"]),
                        "family": m["family"],
                        "open_weights": m["open_weights"],
                        "provider": Model.Provider.OPEN_WEIGHTS
                        if m["open_weights"]
                        else PROVIDER_BY_FAMILY.get(m["family"], Model.Provider.OTHER),
                    },
                )
                summary.models_created += created
                values = {
                    "name": f"{m['model']} ({rs.get('short_label') or rs['id']})",
                    "suite": suite,
                    "model": model,
                    "agent_type": "native" if rs["tool_surface"] == Run.ToolSurface.NATIVE else "",
                    "tool_surface": rs["tool_surface"],
                    "turn_budget": data.get("turn_budget", 100),
                    "judge_config": judge,
                    "provenance": Run.Provenance.REPORTED,
                    "publication": Run.Publication.PUBLISHED,
                    "status": Run.Status.FINISHED,
                    "source": rs["source"],
                    "notes": rs.get("note", ""),
                    "metadata": {
                        "result_set": rs["id"],
                        "result_set_label": rs["label"],
                        "result_set_position": set_pos,
                        "model_position": model_pos,
                        "tool_surface_note": rs.get("tool_surface_note", ""),
                    },
                }
                run = Run.objects.filter(slug=run_slug(rs["id"], m["model"])).first()
                if run is None:
                    run = Run.objects.create(slug=run_slug(rs["id"], m["model"]), **values)
                    summary.runs_created += 1
                elif _set_fields(run, values):
                    run.save()
                    summary.runs_updated += 1
                runs[m["model"]] = run
            _sync_figures(runs, figures_for(rs), summary)
    return summary


def _sync_figures(runs: dict[str, Run], figures: list[Figure], summary: LoadSummary) -> None:
    existing = {
        (f.run_id, f.metric, f.slice_kind, f.slice_value): f
        for f in ReportedFigure.objects.filter(run__in=runs.values())
    }
    wanted = set()
    for fig in figures:
        run = runs[fig.model]
        key = (run.id, fig.metric, fig.slice_kind, fig.slice_value)
        wanted.add(key)
        row = existing.get(key)
        if row is None:
            ReportedFigure.objects.create(
                run=run,
                metric=fig.metric,
                slice_kind=fig.slice_kind,
                slice_value=fig.slice_value,
                value=fig.value,
                source=fig.source,
            )
            summary.figures_created += 1
        elif _set_fields(row, {"value": fig.value, "source": fig.source}):
            row.save(update_fields=["value", "source"])
            summary.figures_updated += 1
        else:
            summary.figures_unchanged += 1
    stale = [row.pk for key, row in existing.items() if key not in wanted]
    if stale:
        ReportedFigure.objects.filter(pk__in=stale).delete()
        summary.figures_deleted += len(stale)
