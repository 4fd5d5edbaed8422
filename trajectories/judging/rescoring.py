"""Re-scoring after rubric errata: for a run judged on an older rubric version, which items an erratum
changed, carrying the verdicts that still hold (items only moved or reweighted) onto the current
version, and queueing our judge for the changed items only, through the one judge path
(``our_judge.judge_run``, which judges what has no verdict yet)."""

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Exists, OuterRef

from leaderboard.catalog.errata import carried_items
from leaderboard.models import JudgeConfig, RubricItem, Run
from trajectories.judge_spec import JudgeSpec
from trajectories.judging import our_judge
from trajectories.models import Judgment

# The judges whose verdicts are re-scored: the author's own (self-reported) are shown, never scored.
RESCORED_ORIGINS = (JudgeConfig.Origin.OURS, JudgeConfig.Origin.IMPORTED)
# What a carried verdict keeps of the judgment it comes from (tokens and cost stay with the call that paid them).
CARRIED_FIELDS = ("verdict", "explanation", "cited_steps", "failure_mode", "failure_mode_overridden")


class RejudgeRefused(ValueError):
    """The changed items cannot be judged again by this judge; says why."""


@dataclass
class RescoringPlan:
    """What re-scoring one run under one judge needs: verdicts to carry onto current items (current
    item pk -> judgment copied), per trajectory, and the current items to judge again."""

    run: Run
    judge: JudgeConfig
    carry: dict[int, dict[int, Judgment]] = field(default_factory=dict)  # trajectory -> item -> old judgment
    judge_again: dict[int, list[RubricItem]] = field(default_factory=dict)  # trajectory -> items

    @property
    def trajectories(self) -> int:
        return len(set(self.carry) | set(self.judge_again))

    @property
    def carried(self) -> int:
        return sum(len(v) for v in self.carry.values())

    @property
    def to_judge(self) -> int:
        return sum(len(v) for v in self.judge_again.values())

    @property
    def can_rejudge(self) -> bool:
        return self.judge.origin == JudgeConfig.Origin.OURS

    def text(self) -> str:
        where = f"{self.trajectories} trajectory(-ies) of {self.run.name} judged by {self.judge.name}"
        todo = f"{self.to_judge} changed item(s) to judge again, {self.carried} verdict(s) still hold"
        return f"{where} on a superseded rubric: {todo}"


def runs_on_superseded_rubrics():
    """The pks of runs that re-scoring has work for (a subquery): a verdict on a rubric item an erratum has
    replaced, by a judge that has not yet given one on every current item of that task (a run re-judged
    or carried over keeps its old verdicts, and is no longer listed)."""
    judged_now = Judgment.objects.filter(
        trajectory_id=OuterRef(OuterRef("trajectory_id")),
        judge_id=OuterRef(OuterRef("judge_id")),
        rubric_item=OuterRef("pk"),
    )
    unjudged = RubricItem.objects.filter(task_id=OuterRef("trajectory__task_id"), is_current=True).exclude(
        Exists(judged_now)
    )
    return (
        Judgment.objects.filter(rubric_item__is_current=False, judge__origin__in=RESCORED_ORIGINS)
        .filter(Exists(unjudged))
        .values("trajectory__run_id")
    )


