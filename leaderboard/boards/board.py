"""Selectors of the scored leaderboard: filters from query strings, rows with every metric and its
interval, rank intervals and tied groups, reported runs beside them (a model's published figures once,
from the paper's newest version, unless every version is asked for), and every shown row's position in
the current sort. The board page, its CSV/JSON export and GET /api/leaderboard all read :func:`board`;
the two-run comparison builds its rows here too (leaderboard/boards/comparison.py)."""

from __future__ import annotations

from typing import cast

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Prefetch, Q
from django.utils.http import urlencode

from leaderboard.boards import session_figures
from leaderboard.boards.rows import B, Board, BoardRow, Interval, num
from leaderboard.catalog.badges import run_badge
from leaderboard.catalog.errata import suite_rubric_revision
from leaderboard.catalog.selectors import sees_unpublished, visible_runs
from leaderboard.models import BehaviouralType, ReportedFigure, Run, Suite
from leaderboard.scoring import bootstrap, consistency, cost, metrics
from leaderboard.scoring.data_version import cache_version
from leaderboard.scoring.filters import BoardFilters, filtered_runs, run_filter_options, scored_slice
from leaderboard.scoring.outcomes import (
    GRADED,
    STALE,
    STATUSES,
    RunOutcomes,
)
from leaderboard.scoring.variants import run_variant_figures
from trajectories.judging import agreement
from trajectories.recording import contamination

SEED = 0
TYPE_LABELS = dict(BehaviouralType.choices)
GRADED_PROVENANCES = [p for p in Run.Provenance.values if p != Run.Provenance.REPORTED]


# ------------------------------------------------------------------------------ selector


def _default_suite() -> Suite | None:
    """The suite with the most published runs, graded or reported (a benchmark suite before a demo
    one on a tie), so the first board a visitor sees is the fullest one; else the first suite."""
    busiest = (
        Suite.objects.filter(runs__publication="published")
        .annotate(n_runs=Count("runs", distinct=True))
        .order_by("-n_runs", "is_demo", "name", "-version")
        .first()
    )
    return busiest or Suite.objects.order_by("is_demo", "name", "-version").first()


def board(user, filters: BoardFilters, version: str | None = None) -> Board:
    """The leaderboard for ``filters`` as ``user`` may see it (published runs; staff: all).
    Constant query count; the scored rows are cached per data version (``version``, read here
    when not given) and filter state."""
    suite = Suite.objects.filter(slug=filters.suite).first() if filters.suite else _default_suite()
    options = run_filter_options()  # shared with the analysis pages
    if suite is None:
        return Board(filters, None, [], [], 0, options)

    candidates = filtered_runs(user, filters, suite).select_related("model", "suite")
    runs = list(candidates.prefetch_related(_reported_figures(filters)))
    graded = [r for r in runs if not r.is_reported]
    reported = [r for r in runs if r.is_reported]

    rows, task_count = _graded_rows(user, suite, graded, filters, version)
    mark_judge_checks(user, rows)
    place_on_cost_frontier(rows)
    # published figures are per type or per bin, over every app, for the source's judge
    unanswerable = filters.judge or filters.app or (filters.type and filters.bin)
    reported_rows = [] if unanswerable else [_reported_row(r, filters) for r in reported]
    older = _mark_superseded(reported_rows)
    if not filters.all_versions:
        reported_rows = [r for r in reported_rows if not r.superseded_by]
    revision = suite_rubric_revision(suite)
    for row in rows + reported_rows:
        row.rubric_revision = revision.errata
        row.rubric_superseded = 0 if row.reported else row.counts.get(STALE, 0)
    _sort(rows, filters)
    shown = merged_rows(rows, reported_rows, filters)
    return Board(
        filters, suite, rows, reported_rows, task_count, options, shown=shown, older_versions=older, rubric=revision
    )


def _reported_figures(filters: BoardFilters) -> Prefetch:
    q = Q(slice_kind="overall")
    if filters.type:
        q = Q(slice_kind="task_type", slice_value=filters.type)
    elif filters.bin:
        q = Q(slice_kind="apps_touched", slice_value=filters.bin)
    return Prefetch("reported_figures", queryset=ReportedFigure.objects.filter(q), to_attr="board_figures")


