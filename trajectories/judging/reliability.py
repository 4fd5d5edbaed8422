"""How far to trust the judge: verdicts kept when a re-judging replaces them, and, per run and per rubric
item across runs, how often re-judging flips a verdict and how well verdicts agree with state checks and
human labels. Every report is a fixed number of queries whatever the number of judgments."""

from collections import defaultdict
from dataclasses import dataclass, field
from typing import cast

from django.db.models import Count, Q

from leaderboard.models import JudgeConfig, RubricItem, Run, Suite, Task
from trajectories.models import HumanLabel, Judgment, JudgmentHistory, StateCheckResult, Trajectory

SUCCESS, FAILURE = "success", "failure"


# ---------------------------------------------------------------- history (a write)


def keep_history(trajectory: Trajectory, config: JudgeConfig, items: list[RubricItem]) -> int:
    """Before ``config``'s verdicts on ``items`` are replaced, copy the current ones to JudgmentHistory,
    so a forced re-judging keeps one Judgment per key and loses nothing. Returns rows written."""
    current = list(
        Judgment.objects.filter(trajectory=trajectory, judge=config, rubric_item__in=items).values(
            "pk", "verdict", "explanation", "cited_steps", "failure_mode", "created_at"
        )
    )
    if not current:
        return 0
    # A judgment replaced before carries its first created_at; its verdict dates from the last replacement.
    last_replaced = dict(
        JudgmentHistory.objects.filter(judgment_id__in=[j["pk"] for j in current])
        .order_by("judgment_id", "replaced_at")
        .values_list("judgment_id", "replaced_at")
    )
    rows = [
        JudgmentHistory(
            judgment_id=j["pk"],
            verdict=j["verdict"],
            explanation=j["explanation"],
            cited_steps=j["cited_steps"],
            failure_mode=j["failure_mode"],
            judged_at=max(j["created_at"], last_replaced.get(j["pk"], j["created_at"])),
        )
        for j in current
    ]
    JudgmentHistory.objects.bulk_create(rows)
    return len(rows)


# ---------------------------------------------------------------- statistics


@dataclass
class Agreement:
    """Judge verdicts against another source (state checks or human labels), success/failure only."""

    # counts[(judge says success, other says success)]
    counts: dict = field(default_factory=lambda: defaultdict(int))

    def add(self, judge_success: bool, other_success: bool) -> None:
        self.counts[(judge_success, other_success)] += 1

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    @property
    def agreed(self) -> int:
        return self.counts[(True, True)] + self.counts[(False, False)]

    @property
    def raw(self) -> float | None:
        return self.agreed / self.n if self.n else None

    @property
    def raw_pct(self) -> float | None:
        return None if self.raw is None else 100 * self.raw

    @property
    def kappa(self) -> float | None:
        return cohen_kappa(
            self.counts[(True, True)],
            self.counts[(True, False)],
            self.counts[(False, True)],
            self.counts[(False, False)],
        )

    def table(self) -> dict:
        c = self.counts
        return {"ss": c[(True, True)], "sf": c[(True, False)], "fs": c[(False, True)], "ff": c[(False, False)]}


def cohen_kappa(ss: int, sf: int, fs: int, ff: int) -> float | None:
    """Cohen's kappa for two raters of success/failure from the 2x2 counts (first letter: the judge,
    second: the other rater). None when there is nothing to compare or chance agreement is total
    (both raters gave one and the same answer every time, so kappa is undefined)."""
    n = ss + sf + fs + ff
    if n == 0:
        return None
    observed = (ss + ff) / n
    judge_success, other_success = (ss + sf) / n, (ss + fs) / n
    chance = judge_success * other_success + (1 - judge_success) * (1 - other_success)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1 - chance)


@dataclass
class Flag:
    """A verdict worth a look: a flip on re-judging or a disagreement with a state check or a human."""

    trajectory_id: int
    judgment_id: int
    label: str
    why: str


