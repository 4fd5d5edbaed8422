"""Human labels on judged rubric items: recording them in bulk with who and when (services), and the
queue of judgments still unlabelled that the admin's labelling page walks through (a selector).
The reliability pages compare the judge's verdicts with the latest label of each judgment."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Case, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery, Value, When

from leaderboard.models import RubricItem, Run
from leaderboard.scoring.metrics import wilson_interval
from trajectories.judging.reliability import Agreement
from trajectories.models import HumanLabel, Judgment, StateCheckResult, Step

SUCCESS, FAILURE = HumanLabel.Verdict.SUCCESS, HumanLabel.Verdict.FAILURE
AGREE, DISAGREE = "agree", "disagree"
CHOICES = (SUCCESS, FAILURE, AGREE, DISAGREE)
OPPOSITE: dict[str, str] = {SUCCESS: FAILURE, FAILURE: SUCCESS}


def can_label(user) -> bool:
    """Who may record human labels: whoever may add them in the admin."""
    return user.is_active and user.is_staff and user.has_perm("trajectories.add_humanlabel")


class LabelError(ValueError):
    """A label that cannot be recorded as asked; the message says which and why."""


@dataclass
class LabelOutcome:
    recorded: int = 0
    unchanged: int = 0  # the latest label already said the same
    skipped: list[str] = field(default_factory=list)  # why each skipped judgment was not labelled

    def summary(self) -> str:
        parts = [f"{self.recorded} human label{'' if self.recorded == 1 else 's'} recorded"]
        if self.unchanged:
            parts.append(f"{self.unchanged} already labelled the same way")
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        return ", ".join(parts) + "."


def latest_label() -> Subquery:
    """The verdict of a judgment's latest human label, for annotating Judgment querysets."""
    labels = HumanLabel.objects.filter(judgment=OuterRef("pk")).order_by("-created", "-pk")
    return Subquery(labels.values("verdict")[:1])


def record_labels(choices: dict[int, str], labeller, *, note: str = "", notes: dict[int, str] | None = None):
    """Record one human label per judgment id in ``choices``: "success" or "failure" as the maintainer
    saw it, or "agree"/"disagree" with the judge's own verdict. The labeller and the time are stored
    with each label; a judgment whose latest label already says the same gets no duplicate. Judgments
    the judge could not decide (error) cannot be agreed or disagreed with and are skipped, as are
    ids that no longer exist. Raises LabelError for an unknown choice before writing anything."""
    bad = {pk: choice for pk, choice in choices.items() if choice not in CHOICES}
    if bad:
        raise LabelError(f"unknown label choice(s) {bad}; expected one of {', '.join(CHOICES)}")
    notes = notes or {}
    found = {
        row["pk"]: row
        for row in Judgment.objects.filter(pk__in=list(choices))
        .annotate(latest=latest_label())
        .values("pk", "verdict", "latest", "trajectory__task__task_id", "rubric_item__rubric_id")
    }
    outcome, new = LabelOutcome(), []
    for pk, choice in choices.items():
        row = found.get(pk)
        if row is None:
            outcome.skipped.append(f"judgment {pk} no longer exists")
            continue
        verdict = choice
        if choice in (AGREE, DISAGREE):
            if row["verdict"] not in OPPOSITE:
                where = f"{row['trajectory__task__task_id']} {row['rubric_item__rubric_id']}"
                outcome.skipped.append(
                    f"judgment {pk} ({where}): the judge gave no verdict ({row['verdict']}), so there is nothing to "
                    "agree with; label it success or failure"
                )
                continue
            verdict = row["verdict"] if choice == AGREE else OPPOSITE[row["verdict"]]
        if row["latest"] == verdict:
            outcome.unchanged += 1
            continue
        new.append(HumanLabel(judgment_id=pk, verdict=verdict, labeller=labeller, note=notes.get(pk) or note))
    with transaction.atomic():
        HumanLabel.objects.bulk_create(new)
    outcome.recorded = len(new)
    return outcome