def _reported_row(run: Run, filters: BoardFilters) -> BoardRow:
    row = base_row(run, reported=True)
    for fig in run.board_figures:  # type: ignore[attr-defined]  # Prefetch(to_attr=) of _reported_figures
        if fig.metric == "perfect":
            row.perfect = Interval(fig.value)
        elif fig.metric == "rubric":
            row.rubric = Interval(fig.value)
        elif fig.metric == "avg_steps":
            row.avg_steps = fig.value
        elif fig.metric == "traj_eff":
            row.efficiency = Interval(fig.value, places=2)
        row.source = fig.source
    row.source = row.source or run.public_source
    meta = run.metadata or {}
    row.version = meta.get("result_set_label") or row.source
    position = meta.get("result_set_position")
    row.version_order = position if isinstance(position, int) else None
    return row


def _mark_superseded(rows: list[BoardRow]) -> int:
    """Mark each reported row that a newer published version of the paper has figures for the same
    model (the paper's agent for it) with that version; returns how many are marked. Versions are
    ordered by the result set's place in leaderboard/data/paper_results.json (newest first); a row
    whose version's place is not recorded is never marked, since nothing says which is newer. In a
    slice (a behavioural type, an apps-touched bin) the newest version with a figure for it wins: a
    version that did not publish that slice does not hide one that did."""

    def has_figures(r: BoardRow) -> bool:
        return r.perfect.value is not None or r.rubric.value is not None

    newest: dict[str, BoardRow] = {}
    dated = [r for r in rows if r.version_order is not None]
    for r in sorted(dated, key=lambda r: (not has_figures(r), r.version_order or 0)):
        newest.setdefault(r.model_slug, r)
    marked = 0
    for r in dated:
        best = newest[r.model_slug]
        if best is not r:
            r.superseded_by = best.version
            older = (r.version_order or 0) > (best.version_order or 0)
            r.superseded_note = "older version" if older else "not published in this version"
            marked += 1
    return marked


def base_row(run: Run, reported: bool) -> BoardRow:
    return BoardRow(
        reported=reported,
        run_slug=run.slug,
        run_name=run.name,
        model_name=run.model.name,
        model_slug=run.model.slug,
        provenance=run.provenance,
        provenance_label=run.get_provenance_display(),
        tool_surface=run.tool_surface,
        publication=run.publication,
        badge=run_badge(run.provenance, run.metadata, agent_type=run.agent_type, demo=run.suite.is_demo),
    )


def _graded_rows(user, suite, runs: list[Run], filters: BoardFilters, version) -> tuple[list[BoardRow], int]:
    if not runs:
        return [], suite.tasks.count()
    version = version or cache_version()
    outcomes = scored_slice(runs, filters, version, every_judge=True)  # a row per (run, judge)
    task_count = outcomes[0].n_tasks if outcomes else suite.tasks.count()
    by_slug = {r.slug: r for r in runs}
    # the scored rows depend on the data, the slice and who looks (sorting and the published versions
    # shown happen after)
    state = urlencode(sorted(filters.as_query(sort="", dir="", versions="").items()))
    key = f"board:{version}:{sees_unpublished(user)}:{suite.pk}:{state}"
    stats = cache.get(key)
    if stats is None:
        stats = run_statistics(outcomes, filters.metric)
        cache.set(key, stats, 3600)
    rows = []
    for o, s in zip(outcomes, stats, strict=True):
        row = base_row(by_slug[o.run_slug], reported=False)
        row.judge_name, row.judge_origin, row.judge_protocol = o.judge_name, o.judge_origin, o.judge_protocol
        row.judge_id = o.judge_id
        for name, value in s.items():
            setattr(row, name, value)
        row.counts = o.counts()
        row.input_tokens, row.output_tokens, row.cost_usd = o.input_tokens, o.output_tokens, o.cost_usd
        api_model = by_slug[o.run_slug].model.api_model
        row.cost_total, row.cost_basis = cost.run_cost(o.cost_usd, o.input_tokens, o.output_tokens, api_model)
        row.cost_per_task = cost.per(row.cost_total, row.run_count)
        row.cost_per_perfect = cost.per(row.cost_total, row.perfect_k or 0) if row.ranked else None
        row.over_variants = run_variant_figures(o)
        row.notes = list(o.notes)
        if o.from_imported_score:
            row.notes.append(f"{o.from_imported_score} tasks scored from the source's task score")
        rows.append(row)
    return rows, task_count


