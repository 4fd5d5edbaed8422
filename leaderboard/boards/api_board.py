"""GET /api/leaderboard: the scored leaderboard with the page's filters, per row its position, each
metric with its interval, the rank interval, n, provenance and badge. Reads the same selector as the
page, so the rows, their order and the collapsing of older published versions are the page's."""

from django.urls import reverse
from ninja import Field, Query, Router, Schema

from leaderboard.boards.api_filters import WeightedRunFilterQuery, query_values
from leaderboard.boards.board import BoardRow, board
from leaderboard.catalog.badges import BADGE_KEYS
from leaderboard.scoring.filters import BoardFilters

router = Router(tags=["leaderboard"])


class IntervalOut(Schema):
    value: float | None
    low: float | None
    high: float | None


class BoundsOut(Schema):
    lower: float  # every unknown task counted as a failure
    upper: float  # every unknown task counted as a success


class BoardRowOut(Schema):
    kind: str = Field(
        description="graded (something judged: ranked), not_judged (a run nothing is judged on yet: no figures, "
        "never counted as graded) or reported (published figures: no intervals)"
    )
    position: int | None = Field(
        description="Place in the current sort, graded and reported rows alike (equal values share one); "
        "null for a row with no value to sort on (nothing judged yet). Reported rows have no interval."
    )
    position_note: str = Field(
        description="Where the place comes from: 'reported by the paper', 'graded by our judge', "
        "'graded by the source's judge', 'self-reported (the author's judge)' or 'not judged yet'."
    )
    run: str
    run_name: str
    model: str
    provenance: str
    badge: str = Field(
        description="How far we vouch for the run's numbers, as the page's badge: one of "
        + ", ".join(BADGE_KEYS)
        + ". verified: run by our harness, or an upload a maintainer reproduced with it; rejudged: uploaded, "
        "every trajectory judged by our judge; judging / awaiting-judge: uploaded, our judge not finished or "
        "not started (never scored from the author's own verdicts); reported: published figures; imported: "
        "an upstream result folder."
    )
    badge_title: str = Field(description="The badge's tooltip: what exactly was verified for this run.")
    tool_surface: str
    judge: str
    judge_origin: str
    judge_human_labels: int | None = Field(
        description="How many human labels checked this row's judge (0: not yet checked; null: no judge)."
    )
    judge_kappa: float | None = Field(
        description="Cohen's kappa of this row's judge against those human labels; null when undefined. "
        "Per judge, type and app with intervals: /judges/?format=json and /api/judges."
    )
    protocol: str = Field(
        description="The judging protocol of the figures: 'paper' (published), our judge's prompt version "
        "('paper-v1': the paper's protocol; 'mypc-judge-1': ours), 'source', 'unrecorded', or '' when not judged."
    )
    attempts: int | None = Field(description="Attempts per task scored (graded rows).")
    perfect_pct: IntervalOut = Field(
        description="Wilson 95% when each task has one attempt, else the task-level bootstrap (perfect_interval)."
    )
    perfect_interval: str  # "wilson", "bootstrap", or "" for reported rows
    perfect_bounds_pct: BoundsOut | None = Field(description="Bounds when some outcomes are not known, else null.")
    perfect_k: int | None
    perfect_n: int | None
    perfect_bootstrap_pct: IntervalOut
    pass_hat_k: int | None = Field(
        description="The k of pass_hat_k_pct: the run's attempts per task; null for one attempt and for reported rows."
    )
    world_variants: dict | None = Field(
        None,
        description="When the run's attempts span world variants: per_variant (each variant's single-attempt "
        "perfect_pct and rubric_pct over the attempts on it) and variant_robust_pct (tasks solved on every variant "
        "tried, every attempt perfect), with its solved and tasks counts; null for a run on one variant.",
    )
    pass_hat_k_pct: IntervalOut = Field(
        description="pass^k (tau-bench): the chance that all k attempts at a task are perfect, C(c,k)/C(n,k) "
        "averaged over tasks, with the stratified bootstrap 95% over tasks; null values for one attempt."
    )
    rubric_pct: IntervalOut  # stratified bootstrap 95%
    rubric_bounds_pct: BoundsOut | None
    efficiency: IntervalOut
    avg_steps: float | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None = Field(description="Dollars the run's trajectories recorded; null when none did.")
    cost_total_usd: float | None = Field(
        description="Recorded dollars, or recorded tokens x the price table for the agent's model; null when unknown."
    )
    cost_basis: str = Field(
        description="'recorded', 'estimated' (shipped, unverified prices), 'priced' (the configured price file) or ''."
    )
    cost_per_task_usd: float | None = Field(description="Total cost / tasks (attempts) the run has a trajectory for.")
    cost_per_perfect_task_usd: float | None = Field(description="Total cost / perfect tasks (attempts); null for none.")
    on_cost_frontier: bool | None = Field(
        description="On the cost-accuracy frontier (cost per task against Perfect %): no run is both cheaper and "
        "better; null without a cost."
    )
    frontier_cost_per_task_usd: float | None = Field(
        description="Off the frontier: the cost per task the run would need to stay under to reach it."
    )
    rank: int | None = Field(
        description="Position among graded rows in the headline order; null for reported rows and for runs "
        "nothing was judged on yet."
    )
    ranked_on: str = Field(
        description="What the rank uses: 'complete results', or the lower bound (unknown outcomes counted as "
        "failures) when some are not known; '' when not ranked."
    )
    rank_low: int | None
    rank_high: int | None
    tier: int | None
    counts: dict[str, int]
    source: str
    version: str = Field(description="Reported rows: the published version (result set) of the figures.")
    superseded_by: str = Field(
        description="Reported rows of an older published version (shown with versions=all): the newer version."
    )
    rubric_revision: int = Field(description="Rubric errata the suite's current rubrics include (0: as imported).")
    rubric_superseded_tasks: int | None = Field(
        description="Graded rows: tasks judged only on a rubric version an erratum replaced (left out, not known, "
        "until re-judged); null for reported rows."
    )
    rubric_outdated: bool = Field(
        description="Scored in part or whole on a superseded rubric (reported rows: once the suite has errata)."
    )
    rubric_version: str = Field(description="Which rubric the row is scored on, in words.")