# ---------------------------------------------------------------- the labelling queue (a read)

QUEUE_VERDICTS = {"failure": [FAILURE], "success": [SUCCESS], "any": [SUCCESS, FAILURE]}
# "informative": the verdicts whose label narrows the agreement intervals most first (informative_order);
# "run": run by run, task by task
QUEUE_ORDERS = {"informative": "most informative first", "run": "run by run"}
MAX_BATCH = 100


@dataclass
class QueueFilters:
    verdict: str = "failure"
    run: str = ""  # slug
    rubric_item: int | None = None
    judge: int | None = None
    batch: int = 25
    order: str = "informative"

    @classmethod
    def from_query(cls, params) -> "QueueFilters":
        """Unknown or malformed values fall back to the defaults, so a stale link still opens."""

        def number(name):
            try:
                return int(params.get(name, ""))
            except (TypeError, ValueError):
                return None

        verdict = params.get("verdict", "failure")
        order = params.get("order", "informative")
        return cls(
            order=order if order in QUEUE_ORDERS else "informative",
            verdict=verdict if verdict in QUEUE_VERDICTS else "failure",
            run=(params.get("run") or "").strip(),
            rubric_item=number("rubric_item"),
            judge=number("judge"),
            batch=min(MAX_BATCH, max(1, number("batch") or 25)),
        )

    def as_query(self) -> dict:
        query = {"verdict": self.verdict, "batch": self.batch, "order": self.order}
        for name in ("run", "rubric_item", "judge"):
            if getattr(self, name):
                query[name] = getattr(self, name)
        return query


@dataclass
class LabelCard:
    judgment: Judgment
    state_check: str  # passed / failed / error / "" (none)
    steps: list  # the cited steps (at most three, the last ones), else the final step, with thumbnails


@dataclass
class LabelQueue:
    filters: QueueFilters
    cards: list[LabelCard]
    remaining: int  # unlabelled judgments matching the filters, this batch included
    run: Run | None
    rubric_item: RubricItem | None
    runs: list  # runs with judgments, for the filter


def unlabelled(filters: QueueFilters) -> QuerySet[Judgment]:
    judgments = Judgment.objects.filter(verdict__in=QUEUE_VERDICTS[filters.verdict], human_labels__isnull=True)
    if filters.run:
        judgments = judgments.filter(trajectory__run__slug=filters.run)
    if filters.rubric_item:
        judgments = judgments.filter(rubric_item_id=filters.rubric_item)
    if filters.judge:
        judgments = judgments.filter(judge_id=filters.judge)
    return judgments


RUN_ORDER = (
    "trajectory__run__name",
    "trajectory__task__position",
    "trajectory__attempt",
    "rubric_item__position",
    "pk",
)


def label_queue(filters: QueueFilters) -> LabelQueue:
    """The next ``filters.batch`` unlabelled judgments (most informative first, see
    :func:`informative_order`, or run by run), with what a maintainer needs to decide: the
    task, the rubric item, the judge's verdict and explanation, the state check, and thumbnails of the
    steps the judge cited. A fixed number of queries whatever the batch size."""
    judgments = unlabelled(filters)
    remaining = judgments.count()
    if filters.order == "informative":
        judgments = informative_order(judgments)
    else:
        judgments = judgments.order_by(*RUN_ORDER)
    batch = list(
        judgments.select_related("trajectory__run", "trajectory__task", "rubric_item", "judge")[: filters.batch]
    )
    # The cited steps (the last three), or the final step when none is cited, all in one read.
    wanted = {}
    for judgment in batch:
        cited = sorted({i for i in judgment.cited_steps or [] if isinstance(i, int) and i > 0})[-3:]
        wanted[judgment.pk] = cited or ([judgment.trajectory.n_steps] if judgment.trajectory.n_steps else [])
    which = Q(pk__in=[])
    for judgment in batch:
        if wanted[judgment.pk]:
            which |= Q(trajectory_id=judgment.trajectory_id, index__in=wanted[judgment.pk])
    steps = {
        (step.trajectory_id, step.index): step
        for step in Step.objects.filter(which).only("pk", "trajectory_id", "index", "thumbnail", "screenshot")
    }
    checks = {
        (t, i): status
        for t, i, status in StateCheckResult.objects.filter(
            trajectory_id__in={j.trajectory_id for j in batch}
        ).values_list("trajectory_id", "rubric_item_id", "status")
    }
    cards = [
        LabelCard(
            judgment,
            checks.get((judgment.trajectory_id, judgment.rubric_item_id), ""),
            [steps[(judgment.trajectory_id, i)] for i in wanted[judgment.pk] if (judgment.trajectory_id, i) in steps],
        )
        for judgment in batch
    ]
    item = (
        RubricItem.objects.select_related("task").filter(pk=filters.rubric_item).first()
        if filters.rubric_item
        else None
    )
    runs = list(Run.objects.filter(pk__in=Judgment.objects.values("trajectory__run")).order_by("name"))
    run = next((r for r in runs if r.slug == filters.run), None)
    return LabelQueue(filters, cards, remaining, run, item, runs)


