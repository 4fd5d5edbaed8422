"""Our judge on the site: judging stored trajectories and whole runs, one Judgment per
(trajectory, rubric item version, judge configuration), and the judge's token and cost totals."""

import dataclasses
import logging
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

from celery import group
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, Sum

from harness.judge import (
    PAPER,
    PROMPT_VERSION,
    ConfigurationError,
    Judge,
    JudgeConfigurationError,
    JudgeItem,
    TrajectoryForJudge,
    WeightError,
    make_provider,
    task_score,
)
from harness.judge.classify import FailureClassifier
from harness.judge.core import ItemVerdict, PersonaSummary
from harness.judge.failure_modes import classify_failure, trajectory_signals
from harness.judge.prices import describe_cost
from leaderboard.models import JudgeConfig, RubricItem, Run
from trajectories import queue
from trajectories.judge_spec import JudgeSpec
from trajectories.judging.reliability import keep_history
from trajectories.judging.variant_rubric import rubric_for_variant
from trajectories.models import Judgment, Trajectory
from trajectories.recording.failure_signals import trajectory_for_judge as stored_trajectory
from world.models import World

logger = logging.getLogger(__name__)


class JudgingError(ValueError):
    """Judging cannot start (no API key, unknown provider, nothing to judge); says what to fix."""


def build_judge(spec: JudgeSpec, *, check_classifier: bool = True) -> Judge:
    """A ready judge; a missing key or base URL is a JudgingError before any work starts, and so is
    a failure classifier that cannot start (unless ``check_classifier`` is off: a worker judging one
    trajectory then lets the rules name failure modes, with a warning, rather than judge nothing)."""
    try:
        provider = make_provider(
            spec.provider, spec.model or None, base_url=spec.base_url or None, temperature=spec.temperature
        )
    except ConfigurationError as exc:
        raise JudgingError(str(exc)) from exc
    if check_classifier:
        classifier_provider()
    try:
        return Judge(
            provider,
            max_images=spec.max_images,
            concurrency=spec.concurrency,
            attempts=spec.attempts,
            price_table=getattr(settings, "MYPCBENCH_JUDGE_PRICES", {}),
            prompt_version=spec.prompt_version or PROMPT_VERSION,
            persona_summary=persona_summary_for(spec),
        )
    except JudgeConfigurationError as exc:
        raise JudgingError(str(exc)) from exc


def persona_summary_for(spec: JudgeSpec):
    """What the judge is told about the persona (the paper's judge gets the Markdown persona summary):
    the spec's file when it names one, nothing when it says "none", else the summary of the persona
    world loaded on the site (`manage.py load_world`), if any. The judge records which it was sent."""
    if spec.persona_summary == "none":
        return None
    if spec.persona_summary:
        return spec.persona_summary
    world = World.objects.order_by("-loaded_at").values("persona", "anchor", "summary").first()
    if world is None or not world["summary"].strip():
        return None
    return PersonaSummary(world["summary"], f"the loaded world: {world['persona']}, anchor {world['anchor']}")


def with_protocol_for(spec: JudgeSpec, suite_id: int) -> JudgeSpec:
    """The judge spec for a run of this suite: unless a prompt version was chosen, runs of a suite
    that has published (reported) figures are judged with the paper's protocol (paper-v1), so what
    stands beside the reported rows was judged the way they were; other suites keep the default."""
    if spec.prompt_version:
        return spec
    reported = Run.objects.filter(
        suite_id=suite_id, provenance=Run.Provenance.REPORTED, publication=Run.Publication.PUBLISHED
    ).exists()
    return dataclasses.replace(spec, prompt_version=PAPER) if reported else spec


def judge_config_name(judge: Judge) -> str:
    """The name of the JudgeConfig this judge's settings are filed under."""
    s = judge.settings
    temperature = "default" if s["temperature"] is None else f"t{s['temperature']:g}"
    name = f"ours: {s['provider']} {s['model']} {s['prompt_version']} {temperature} img{s['max_images']}"
    persona = s.get("persona_summary") or {}
    if persona.get("sent"):
        name += f" persona {persona['sha256'][:8]}"
    if s["base_url"] and s["provider"] == "openai_compatible":
        name += f" @ {s['base_url']}"
    return name[:200]


