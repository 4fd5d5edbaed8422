"""The scoring rules (the attempt grid, unknown cells, bounds, and rows nothing is judged on), on the
hand-built board of tests/board_data.py plus runs added here; every expected figure is worked out by hand
in comments."""

import json

import numpy as np
import pytest
from django.core.cache import cache

import leaderboard.boards.board
from harness.judge.cli import ITEMS_FILE, TASK_RESULT_FILE, judge_task_dir, scores_summary
from harness.results import run_figures
from leaderboard.models import Run
from leaderboard.scoring import bootstrap, data_version, metrics, outcomes
from leaderboard.scoring.filters import BoardFilters
from tests.board_data import judge, traj
from trajectories.models import Trajectory

pytestmark = pytest.mark.django_db
S, F, E = "success", "failure", "error"


def new_run(board, name, **kw):
    kw.setdefault("provenance", "harness")
    kw.setdefault("publication", "published")
    kw.setdefault("judge_config", board.ours)
    return Run.objects.create(name=name, slug=name.lower(), suite=board.suite, model=board.a.model, **kw)


def board_rows(user=None):
    from django.contrib.auth.models import AnonymousUser

    b = leaderboard.boards.board.board(user or AnonymousUser(), BoardFilters.from_query({}))
    return {(r.run_slug, r.judge_name): r for r in b.rows}, b


# ------------------------------------------------------------------ 9: unknowns never flatter


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_bounds_beside_each_figure(board, client):
    a = outcomes.run_outcomes([board.a])[board.a.pk].figures()
    # run A: 6 cells; t1 1, t2 0.5, t3 0.75, t6 1 graded, t5 missing 0, t4 unknown (error verdict)
    assert (a.cells, a.known, a.unknown, a.perfect) == (6, 5, 1, 2)
    assert a.score_bounds == (pytest.approx(3.25 / 6), pytest.approx(4.25 / 6))
    assert a.perfect_bounds == (pytest.approx(2 / 6), pytest.approx(3 / 6))
    rows, _ = board_rows()
    row = rows[("run-a", "our judge (test)")]
    assert row.perfect_bounds == (pytest.approx(100 / 3), pytest.approx(50.0))
    assert row.rubric_bounds == (pytest.approx(54.1667, abs=1e-3), pytest.approx(70.8333, abs=1e-3))
    html = client.get("/leaderboard/").content.decode()
    assert "bounds 33.3–50.0" in html and "bounds 54.2–70.8" in html
    assert "Graded runs are placed by complete results, or the lower bound" in html


def test_a_run_whose_outcomes_are_mostly_unknown_does_not_outrank_a_complete_one(board, client):
    # X: t1 [S], t2 [S, S] perfect; t3 and t4 carry an error verdict, t5 is not judged, t6 still running:
    #    perfect 2 of 2 known = 100%, but 2 of 6 = 33.3% with the unknowns as failures
    x = new_run(board, "Run-X")
    for tid, verdicts in (("t1", [S]), ("t2", [S, S]), ("t3", [S, E]), ("t4", [E, S, S])):
        judge(traj(x, board.tasks[tid], 5), board.items[tid], verdicts, board.ours)
    traj(x, board.tasks["t5"], 5)
    traj(x, board.tasks["t6"], 5, status="running")
    # Y: complete, 4 of 6 perfect = 66.7%
    y = new_run(board, "Run-Y")
    for tid, verdicts in (
        ("t1", [S]),
        ("t2", [S, S]),
        ("t3", [S, S]),
        ("t4", [S, S, S]),
        ("t5", [F, F]),
        ("t6", [F, F]),
    ):
        judge(traj(y, board.tasks[tid], 5), board.items[tid], verdicts, board.ours)
    rows, _ = board_rows()
    rx, ry = rows[("run-x", "our judge (test)")], rows[("run-y", "our judge (test)")]
    assert rx.perfect.value == 100.0  # the point estimate over known tasks is still shown
    assert rx.rank_value == pytest.approx(100 / 3) and ry.rank_value == pytest.approx(200 / 3)
    assert ry.rank == 1 and rx.rank > 1
    assert (
        rx.ranked_on == leaderboard.boards.board.RANKED_ON_LOWER_BOUND
        and ry.ranked_on == leaderboard.boards.board.RANKED_ON_COMPLETE
    )
    exported = {r["run"]: r for r in json.loads(client.get("/leaderboard/?format=json").content)["rows"]}
    assert exported["run-x"]["ranked_on"].startswith("lower bound")
    assert exported["run-x"]["perfect_lower_bound"] == 33.3 and exported["run-x"]["perfect_upper_bound"] == 100.0
    assert exported["run-y"]["rank"] == 1


