"""The judge files of a result folder (OSWorld's full-trajectory judge, the rubric judge's task score,
the legacy per-step judge) and its rubric bundle, read onto a trajectory bundle. Django-free."""

import math
from pathlib import Path

from harness.results.records import (
    FULL_TRAJ_RESULT,
    PER_STEP_RESULT,
    TASK_SCORE_RESULT,
    BundleError,
    JudgeRecord,
    RubricVerdict,
    TrajectoryBundle,
    as_text,
    cited_steps_from_text,
    normalise_rubric,
    read_object,
)
from harness.results.safe_names import printable


def read_rubric_bundle(bundle: TrajectoryBundle) -> None:
    path = bundle.path / "rubric_bundle.json"
    if not path.is_file():
        return
    data = read_object(path)
    manifest = data.get("grading_manifest")
    if not isinstance(manifest, dict):
        raise BundleError(path, "missing or not an object", field="grading_manifest", expected="the grading manifest")
    bundle.rubric = normalise_rubric(manifest.get("rubrics"), path, "grading_manifest.rubrics")
    task = data.get("task")
    named = task.get("id") if isinstance(task, dict) else None
    if named and named != bundle.task_id:
        bundle.warnings.append(printable(f"{path}: task.id is {named!r} but the folder is named {bundle.task_id!r}"))


def read_judges(bundle: TrajectoryBundle) -> None:
    full = bundle.path / FULL_TRAJ_RESULT
    if full.is_file():
        bundle.judges.append(_full_trajectory_judge(full))
    score_file = bundle.path / TASK_SCORE_RESULT
    if score_file.is_file():
        bundle.judges.append(_task_score_judge(score_file, bundle))
    per_step = bundle.path / PER_STEP_RESULT
    if per_step.is_file():
        bundle.judges.append(_per_step_judge(per_step, bundle))


def _full_trajectory_judge(path: Path) -> JudgeRecord:
    data = read_object(path)
    results = data.get("rubric_results")
    if not isinstance(results, list):
        raise BundleError(path, "missing or not an array", field="rubric_results", expected="per-rubric results")
    rubric = normalise_rubric(results, path, "rubric_results")
    verdicts = []
    for i, item in enumerate(results):
        success = item.get("success")
        if not isinstance(success, bool):
            raise BundleError(path, f"is {success!r}", field=f"rubric_results[{i}].success", expected="true or false")
        reasoning = as_text(item.get("reasoning"))
        if success:
            verdict = "success"
        elif reasoning.startswith("Error judging rubric"):
            verdict = "error"
        else:
            verdict = "failure"
        score = item.get("score")
        verdicts.append(
            RubricVerdict(
                position=i + 1,
                verdict=verdict,
                reasoning=reasoning,
                score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
                cited_steps=_cited(item.get("cited_steps"), reasoning),
            )
        )
    score = data.get("score")
    settings = {k: data[k] for k in ("max_images", "concurrency", "n_steps_total", "n_screenshots_sent") if k in data}
    return JudgeRecord(
        source_file=FULL_TRAJ_RESULT,
        model=as_text(data.get("model")) or "unknown model",
        score=_unit_score(score),
        rubric=rubric,
        verdicts=verdicts,
        settings=settings,
    )


def _per_step_judge(path: Path, bundle: TrajectoryBundle) -> JudgeRecord:
    """rubric_result.json of the legacy per-step judge: each step scored 0/1 per rubric item, an
    item passes when any step did (``per_rubric_max``). Cited steps: the steps that satisfied it."""
    data = read_object(path)
    rubric = normalise_rubric(data.get("rubrics"), path, "rubrics")
    best = data.get("per_rubric_max")
    if not isinstance(best, list) or len(best) != len(rubric):
        raise BundleError(path, f"is {str(best)[:60]}", field="per_rubric_max",
                          expected=f"one 0/1 value per rubric item ({len(rubric)})")  # fmt: skip
    scored = data.get("per_step_scores")
    per_step: list = scored if isinstance(scored, list) else []
    first_index: dict[int, int] = {}
    for step in bundle.steps:
        first_index.setdefault(step.turn, step.index)
    verdicts = []
    for i, value in enumerate(best):
        satisfied = [
            first_index[row["step_num"]]
            for row in per_step
            if isinstance(row, dict) and isinstance(row.get("scores"), list) and len(row["scores"]) > i
            and row["scores"][i] and row.get("step_num") in first_index
        ]  # fmt: skip
        errored = [row for row in per_step if isinstance(row, dict) and row.get("error")]
        if value:
            verdict, reasoning = "success", f"satisfied at {len(satisfied)} of {len(per_step)} scored steps"
        elif per_step and len(errored) == len(per_step):
            verdict, reasoning = "error", f"the judge failed on every scored step: {str(errored[0]['error'])[:200]}"
        else:
            verdict = "failure"
            reasoning = f"no scored step satisfied it ({len(per_step)} scored"
            reasoning += f", {len(errored)} with judge errors counted as 0)" if errored else ")"
        verdicts.append(RubricVerdict(position=i + 1, verdict=verdict, reasoning=reasoning,
                                      cited_steps=list(dict.fromkeys(satisfied))))  # fmt: skip
    settings = {k: data[k] for k in ("n_steps_total", "n_steps_scored", "concurrency") if k in data}
    return JudgeRecord(
        source_file=PER_STEP_RESULT,
        model=as_text(data.get("model")) or "unknown model",
        score=_unit_score(data.get("score")),
        rubric=rubric,
        verdicts=verdicts,
        settings=settings,
    )


def _cited(structured, reasoning: str) -> list[int]:
    """Structured cited steps when the file carries them (our bundle format), else the step
    numbers the reasoning mentions (upstream judges write them only in prose)."""
    if isinstance(structured, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in structured):
        return list(dict.fromkeys(structured))
    return cited_steps_from_text(reasoning)


def _unit_score(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return min(max(value / 100.0, 0.0), 1.0)


def _task_score_judge(path: Path, bundle: TrajectoryBundle) -> JudgeRecord:
    data = read_object(path)
    if "result" not in data:
        raise BundleError(path, "missing", field="result", expected="an integer 0-100 or the judge's error list")
    result = data["result"]
    model = next((j.model for j in bundle.judges if j.source_file == FULL_TRAJ_RESULT), "")
    record = JudgeRecord(source_file=TASK_SCORE_RESULT, model=model)
    if isinstance(result, list) and len(result) == 4:
        _command, code, stdout, stderr = (as_text(v) for v in result)
        detail = (stderr or stdout).strip().splitlines()
        record.error = f"judge exited with {code}: {detail[-1][:300] if detail else 'no output'}"
    elif _unit_score(result) is not None:
        record.score = _unit_score(result)
    else:
        raise BundleError(path, f"is {result!r}", field="result", expected="an integer 0-100 or a 4-item error list")
    return record
