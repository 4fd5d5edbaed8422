"""Scoring stored judgments: figures of the hand-built fixture (tests/board_data.py) worked out by
hand, the denominator rules, judges, stale rubric versions, caching and query counts."""

import math

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import JudgeConfig, Run
from leaderboard.scoring import bootstrap, data_version, metrics, outcomes
from tests.board_data import build_board, judge, traj
from tests.factories import make_run, make_suite
from trajectories.models import Judgment, Trajectory

pytestmark = pytest.mark.django_db


def test_run_a_by_hand(board):
    a = outcomes.run_outcomes([board.a])[board.a.pk]
    assert a.task_ids == ["t1", "t2", "t3", "t4", "t5", "t6"]
    assert a.judge_name == "our judge (test)" and a.judge_origin == "ours"
    # t1 1.0 perfect, t2 0.5, t3 (3*1 + 1*0)/4 = 0.75, t4 error verdict -> unknown, t5 missing -> 0,
    # t6 current v2 both passed -> 1.0 perfect (its stale v1 failures do not count)
    assert list(a.status[:, 0]) == ["graded", "graded", "graded", "incomplete", "missing", "graded"]
    np.testing.assert_allclose(a.scores[:, 0], [1, 0.5, 0.75, np.nan, 0, 1])
    assert a.perfect_k_n() == (2, 5)
    assert a.mean_score() == pytest.approx(3.25 / 5)
    # efficiency: (1/10 + 0.5/20 + 0.75/5 + 0 + 1/40) / 5 * 100
    assert a.efficiency() == pytest.approx(6.0)
    assert a.avg_steps() == pytest.approx((10 + 20 + 5 + 8 + 40) / 5)
    assert a.counts() == {
        "graded": 4,
        "incomplete": 1,
        "stale": 0,
        "unjudged": 0,
        "missing": 1,
        "unfinished": 0,
        "errored": 0,
        "infrastructure": 0,
    }
    assert (a.input_tokens, a.output_tokens, a.cost_usd) == (3000, 300, pytest.approx(1.75))


def test_equal_weights_change_only_unequal_rubrics(board):
    a = outcomes.run_outcomes([board.a], weighting="equal")[board.a.pk]
    assert a.scores[2, 0] == pytest.approx(0.5)  # t3 one of two items
    assert a.mean_score() == pytest.approx((1 + 0.5 + 0.5 + 0 + 1) / 5)
    b = outcomes.run_outcomes([board.b], weighting="equal")[board.b.pk]
    assert b.scores[3, 0] == pytest.approx(2 / 3)  # t4 [S, F, S], weights would give 0.75
    assert b.mean_score() == pytest.approx((0 + 1 + 0 + 2 / 3 + 1) / 5)


def test_run_b_errored_trajectory_is_a_failure_and_stale_rubric_is_not_scored(board):
    b = outcomes.run_outcomes([board.b])[board.b.pk]
    assert list(b.status[:, 0]) == ["graded", "graded", "errored", "graded", "graded", "stale"]
    np.testing.assert_allclose(b.scores[:, 0], [0, 1, 0, 0.75, 1, np.nan])
    assert b.perfect_k_n() == (2, 5)
    assert b.mean_score() == pytest.approx(2.75 / 5)
    assert b.efficiency() == pytest.approx((1 / 6 + 0.75 / 12 + 1 / 10) / 5 * 100)
    # asked for, the stale v1 judgments (all passed) score t6
    with_stale = outcomes.run_outcomes([board.b], include_stale=True)[board.b.pk]
    assert with_stale.status[5, 0] == "graded" and with_stale.scores[5, 0] == 1.0
    assert with_stale.perfect_k_n() == (3, 6)


def test_each_judge_gives_its_own_row(board):
    rows = outcomes.judged_outcomes([board.a, board.b])
    assert [(r.run_slug, r.judge_name) for r in rows] == [
        ("run-a", "our judge (test)"),
        ("run-b", "our judge (test)"),
        ("run-b", "upstream judge (test)"),
    ]
    up = rows[2]
    assert up.judge_origin == "imported"
    # upstream judged t1 [S] and t2 [S, F]; t3 errored; the rest it has not judged
    assert list(up.status[:, 0]) == ["graded", "graded", "errored", "unjudged", "unjudged", "unjudged"]
    assert up.mean_score() == pytest.approx(1.5 / 3)
    assert up.perfect_k_n() == (1, 3)
    chosen = outcomes.run_outcomes([board.b], judge="upstream judge (test)")[board.b.pk]
    assert chosen.judge_name == "upstream judge (test)"
    with pytest.raises(ValueError, match="no judge configuration named 'nobody'"):
        outcomes.run_outcomes([board.b], judge="nobody")