# ------------------------------------------------------------------ 10: infrastructure failures


def test_a_vm_that_never_started_and_a_queued_trajectory_are_unknown_not_failures(board, client):
    z = new_run(board, "Run-Z")
    judge(traj(z, board.tasks["t1"], 4), board.items["t1"], [S], board.ours)
    traj(z, board.tasks["t2"], 0, status="error", error="gave up after 2 attempts: the qemu guest did not start")
    traj(z, board.tasks["t3"], 0, status="queued")
    for tid in ("t4", "t5", "t6"):
        judge(traj(z, board.tasks[tid], 4), board.items[tid], [F] * len(board.items[tid]), board.ours)
    o = outcomes.run_outcomes([z])[z.pk]
    assert list(o.status[:, 0]) == ["graded", "infrastructure", "unfinished", "graded", "graded", "graded"]
    # known: t1 perfect, t4-t6 failed -> 1 of 4; unknown 2, so bounds 1/6 .. 3/6
    assert o.perfect_k_n() == (1, 4)
    assert o.mean_score() == pytest.approx(0.25)
    assert o.counts()["infrastructure"] == 1 and o.counts()["unfinished"] == 1
    # an agent that acted and then errored is still the agent's failure (run B's t3, 30 steps)
    assert outcomes.run_outcomes([board.b])[board.b.pk].status[2, 0] == "errored"
    html = client.get("/leaderboard/").content.decode()
    row = html[html.index('data-run="run-z"') :]
    row = row[: row.index("</tr>")]
    assert "1 never started, 1 not finished" in row
    assert ">4</span> / <span" in row and ">0</span> / <span" in row and ">2</span>" in row


# ------------------------------------------------------------------ 11: the declared attempt grid


def test_attempts_numbered_from_1_score_as_the_runs_attempts(board):
    w = new_run(board, "Run-W")
    for tid, items in board.items.items():
        if tid == "t6-old":
            continue
        for attempt in (1, 2, 3):
            judge(traj(w, board.tasks[tid], 5, attempt=attempt), items, [S] * len(items), board.ours)
    o = outcomes.run_outcomes([w])[w.pk]
    assert o.attempts == 3
    assert o.perfect_k_n() == (18, 18)  # not 18 of 24 with an "attempt 0" counted missing
    assert o.counts()["missing"] == 0
    assert any("attempt numbers 1–3" in n for n in o.notes)


def test_attempt_numbers_with_gaps_are_named_in_the_runs_note(board):
    w = new_run(board, "Run-G")
    for attempt in (0, 2, 5):
        judge(traj(w, board.tasks["t1"], 5, attempt=attempt), board.items["t1"], [S], board.ours)
    o = outcomes.run_outcomes([w])[w.pk]
    assert o.attempts == 3
    assert "attempt numbers 0, 2, 5 are not numbered from 0 without gaps: scored in order as attempts 1 to 3" in o.notes