def mark_judge_checks(user, rows: list[BoardRow]) -> None:
    """Beside each row judged by someone, how far people have checked that judge: its human labels and
    kappa on the runs ``user`` may see (one query, whatever the rows)."""
    judged = [r for r in rows if r.judge_id is not None]
    if not judged:
        return
    marks = agreement.judge_marks({r.judge_id for r in judged}, visible_runs(user))
    for row in judged:
        mark = marks.get(cast(int, row.judge_id), agreement.NOT_CHECKED)
        row.judge_labels, row.judge_kappa = mark.labels, mark.kappa


def place_on_cost_frontier(rows: list[BoardRow]) -> None:
    """Mark every graded row with a cost per task and a Perfect % on or off the cost-accuracy frontier,
    and, off it, the cost per task it would need to stay under and which run sets it."""
    priced = [r for r in rows if r.cost_per_task is not None and r.perfect.value is not None]
    costs = [cast(float, r.cost_per_task) for r in priced]
    scores = [cast(float, r.perfect.value) for r in priced]
    for r, gap in zip(priced, cost.frontier_gaps(costs, scores), strict=True):
        r.on_frontier = gap is None
        if gap is not None:
            rival = priced[gap.rival]
            r.frontier_cost = gap.needed_cost
            r.frontier_rival = rival.run_name + (
                f" judged by {rival.judge_name}" if rival.run_slug == r.run_slug else ""
            )


RANKED_ON_COMPLETE = "complete results"
RANKED_ON_LOWER_BOUND = "lower bound (unknown outcomes counted as failures)"


def run_statistics(outcomes: list[RunOutcomes], rank_metric: str, with_pass_hat_k: bool = True) -> list[dict]:
    """Every interval of every row: for the perfect rate Wilson when each task has one attempt, else
    the task-level bootstrap; paired stratified bootstrap (B, strata = behavioural type, each run
    over its own attempts) for perfect, rubric and efficiency; bounds with the unknown cells as
    failures / successes; pass^k at k = each run's attempts (runs with several attempts; the same task
    draws, leaderboard/scoring/consistency.py), unless ``with_pass_hat_k`` is off. Ranks, rank
    intervals and tied groups use the lower bound (unknowns as failures), so an unknown never lifts
    a run; a row nothing was judged on is not ranked."""
    if not outcomes:
        return []
    reps = bootstrap.bootstrap_many(outcomes, ("perfect", "score", "efficiency"), B=B, seed=SEED)
    ivs = {m: _percentiles(r) for m, r in reps.items()}
    name = "perfect" if rank_metric == "perfect" else "score"
    ranked = [i for i, o in enumerate(outcomes) if o.graded_count > 0]
    ranks, tiers = {}, {}
    if ranked:
        pessimistic = bootstrap.bootstrap_many([outcomes[i].pessimistic() for i in ranked], (name,), B=B, seed=SEED)
        rank_reps = pessimistic[name]
        ranks = dict(zip(ranked, metrics.rank_intervals(rank_reps), strict=True))
        tiers = dict(zip(ranked, metrics.tied_groups(_percentiles(rank_reps)), strict=True))
    pass_hat = consistency.curves(outcomes, B=B, seed=SEED, every_k=False) if with_pass_hat_k else []
    out = []
    for i, o in enumerate(outcomes):
        f = o.figures()
        k, n = f.perfect, f.known
        judged = i in ranks
        if o.attempts == 1:
            perfect = Interval(percent(f.perfect_rate), *_pct_pair(metrics.wilson_interval(k, n) or (None, None)))
        else:  # attempts of one task are not independent: Wilson over cells would be too narrow
            perfect = Interval(percent(f.perfect_rate), *_pct_pair(ivs["perfect"][i]))
        lower = (f.perfect_bounds if name == "perfect" else f.score_bounds) or (None, None)
        row = {
            "perfect": perfect,
            "perfect_interval": "wilson" if o.attempts == 1 else "bootstrap",
            "attempts": o.attempts,
            "perfect_k": k,
            "perfect_n": n,
            "perfect_boot": Interval(percent(f.perfect_rate), *_pct_pair(ivs["perfect"][i])),
            "pass_hat_k": _pass_hat_interval(pass_hat[i][-1]) if pass_hat and o.attempts > 1 else Interval(None),
            "rubric": Interval(percent(f.mean_score), *_pct_pair(ivs["score"][i])),
            "efficiency": Interval(num(o.efficiency()), *_pair(ivs["efficiency"][i]), places=2),
            "avg_steps": num(o.avg_steps()),
            "perfect_bounds": _pct_pair(f.perfect_bounds) if f.unknown else None,
            "rubric_bounds": _pct_pair(f.score_bounds) if f.unknown else None,
            "rank_value": percent(lower[0]) if judged else None,
            "ranked_on": (RANKED_ON_COMPLETE if f.complete else RANKED_ON_LOWER_BOUND) if judged else "",
            "rank_low": int(ranks[i][0]) if judged else None,
            "rank_high": int(ranks[i][1]) if judged else None,
            "tier": int(tiers[i]) if judged else None,
        }
        if not judged:  # nothing judged yet: no figure to show, nothing to rank
            row["perfect"] = row["perfect_boot"] = row["rubric"] = row["pass_hat_k"] = Interval(None)
            row["efficiency"] = Interval(None, places=2)
            row["perfect_bounds"] = row["rubric_bounds"] = None
        out.append(row)
    return out