def test_missing_tasks_fill_the_denominator_and_a_running_one_is_unknown(board):
    c = outcomes.run_outcomes([board.c])[board.c.pk]
    assert c.counts()["unfinished"] == 1 and c.counts()["missing"] == 5
    # the running t1 is not the agent's failure: unknown, bounded 0..1/6
    assert c.perfect_k_n() == (0, 5) and c.mean_score() == 0
    assert c.figures().score_bounds == (0.0, pytest.approx(1 / 6))
    assert c.judge_name == "our judge (test)"  # its configured judge, nothing judged yet


def test_self_reported_verdicts_are_never_scored(board):
    from leaderboard.models import JudgeConfig, Run

    author = JudgeConfig.objects.create(name="author's own judge", origin=JudgeConfig.Origin.SELF_REPORTED)
    upload = Run.objects.create(
        name="Upload", slug="upload", suite=board.suite, model=board.a.model, provenance="upload"
    )
    t1 = traj(upload, board.tasks["t1"], 7)
    judge(t1, board.items["t1"], ["success"], author)  # the author claims t1 is solved

    default = outcomes.run_outcomes([upload])[upload.pk]
    assert default.judge_origin != JudgeConfig.Origin.SELF_REPORTED
    assert list(default.status[:, 0])[0] == "unjudged" and default.perfect_k_n()[0] == 0
    assert [r.judge_name for r in outcomes.judged_outcomes([upload])] == [""]
    assert outcomes.run_outcomes([upload], judge=author) == {}


def test_reported_runs_are_never_scored(board):
    assert outcomes.run_outcomes([board.reported, board.a]).keys() == {board.a.pk}


def test_imported_task_score_without_item_verdicts_is_graded(board):
    t = board.c.trajectories.get()
    t.status = "finished"
    t.imported_score = 0.9995
    t.imported_score_judge = board.upstream
    t.save()
    c = outcomes.run_outcomes([board.c], judge=board.upstream)[board.c.pk]
    assert c.status[0, 0] == "graded" and c.scores[0, 0] == pytest.approx(0.9995)
    assert c.perfect_k_n() == (1, 6) and c.from_imported_score == 1


def test_attempts_and_slices(board):
    # a second attempt of t1 in run A, failed
    second = traj(board.a, board.tasks["t1"], 12, attempt=1)
    judge(second, board.items["t1"], ["failure"], board.ours)
    a = outcomes.run_outcomes([board.a])[board.a.pk]
    assert a.attempts == 2
    assert a.status[1, 1] == "missing"  # t2 has no second attempt: counted as a failure
    # 12 cells, t4's first attempt unknown (error verdict): 11 known, perfect t1#0 and t6#0
    assert a.perfect_k_n() == (2, 11)
    assert a.task_scores()[0] == pytest.approx(0.5)
    lookup = a.subset(a.task_mask(behavioural_type="personal_lookup"))
    assert lookup.task_ids == ["t1", "t2"]
    assert a.task_mask(app="hoolidocs").tolist() == [False, False, False, True, True, True]
    assert a.task_mask(apps_touched_bin="4-6").tolist() == [False] * 4 + [True, True]


def test_bootstrap_ignores_unknown_cells_and_matches_metrics_when_complete(board):
    rows = outcomes.run_outcomes([board.a, board.b])
    a, b = rows[board.a.pk], rows[board.b.pk]
    reps = bootstrap.bootstrap_replicates([a, b], "score", B=200, seed=3)
    assert reps.shape == (2, 200) and not np.isnan(reps).any()
    # with everything known it is exactly metrics.stratified_bootstrap
    c = outcomes.run_outcomes([board.c])[board.c.pk].pessimistic()
    direct = metrics.stratified_bootstrap(c.scores[None], c.behavioural_types, B=200, seed=3)
    np.testing.assert_allclose(bootstrap.bootstrap_replicates([c], "score", B=200, seed=3), direct)
    low, high = metrics.percentile_interval(reps)[0]
    assert low <= a.mean_score() <= high