@pytest.mark.parametrize(
    "numbers, text",
    [
        ([1, 2], "1, 2"),  # two in a row are listed, not a range
        ([1, 2, 3], "1–3"),
        ([1, 3, 4], "1, 3, 4"),  # a gap: listed
        ([1, 2, 3, 5, 6, 7], "1, 2, 3, 5, 6, 7"),  # six listed in full
        ([1, 2, 3, 5, 6, 7, 9], "1, 2, 3, 5, 6, 7, …"),  # the seventh and on elided
    ],
)
def test_attempt_numbers_are_written_as_a_range_or_the_first_six(numbers, text):
    assert outcomes._numbers_text(numbers) == text


def test_the_declared_number_of_attempts_is_the_grid(board):
    v = new_run(board, "Run-V", attempts_per_task=2)
    judge(traj(v, board.tasks["t1"], 5), board.items["t1"], [S], board.ours)
    o = outcomes.run_outcomes([v])[v.pk]
    # 6 tasks x 2 declared attempts; only t1's first exists: 1 perfect of 12, 11 missing (failures)
    assert o.attempts == 2 and o.perfect_k_n() == (1, 12) and o.counts()["missing"] == 11
    one = new_run(board, "Run-U1", attempts_per_task=1)
    judge(traj(one, board.tasks["t1"], 5, attempt=0), board.items["t1"], [F], board.ours)
    judge(traj(one, board.tasks["t1"], 5, attempt=1), board.items["t1"], [S], board.ours)
    o = outcomes.run_outcomes([one])[one.pk]
    assert o.attempts == 1 and o.perfect_k_n() == (0, 6)
    assert "1 trajectories are attempts beyond the 1 declared per task and were not scored" in o.notes


# ------------------------------------------------------------------ 12 and 13: resampling, Wilson


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
        perfect=(scores >= 0.999).astype(float),
        status=np.full((n, r), "graded", dtype=object),
        steps=np.full((n, r), 10.0),
        trajectory_ids=np.ones((n, r), dtype=np.int64),
    )


def test_each_run_is_resampled_over_its_own_attempts():
    rng = np.random.default_rng(4)
    strata = ["a"] * 20 + ["b"] * 20
    one = _outcomes((rng.random((40, 1)) < 0.5).astype(float), strata, "one")
    three = _outcomes((rng.random((40, 3)) < 0.5).astype(float), strata, "three")
    alone = bootstrap.bootstrap_replicates([one], "score", B=400, seed=1)[0]
    mixed = bootstrap.bootstrap_replicates([one, three], "score", B=400, seed=1)
    # the 1-attempt run's replicates do not change when a 3-attempt run stands beside it
    np.testing.assert_allclose(mixed[0], alone)
    np.testing.assert_allclose(alone, metrics.stratified_bootstrap(one.scores[None], strata, B=400, seed=1)[0])
    np.testing.assert_allclose(mixed[1], metrics.stratified_bootstrap(three.scores[None], strata, B=400, seed=1)[0])


def test_wilson_only_for_one_attempt_per_task(board):
    w = new_run(board, "Run-W3")
    for tid, items in board.items.items():
        if tid == "t6-old":
            continue
        for attempt in (0, 1, 2):
            judge(traj(w, board.tasks[tid], 5, attempt=attempt), items, [S] * len(items), board.ours)
    rows, _ = board_rows()
    row = rows[("run-w3", "our judge (test)")]
    # 18 of 18 perfect: Wilson over cells would say [82.4, 100]; the task bootstrap of an all-perfect run is [100, 100]
    assert row.perfect_interval == "bootstrap" and (row.perfect.low, row.perfect.high) == (100.0, 100.0)
    a = rows[("run-a", "our judge (test)")]
    assert a.perfect_interval == "wilson" and round(a.perfect.low, 1) == 11.8 and round(a.perfect.high, 1) == 76.9


# ------------------------------------------------------------------ nothing judged yet