@dataclass
class ItemReliability:
    rubric_item_id: int
    task_id: str
    rubric_id: str
    position: int
    version: int
    criterion: str
    has_state_check: bool
    task_position: int = 0
    is_current: bool = True
    judged: int = 0
    rejudged: int = 0  # trajectories where this item has two or more verdicts from the judge's family
    flipped: int = 0  # ... of which not all verdicts were the same
    state: Agreement = field(default_factory=Agreement)
    human: Agreement = field(default_factory=Agreement)
    flags: list[Flag] = field(default_factory=list)  # flips first, then disagreements, in trajectory order

    @property
    def flip_rate(self) -> float | None:
        return self.flipped / self.rejudged if self.rejudged else None

    @property
    def flip_pct(self) -> float | None:
        return None if self.flip_rate is None else 100 * self.flip_rate


def family_key(config: JudgeConfig) -> tuple:
    """Configurations counted as one judge when looking for flips: same origin, provider, model and
    prompt version (temperature, image cap or base URL may differ). A configuration that names no model
    (an imported judge we know nothing about) is a family of its own."""
    if not config.model:
        return ("config", config.pk)
    return (config.origin, config.provider, config.model, config.prompt_version)


def _items_and_verdicts(rows, history) -> tuple[dict[int, ItemReliability], dict[tuple[int, int], list[str]]]:
    """An empty tally per rubric item of ``rows``, and every verdict of each (trajectory, item): those
    re-judgings replaced, then the current one."""
    items: dict[int, ItemReliability] = {}
    verdicts_by_key: dict[tuple[int, int], list[str]] = defaultdict(list)
    for row in rows:
        item_id = row["rubric_item_id"]
        if item_id not in items:
            items[item_id] = ItemReliability(
                rubric_item_id=item_id,
                task_id=row["rubric_item__task__task_id"],
                rubric_id=row["rubric_item__rubric_id"],
                position=row["rubric_item__position"],
                version=row["rubric_item__version"],
                criterion=row["rubric_item__criterion"],
                has_state_check=bool(row["rubric_item__state_check"]),
                task_position=row["rubric_item__task__position"],
                is_current=row["rubric_item__is_current"],
            )
        verdicts_by_key[(row["trajectory_id"], item_id)] += [*history.get(row["pk"], ()), row["verdict"]]
    return items, verdicts_by_key


def _tally(
    rows, history, checks, labels, agree_judges: set[int], label_of
) -> tuple[list[ItemReliability], ItemReliability]:
    """Per rubric item and in total, from the family's judgments ``rows`` (ordered by item, then
    trajectory), the verdicts re-judgings replaced (``history``: judgment id -> verdicts), state checks
    (``checks``: (trajectory id, item id) -> status) and the latest human labels (judgment id -> verdict).
    Flips count every verdict of the family; agreement only the judgments of ``agree_judges``."""
    items, verdicts_by_key = _items_and_verdicts(rows, history)
    total = ItemReliability(0, "", "all items", 0, 0, "", False)

    def note(item, row, why):
        flag = Flag(row["trajectory_id"], row["pk"], label_of(row), why)
        item.flags.append(flag)
        total.flags.append(flag)

    counted = set()
    for row in rows:
        item = items[row["rubric_item_id"]]
        key = (row["trajectory_id"], row["rubric_item_id"])
        if key not in counted:
            counted.add(key)
            decided = [v for v in verdicts_by_key[key] if v in (SUCCESS, FAILURE)]
            if len(decided) >= 2:
                flipped = len(set(decided)) > 1
                for target in (item, total):
                    target.rejudged += 1
                    target.flipped += flipped
                if flipped:
                    note(item, row, "re-judging flipped: " + " → ".join(decided))
        if row["judge_id"] not in agree_judges or row["verdict"] not in (SUCCESS, FAILURE):
            continue
        says_success = row["verdict"] == SUCCESS
        for target in (item, total):
            target.judged += 1
        status = checks.get(key)
        if status in ("passed", "failed"):
            for target in (item, total):
                target.state.add(says_success, status == "passed")
            if says_success != (status == "passed"):
                note(item, row, f"judge says {row['verdict']}, state check {status}")
        label = labels.get(row["pk"])
        if label in (SUCCESS, FAILURE):
            for target in (item, total):
                target.human.add(says_success, label == SUCCESS)
            if label != row["verdict"]:
                note(item, row, f"judge says {row['verdict']}, human label {label}")
    return list(items.values()), total