def test_cache_invalidated_when_a_judgment_changes(board):
    before = outcomes.run_outcomes([board.a])[board.a.pk]
    assert math.isnan(before.scores[3, 0])
    error = Judgment.objects.get(trajectory__run=board.a, verdict="error")
    error.verdict = "success"
    error.save()
    after = outcomes.run_outcomes([board.a])[board.a.pk]
    assert after.scores[3, 0] == 1.0 and after.perfect_k_n() == (3, 6)
    # a bulk write (no signals) is seen too: a new trajectory for the missing task
    traj(board.a, board.tasks["t5"], 7, status="error")
    assert outcomes.run_outcomes([board.a])[board.a.pk].status[4, 0] == "errored"


def test_scorings_asked_for_at_a_pages_version_are_kept_at_that_version(board):
    # A page is built at the version its window began with: what it scores stays at that version
    # while judgments arrive, for each way of asking, and the next version sees them.
    error = Judgment.objects.get(trajectory__run=board.a, verdict="error")
    rows = {row.judge_name: row for row in outcomes.judged_outcomes([board.a], version="window-1")}
    by_run = outcomes.run_outcomes([board.a], version="window-1")[board.a.pk]
    error.verdict = "success"
    error.save()
    again = {row.judge_name: row for row in outcomes.judged_outcomes([board.a], version="window-1")}
    assert [math.isnan(r.scores[3, 0]) for r in again.values()] == [math.isnan(r.scores[3, 0]) for r in rows.values()]
    assert math.isnan(outcomes.run_outcomes([board.a], version="window-1")[board.a.pk].scores[3, 0])
    assert math.isnan(by_run.scores[3, 0])
    assert outcomes.run_outcomes([board.a], version="window-2")[board.a.pk].scores[3, 0] == 1.0
    newer = outcomes.judged_outcomes([board.a], version="window-2")
    assert any(r.scores[3, 0] == 1.0 for r in newer)


def test_runs_may_be_named_by_pk_and_judges_by_name_and_an_unknown_weighting_is_refused(board):
    by_row = outcomes.run_outcomes([board.a])[board.a.pk]
    by_pk = outcomes.run_outcomes([board.a.pk], judge=by_row.judge_name)[board.a.pk]
    assert by_pk.judge_id == by_row.judge_id and np.array_equal(by_pk.scores, by_row.scores, equal_nan=True)
    with pytest.raises(ValueError) as caught:
        outcomes.run_outcomes([board.a], weighting="heavy")
    assert str(caught.value) == "weighting must be one of authored, equal, not 'heavy'"


def test_the_data_version_moves_with_the_signal_counter(board):
    before = data_version.data_version()
    data_version.bump_version()
    assert data_version.data_version() != before


def test_judges_rows_are_ordered_by_name_not_by_when_the_judge_was_made(board):
    another = JudgeConfig.objects.create(name="another judge (test)", origin="imported")
    judge(Trajectory.objects.get(run=board.b, task=board.tasks["t1"]), board.items["t1"], ["success"], another)
    rows = outcomes.judged_outcomes([board.b])
    assert [r.judge_name for r in rows] == ["another judge (test)", "our judge (test)", "upstream judge (test)"]


def test_a_run_scored_by_a_judge_that_never_judged_it_is_labelled_with_that_judge(board):
    chosen = outcomes.run_outcomes([board.a], judge=board.upstream)[board.a.pk]
    label = (chosen.judge_id, chosen.judge_name, chosen.judge_origin)
    assert label == (board.upstream.pk, "upstream judge (test)", "imported")
    assert list(chosen.status[:, 0]) == ["unjudged"] * 4 + ["missing", "unjudged"]
    assert chosen.mean_score() == 0.0  # only the missing task is known: a failure


