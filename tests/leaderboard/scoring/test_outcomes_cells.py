"""The per-run helpers the pages and the ranking read, on a hand-made 3-task x 3-attempt run with
unknown cells (NaN: unjudged, judge error, infrastructure), values computed by hand:

    scores   [1.0, ?, 0.5]   perfect [1, ?, 0]   steps [4, 9, 6]    trajectories [1, 2, 3]
             [?,   ?, ?  ]           [?, ?, ?]         [0, 0, 12]                [0, 0, 4]
             [0.0, 1.0, 1.0]         [0, 1, 1]         [3, 5, 7]                 [5, 6, 7]
"""

import math

import numpy as np
import pytest

from leaderboard.scoring import metrics, outcomes

nan = float("nan")


def _run(scores, perfect, steps, ids) -> outcomes.RunOutcomes:
    n = len(scores)
    return outcomes.RunOutcomes(
        run_id=1, run_slug="hand", suite_id=1, judge_id=None, judge_name="", judge_origin="",
        weighting="authored", include_stale=False, task_pks=np.arange(n), task_ids=[f"t{i}" for i in range(n)],
        behavioural_types=np.full(n, "personal_lookup", dtype=object),
        apps_touched_bins=np.full(n, "1", dtype=object), task_apps=[frozenset()] * n,
        scores=np.array(scores, dtype=float), perfect=np.array(perfect, dtype=float),
        status=np.full(np.shape(scores), outcomes.GRADED, dtype=object),
        steps=np.array(steps, dtype=float), trajectory_ids=np.array(ids, dtype=np.int64),
    )  # fmt: skip


@pytest.fixture
def run():
    return _run(
        [[1.0, nan, 0.5], [nan, nan, nan], [0.0, 1.0, 1.0]],
        [[1, nan, 0], [nan, nan, nan], [0, 1, 1]],
        [[4, 9, 6], [0, 0, 12], [3, 5, 7]],
        [[1, 2, 3], [0, 0, 4], [5, 6, 7]],
    )


def test_per_task_means_count_only_known_attempts(run):
    np.testing.assert_allclose(run.task_scores(), [0.75, nan, 2 / 3])
    np.testing.assert_allclose(run.task_perfect(), [0.5, nan, 2 / 3], err_msg="unknown attempts are neither")