def test_an_upload_not_yet_judged_is_not_ranked(board, client):
    upload = new_run(board, "Upload-U", provenance="upload", judge_config=None)
    for tid in ("t1", "t2", "t3"):
        traj(upload, board.tasks[tid], 6)  # finished, not judged; t4-t6 absent (counted failures)
    rows, b = board_rows()
    row = rows[("upload-u", "")]
    assert row.rank is None and row.rank_low is None and row.tier is None and not row.ranked
    assert row.perfect.value is None and row.rubric.value is None
    assert b.rows[-1].run_slug == "upload-u"  # listed last, after every ranked row
    ranks = sorted(r.rank for r in b.rows if r.rank is not None)
    assert ranks == list(range(1, len(ranks) + 1))
    html = client.get("/leaderboard/").content.decode()
    row_html = html[html.index('data-run="upload-u"') :]
    row_html = row_html[: row_html.index("</tr>")]
    assert "not judged yet" in row_html and "0.0" not in row_html
    exported = {r["run"]: r for r in json.loads(client.get("/leaderboard/?format=json").content)["rows"]}
    assert exported["upload-u"]["rank"] is None and exported["upload-u"]["perfect_pct"] is None


# ------------------------------------------------------------------ 14: one rule everywhere


def test_scores_json_and_the_site_share_one_rule(board):
    # the offline judge: two judged tasks (1.0 and 0.5) and one judge error, in a suite of 4 tasks
    rows = [
        {"task_id": "a", "status": "judged", "score": 1.0},
        {"task_id": "b", "status": "judged", "score": 0.5},
        {"task_id": "c", "status": "judge_error", "score": None},
    ]
    s = scores_summary("/r", rows, expected_tasks=4)
    # known: 1.0, 0.5 and the missing task's 0 -> 1.5 / 3; unknown 1 -> bounds 1.5/4 .. 2.5/4
    assert s["avg_score"] == pytest.approx(0.5) and s["perfect_rate"] == pytest.approx(1 / 3)
    assert s["avg_score_bounds"] == [pytest.approx(0.375), pytest.approx(0.625)]
    assert s["tasks"] == 4 and s["missing"] == 1 and s["unknown"] == 1
    # the site over the same cells gives the same figures
    site = run_figures([1.0, 0.5, None, 0.0])
    assert (site.mean_score, site.perfect_rate, site.score_bounds) == (
        s["avg_score"],
        s["perfect_rate"],
        tuple(s["avg_score_bounds"]),
    )
    a = outcomes.run_outcomes([board.a])[board.a.pk]
    assert a.mean_score() == run_figures([1, 0.5, 0.75, None, 0.0, 1]).mean_score


class _NeverCalled:
    settings = {"provider": "openai", "model": "judge-b", "prompt_version": "mypc-judge-1"}
    stopped = ""

    def judge(self, trajectory, items):
        raise AssertionError("not expected to be called")


def test_scores_json_reuses_a_task_score_only_from_the_same_judge(tmp_path):
    from tests.factories import write_task_dir

    root = tmp_path / "results"
    task_dir = write_task_dir(root, "retrieval-f001")
    task_dir = root / "retrieval-f001"
    (task_dir / TASK_RESULT_FILE).write_text(json.dumps({"result": 100}))
    other = {"provider": "openai", "model": "judge-a", "prompt_version": "mypc-judge-1"}
    (task_dir / ITEMS_FILE).write_text(json.dumps({"judge": other, "score": 100, "complete": True, "items": []}))

    class Recording(_NeverCalled):
        calls = []

        def judge(self, trajectory, items):
            from harness.judge.core import ItemVerdict

            self.calls.append(len(items))
            return [
                ItemVerdict(position=i.position, rubric_id=i.rubric_id, verdict="failure", explanation="no")
                for i in items
            ]

    judge_b = Recording()
    row = judge_task_dir(task_dir, judge_b)
    assert row["status"] == "judged" and row["score"] == 0.0 and judge_b.calls == [3]
    # judge B's own complete result is reused by judge B
    again = judge_task_dir(task_dir, _NeverCalled())
    assert again == {"task_id": "retrieval-f001", "status": "cached", "score": 0.0, "raw": 0}


