"""How far each judge configuration has been checked against people: its agreement with the latest
human label of each judgment it gave, overall, per behavioural type and per app (the task's primary
app), as Cohen's kappa with a bootstrap interval and accuracy with a Wilson interval; the small mark
the leaderboard shows beside each row (labels and kappa, or "not yet checked"). The labelling
queue's order, which makes each label narrow these intervals most, is labelling.informative_order.

Only success/failure verdicts with a success/failure label count; errors are left out. Every report
is a fixed number of queries whatever the number of judgments or labels."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Count, QuerySet

from leaderboard.models import BehaviouralType, JudgeConfig, Run
from leaderboard.scoring.metrics import wilson_interval
from trajectories.judging.labelling import latest_label
from trajectories.judging.reliability import Agreement
from trajectories.models import Judgment

SUCCESS, FAILURE = "success", "failure"
KAPPA_REPLICATES = 2000  # bootstrap replicates of the kappa interval
KAPPA_SEED = 0  # fixed, so a page shows the same interval on every load
# Fewer labels than this, or a side that gave one answer throughout, get no kappa interval: resampling so
# few items (or a constant margin, where every defined replicate is 0) gives an interval far too narrow.
KAPPA_MIN_LABELS = 10
NO_APP = "no primary app"


# ---------------------------------------------------------------- statistics


def kappa_interval(
    ss: int, sf: int, fs: int, ff: int, *, replicates: int = KAPPA_REPLICATES, seed: int = KAPPA_SEED
) -> tuple[float, float] | None:
    """95% percentile bootstrap interval of Cohen's kappa from the 2x2 counts (first letter: the judge,
    second: the human): the labelled items are resampled with replacement (a multinomial draw over the
    four cells) ``replicates`` times. Replicates where kappa is undefined (both raters gave one and the
    same answer every time) are left out. None with fewer than KAPPA_MIN_LABELS labels, when either
    side gave one answer throughout, or when more than half the replicates are undefined."""
    counts = np.array([ss, sf, fs, ff], dtype=float)
    n = int(counts.sum())
    judge_success, human_success = ss + sf, ss + fs
    if n < KAPPA_MIN_LABELS or judge_success in (0, n) or human_success in (0, n):
        return None
    draws = np.random.default_rng(seed).multinomial(n, counts / n, size=replicates).astype(float) / n
    p_ss, p_sf, p_fs, p_ff = draws.T
    observed = p_ss + p_ff
    judge, human = p_ss + p_sf, p_ss + p_fs
    chance = judge * human + (1 - judge) * (1 - human)
    defined = chance < 1 - 1e-12
    if defined.sum() * 2 < replicates:
        return None
    kappas = (observed[defined] - chance[defined]) / (1 - chance[defined])
    low, high = np.percentile(kappas, [2.5, 97.5])
    return float(low), float(high)


@dataclass
class AgreementFigures:
    """One slice (a judge overall, one behavioural type or one app): the 2x2 table of the judge's verdict
    against the human label, kappa with its bootstrap interval and accuracy with its Wilson interval."""

    label: str
    key: str = ""
    table: Agreement = field(default_factory=Agreement)

    @property
    def n(self) -> int:
        return self.table.n

    @property
    def agreed(self) -> int:
        return self.table.agreed

    @property
    def kappa(self) -> float | None:
        return self.table.kappa

    @property
    def kappa_interval(self) -> tuple[float, float] | None:
        c = self.table.counts
        return kappa_interval(c[(True, True)], c[(True, False)], c[(False, True)], c[(False, False)])

    @property
    def accuracy(self) -> float | None:
        return self.table.raw

    @property
    def accuracy_interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.agreed, self.n)

    def as_dict(self) -> dict:
        """The figures as exports and the API give them: proportions to 3 places, kappa to 2."""

        def r(x, places):
            return None if x is None else round(float(x), places)

        ki, ai = self.kappa_interval, self.accuracy_interval
        return {
            "slice": self.key,
            "label": self.label,
            "labels": self.n,
            "agreed": self.agreed,
            **{
                f"judge_{a}_human_{b}": self.table.table()[a[0] + b[0]]
                for a in (SUCCESS, FAILURE)
                for b in (SUCCESS, FAILURE)
            },
            "kappa": r(self.kappa, 2),
            "kappa_low": r(ki[0], 2) if ki else None,
            "kappa_high": r(ki[1], 2) if ki else None,
            "accuracy": r(self.accuracy, 3),
            "accuracy_low": r(ai[0], 3) if ai else None,
            "accuracy_high": r(ai[1], 3) if ai else None,
        }


@dataclass
class JudgeAgreement:
    """One judge configuration's agreement with human labels, overall and per slice."""

    judge: JudgeConfig
    n_judgments: int  # success/failure verdicts on the runs in scope, labelled or not
    overall: AgreementFigures
    by_type: list[AgreementFigures]
    by_app: list[AgreementFigures]

    @property
    def mark(self) -> JudgeMark:
        return JudgeMark(self.overall.n, self.overall.kappa)


@dataclass(frozen=True)
class JudgeMark:
    """What the leaderboard says beside a row about its judge: how many human labels checked it and
    the kappa they give."""

    labels: int
    kappa: float | None

    @property
    def checked(self) -> bool:
        return self.labels > 0

    @property
    def text(self) -> str:
        if not self.labels:
            return "not yet checked"
        kappa = "kappa n/a" if self.kappa is None else f"kappa {self.kappa:.2f}"
        return f"{self.labels} human label{'' if self.labels == 1 else 's'}, {kappa}"