def _pass_hat_interval(fig: consistency.KFigure) -> Interval:
    return Interval(fig.pass_hat, fig.pass_hat_low, fig.pass_hat_high)


def _percentiles(reps: np.ndarray) -> np.ndarray:
    out = np.full((reps.shape[0], 2), np.nan)
    for i, row in enumerate(reps):
        if not np.isnan(row).all():
            out[i] = np.quantile(row[~np.isnan(row)], [0.025, 0.975])
    return out


def percent(x) -> float | None:
    x = num(x)
    return None if x is None else x * 100


def _pct_pair(pair) -> tuple[float | None, float | None]:
    return percent(pair[0]), percent(pair[1])


def _pair(pair) -> tuple[float | None, float | None]:
    return num(pair[0]), num(pair[1])


def sort_value(row: BoardRow, key: str):
    if key == "rank":
        # rank intervals, then the headline position among rows with the same interval
        return None if row.rank_low is None else (row.rank_low, row.rank_high, row.rank)
    if key == "perfect":
        return row.perfect.value
    if key == "rubric":
        return row.rubric.value
    if key == "pass_hat_k":
        return row.pass_hat_k.value
    if key == "efficiency":
        return row.efficiency.value
    if key == "steps":
        return row.avg_steps
    if key == "tokens":
        return row.tokens
    if key == "cost":
        return row.cost_per_task
    if key == "graded":
        return row.counts.get(GRADED)
    return row.run_name.lower()


ASCENDING_FIRST = {"rank", "steps", "tokens", "cost", "name"}


def _sort(rows: list[BoardRow], filters: BoardFilters) -> None:
    """Sort in place; rows with no value go last whatever the direction. Ranks follow the headline
    order (the rank metric, best first) and do not change with the sort."""
    natural = "asc" if filters.sort in ASCENDING_FIRST else "desc"
    desc = (filters.dir or natural) == "desc"

    def headline(r: BoardRow):
        return (-cast(float, r.rank_value), r.run_name.lower())  # ranked rows have a rank value

    for i, r in enumerate(sorted([r for r in rows if r.ranked], key=headline), start=1):
        r.rank = i
    known = [r for r in rows if sort_value(r, filters.sort) is not None]
    unknown = [r for r in rows if sort_value(r, filters.sort) is None]
    known.sort(key=lambda r: r.run_name.lower())
    known.sort(key=lambda r: sort_value(r, filters.sort), reverse=desc)
    rows[:] = known + unknown


def merged_rows(graded: list[BoardRow], reported: list[BoardRow], filters: BoardFilters) -> list[BoardRow]:
    """Graded and reported rows in one list, each given its position. With the default sort, best
    first on the rank metric (graded rows by what they are ranked on, the lower bound; reported ones by
    their published figure); with a column sort, by that column, reported rows placed by their value
    like any other. Rows with no value go last, without a position; rows with equal values share one
    (1, 2, 2, 4). Graded rows keep their rank interval and tied group; reported ones have none."""
    key = filters.sort
    value = lambda r: sort_value(r, key)  # noqa: E731
    if key == "rank":
        key = "rubric" if filters.metric == "rubric" else "perfect"
        desc = filters.dir != "asc"
        value = lambda r: sort_value(r, key) if r.reported else r.rank_value  # noqa: E731
    else:
        desc = (filters.dir or ("asc" if key in ASCENDING_FIRST else "desc")) == "desc"
    rows = [*graded, *reported]
    known = [r for r in rows if value(r) is not None]
    unknown = [r for r in rows if value(r) is None]
    # stable ties: graded first, then newest published version first, then by name
    known.sort(key=lambda r: (r.reported, bool(r.superseded_by), r.run_name.lower()))
    known.sort(key=value, reverse=desc)
    previous = object()
    for i, r in enumerate(known, start=1):
        v = value(r)
        if v != previous:
            place, previous = i, v
        r.position = place
    for r in unknown:
        r.position = None
    return known + unknown