# ------------------------------------------------------------------ 15: stale figures


def version_seen_elsewhere() -> str:
    """The data version as another process sees it: its cache never heard this process's signals."""
    cache.delete(data_version.signal_version_key())
    return data_version.data_version()


def test_a_bulk_status_update_is_seen_by_cached_scores(board):
    running = board.c.trajectories.get()
    running.n_steps = 3
    running.save()
    before = outcomes.run_outcomes([board.c], version=version_seen_elsewhere())[board.c.pk]
    assert before.status[0, 0] == "unfinished"
    Trajectory.objects.filter(pk=running.pk).update(status="error")  # as a worker's failure path does
    after = outcomes.run_outcomes([board.c], version=version_seen_elsewhere())[board.c.pk]
    assert after.status[0, 0] == "errored"


@pytest.fixture
def harness_run(board, monkeypatch, settings):
    from trajectories.evaluations import lifecycle
    from trajectories.evaluations.lifecycle import LaunchSpec
    from trajectories.tasks import run_trajectory

    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_JUDGE_ON_FINISH = False
    monkeypatch.setattr(run_trajectory, "apply_async", lambda args, task_id: None)  # no broker here
    spec = LaunchSpec(
        suite=board.suite, model=board.a.model, agent_type="scripted", plan={"turns": []}, tasks=[board.tasks["t1"]]
    )
    return lifecycle.launch_run(spec)


def test_cancelling_moves_the_data_version(harness_run):
    from trajectories.evaluations import lifecycle

    before = version_seen_elsewhere()
    lifecycle.cancel(harness_run)
    assert harness_run.trajectories.get().status == "interrupted"
    assert version_seen_elsewhere() != before


def test_a_message_for_a_cancelled_run_moves_the_data_version(harness_run):
    from trajectories.evaluations import lifecycle

    Run.objects.filter(pk=harness_run.pk).update(status="cancelled")
    before = version_seen_elsewhere()
    assert lifecycle.execute_trajectory(harness_run.trajectories.get().pk) == "cancelled"
    assert version_seen_elsewhere() != before


def test_reaping_lapsed_and_orphaned_trajectories_moves_the_data_version(harness_run, board):
    from datetime import timedelta

    from django.utils import timezone

    from trajectories.evaluations import slots

    t = harness_run.trajectories.get()
    assert slots.acquire(t, worker="host-a") is not None
    Trajectory.objects.filter(pk=t.pk).update(status="running")
    before = version_seen_elsewhere()
    assert slots.reap_expired(now=timezone.now() + timedelta(days=1)) == [t.pk]
    assert version_seen_elsewhere() != before
    orphan = traj(harness_run, board.tasks["t2"], 0, status="running")
    before = version_seen_elsewhere()
    assert slots.reap_expired() == [orphan.pk]
    assert version_seen_elsewhere() != before


def test_action_count_writes_move_the_data_version(board):
    from trajectories.models import Step
    from trajectories.recording import action_counts

    t = board.a.trajectories.first()
    step = Step.objects.create(trajectory=t, index=1, turn=1, tool="computer", action={"type": "click"})
    before = version_seen_elsewhere()
    action_counts.adjust(t, added=[step])
    assert version_seen_elsewhere() != before
    Trajectory.objects.filter(pk=t.pk).update(action_counts={})
    before = version_seen_elsewhere()
    action_counts.recount([t.pk])  # bulk_update goes through the same queryset
    assert version_seen_elsewhere() != before