def superseded_plans(run: Run) -> list[RescoringPlan]:
    """One plan per judge configuration (the author's own, never scored, left out) with verdicts on
    superseded rubric items of ``run``'s trajectories (none when every judgment is on the current
    rubrics). Four queries."""
    old = list(
        Judgment.objects.filter(trajectory__run=run, rubric_item__is_current=False, judge__origin__in=RESCORED_ORIGINS)
        .select_related("judge", "rubric_item")
        .order_by("judge_id", "trajectory_id", "-rubric_item__version")
    )
    if not old:
        return []
    task_of = dict(run.trajectories.filter(pk__in={j.trajectory_id for j in old}).values_list("pk", "task_id"))
    current: dict[int, list[RubricItem]] = {}
    for item in RubricItem.objects.filter(task_id__in=set(task_of.values()), is_current=True).order_by("position"):
        current.setdefault(item.task_id, []).append(item)
    carried_from = carried_items(set(task_of.values()))
    judged_now = set(
        Judgment.objects.filter(trajectory_id__in=task_of, rubric_item__is_current=True).values_list(
            "trajectory_id", "judge_id", "rubric_item_id"
        )
    )
    plans: dict[int, RescoringPlan] = {}
    old_by: dict[tuple[int, int], dict[int, Judgment]] = {}
    for j in old:  # newest version first: the first verdict seen for an item is the one kept
        old_by.setdefault((j.judge_id, j.trajectory_id), {}).setdefault(j.rubric_item_id, j)
    for (judge_id, trajectory_id), verdicts in old_by.items():
        plan = plans.get(judge_id)
        if plan is None:
            plan = plans[judge_id] = RescoringPlan(run, next(iter(verdicts.values())).judge)
        for item in current.get(task_of[trajectory_id], []):
            if (trajectory_id, judge_id, item.pk) in judged_now:
                continue
            source = next(
                (
                    verdicts[pk]
                    for pk in verdicts
                    if pk in carried_from.get(item.pk, set()) and verdicts[pk].verdict != "error"
                ),
                None,
            )
            if source is not None:
                plan.carry.setdefault(trajectory_id, {})[item.pk] = source
            else:
                plan.judge_again.setdefault(trajectory_id, []).append(item)
    return [p for p in plans.values() if p.carry or p.judge_again]


def carry_over(plan: RescoringPlan) -> int:
    """Copy the verdicts that still hold onto the current rubric items (marked with the version they
    come from); the number written. Idempotent: an item with a current verdict is left alone."""
    rows = []
    for trajectory_id, items in plan.carry.items():
        for item_pk, old in items.items():
            values = {name: getattr(old, name) for name in CARRIED_FIELDS}
            signals = {**(old.signals or {}), "carried_from_version": old.rubric_item.version}
            rows.append(
                Judgment(
                    trajectory_id=trajectory_id, rubric_item_id=item_pk, judge=plan.judge, signals=signals, **values
                )
            )
    with transaction.atomic():
        Judgment.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def spec_for(config: JudgeConfig) -> JudgeSpec:
    """The JudgeSpec that rebuilds ``config`` (our judge only); RejudgeRefused naming the judge when it
    is not ours or these settings no longer give the same configuration (another persona, say)."""
    if config.origin != JudgeConfig.Origin.OURS:
        raise RejudgeRefused(
            f"{config.name} is not our judge ({config.get_origin_display()}): the site cannot run it, so its "
            "changed items cannot be judged again here; judge the run with our judge instead (manage.py judge)"
        )
    s = config.settings or {}
    spec = JudgeSpec.from_settings(
        provider=s.get("provider") or config.provider,
        model=s.get("model") or config.model,
        base_url=s.get("base_url"),
        temperature=s.get("temperature"),
        max_images=s.get("max_images"),
        prompt_version=s.get("prompt_version") or config.prompt_version,
    )
    try:
        judge = our_judge.build_judge(spec, check_classifier=False)
    except our_judge.JudgingError as exc:
        raise RejudgeRefused(f"{config.name}: {exc}") from exc
    if our_judge.judge_config_name(judge) != config.name:
        raise RejudgeRefused(
            f"{config.name}: this site's settings now give {our_judge.judge_config_name(judge)!r}, another "
            "configuration; re-judge with manage.py judge and the settings of the original"
        )
    return spec


def rejudge_changed_items(plan: RescoringPlan):
    """Carry the verdicts that hold, then queue our judge (paced like any judge run) for the
    trajectories with changed items: it judges only the items with no verdict on the current rubric.
    Returns (verdicts carried, items queued); RejudgeRefused before writing anything when the judge
    cannot run here."""
    spec = spec_for(plan.judge) if plan.judge_again else None
    carried = carry_over(plan)
    if spec is not None:
        our_judge.judge_run(plan.run, spec, trajectory_ids=list(plan.judge_again))
    return carried, plan.to_judge