# ---------------------------------------------------------------- the queue's order: most informative first


def informative_order(judgments: QuerySet[Judgment]) -> QuerySet[Judgment]:
    """``judgments`` (unlabelled ones) ordered so each label narrows the agreement intervals most:

    1. first the verdicts that disagree with their state check (the judge said success and the check
       failed, or the other way): the likeliest judge errors, so the likeliest to move kappa;
    2. then by the (judge, behavioural type) cell whose accuracy interval (Wilson, 95%) is widest now:
       a cell with no label (width 1) before one with few, and among equal counts the one whose
       agreement is nearest one half. A label shrinks a wide interval most;
    3. then in the usual order (run, task, attempt, rubric item).

    Two queries: the labelled cells' counts, then the ordered judgments (the cells are a CASE)."""

    def check_says(status: str) -> Exists:
        return Exists(
            StateCheckResult.objects.filter(
                trajectory_id=OuterRef("trajectory_id"), rubric_item_id=OuterRef("rubric_item_id"), status=status
            )
        )

    cells: dict[tuple[int, str], Agreement] = defaultdict(Agreement)
    judge_ids = judgments.values("judge_id")
    for row in (
        Judgment.objects.filter(judge_id__in=judge_ids, verdict__in=[SUCCESS, FAILURE])
        .annotate(latest=latest_label())
        .filter(latest__in=[SUCCESS, FAILURE])
        .values("judge_id", "verdict", "latest", "rubric_item__task__behavioural_type")
    ):
        cells[(row["judge_id"], row["rubric_item__task__behavioural_type"])].add(
            row["verdict"] == SUCCESS, row["latest"] == SUCCESS
        )
    ranked = sorted(cells.items(), key=lambda kv: -interval_width(kv[1].agreed, kv[1].n))
    # labelled cells rank 1.. by width; a cell with no label at all ranks 0 (widest of all)
    whens = [
        When(judge_id=judge_id, rubric_item__task__behavioural_type=kind, then=Value(rank))
        for rank, ((judge_id, kind), _) in enumerate(ranked, start=1)
    ]
    return judgments.annotate(
        disagrees_with_check=Case(
            When(Q(verdict=SUCCESS) & check_says("failed"), then=Value(0)),
            When(Q(verdict=FAILURE) & check_says("passed"), then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        ),
        cell_rank=Case(*whens, default=Value(0), output_field=IntegerField()) if whens else Value(0),
    ).order_by("disagrees_with_check", "cell_rank", *RUN_ORDER)


def interval_width(agreed: int, n: int) -> float:
    """Width of the 95% Wilson interval of ``agreed`` out of ``n`` (1.0 with no label)."""
    interval = wilson_interval(agreed, n)
    return 1.0 if interval is None else interval[1] - interval[0]