def test_a_run_scored_only_by_imported_scores_is_labelled_with_their_judge(board):
    run = Run.objects.create(name="Imported", slug="imported", suite=board.suite, model=board.a.model)
    traj(run, board.tasks["t1"], 5, imported_score=0.5, imported_score_judge=board.upstream)
    traj(run, board.tasks["t2"], 5, imported_score_judge=board.upstream)  # a judge named, no score
    (row,) = outcomes.judged_outcomes([run])
    assert row.judge_name == "upstream judge (test)"
    assert row.scores[0, 0] == 0.5 and list(row.status[:2, 0]) == ["graded", "unjudged"]
    unscored = Run.objects.create(name="Unscored", slug="unscored", suite=board.suite, model=board.a.model)
    traj(unscored, board.tasks["t1"], 5, imported_score_judge=board.upstream)
    (row,) = outcomes.judged_outcomes([unscored])
    assert (row.judge_name, row.judge_id, row.judge_origin, row.judge_protocol) == ("", None, "", "")


def test_trajectories_of_tasks_outside_the_runs_suite_are_counted_in_a_note_not_scored(board):
    other = build_board(suite_slug="other-suite", prefix="x")
    for task in ("t1", "t2"):
        traj(board.a, other.tasks[task], 3)
    row = outcomes.run_outcomes([board.a])[board.a.pk]
    assert row.notes == ["2 trajectories are of tasks outside the run's suite and were not scored"]
    assert row.n_tasks == 6 and row.trajectory_ids.size == 6


def test_cells_scored_from_imported_scores_are_counted_over_the_run(board):
    run = Run.objects.create(name="Imported", slug="imported", suite=board.suite, model=board.a.model)
    for task, score in (("t1", 0.5), ("t2", 1.0), ("t3", 0.0)):
        traj(run, board.tasks[task], 5, imported_score=score, imported_score_judge=board.upstream)
    row = outcomes.run_outcomes([run])[run.pk]
    assert row.from_imported_score == 3 and row.mean_score() == 0.25  # (0.5 + 1 + 0 + three missing) / 6


def test_a_runs_row_says_its_suite_and_how_it_was_scored(board):
    board.tasks["t1"].apps_touched_bin = ""
    board.tasks["t1"].save()
    row = outcomes.run_outcomes([board.a], weighting="equal", include_stale=True)[board.a.pk]
    assert (row.suite_id, row.weighting, row.include_stale) == (board.suite.pk, "equal", True)
    assert row.apps_touched_bins[0] == ""  # unknown stays empty


def test_a_run_without_trajectories_has_every_task_missing_in_the_suites_order():
    suite = make_suite(["zeta-last-by-name", "alpha-second"])
    run = make_run(suite)
    row = outcomes.run_outcomes([run])[run.pk]
    assert row.task_ids == ["zeta-last-by-name", "alpha-second"]  # by position, not by name
    assert list(row.status[:, 0]) == ["missing", "missing"] and row.mean_score() == 0.0


def test_constant_queries_whatever_the_number_of_judgments(board):
    def count():
        from django.core.cache import cache

        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            outcomes.judged_outcomes([board.a, board.b, board.c])
        return len(ctx.captured_queries)

    small = count()
    more = build_board(suite_slug="board-2", prefix="x")
    for t in more.a.trajectories.all():
        for extra in range(1, 4):
            traj(more.a, t.task, 5, attempt=extra)
    small_again = count()
    with CaptureQueriesContext(connection) as ctx:
        outcomes.judged_outcomes([board.a, board.b, board.c, more.a, more.b])
    assert small == small_again == len(ctx.captured_queries)
    assert small <= 11


def _outcomes(scores, strata, slug):
    n, r = scores.shape
    return outcomes.RunOutcomes(
        run_id=0,
        run_slug=slug,
        suite_id=0,
        judge_id=None,
        judge_name="",
        judge_origin="",
        weighting="authored",
        include_stale=False,
        task_pks=np.arange(n),
        task_ids=[f"t{i}" for i in range(n)],
        behavioural_types=np.asarray(strata, dtype=object),
        apps_touched_bins=np.full(n, "1", dtype=object),
        task_apps=[frozenset()] * n,
        scores=scores,
        perfect=np.where(np.isnan(scores), np.nan, (scores >= 0.999).astype(float)),
        status=np.where(np.isnan(scores), "incomplete", "graded").astype(object),
        steps=np.full((n, r), 10.0),
        trajectory_ids=np.ones((n, r), dtype=np.int64),
    )