def judge_config_for(judge: Judge) -> JudgeConfig:
    """The JudgeConfig row for this judge's settings (created on first use); the prompt version and
    protocol are the judge's own (its settings), so a paper-v1 judge is never filed as ours."""
    s = judge.settings
    config, _ = JudgeConfig.objects.get_or_create(
        name=judge_config_name(judge),
        defaults={
            "origin": JudgeConfig.Origin.OURS,
            "provider": s["provider"],
            "model": s["model"],
            "temperature": s["temperature"],
            "max_images": s["max_images"],
            "prompt_version": s["prompt_version"],
            "settings": s,
        },
    )
    return config


def _screenshot_path(step) -> Path | None:
    if not step.screenshot:
        return None
    try:
        return Path(step.screenshot.path)
    except NotImplementedError:  # remote storage: no local path; the judge then goes without it
        logger.warning("step %s: screenshot storage has no local path; not sent to the judge", step.pk)
        return None


def trajectory_for_judge(trajectory: Trajectory) -> TrajectoryForJudge:
    return stored_trajectory(trajectory, _screenshot_path)


def items_to_judge(trajectory: Trajectory, config: JudgeConfig, *, force: bool = False) -> list[RubricItem]:
    """Current rubric items of the trajectory's task with no judgment by ``config`` yet, or only an
    errored one; every current item when forced."""
    items = list(RubricItem.objects.filter(task=trajectory.task, is_current=True).order_by("position"))
    if force:
        return items
    done = set(
        Judgment.objects.filter(trajectory=trajectory, judge=config, rubric_item__in=items)
        .exclude(verdict=Judgment.Verdict.ERROR)
        .values_list("rubric_item_id", flat=True)
    )
    return [item for item in items if item.pk not in done]


def _decimal_cost(value) -> Decimal | None:
    return None if value is None else Decimal(str(round(value, 6)))


class MissingScreenshots(str):
    """Why a trajectory was not shown to the judge: steps imported without their screenshots, or a world
    variant whose rubric could not be made (its items are then errors with this reason, never judged in the
    canonical world's words)."""


def screenshot_refusal(trajectory: Trajectory, allow_missing_screenshots: bool = False) -> str:
    """The reason our judge refuses ``trajectory`` (empty when it does not): a judge that cannot see
    some steps would grade them blind, so it grades only when told to."""
    if allow_missing_screenshots:
        return ""
    missing = trajectory.steps.filter(info__has_key="screenshot_missing").count()
    if not missing:
        return ""
    return (
        f"not judged: {missing} of its steps {'were' if missing != 1 else 'was'} imported without a screenshot "
        "(--allow-missing-screenshots); judge with --allow-missing-screenshots to grade it anyway"
    )


def _prepare(trajectory: Trajectory, judge: Judge, force: bool, allow_missing_screenshots: bool = False):
    """(config, items, what the judge sees): the database part, done before any provider call."""
    config = judge_config_for(judge)
    items = items_to_judge(trajectory, config, force=force)
    if not items:
        return config, items, None
    variant = trajectory.world_variant
    try:
        worded = rubric_for_variant(trajectory.task.task_id, variant, {i.position: i.criterion for i in items})
    except (OSError, ValueError, RuntimeError) as exc:
        reason = f"not judged: the rubric of world variant {variant} could not be made ({exc})"
        return config, items, MissingScreenshots(reason)
    for item in items:  # in memory only: the judge reads the variant's words, the stored item keeps its own
        item.written_criterion = item.criterion  # type: ignore[attr-defined]
        item.criterion = worded[item.position]
    refusal = screenshot_refusal(trajectory, allow_missing_screenshots)
    return config, items, MissingScreenshots(refusal) if refusal else trajectory_for_judge(trajectory)


def _verdicts(judge: Judge, items: list[RubricItem], seen: TrajectoryForJudge | None):
    """The provider part: no database access, so it can run in another thread."""
    if not items:
        return []
    if isinstance(seen, MissingScreenshots):  # recorded as an error (not a failure), with the reason
        return [ItemVerdict(i.position, i.rubric_id, "error", error=str(seen)) for i in items]
    judge_items = [JudgeItem(i.position, i.rubric_id, i.criterion, i.verification, i.weight) for i in items]
    return judge.judge(cast(TrajectoryForJudge, seen), judge_items)  # read by _prepare when there are items


def _judged_words(item: RubricItem) -> str:
    """The words the judge read for ``item`` when its world variant words it differently (else empty)."""
    written = getattr(item, "written_criterion", item.criterion)
    return item.criterion if item.criterion != written else ""