# ------------------------------------------------------------------------------ export

SESSION_COLUMNS = (
    "sessions",
    "proactivity_pct",
    "proactivity_low",
    "proactivity_high",
    "completeness_pct",
    "completeness_low",
    "completeness_high",
    "turns",
    "turns_low",
    "turns_high",
    "user_simulator",  # who played the user: kind, model and prompt version (figures differ by simulator)
)


EXPORT_COLUMNS = (
    "kind",
    "position",  # place in the current sort, reported and graded alike (reported rows: no interval)
    "position_note",  # where the place comes from: "reported by the paper", "graded by our judge", ...
    "rank",
    "rank_interval",
    "tier",
    "run",
    "model",
    "judge",
    "judge_origin",
    "judge_human_labels",  # how many human labels checked the row's judge (0: not yet checked)
    "judge_kappa",  # Cohen's kappa of the judge against those labels (empty when undefined)
    "protocol",
    "provenance",
    "badge",
    "badge_title",  # the badge's tooltip: what exactly was verified for the run
    "tool_surface",
    "attempts",
    "ranked_on",
    "perfect_interval",
    "perfect_pct",
    "perfect_low",
    "perfect_high",
    "perfect_k",
    "perfect_n",
    "perfect_boot_low",
    "perfect_boot_high",
    "perfect_lower_bound",
    "perfect_upper_bound",
    "pass_hat_k",  # the k of pass^k: the run's attempts per task (graded rows with several attempts)
    "pass_hat_k_pct",
    "pass_hat_k_low",
    "pass_hat_k_high",
    "per_variant_perfect",  # attempts spanning world variants: "variant: single-attempt perfect %" each
    "variant_robust_pct",  # tasks solved on every world variant tried, of the tasks with a known attempt
    "variant_robust_solved",
    "variant_robust_tasks",
    *SESSION_COLUMNS,  # runs that recorded sessions: Proactivity, Completeness (percent) and turns, with intervals
    "rubric_pct",
    "rubric_low",
    "rubric_high",
    "rubric_lower_bound",
    "rubric_upper_bound",
    "efficiency",
    "efficiency_low",
    "efficiency_high",
    "avg_steps",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "contamination_hits",  # graded rows: hits of the contamination scan over the run's trajectories
    "cost_total_usd",  # recorded dollars, or tokens x prices (cost_basis says which)
    "cost_basis",  # recorded, estimated (shipped unverified prices), priced (price file), or empty
    "cost_per_task_usd",
    "cost_per_perfect_task_usd",
    "on_cost_frontier",
    "frontier_cost_per_task_usd",  # off the frontier: the cost per task it would need to stay under
    "rubric_revision",  # rubric errata the suite's current rubrics include (0: as first imported)
    "rubric_superseded_tasks",  # graded rows: tasks judged only on a superseded rubric (left out until re-judged)
    "rubric_outdated",  # scored in part or whole on a superseded rubric
    *(f"n_{s}" for s in STATUSES),
    "source",
    "version",  # reported rows: the published version the figures are from
    "superseded_by",  # reported rows of an older version (versions=all): the newer version
)


VARIANT_COLUMNS = ("per_variant_perfect", "variant_robust_pct", "variant_robust_solved", "variant_robust_tasks")


def _variant_columns(found) -> dict:
    """The export's world-variant columns: empty unless the run's attempts span variants."""
    if found is None:
        return dict.fromkeys(
            ("per_variant_perfect", "variant_robust_pct", "variant_robust_solved", "variant_robust_tasks")
        )
    return {
        "per_variant_perfect": "; ".join(f"{v.variant}: {v.perfect_pct}" for v in found.per_variant),
        "variant_robust_pct": found.robust_pct,
        "variant_robust_solved": found.robust_solved,
        "variant_robust_tasks": found.robust_tasks,
    }