ROW_FIELDS = (
    "pk",
    "judge_id",
    "verdict",
    "trajectory_id",
    "trajectory__attempt",
    "rubric_item_id",
    "rubric_item__task__task_id",
    "rubric_item__task__position",
    "rubric_item__rubric_id",
    "rubric_item__position",
    "rubric_item__version",
    "rubric_item__criterion",
    "rubric_item__state_check",
    "rubric_item__is_current",
)
ROW_ORDER = (
    "rubric_item__task__position",
    "rubric_item__task__task_id",
    "rubric_item__position",
    "rubric_item__version",
    "trajectory_id",
    "pk",  # ties (two judges of one trajectory) the same on every database: a flip links the first
)


def _gather(judgments, family_ids: set[int], label_judges: set[int], extra_fields=()):
    """The four reads behind a report, whatever its size: the family's judgments in ``judgments``, the
    verdicts re-judgings replaced, state checks of the same trajectories, and the latest human label
    of each judgment by ``label_judges``."""
    scoped = judgments.filter(judge_id__in=family_ids)
    rows = list(scoped.values(*ROW_FIELDS, *extra_fields).order_by(*ROW_ORDER))
    history = defaultdict(list)
    for judgment_id, verdict in (
        JudgmentHistory.objects.filter(judgment__in=scoped.values("pk"))
        .order_by("judgment_id", "judged_at", "pk")
        .values_list("judgment_id", "verdict")
    ):
        history[judgment_id].append(verdict)
    checks = {
        (t, i): status
        for t, i, status in StateCheckResult.objects.filter(
            trajectory__in=scoped.values("trajectory_id"), rubric_item__in=scoped.values("rubric_item_id")
        ).values_list("trajectory_id", "rubric_item_id", "status")
    }
    labels = {}
    for judgment_id, verdict in (
        HumanLabel.objects.filter(judgment__in=scoped.filter(judge_id__in=label_judges).values("pk"))
        .order_by("created", "pk")
        .values_list("judgment_id", "verdict")
    ):
        labels[judgment_id] = verdict  # the latest label wins
    return rows, history, checks, labels


# ---------------------------------------------------------------- one run


@dataclass
class RunReliability:
    run: Run
    judge: JudgeConfig | None
    judges: list  # JudgeConfig rows with judgments on this run, with n_judgments
    family: list[str]  # names of the configurations counted as the same judge for flips
    items: list[ItemReliability]
    total: ItemReliability


def _pick_judge(run: Run, judge_id: int | None):
    judges = list(
        JudgeConfig.objects.filter(judgments__trajectory__run=run)
        .annotate(n_judgments=Count("judgments"))
        .order_by("-n_judgments", "name")
    )
    by_id = {j.pk: j for j in judges}
    if judge_id in by_id:
        return by_id[judge_id], judges
    if run.judge_config_id in by_id:
        return by_id[run.judge_config_id], judges
    ours = [j for j in judges if j.origin == JudgeConfig.Origin.OURS]
    return (ours or judges or cast(list[JudgeConfig | None], [None]))[0], judges  # None: nobody judged it


def run_reliability(run: Run, judge_id: int | None = None) -> RunReliability:
    """Reliability of one judge on one run, per rubric item and in total, in a fixed number of queries.

    Flips: for each (trajectory, rubric item), the verdicts of every configuration of the judge's family
    (family_key: same provider, model and prompt version), current ones and those a re-judging replaced;
    errors do not count. Agreement: the judge's current success/failure against the state check
    (passed/failed; errors and checks not run are left out) and against the latest human label."""
    judge, judges = _pick_judge(run, judge_id)
    family = [j for j in judges if judge is not None and family_key(j) == family_key(judge)]
    agree = {judge.pk} if judge is not None else set()
    rows, history, checks, labels = _gather(Judgment.objects.filter(trajectory__run=run), {j.pk for j in family}, agree)

    def label_of(row):
        return f"{row['rubric_item__task__task_id']}#{row['trajectory__attempt']}"

    items, total = _tally(rows, history, checks, labels, agree, label_of)
    return RunReliability(
        run=run, judge=judge, judges=judges, family=[j.name for j in family], items=items, total=total
    )


# ---------------------------------------------------------------- rubric items across runs