def _store(trajectory: Trajectory, config: JudgeConfig, items: list[RubricItem], verdicts, seen=None) -> list[Judgment]:
    by_position = {item.position: item for item in items}
    overridden = dict(
        Judgment.objects.filter(trajectory=trajectory, judge=config, failure_mode_overridden=True).values_list(
            "rubric_item_id", "failure_mode"
        )
    )
    facts = None
    if isinstance(seen, TrajectoryForJudge) and any(v.verdict == "failure" for v in verdicts):
        facts = trajectory_signals(seen, trajectory.task.apps_involved or [], turn_budget=trajectory.run.turn_budget)
    stored = []
    with transaction.atomic():
        keep_history(trajectory, config, [by_position[v.position] for v in verdicts])
        for verdict in verdicts:
            explanation = verdict.explanation if verdict.verdict != "error" else verdict.error
            signals = {"judge_notes": verdict.notes} if verdict.notes else {}
            mode, kept = "", False
            if verdict.verdict == "failure" and facts is not None:
                signals.update(facts)
                item_pk = by_position[verdict.position].pk
                # A maintainer's override outlives a re-judging that still finds the item failed.
                kept = item_pk in overridden
                mode = overridden[item_pk] if kept else classify_failure(explanation, facts)
            judgment, _ = Judgment.objects.update_or_create(
                trajectory=trajectory,
                rubric_item=by_position[verdict.position],
                judge=config,
                defaults={
                    "verdict": verdict.verdict,
                    "explanation": explanation,
                    "cited_steps": verdict.cited_steps,
                    "input_tokens": verdict.input_tokens,
                    "cached_tokens": verdict.cached_tokens,
                    "output_tokens": verdict.output_tokens,
                    "cost_usd": _decimal_cost(verdict.cost_usd),
                    "latency_ms": verdict.latency_ms,
                    "signals": signals,
                    "failure_mode": mode,
                    "failure_mode_overridden": kept,
                    "world_variant": trajectory.world_variant,
                    "judged_criterion": _judged_words(by_position[verdict.position]),
                },
            )
            stored.append(judgment)
    apply_llm_failure_modes(stored)
    return stored


def classifier_provider():
    """The provider of the LLM failure classifier (settings.MYPCBENCH_FAILURE_CLASSIFIER, from the
    environment variable of that name), or None when failure modes come from the rules alone; a
    JudgingError naming the setting when it is asked for but cannot start (a missing key, no base URL)."""
    spec = getattr(settings, "MYPCBENCH_FAILURE_CLASSIFIER", None) or {}
    if spec.get("mode", "rules") != "llm":
        return None
    provider = spec.get("provider", "google")
    try:
        model, base_url = spec.get("model") or None, spec.get("base_url") or None
        return make_provider(provider, model, base_url=base_url, temperature=0.0)
    except (ConfigurationError, KeyError) as exc:
        raise JudgingError(f"MYPCBENCH_FAILURE_CLASSIFIER ({provider}): {exc}") from exc


def apply_llm_failure_modes(judgments: list[Judgment]) -> int:
    """When settings.MYPCBENCH_FAILURE_CLASSIFIER says {"mode": "llm", "provider", "model", "base_url"},
    an LLM reads each failed item's explanation and signals (text only) and picks its failure mode; the
    rules decide when it cannot, and what happened is kept in signals["classification"]. Maintainer
    overrides are left alone. Runs after the judgments are stored, outside their transaction."""
    spec = getattr(settings, "MYPCBENCH_FAILURE_CLASSIFIER", None) or {}
    failed = [j for j in judgments if j.verdict == "failure" and not j.failure_mode_overridden]
    if spec.get("mode", "rules") != "llm" or not failed:
        return 0
    try:
        provider = classifier_provider()
    except JudgingError as exc:
        logger.warning("failure modes by rules: the LLM classifier cannot start: %s", exc)
        return 0
    classifier = FailureClassifier(provider, attempts=int(spec.get("attempts", 3)))
    for judgment in failed:
        found = classifier.classify(judgment.explanation, judgment.signals or {})
        judgment.failure_mode = found.mode
        judgment.signals = {**(judgment.signals or {}), "classification": found.as_dict()}
        judgment.save(update_fields=["failure_mode", "signals"])
    return len(failed)


def judge_trajectory(
    trajectory: Trajectory, judge: Judge, *, force: bool = False, allow_missing_screenshots: bool = False
) -> list[Judgment]:
    """Judge what is missing or errored (everything when forced) and store one Judgment per item. A judge
    that stopped (every call failing the same permanent way) leaves the items it never sent unjudged and
    the run records its one reason (record_judge_stop)."""
    config, items, seen = _prepare(trajectory, judge, force, allow_missing_screenshots)
    stored = _store(trajectory, config, items, _sent(judge, _verdicts(judge, items, seen)), seen)
    record_judge_stop(trajectory.run, config, judge.stopped)
    return stored