NOT_CHECKED = JudgeMark(0, None)


# ---------------------------------------------------------------- reads


def _labelled_rows(judge_ids, runs: QuerySet[Run]) -> list[dict]:
    """Every success/failure judgment of ``judge_ids`` on ``runs`` whose latest human label says
    success or failure, with its task's behavioural type and primary app: one query."""
    labelled = (
        Judgment.objects.filter(judge_id__in=judge_ids, trajectory__run__in=runs, verdict__in=[SUCCESS, FAILURE])
        .annotate(latest=latest_label())
        .filter(latest__in=[SUCCESS, FAILURE])
        .values(
            "judge_id",
            "verdict",
            "latest",
            "rubric_item__task__behavioural_type",
            "rubric_item__task__primary_app__name",
        )
    )
    return [dict(row) for row in labelled]


def judge_marks(judge_ids, runs: QuerySet[Run]) -> dict[int, JudgeMark]:
    """The leaderboard's mark for each judge in ``judge_ids`` from the labels on ``runs`` (the runs the
    viewer may see), in one query; a judge without labels is NOT_CHECKED."""
    tables: dict[int, Agreement] = defaultdict(Agreement)
    for row in _labelled_rows([j for j in judge_ids if j is not None], runs):
        tables[row["judge_id"]].add(row["verdict"] == SUCCESS, row["latest"] == SUCCESS)
    return {j: JudgeMark(t.n, t.kappa) for j, t in tables.items()}


def judges_with_judgments(runs: QuerySet[Run]) -> QuerySet[JudgeConfig]:
    """The judge configurations that gave a verdict on ``runs``, by name."""
    return JudgeConfig.objects.filter(pk__in=Judgment.objects.filter(trajectory__run__in=runs).values("judge_id"))


def _sliced(rows, key, labels: dict[str, str]) -> list[AgreementFigures]:
    slices: dict[str, AgreementFigures] = {}
    for row in rows:
        value = row[key] or ""
        figures = slices.setdefault(value, AgreementFigures(labels.get(value, value or NO_APP), value))
        figures.table.add(row["verdict"] == SUCCESS, row["latest"] == SUCCESS)
    return sorted(slices.values(), key=lambda f: (-f.n, f.label))


def judge_agreements(runs: QuerySet[Run], judge: JudgeConfig | None = None) -> list[JudgeAgreement]:
    """Agreement with human labels of every judge configuration with verdicts on ``runs`` (or of
    ``judge`` only), overall, per behavioural type and per primary app; judges with the most labels
    first. Three queries whatever the data."""
    judges = [judge] if judge is not None else list(judges_with_judgments(runs).order_by("name"))
    ids = [j.pk for j in judges]
    verdicts = dict.fromkeys(ids, 0)
    for judge_id, n in (
        Judgment.objects.filter(judge_id__in=ids, trajectory__run__in=runs, verdict__in=[SUCCESS, FAILURE])
        .values("judge_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("judge_id", "n")
    ):
        verdicts[judge_id] = n
    by_judge: dict[int, list[dict]] = defaultdict(list)
    for row in _labelled_rows(ids, runs):
        by_judge[row["judge_id"]].append(row)
    types = dict(BehaviouralType.choices)
    report = []
    for j in judges:
        rows = by_judge[j.pk]
        overall = AgreementFigures("all labelled items", "all")
        for row in rows:
            overall.table.add(row["verdict"] == SUCCESS, row["latest"] == SUCCESS)
        report.append(
            JudgeAgreement(
                judge=j,
                n_judgments=verdicts[j.pk],
                overall=overall,
                by_type=_sliced(rows, "rubric_item__task__behavioural_type", types),
                by_app=_sliced(rows, "rubric_item__task__primary_app__name", {}),
            )
        )
    report.sort(key=lambda a: (-a.overall.n, a.judge.name))
    return report


# ---------------------------------------------------------------- exports

EXPORT_COLUMNS = (
    "judge",
    "judge_id",
    "judge_origin",
    "provider",
    "model",
    "prompt_version",
    "judgments",  # success/failure verdicts on the runs in scope, labelled or not
    "slice_kind",  # overall, behavioural_type or app (the task's primary app)
    "slice",
    "label",
    "labels",
    "agreed",
    "judge_success_human_success",
    "judge_success_human_failure",
    "judge_failure_human_success",
    "judge_failure_human_failure",
    "kappa",
    "kappa_low",  # 95% percentile bootstrap (KAPPA_REPLICATES resamples, seed KAPPA_SEED)
    "kappa_high",
    "accuracy",
    "accuracy_low",  # 95% Wilson
    "accuracy_high",
)


def export_rows(report: list[JudgeAgreement]) -> list[dict]:
    """One row per judge and slice (overall first, then behavioural types, then apps), as EXPORT_COLUMNS."""
    out = []
    for a in report:
        judge = {
            "judge": a.judge.name,
            "judge_id": a.judge.pk,
            "judge_origin": a.judge.origin,
            "provider": a.judge.provider,
            "model": a.judge.model,
            "prompt_version": a.judge.prompt_version,
            "judgments": a.n_judgments,
        }
        slices = [("overall", a.overall)] + [("behavioural_type", f) for f in a.by_type]
        for kind, figures in slices + [("app", f) for f in a.by_app]:
            out.append({**judge, "slice_kind": kind, **figures.as_dict()})
    return out