def test_the_api_gives_bounds_and_what_the_rank_uses(board, client):
    rows = {(r["run"], r["judge"]): r for r in client.get("/api/leaderboard").json()["rows"]}
    a = rows[("run-a", "our judge (test)")]
    # run A: perfect 2 of 6 .. 3 of 6, rubric 3.25/6 .. 4.25/6 (see test_bounds_beside_each_figure)
    assert a["perfect_bounds_pct"] == {"lower": 33.3, "upper": 50.0}
    assert a["rubric_bounds_pct"] == {"lower": 54.2, "upper": 70.8}
    assert a["ranked_on"].startswith("lower bound") and a["perfect_interval"] == "wilson" and a["attempts"] == 1


# ------------------------------------------------------------------ protocol labels


def test_every_judged_row_and_export_names_its_protocol(board, client):
    from leaderboard.models import JudgeConfig

    paper = JudgeConfig.objects.create(name="ours: google gemini paper-v1", origin="ours", prompt_version="paper-v1")
    p = new_run(board, "Run-P", judge_config=paper)
    judge(traj(p, board.tasks["t1"], 5), board.items["t1"], [S], paper)
    rows = {(r["run"], r["judge"]): r for r in json.loads(client.get("/leaderboard/?format=json").content)["rows"]}
    assert rows[("run-p", paper.name)]["protocol"] == "paper-v1"
    assert rows[("run-a", "our judge (test)")]["protocol"] == "unrecorded"  # the fixture's judge recorded none
    assert rows[("run-b", "upstream judge (test)")]["protocol"] == "source"
    assert rows[("reported-alpha", "")]["protocol"] == "paper"
    csv_text = client.get("/leaderboard/?format=csv").content.decode()
    assert "protocol" in csv_text.splitlines()[0].split(",") and ",paper-v1," in csv_text
    html = client.get("/leaderboard/").content.decode()
    assert "the paper&#x27;s protocol (paper-v1)" in html or "the paper's protocol (paper-v1)" in html
    assert "the paper&#x27;s protocol, as published" in html or "the paper's protocol, as published" in html
    api = {(r["run"], r["judge"]): r for r in client.get("/api/leaderboard").json()["rows"]}
    assert api[("run-p", paper.name)]["protocol"] == "paper-v1"


def test_judgment_writes_from_another_process_move_the_data_version(board):
    from trajectories.models import Judgment

    error = Judgment.objects.get(trajectory__run=board.a, verdict="error")
    before = version_seen_elsewhere()
    # a forced re-judge in a worker or `manage.py judge --force`: update_or_create on the same key
    Judgment.objects.update_or_create(
        trajectory=error.trajectory, rubric_item=error.rubric_item, judge=error.judge, defaults={"verdict": "success"}
    )
    after = version_seen_elsewhere()
    assert after != before
    assert outcomes.run_outcomes([board.a], version=after)[board.a.pk].status[3, 0] == "graded"
    # failure modes written in bulk (trajectories.recording.failure_signals)
    failed = list(Judgment.objects.filter(verdict="failure")[:2])
    for j in failed:
        j.failure_mode = "premature_done"
    Judgment.objects.bulk_update(failed, ["failure_mode"])
    assert version_seen_elsewhere() != after


def test_a_worker_failure_mid_run_is_infrastructure_not_the_agents_failure(harness_run, monkeypatch):
    from trajectories.evaluations import lifecycle

    def broken(trajectory, slot, heartbeat):
        Trajectory.objects.filter(pk=trajectory.pk).update(n_steps=4)  # the agent had acted
        raise OSError("disk full")

    monkeypatch.setattr(lifecycle, "_run_in_slot", broken)
    t = harness_run.trajectories.get()
    with pytest.raises(OSError):
        lifecycle.execute_trajectory(t.pk)
    t.refresh_from_db()
    assert t.status == "error" and t.n_steps == 4 and t.error.startswith("the worker failed")
    o = outcomes.run_outcomes([harness_run], version=version_seen_elsewhere())[harness_run.pk]
    task = list(o.task_ids).index(t.task.task_id)
    assert o.status[task, 0] == "infrastructure" and np.isnan(o.scores[task, 0])