class BoardOut(Schema):
    suite: str | None
    tasks: int
    bootstrap_replicates: int
    filters: dict[str, str]
    older_versions: int = Field(
        description="Reported rows from older published versions of the paper: left out unless versions=all."
    )
    rubric_errata: int = Field(description="Rubric errata (new task rubric versions) recorded for the suite.")
    rubric_changelog: str | None = Field(description="The suite's rubric changelog page.")
    rows: list[BoardRowOut]


def _bounds(pair) -> dict | None:
    return None if pair is None else {"lower": round(pair[0], 1), "upper": round(pair[1], 1)}


def _row(row: BoardRow) -> dict:
    return {
        "kind": row.kind,
        "position": row.position,
        "position_note": row.position_note,
        "run": row.run_slug,
        "run_name": row.run_name,
        "model": row.model_name,
        "provenance": row.provenance,
        "badge": row.badge.key if row.badge else "",
        "badge_title": row.badge.title if row.badge else "",
        "tool_surface": row.tool_surface,
        "judge": row.judge_name,
        "judge_origin": row.judge_origin,
        "judge_human_labels": row.judge_labels,
        "judge_kappa": None if row.judge_kappa is None else round(row.judge_kappa, 2),
        "protocol": row.protocol,
        "attempts": None if row.reported else row.attempts,
        "perfect_pct": row.perfect.as_dict(),
        "perfect_interval": row.perfect_interval,
        "perfect_bounds_pct": _bounds(row.perfect_bounds),
        "perfect_k": row.perfect_k,
        "perfect_n": row.perfect_n,
        "perfect_bootstrap_pct": row.perfect_boot.as_dict(),
        "pass_hat_k": row.attempts if row.pass_hat_k.known else None,
        "pass_hat_k_pct": row.pass_hat_k.as_dict(),
        "world_variants": row.over_variants.as_dict() if row.over_variants else None,
        "rubric_pct": row.rubric.as_dict(),
        "rubric_bounds_pct": _bounds(row.rubric_bounds),
        "efficiency": row.efficiency.as_dict(),
        "avg_steps": None if row.avg_steps is None else round(row.avg_steps, 1),
        "input_tokens": row.input_tokens,
        "output_tokens": row.output_tokens,
        "cost_usd": row.cost_usd,
        "cost_total_usd": None if row.cost_total is None else round(row.cost_total, 4),
        "cost_basis": row.cost_basis,
        "cost_per_task_usd": None if row.cost_per_task is None else round(row.cost_per_task, 4),
        "cost_per_perfect_task_usd": None if row.cost_per_perfect is None else round(row.cost_per_perfect, 4),
        "on_cost_frontier": row.on_frontier,
        "frontier_cost_per_task_usd": None if row.frontier_cost is None else round(row.frontier_cost, 4),
        "rank": None if row.reported else row.rank,
        "ranked_on": row.ranked_on,
        "rank_low": row.rank_low,
        "rank_high": row.rank_high,
        "tier": row.tier,
        "counts": row.counts,
        "source": row.source,
        "version": row.version,
        "superseded_by": row.superseded_by,
        "rubric_revision": row.rubric_revision,
        "rubric_superseded_tasks": None if row.reported else row.rubric_superseded,
        "rubric_outdated": row.rubric_outdated,
        "rubric_version": row.rubric_version_text,
    }


@router.get(
    "/leaderboard",
    response=BoardOut,
    summary="Scored leaderboard with intervals",
    description=(
        "Query parameters as on /leaderboard/: suite, surface, judge, provenance, type (behavioural type), "
        "bin (apps touched: 1, 2-3, 4-6, 7+), app, weighting (authored|equal), metric (perfect|rubric: "
        "what ranks and tiers use), sort, dir, versions (all: every published version's reported row; by "
        "default a model's published figures appear once, from the paper's newest version). Unknown values are "
        "ignored. Rates are percentages; rows are in the page's order, graded and reported in one list."
    ),
)
def get_leaderboard(
    request,
    query: Query[WeightedRunFilterQuery],
    metric: str = "",
    sort: str = "",
    dir: str = "",
    versions: str = "",
):
    filters = BoardFilters.from_query(query_values(query, metric=metric, sort=sort, dir=dir, versions=versions))
    b = board(request.user, filters)
    return {
        "suite": b.suite.slug if b.suite else None,
        "tasks": b.task_count,
        "bootstrap_replicates": b.B,
        "filters": filters.as_query(),
        "older_versions": b.older_versions,
        "rubric_errata": b.rubric.errata,
        "rubric_changelog": reverse("leaderboard:suite_changelog", args=[b.suite.slug]) if b.suite else None,
        "rows": [_row(r) for r in b.shown],
    }