@dataclass
class JudgeFamily:
    """Configurations that count as one judge, with how many judgments they gave in scope."""

    key: tuple
    configs: list
    n_judgments: int

    @property
    def pk(self) -> int:  # the first configuration stands for the family in links
        return self.configs[0].pk

    @property
    def label(self) -> str:
        first = self.configs[0]
        if self.key[0] == "config":
            return first.name
        name = f"{first.get_origin_display()}: {first.provider} {first.model} {first.prompt_version}".strip()
        return name + (f", {len(self.configs)} configurations" if len(self.configs) > 1 else "")


SORTS = {
    # key: (column label, natural direction, value; None sorts last)
    "item": ("Rubric item", "asc", None),
    "judged": ("Verdicts", "desc", lambda i: i.judged),
    "rejudged": ("Re-judged", "desc", lambda i: i.rejudged),
    "flip": ("Flip rate", "desc", lambda i: i.flip_rate),
    "state": ("Agreement", "asc", lambda i: i.state.raw),
    "state_kappa": ("Kappa", "asc", lambda i: i.state.kappa),
    "human": ("Agreement", "asc", lambda i: i.human.raw),
    "human_kappa": ("Kappa", "asc", lambda i: i.human.kappa),
}


@dataclass
class ItemsReliability:
    suite: Suite
    task: Task | None
    family: JudgeFamily | None
    families: list[JudgeFamily]
    items: list[ItemReliability]
    total: ItemReliability
    sort: str
    dir: str


def _natural(item: ItemReliability):
    return (item.task_position, item.task_id, item.position, item.version)


def sort_items(items: list[ItemReliability], sort: str, direction: str) -> tuple[str, str]:
    """Sort in place by a SORTS key; unknown keys fall back to rubric order. Items without a value
    (nothing to compare) go last either way; ties keep rubric order. Returns the (sort, dir) used."""
    if sort not in SORTS:
        sort = "item"
    natural = SORTS[sort][1]
    direction = direction if direction in ("asc", "desc") else natural
    items.sort(key=_natural, reverse=sort == "item" and direction == "desc")
    value = SORTS[sort][2]
    if value is not None:
        known = [i for i in items if value(i) is not None]
        unknown = [i for i in items if value(i) is None]
        known.sort(key=value, reverse=direction == "desc")
        items[:] = known + unknown
    return sort, direction


def items_reliability(
    suite: Suite,
    runs,
    *,
    task: Task | None = None,
    judge_id: int | None = None,
    sort: str = "item",
    direction: str = "",
) -> ItemsReliability:
    """Reliability of one judge per rubric item of a suite (or one task) across every run in ``runs``
    (the runs the viewer may see), in a fixed number of queries.

    The judge is a family of configurations (family_key), the one holding ``judge_id`` or else the one
    with the most judgments, ours first. Flips: per (trajectory, rubric item), the family's verdicts,
    current and replaced. Agreement: every current success/failure of the family against the state
    check and the latest human label of that judgment."""
    judgments = Judgment.objects.filter(trajectory__run__in=runs, rubric_item__task__suite=suite)
    if task is not None:
        judgments = judgments.filter(rubric_item__task=task)
    configs = list(
        JudgeConfig.objects.filter(pk__in=judgments.values("judge_id"))
        .annotate(n_judgments=Count("judgments", filter=Q(judgments__in=judgments)))
        .order_by("name")
    )
    grouped: dict[tuple, JudgeFamily] = {}
    for config in configs:
        family = grouped.setdefault(family_key(config), JudgeFamily(family_key(config), [], 0))
        family.configs.append(config)
        family.n_judgments += config.n_judgments
    families = sorted(
        grouped.values(), key=lambda f: (f.configs[0].origin != JudgeConfig.Origin.OURS, -f.n_judgments, f.label)
    )
    chosen = next((f for f in families if judge_id in {c.pk for c in f.configs}), families[0] if families else None)
    ids = {c.pk for c in chosen.configs} if chosen else set()
    rows, history, checks, labels = _gather(judgments, ids, ids, extra_fields=("trajectory__run__name",))

    def label_of(row):
        return f"{row['trajectory__run__name']} #{row['trajectory__attempt']}"

    items, total = _tally(rows, history, checks, labels, ids, label_of)
    sort, direction = sort_items(items, sort, direction)
    return ItemsReliability(suite, task, chosen, families, items, total, sort, direction)