def test_the_pessimistic_copy_counts_every_unknown_as_a_failure(run):
    low = run.pessimistic()
    np.testing.assert_array_equal(low.scores, [[1.0, 0.0, 0.5], [0.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    np.testing.assert_array_equal(low.perfect, [[1, 0, 0], [0, 0, 0], [0, 1, 1]])
    assert np.isnan(run.scores[1, 0]), "the run itself is unchanged"


def test_average_steps_are_over_cells_with_a_trajectory_and_unknown_without_any(run):
    assert run.avg_steps() == pytest.approx(46 / 7)
    empty = _run([[nan]], [[nan]], [[0]], [[0]])
    assert math.isnan(empty.avg_steps()) and math.isnan(empty.efficiency())


def test_bootstrap_refuses_what_it_cannot_resample_and_says_why():
    with pytest.raises(ValueError, match=r"shape \(runs, tasks\) or \(runs, tasks, attempts\)"):
        metrics.stratified_bootstrap(np.zeros(3), ["a"] * 3)
    with pytest.raises(ValueError, match="2 strata labels for 3 tasks"):
        metrics.stratified_bootstrap(np.zeros((1, 3)), ["a", "b"])
    with pytest.raises(ValueError, match="stat must be 'micro' or 'macro', not 'median'"):
        metrics.stratified_bootstrap(np.zeros((1, 3)), ["a"] * 3, stat="median")


def test_the_paired_difference_is_the_difference_of_means_over_every_attempt():
    a = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    b = np.array([[1.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    diff = metrics.paired_difference(a, b, ["x", "x", "y"], B=200, seed=3)
    assert diff.difference == pytest.approx(5 / 6 - 4 / 6)
    assert diff.low <= diff.difference <= diff.high and 0 <= diff.p_b_greater <= 1


def test_percentile_and_rank_intervals_cut_the_level_evenly_from_both_tails():
    # 1000 replicates 0..999: the 95% interval is the 2.5th and 97.5th percentiles (linear), 90% the 5th and 95th
    reps = np.arange(1000.0)
    np.testing.assert_allclose(metrics.percentile_interval(reps), [[24.975, 974.025]])
    np.testing.assert_allclose(metrics.percentile_interval(reps, level=0.9), [[49.95, 949.05]])
    # run A beats run B in 3 of 10 replicates: A's ranks are 1 x3, 2 x7; B's the reverse. At the 20% level
    # the tails are the 40th and 60th percentiles (nearest rank): A [2, 2], B [1, 1].
    a = np.array([1.0] * 3 + [0.0] * 7)
    assert metrics.rank_intervals(np.stack([a, 1 - a]), level=0.2).tolist() == [[2, 2], [1, 1]]


def test_a_subset_keeps_everything_about_the_run_and_only_its_tasks_rows():
    whole = outcomes.RunOutcomes(
        run_id=4, run_slug="pam", suite_id=9, judge_id=2, judge_name="ours", judge_origin="ours",
        weighting="equal", include_stale=True, task_pks=np.array([11, 12, 13]), task_ids=["a", "b", "c"],
        behavioural_types=np.array(["lookup", "action", "lookup"], dtype=object),
        apps_touched_bins=np.array(["1", "2", "3+"], dtype=object),
        task_apps=[frozenset({"mail"}), frozenset({"calendar"}), frozenset({"mail", "docs"})],
        scores=np.array([[1.0], [0.0], [0.5]]), perfect=np.array([[1.0], [0.0], [0.0]]),
        status=np.full((3, 1), outcomes.GRADED, dtype=object), steps=np.array([[3.0], [4.0], [5.0]]),
        trajectory_ids=np.array([[21], [22], [23]]), input_tokens=900, output_tokens=80, cost_usd=1.25,
        from_imported_score=2, notes=["attempts 1 and 3 only"], judge_protocol="paper-v1",
    )  # fmt: skip
    part = whole.subset([1, 0, 1])  # 0s and 1s read as a mask, not as positions
    assert part.task_ids == ["a", "c"] and part.apps_touched_bins.tolist() == ["1", "3+"]
    assert part.trajectory_ids.ravel().tolist() == [21, 23] and part.task_apps == [
        whole.task_apps[0],
        whole.task_apps[2],
    ]
    kept = ("run_id", "run_slug", "suite_id", "judge_id", "judge_name", "judge_origin", "weighting", "include_stale",
            "input_tokens", "output_tokens", "cost_usd", "from_imported_score", "notes", "judge_protocol")  # fmt: skip
    assert {name: getattr(part, name) for name in kept} == {name: getattr(whole, name) for name in kept}
    with pytest.raises(ValueError) as caught:
        whole.subset([True, False])
    assert str(caught.value) == "mask has 2 entries for 3 tasks"


def test_task_filters_are_combined_every_one_narrowing_the_last():
    whole = outcomes.RunOutcomes(
        run_id=4, run_slug="pam", suite_id=9, judge_id=None, judge_name="", judge_origin="", weighting="authored",
        include_stale=False, task_pks=np.arange(4), task_ids=["a", "b", "c", "d"],
        behavioural_types=np.array(["lookup", "lookup", "action", "lookup"], dtype=object),
        apps_touched_bins=np.array(["1", "2", "2", "2"], dtype=object),
        task_apps=[frozenset({"mail"}), frozenset({"mail"}), frozenset({"mail"}), frozenset({"docs"})],
        scores=np.zeros((4, 1)), perfect=np.zeros((4, 1)), status=np.full((4, 1), outcomes.GRADED, dtype=object),
        steps=np.zeros((4, 1)), trajectory_ids=np.zeros((4, 1), dtype=np.int64),
    )  # fmt: skip
    assert whole.task_mask().tolist() == [True] * 4
    assert whole.task_mask(behavioural_type="lookup", apps_touched_bin="2").tolist() == [False, True, False, True]
    assert whole.task_mask(apps_touched_bin="2", app="mail").tolist() == [False, True, True, False]
    assert whole.task_mask(behavioural_type="lookup", app="mail").tolist() == [True, True, False, False]


def test_a_runs_figures_count_graded_cells_and_perfect_ones_by_their_own_flags():
    # A cell may score 0.9995 with one light item failed: not perfect. A counted failure (errored)
    # is known but not graded.
    run = _run(
        [[0.9995, nan, 0.5], [1.0, 0.0, nan]],
        [[0, nan, 0], [1, 0, nan]],
        [[4, 9, 6], [3, 2, 0]],
        [[1, 2, 3], [4, 5, 6]],
    )
    run.status = np.array([[outcomes.GRADED, outcomes.UNJUDGED, outcomes.GRADED],
                           [outcomes.GRADED, outcomes.ERRORED, outcomes.UNFINISHED]], dtype=object)  # fmt: skip
    figures = run.figures()
    assert (figures.cells, figures.known, figures.graded, figures.perfect) == (6, 4, 3, 1)
    assert figures.score_sum == pytest.approx(2.4995)


def test_efficiency_is_score_per_step_times_100_and_0_for_a_known_cell_without_steps():
    run = _run(
        [[1.0, 0.5, nan], [0.0, 0.5, 1.0]], [[1, 0, nan], [0, 0, 1]], [[1, 4, 3], [0, 2, 5]], [[1, 2, 3], [4, 5, 6]]
    )
    values = run.values("efficiency")
    assert values[~np.isnan(values)].tolist() == [100.0, 12.5, 0.0, 25.0, 20.0]
    assert np.isnan(values[0, 2])
    with pytest.raises(ValueError) as caught:
        run.values("speed")
    assert str(caught.value) == "metric must be 'score', 'perfect' or 'efficiency', not 'speed'"


def _cell(**fields) -> dict:
    row = {"pk": 1, "task_id": 10, "status": "finished", "n_steps": 5, "error": "", "imported_score": None,
           "imported_score_judge_id": None}  # fmt: skip
    return {**row, **fields}


def _judged(n, ok, w_ok=None, err=0, w=None) -> dict:
    return {"n": n, "ok": ok, "w_ok": w_ok, "err": err, "w": w}


@pytest.mark.parametrize(
    "cell, agg, rubric, expected",
    [
        (_cell(status="error", n_steps=0), {}, {}, (outcomes.INFRASTRUCTURE, nan, nan, 0)),
        (_cell(status="error", error="gave up after 3 tries"), {}, {}, (outcomes.INFRASTRUCTURE, nan, nan, 0)),
        (_cell(status="error", error="the app crashed"), {}, {}, (outcomes.ERRORED, 0.0, 0.0, 0)),
        (_cell(status="running"), {}, {}, (outcomes.UNFINISHED, nan, nan, 0)),
        (_cell(), {(1, 7): {True: _judged(2, 2, err=1)}}, {10: (2, 2.0)}, (outcomes.INCOMPLETE, nan, nan, 0)),
        (_cell(), {(1, 7): {True: _judged(1, 1)}}, {10: (2, 2.0)}, (outcomes.INCOMPLETE, nan, nan, 0)),
        # judged, but the task has no current rubric: nothing to be complete against
        (_cell(), {(1, 7): {True: _judged(1, 1, w_ok=1.0)}}, {}, (outcomes.INCOMPLETE, nan, nan, 0)),
        (_cell(), {(1, 7): {True: _judged(2, 1, w_ok=3.0)}}, {10: (2, 4.0)}, (outcomes.GRADED, 0.75, 0.0, 0)),
        # every weight 0: items count equally
        (_cell(), {(1, 7): {True: _judged(2, 1, w_ok=0.0)}}, {10: (2, 0.0)}, (outcomes.GRADED, 0.5, 0.0, 0)),
        (_cell(), {(1, 7): {False: _judged(2, 2, w_ok=2.0, w=2.0)}}, {10: (3, 3.0)}, (outcomes.STALE, nan, nan, 0)),
        (_cell(), {}, {10: (2, 2.0)}, (outcomes.UNJUDGED, nan, nan, 0)),
        (_cell(imported_score=0.4, imported_score_judge_id=7), {}, {10: (2, 2.0)}, (outcomes.GRADED, 0.4, 0.0, 1)),
    ],
)
def test_one_cell_by_each_rule_and_only_an_imported_score_counts_as_imported(cell, agg, rubric, expected):
    status, score, perfect, imported = outcomes.score_cell(cell, 7, rubric, agg, "authored", False)
    assert (status, imported) == (expected[0], expected[3])
    assert score == pytest.approx(expected[1], nan_ok=True) and perfect == pytest.approx(expected[2], nan_ok=True)


@pytest.mark.parametrize(
    "stale, weighting, expected",
    [
        (_judged(2, 1, w_ok=1.0, w=4.0), "authored", (0.25, 0.0)),
        (_judged(2, 1, w_ok=1.0, w=4.0), "equal", (0.5, 0.0)),
        (_judged(4, 1, w_ok=None, w=0.0), "authored", (0.25, 0.0)),  # no weights kept: items count equally
        (_judged(3, 1, w_ok=None, w=3.0), "authored", (0.0, 0.0)),  # the passed items weigh nothing
        (_judged(3, 3, w_ok=3.0, w=3.0), "authored", (1.0, 1.0)),
    ],
)
def test_a_cell_judged_only_on_an_older_rubric_is_scored_on_it_when_asked(stale, weighting, expected):
    cell = outcomes.score_cell(_cell(), 7, {10: (5, 5.0)}, {(1, 7): {False: stale}}, weighting, True)
    assert cell == (outcomes.GRADED, pytest.approx(expected[0]), expected[1], 0)
    assert (
        outcomes.score_cell(_cell(), 7, {10: (5, 5.0)}, {(1, 7): {False: stale}}, weighting, False)[0] == outcomes.STALE
    )
