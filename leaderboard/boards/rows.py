"""The leaderboard's rows: a figure with its interval (:class:`Interval`), one row of the board
(:class:`BoardRow`: a graded run scored by one judge, or a run's published figures) and the board as
the page, the exports and the API read it (:class:`Board`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from harness.judge.prompt import OURS, PAPER
from leaderboard.catalog.badges import Badge
from leaderboard.catalog.errata import SuiteRubricRevision
from leaderboard.models import Suite
from leaderboard.scoring.filters import BoardFilters
from leaderboard.scoring.outcomes import FAILURE_STATUSES, UNKNOWN_STATUSES
from leaderboard.scoring.variants import VariantFigures

B = 1000  # bootstrap replicates (statistics.md: B = 1,000 for final evaluations)


@dataclass
class Interval:
    """A point estimate with its 95% interval, in display units (percent for rates)."""

    value: float | None
    low: float | None = None
    high: float | None = None
    places: int = 1

    @property
    def known(self) -> bool:
        return self.value is not None

    @property
    def has_interval(self) -> bool:
        return self.low is not None and self.high is not None

    def text(self) -> str:
        if self.value is None:
            return "n/a"
        v = f"{self.value:.{self.places}f}"
        if not self.has_interval:
            return v
        return f"{v} [{self.low:.{self.places}f}, {self.high:.{self.places}f}]"

    __str__ = text

    def bar(self, scale: float = 100.0) -> dict[str, float] | None:
        """Left offset and width (percent of the bar) of the interval, and the point's offset."""
        if not self.has_interval or self.value is None:
            return None
        clamp = lambda x: max(0.0, min(100.0, x / scale * 100))  # noqa: E731
        return {
            "left": round(clamp(self.low), 1),
            "width": round(max(clamp(self.high) - clamp(self.low), 0.5), 1),
            "point": round(clamp(self.value), 1),
        }

    def as_dict(self) -> dict:
        r = lambda x: None if x is None else round(x, self.places)  # noqa: E731
        return {"value": r(self.value), "low": r(self.low), "high": r(self.high)}


def num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