def _session_columns(found) -> dict:
    """The export's session columns: empty unless the run recorded sessions."""
    if found is None:
        return dict.fromkeys(SESSION_COLUMNS)
    columns = {"sessions": found.sessions, "user_simulator": found.user_simulator}
    for name, interval in (
        ("proactivity", found.proactivity),
        ("completeness", found.completeness),
        ("turns", found.turns),
    ):
        key = name if name == "turns" else f"{name}_pct"
        columns.update(
            {
                key: None if interval.value is None else round(interval.value, 1),
                f"{name}_low": None if interval.low is None else round(interval.low, 1),
                f"{name}_high": None if interval.high is None else round(interval.high, 1),
            }
        )
    return columns


def export_rows(b: Board) -> list[dict]:
    """The rows shown, in the order shown (graded and reported in one list), rounded as shown."""

    def r(x, places):
        return None if x is None else round(x, places)

    hits = contamination.hits_by_run([row.run_slug for row in b.shown if not row.reported])
    sessions = session_figures.board_figures(b.shown)
    out = []
    for row in b.shown:
        out.append(
            {
                "kind": row.kind,
                "position": row.position,
                "position_note": row.position_note,
                "rank": None if row.reported else row.rank,
                "rank_interval": row.rank_text,
                "tier": row.tier,
                "run": row.run_slug,
                "model": row.model_name,
                "judge": row.judge_name,
                "judge_origin": row.judge_origin,
                "judge_human_labels": row.judge_labels,
                "judge_kappa": r(row.judge_kappa, 2),
                "protocol": row.protocol,
                "provenance": row.provenance,
                "badge": row.badge.key if row.badge else "",
                "badge_title": row.badge.title if row.badge else "",
                "tool_surface": row.tool_surface,
                "attempts": None if row.reported else row.attempts,
                "ranked_on": row.ranked_on,
                "perfect_interval": row.perfect_interval,
                "perfect_pct": r(row.perfect.value, 1),
                "perfect_low": r(row.perfect.low, 1),
                "perfect_high": r(row.perfect.high, 1),
                "perfect_k": row.perfect_k,
                "perfect_n": row.perfect_n,
                "perfect_boot_low": r(row.perfect_boot.low, 1),
                "perfect_boot_high": r(row.perfect_boot.high, 1),
                "perfect_lower_bound": r(row.perfect_bounds[0], 1) if row.perfect_bounds else None,
                "perfect_upper_bound": r(row.perfect_bounds[1], 1) if row.perfect_bounds else None,
                "pass_hat_k": row.attempts if row.pass_hat_k.known else None,
                "pass_hat_k_pct": r(row.pass_hat_k.value, 1),
                "pass_hat_k_low": r(row.pass_hat_k.low, 1),
                "pass_hat_k_high": r(row.pass_hat_k.high, 1),
                **_variant_columns(row.over_variants),
                **_session_columns(sessions.get(row.run_slug)),
                "rubric_pct": r(row.rubric.value, 1),
                "rubric_low": r(row.rubric.low, 1),
                "rubric_high": r(row.rubric.high, 1),
                "rubric_lower_bound": r(row.rubric_bounds[0], 1) if row.rubric_bounds else None,
                "rubric_upper_bound": r(row.rubric_bounds[1], 1) if row.rubric_bounds else None,
                "efficiency": r(row.efficiency.value, 2),
                "efficiency_low": r(row.efficiency.low, 2),
                "efficiency_high": r(row.efficiency.high, 2),
                "avg_steps": r(row.avg_steps, 1),
                "input_tokens": row.input_tokens,
                "output_tokens": row.output_tokens,
                "cost_usd": r(row.cost_usd, 2),
                "contamination_hits": None if row.reported else hits.get(row.run_slug, 0),
                "cost_total_usd": r(row.cost_total, 4),
                "cost_basis": row.cost_basis,
                "cost_per_task_usd": r(row.cost_per_task, 4),
                "cost_per_perfect_task_usd": r(row.cost_per_perfect, 4),
                "on_cost_frontier": row.on_frontier,
                "frontier_cost_per_task_usd": r(row.frontier_cost, 4),
                "rubric_revision": row.rubric_revision,
                "rubric_superseded_tasks": None if row.reported else row.rubric_superseded,
                "rubric_outdated": row.rubric_outdated,
                **{f"n_{s}": (None if row.reported else row.counts.get(s, 0)) for s in STATUSES},
                "source": row.source,
                "version": row.version,
                "superseded_by": row.superseded_by,
            }
        )
    return out