def _sent(judge: Judge, verdicts: list) -> list:
    """The verdicts of items the judge did ask about: once it stopped, the rest are not stored as
    thousands of copies of one error; they stay unjudged for the next attempt."""
    if not judge.stopped:
        return verdicts
    marker = f"not sent: the judge {judge.stopped}"
    return [v for v in verdicts if not (v.verdict == "error" and v.error == marker)]


def record_judge_stop(run: Run, config: JudgeConfig, reason: str) -> None:
    """Keep (or, after a judging that did not stop, clear) why ``config`` stopped on ``run``, in
    run.metadata["judge_stopped"][config name]: the one error a maintainer needs to read."""
    with transaction.atomic():
        locked = Run.objects.select_for_update().filter(pk=run.pk).first()
        if locked is None:
            return
        stops = dict(locked.metadata.get("judge_stopped") or {})
        if stops.get(config.name, "") == reason:
            return
        if reason:
            stops[config.name] = reason
        else:
            stops.pop(config.name, None)
        locked.metadata["judge_stopped"] = stops
        if not stops:
            del locked.metadata["judge_stopped"]
        locked.save(update_fields=["metadata"])
    run.metadata = locked.metadata


def trajectory_score(trajectory: Trajectory, config: JudgeConfig) -> dict:
    """The trajectory's task score from ``config``'s judgments, through the harness's task_score:
    {"score": percent, "complete": no item in error or unjudged}, or {"score_error": ...} naming the
    rubric item whose weight cannot be used."""
    items = list(RubricItem.objects.filter(task=trajectory.task, is_current=True).order_by("position"))
    verdicts = dict(
        Judgment.objects.filter(trajectory=trajectory, judge=config, rubric_item__in=items).values_list(
            "rubric_item_id", "verdict"
        )
    )
    judge_items = [JudgeItem(i.position, i.rubric_id, i.criterion, i.verification, i.weight) for i in items]
    judged = [ItemVerdict(i.position, i.rubric_id, verdicts[i.pk]) for i in items if i.pk in verdicts]
    try:
        score, complete = task_score(judge_items, judged)
    except WeightError as exc:
        return {"score_error": f"task {trajectory.task.task_id} (trajectory {trajectory.pk}): {exc}"}
    return {"score": score, "complete": complete}


def judge_trajectory_by_id(trajectory_id: int, spec: dict, *, force: bool = False) -> dict | None:
    trajectory = Trajectory.objects.select_related("task", "run").filter(pk=trajectory_id).first()
    if trajectory is None:
        return None
    judge = build_judge(with_protocol_for(JudgeSpec(**spec), trajectory.run.suite_id), check_classifier=False)
    stored = judge_trajectory(trajectory, judge, force=force)
    result: dict[str, Any] = {
        "trajectory": trajectory_id,
        "judged": len(stored),
        "errors": sum(j.verdict == "error" for j in stored),
    }
    if judge.stopped:
        result["stopped"] = judge.stopped
    result.update(trajectory_score(trajectory, judge_config_for(judge)))
    return result


# ---------------------------------------------------------------- runs


def run_trajectories(run: Run):
    return run.trajectories.select_related("task", "run").order_by("task__position", "attempt")


def judge_run_inline(
    run: Run, judge: Judge, *, force: bool = False, progress=None, allow_missing_screenshots: bool = False
) -> dict:
    """Judge a run in this process. Provider calls for several trajectories run side by side
    (within the judge's concurrency); every database read and write stays in this thread.
    ``progress(trajectory)`` is called as each trajectory is stored."""
    totals: dict[str, Any] = {"trajectories": 0, "judged": 0, "errors": 0, "score_errors": []}
    with ThreadPoolExecutor(max_workers=judge.concurrency) as pool:
        pending = []
        for trajectory in run_trajectories(run):
            config, items, seen = _prepare(trajectory, judge, force, allow_missing_screenshots)
            pending.append((trajectory, config, items, seen, pool.submit(_verdicts, judge, items, seen)))
        for trajectory, config, items, seen, future in pending:
            stored = _store(trajectory, config, items, _sent(judge, future.result()), seen)
            totals["trajectories"] += 1
            totals["judged"] += len(stored)
            totals["errors"] += sum(j.verdict == "error" for j in stored)
            score = trajectory_score(trajectory, config)
            if "score_error" in score:
                totals["score_errors"].append(score["score_error"])
            if progress is not None:
                progress(trajectory)
    record_judge_stop(run, judge_config_for(judge), judge.stopped)
    if judge.stopped:
        totals["stopped"] = judge.stopped
    return totals