@dataclass
class BoardRow:
    """One graded run scored by one judge, or one reported run (``reported`` True, no intervals)."""

    reported: bool
    run_slug: str
    run_name: str
    model_name: str
    model_slug: str
    provenance: str
    provenance_label: str
    tool_surface: str
    publication: str
    judge_name: str = ""
    judge_origin: str = ""
    judge_protocol: str = ""  # the judge's prompt version, e.g. "paper-v1"
    judge_id: int | None = None
    # how far people have checked this row's judge (trajectories/judging/agreement.py): human labels and
    # kappa; None for a row nothing judged (and for reported rows)
    judge_labels: int | None = None
    judge_kappa: float | None = None
    perfect: Interval = field(default_factory=lambda: Interval(None))  # Wilson 95% (1 attempt), else bootstrap
    perfect_interval: str = ""  # "wilson" (one attempt per task) or "bootstrap" (repeated attempts)
    attempts: int = 1  # attempts per task scored
    perfect_k: int | None = None
    perfect_n: int | None = None
    perfect_boot: Interval = field(default_factory=lambda: Interval(None))  # stratified bootstrap
    # pass^k at k = the run's attempts (every attempt perfect; tau-bench's estimator), bootstrap 95%;
    # unknown (None) for a run with one attempt per task
    pass_hat_k: Interval = field(default_factory=lambda: Interval(None))
    # a run whose attempts span world variants: per-variant single-attempt figures and the variant-robust share
    over_variants: VariantFigures | None = None
    rubric: Interval = field(default_factory=lambda: Interval(None))
    efficiency: Interval = field(default_factory=lambda: Interval(None, places=2))
    avg_steps: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None  # dollars the trajectories recorded
    # cost (leaderboard/scoring/cost.py): total USD and its basis ("recorded", "estimated" from the
    # shipped prices, "priced" from the price file, "" unknown), per task run and per perfect task
    cost_total: float | None = None
    cost_basis: str = ""
    cost_per_task: float | None = None
    cost_per_perfect: float | None = None
    # the cost-accuracy frontier (cost per task against Perfect %): None when the row has no cost
    on_frontier: bool | None = None
    frontier_cost: float | None = None  # off the frontier: the cost per task it would need to stay under
    frontier_rival: str = ""  # ... set by this run (the cheapest on the frontier scoring at least as well)
    counts: dict[str, int] = field(default_factory=dict)
    rank: int | None = None  # graded rows: position among graded rows in the headline order
    position: int | None = None  # every shown row: its place in the current sort (None: no value to sort on)
    rank_low: int | None = None
    rank_high: int | None = None
    tier: int | None = None  # tied group on the rank metric (1 = top)
    source: str = ""  # reported runs: where the figures come from
    version: str = ""  # reported runs: the published version (result set) the figures are from
    version_order: int | None = None  # reported runs: 0 = the paper's newest version, then older ones
    superseded_by: str = ""  # reported runs: the version whose row is shown for this model instead, if any
    superseded_note: str = ""  # why: "older version", or "not published in this version" (a slice it lacks)
    notes: list[str] = field(default_factory=list)
    # Proactivity, Completeness and turns when the run recorded sessions (boards.session_figures; set by the page)
    sessions: Any = None
    badge: Badge | None = None  # verified / re-judged / reported / imported
    # bounds in percent with every unknown cell a failure / a success (None when nothing is unknown)
    perfect_bounds: tuple[float, float] | None = None
    rubric_bounds: tuple[float, float] | None = None
    # what the rank uses: the lower bound on the rank metric (the point estimate when complete);
    # None for a row not ranked (nothing judged yet)
    rank_value: float | None = None
    ranked_on: str = ""  # "complete results", "lower bound (unknowns as failures)" or "" when not ranked
    # rubric errata (leaderboard/catalog/errata.py): the errata the suite's current rubrics include (0: as
    # first imported), and the tasks this row judged only on a superseded version (left out until re-judged)
    rubric_revision: int = 0
    rubric_superseded: int = 0

    @property
    def judge_check_text(self) -> str:
        """The judge's mark in words: "12 human labels, kappa 0.71", "not yet checked", "" (no judge)."""
        if self.judge_labels is None:
            return ""
        if not self.judge_labels:
            return "not yet checked"
        kappa = "kappa n/a" if self.judge_kappa is None else f"kappa {self.judge_kappa:.2f}"
        return f"{self.judge_labels} human label{'' if self.judge_labels == 1 else 's'}, {kappa}"

    @property
    def unknown_count(self) -> int:
        return sum(self.counts.get(s, 0) for s in UNKNOWN_STATUSES)

    @property
    def protocol(self) -> str:
        """Which judging protocol the figures come from, as exports name it: "paper" (published
        figures), a prompt version of our judge ("paper-v1", "mypc-judge-1"), "source" (the source's
        own judge), "unrecorded", or "" when nothing was judged."""
        if self.reported:
            return "paper"
        if not self.judge_name:
            return ""
        if self.judge_protocol:
            return self.judge_protocol
        return "unrecorded" if self.judge_origin == "ours" else "source"

    @property
    def protocol_text(self) -> str:
        """The protocol in plain words, so no one compares across protocols without knowing."""
        key = self.protocol
        return {
            "paper": "the paper's protocol, as published",
            PAPER: f"the paper's protocol ({PAPER})",
            OURS: f"our protocol ({OURS})",
            "source": "the source's own protocol",
            "unrecorded": "protocol not recorded",
            "": "",
        }.get(key, f"protocol {key}")

    @property
    def rubric_outdated(self) -> bool:
        """Scored, in part or whole, on a rubric an erratum has since replaced: published figures once the
        suite has any erratum, a graded row with tasks judged only on an older version."""
        return bool(self.rubric_revision) if self.reported else self.rubric_superseded > 0

    @property
    def rubric_version_text(self) -> str:
        """Which rubric the row is scored on, in plain words."""
        n, r = self.rubric_superseded, self.rubric_revision
        if self.reported:
            return f"scored on the rubrics as published, before {r} errat{'um' if r == 1 else 'a'}" if r else ""
        if n:
            return (
                f"{n} task{'s' if n != 1 else ''} judged on a superseded rubric: left out (not known) until re-judged"
            )
        if not self.judge_name:
            return ""
        return f"current rubrics (revision {r})" if r else "current rubrics"

    @property
    def ranked(self) -> bool:
        return self.rank_value is not None

    @property
    def not_run_count(self) -> int:
        """Tasks (attempt cells) of the suite the run has no trajectory for: never launched or uploaded.
        They count as failures on the leaderboard; the run page says so apart from the tasks it ran."""
        return 0 if self.reported else self.counts.get("missing", 0)

    @property
    def run_count(self) -> int:
        """Tasks (attempt cells) the run has a trajectory for: what a smoke run of 3 tasks launched."""
        return 0 if self.reported else sum(self.counts.values()) - self.not_run_count

    @property
    def run_known(self) -> int:
        """Of those, the ones whose outcome is known (the perfect rate's counts without the tasks not run)."""
        return max(0, (self.perfect_n or 0) - self.not_run_count)

    @property
    def kind(self) -> str:
        """ "reported" (published figures), "graded" (something judged: ranked) or "not_judged" (a run
        nothing is judged on yet, e.g. an upload published before our judge ran: shown, never graded)."""
        if self.reported:
            return "reported"
        return "graded" if self.ranked else "not_judged"

    @property
    def position_note(self) -> str:
        """Where a row's place comes from, said beside it: the paper's figures, or whose judge graded it."""
        if self.reported:
            return "reported by the paper"
        if not self.ranked:
            return "not judged yet"
        return {
            "imported": "graded by the source's judge",
            "self_reported": "self-reported (the author's judge)",
        }.get(self.judge_origin, "graded by our judge")

    @property
    def position_text(self) -> str:
        """The row's place as shown: "3" for a graded row (its rank interval is shown beside it),
        "3 (no interval)" for published figures, "" when the row has no value to be placed by."""
        if self.position is None:
            return ""
        return f"{self.position} (no interval)" if self.reported else str(self.position)

    @property
    def failure_count(self) -> int:
        return sum(self.counts.get(s, 0) for s in FAILURE_STATUSES)

    @property
    def tokens(self) -> int | None:
        """Input + output tokens, None when the run recorded none."""
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    @property
    def tokens_text(self) -> str:
        return "" if self.tokens is None else f"{self.tokens:,}"

    @property
    def frontier_text(self) -> str:
        """Where the row stands on the cost frontier, in words ("" without a cost)."""
        if self.on_frontier is None:
            return ""
        if self.on_frontier:
            return "on the cost frontier"
        return f"to reach the frontier: under ${self.frontier_cost:.2f} per task (the cost of {self.frontier_rival})"

    @property
    def rank_text(self) -> str:
        if self.rank_low is None:
            return ""
        if self.rank_low == self.rank_high:
            return str(self.rank_low)
        return f"{self.rank_low}–{self.rank_high}"

    @property
    def compare_key(self) -> str:
        return self.run_slug


@dataclass
class Board:
    filters: BoardFilters
    suite: Suite | None
    rows: list[BoardRow]  # graded rows, in the current sort
    reported_rows: list[BoardRow]  # reported rows shown (by default the newest version per model)
    task_count: int  # tasks in the current slice
    options: dict
    B: int = B
    shown: list[BoardRow] = field(default_factory=list)  # graded and reported in one list, positioned
    older_versions: int = 0  # reported rows of older published versions (hidden unless versions=all)
    rubric: SuiteRubricRevision = field(default_factory=lambda: SuiteRubricRevision(0, 0, None))

    @property
    def graded_rows(self) -> list[BoardRow]:
        """Rows something is judged on; rows of runs nothing is judged on yet never count as graded."""
        return [row for row in self.rows if row.kind == "graded"]

    @property
    def not_judged_rows(self) -> list[BoardRow]:
        return [row for row in self.rows if row.kind == "not_judged"]
