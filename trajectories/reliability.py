"""How far to trust the judge: verdicts kept when a re-judging replaces them, and per run and per rubric
item how often re-judging flips a verdict and how well verdicts agree with state checks and human labels."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count

from leaderboard.models import JudgeConfig, RubricItem, Run
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
class ItemReliability:
    rubric_item_id: int
    task_id: str
    rubric_id: str
    position: int
    version: int
    criterion: str
    has_state_check: bool
    judged: int = 0
    rejudged: int = 0  # trajectories where this item has two or more verdicts from the judge's family
    flipped: int = 0  # ... of which not all verdicts were the same
    state: Agreement = field(default_factory=Agreement)
    human: Agreement = field(default_factory=Agreement)
    # (trajectory id, label, why) for the trajectories worth a look: flips and disagreements
    trajectories: list = field(default_factory=list)

    @property
    def flip_rate(self) -> float | None:
        return self.flipped / self.rejudged if self.rejudged else None

    @property
    def flip_pct(self) -> float | None:
        return None if self.flip_rate is None else 100 * self.flip_rate


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
    return (ours or judges or [None])[0], judges


def run_reliability(run: Run, judge_id: int | None = None) -> RunReliability:
    """Reliability of one judge on one run, per rubric item and in total, in a fixed number of queries.

    Flips: for each (trajectory, rubric item), the verdicts of every configuration sharing the judge's
    provider, model and prompt version (current ones and those a re-judging replaced); errors do not count.
    Agreement: the judge's current success/failure against the state check (passed/failed; errors and
    checks not run are left out) and against the latest human label of that judgment."""
    judge, judges = _pick_judge(run, judge_id)
    family = [
        j
        for j in judges
        if judge is not None
        and (j.provider, j.model, j.prompt_version) == (judge.provider, judge.model, judge.prompt_version)
        and j.origin == judge.origin
    ]
    family_ids = {j.pk for j in family}
    rows = list(
        Judgment.objects.filter(trajectory__run=run, judge_id__in=family_ids)
        .values(
            "pk",
            "judge_id",
            "verdict",
            "trajectory_id",
            "trajectory__attempt",
            "trajectory__task__task_id",
            "rubric_item_id",
            "rubric_item__rubric_id",
            "rubric_item__position",
            "rubric_item__version",
            "rubric_item__criterion",
            "rubric_item__state_check",
            "rubric_item__task__position",
        )
        .order_by("rubric_item__task__position", "rubric_item__position", "rubric_item__version", "trajectory_id")
    )
    history = defaultdict(list)
    for judgment_id, verdict in JudgmentHistory.objects.filter(
        judgment__trajectory__run=run, judgment__judge_id__in=family_ids
    ).values_list("judgment_id", "verdict"):
        history[judgment_id].append(verdict)
    checks = {
        (t, i): status
        for t, i, status in StateCheckResult.objects.filter(trajectory__run=run).values_list(
            "trajectory_id", "rubric_item_id", "status"
        )
    }
    labels = {}
    for judgment_id, verdict in (
        HumanLabel.objects.filter(judgment__trajectory__run=run, judgment__judge=judge)
        .order_by("created", "pk")
        .values_list("judgment_id", "verdict")
    ):
        labels[judgment_id] = verdict  # the latest label wins

    items: dict[int, ItemReliability] = {}
    verdicts_by_key = defaultdict(list)
    for row in rows:
        item_id = row["rubric_item_id"]
        if item_id not in items:
            items[item_id] = ItemReliability(
                rubric_item_id=item_id,
                task_id=row["trajectory__task__task_id"],
                rubric_id=row["rubric_item__rubric_id"],
                position=row["rubric_item__position"],
                version=row["rubric_item__version"],
                criterion=row["rubric_item__criterion"],
                has_state_check=bool(row["rubric_item__state_check"]),
            )
        verdicts_by_key[(row["trajectory_id"], item_id)] += [*history[row["pk"]], row["verdict"]]
    total = ItemReliability(0, "", "all items", 0, 0, "", False)

    def note(item, row, why):
        label = f"{row['trajectory__task__task_id']}#{row['trajectory__attempt']}"
        for target in (item, total):
            target.trajectories.append((row["trajectory_id"], label, why))

    flagged = set()
    for row in rows:
        item = items[row["rubric_item_id"]]
        key = (row["trajectory_id"], row["rubric_item_id"])
        if key not in flagged:
            flagged.add(key)
            decided = [v for v in verdicts_by_key[key] if v in (SUCCESS, FAILURE)]
            if len(decided) >= 2:
                flipped = len(set(decided)) > 1
                for target in (item, total):
                    target.rejudged += 1
                    target.flipped += flipped
                if flipped:
                    note(item, row, "re-judging flipped: " + " → ".join(decided))
        if row["judge_id"] != judge.pk or row["verdict"] not in (SUCCESS, FAILURE):
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
    return RunReliability(
        run=run,
        judge=judge,
        judges=judges,
        family=[j.name for j in family],
        items=list(items.values()),
        total=total,
    )