def test_bootstrap_with_attempts_equals_metrics_and_a_brute_force_nan_mean():
    rng = np.random.default_rng(5)
    strata = ["a"] * 9 + ["b"] * 7 + ["c"] * 4
    runs = [rng.random((20, 3)) for _ in range(3)]
    outs = [_outcomes(s, strata, f"r{i}") for i, s in enumerate(runs)]
    direct = metrics.stratified_bootstrap(np.stack(runs), np.asarray(strata), B=300, seed=11)
    np.testing.assert_allclose(bootstrap.bootstrap_replicates(outs, "score", B=300, seed=11), direct)
    # with unknown cells: each replicate is the mean of the drawn cells that are known
    runs[1][[2, 5, 5], [0, 1, 2]] = np.nan
    outs = [_outcomes(s, strata, f"r{i}") for i, s in enumerate(runs)]
    got = bootstrap.bootstrap_replicates(outs, "score", B=50, seed=2)
    draw = np.random.default_rng(2)  # task draws; attempt draws from their own source (seed, attempts)
    attempt_draw = np.random.default_rng([2, 3])
    labels = np.asarray(strata)
    cells = [[] for _ in range(50)]
    for g in np.unique(labels):
        idx = np.flatnonzero(labels == g)
        tasks = idx[draw.integers(0, idx.size, size=(50, idx.size))]
        attempts = attempt_draw.integers(0, 3, size=(50, idx.size, 3))
        for b in range(50):
            cells[b] += [(t, a) for j, t in enumerate(tasks[b]) for a in attempts[b, j]]
    for m, s in enumerate(runs):
        brute = [np.nanmean([s[t, a] for t, a in cells[b]]) for b in range(50)]
        np.testing.assert_allclose(got[m], brute)


def test_bootstrap_refuses_runs_over_other_tasks_and_names_them():
    same = _outcomes(np.full((4, 1), 0.5), ["a"] * 4, "r0")
    other = _outcomes(np.full((4, 1), 0.5), ["a"] * 4, "r1")
    other.task_pks = np.arange(4) + 10  # as many tasks, not the same ones
    with pytest.raises(ValueError, match=r"^runs r0 and r1 do not cover the same tasks$"):
        bootstrap.bootstrap_many([same, other, _outcomes(np.full((4, 1), 0.5), ["a"] * 4, "r2")], ["score"], B=5)
    assert bootstrap.bootstrap_many([], ["score", "perfect"], B=5)["perfect"].shape == (0, 5)


def test_a_replicate_is_the_mean_of_its_known_cells_and_undefined_without_any():
    # two tasks, one known at 0.7: a replicate drawing it at least once is 0.7; one drawing only the
    # unknown task twice (a chance of one in four) has no value
    reps = bootstrap.bootstrap_replicates([_outcomes(np.array([[0.7], [np.nan]]), ["a", "a"], "r")], B=4000)[0]
    assert set(np.unique(reps[~np.isnan(reps)])) == {0.7}
    assert np.isnan(reps).mean() == pytest.approx(0.25, abs=0.03)


def test_bootstrap_defaults_are_the_published_ones():
    """The score metric, B = 1000 replicates and seed 0 unless asked otherwise."""
    outs = [_outcomes(np.random.default_rng(i).random((6, 2)), ["a"] * 3 + ["b"] * 3, f"r{i}") for i in range(2)]
    explicit = bootstrap.bootstrap_replicates(outs, "score", B=1000, seed=0)
    np.testing.assert_array_equal(bootstrap.bootstrap_replicates(outs), explicit)
    np.testing.assert_array_equal(bootstrap.bootstrap_many(outs, ["score"])["score"], explicit)


def test_a_run_with_nothing_known_has_no_mean_and_no_efficiency():
    unknown = _outcomes(np.full((3, 2), np.nan), ["a"] * 3, "r")
    assert math.isnan(unknown.mean_score()) and math.isnan(unknown.efficiency())
    assert unknown.counts()["incomplete"] == 6 and unknown.perfect_k_n() == (0, 0)