def judge_run(run: Run, spec: JudgeSpec, *, force: bool = False, trajectory_ids: Iterable[int] | None = None):
    """Queue one Celery task per trajectory (of ``trajectory_ids`` only, when given) as a group on the
    "judging" queue; returns the GroupResult. Progress is readable at any time with judging_progress().
    Without a chosen prompt version, the paper's protocol judges runs of suites with published figures
    (with_protocol_for)."""
    spec = with_protocol_for(spec, run.suite_id)
    build_judge(spec)  # refuse before queueing anything when the key is missing
    wanted = run_trajectories(run)
    if trajectory_ids is not None:
        wanted = wanted.filter(pk__in=list(trajectory_ids))
    ids = list(wanted.values_list("pk", flat=True))
    return group(queue.signature(queue.JUDGE_TRAJECTORY, pk, spec.as_dict(), force) for pk in ids).apply_async()


def request_run_judging(run_id: int):
    """Queue our judge, as configured in settings, over a run (uploads and admin actions call this);
    raises before queueing anything when the judge cannot start, e.g. without an API key."""
    return judge_run(Run.objects.get(pk=run_id), JudgeSpec.from_settings())


# ---------------------------------------------------------------- selectors


def judging_progress(run: Run, config: JudgeConfig) -> dict:
    """How far ``config`` has got on ``run``: trajectories whose current items all have a
    non-error judgment, items judged, items in error."""
    trajectories = run.trajectories.annotate(
        items=Count("task__rubric_items", filter=Q(task__rubric_items__is_current=True), distinct=True),
        judged=Count(
            "judgments",
            filter=Q(judgments__judge=config, judgments__rubric_item__is_current=True)
            & ~Q(judgments__verdict=Judgment.Verdict.ERROR),
            distinct=True,
        ),
        errored=Count(
            "judgments",
            filter=Q(judgments__judge=config, judgments__verdict=Judgment.Verdict.ERROR),
            distinct=True,
        ),
    ).values("items", "judged", "errored")
    rows = list(trajectories)
    return {
        "trajectories": len(rows),
        "done": sum(1 for r in rows if r["items"] and r["judged"] >= r["items"]),
        "items": sum(r["items"] for r in rows),
        "judged_items": sum(r["judged"] for r in rows),
        "error_items": sum(r["errored"] for r in rows),
    }


def _usage(queryset) -> dict:
    totals = queryset.aggregate(
        judgments=Count("id"),
        input_tokens=Sum("input_tokens"),
        cached_tokens=Sum("cached_tokens"),
        output_tokens=Sum("output_tokens"),
        cost_usd=Sum("cost_usd"),
    )
    return {k: (v or 0) for k, v in totals.items()}


def trajectory_judge_usage(trajectory: Trajectory, config: JudgeConfig | None = None) -> dict:
    """Judge tokens and cost spent on one trajectory (by one configuration, or all)."""
    queryset = Judgment.objects.filter(trajectory=trajectory)
    return _usage(queryset.filter(judge=config) if config else queryset)


def describe_judge_cost(cost_usd, model: str) -> str:
    """The judge's cost for display, labelled "estimated" unless ``model``'s price comes from the price
    file named by MYPCBENCH_JUDGE_PRICES (the shipped prices are unverified)."""
    configured: frozenset[str] = getattr(settings, "MYPCBENCH_JUDGE_PRICES_CONFIGURED", frozenset())
    return describe_cost(float(cost_usd or 0), model, configured)


def judge_cost_cell(cost_usd, model: str) -> tuple[str, str]:
    """A judgment's cost for a table cell, as (short text, full text): "$0.0012 (estimated)" with
    why it is an estimate in full (describe_judge_cost's words), "$0.0012" when ``model``'s price is
    configured, "not recorded" when the judgment carries no cost (imported or self-reported)."""
    if cost_usd is None:
        return "not recorded", "no cost was recorded for this judgment (imported or self-reported judgments carry none)"
    full = describe_judge_cost(cost_usd, model)
    if "(estimated" in full:
        return f"${float(cost_usd):.4f} (estimated)", full
    return full, full


def run_judge_usage(run: Run, config: JudgeConfig | None = None) -> dict:
    """Judge tokens and cost spent on a whole run (by one configuration, or all)."""
    queryset = Judgment.objects.filter(trajectory__run=run)
    return _usage(queryset.filter(judge=config) if config else queryset)
