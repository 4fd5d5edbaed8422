"""One trajectory's score read on its own (the player page) equals the score the leaderboard gives it
when scoring the whole run, over randomly built runs that mix everything the rules look at: the run's
configured judge (judging or not, an author's own), a second judge with more or fewer verdicts, stale
and current rubric items with unequal weights, judge errors, partly judged rubrics, imported scores,
errored and unfinished trajectories, a task outside the suite and declared attempts fewer than used."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import JudgeConfig, Model, Run, Suite
from leaderboard.scoring import outcomes
from leaderboard.scoring.one_trajectory import default_judge_id, trajectory_score, trajectory_scores
from tests.catalog_data import add_rubric, make_task
from trajectories.models import Judgment, Trajectory

pytestmark = pytest.mark.django_db

STATUSES = ["finished"] * 6 + ["error", "running", "interrupted"]
VERDICTS = ["success"] * 8 + ["failure"] * 6 + ["error"]


def _world(rng: random.Random, n: int):
    suite = Suite.objects.create(name=f"Suite {n}", version="v1", slug=f"suite-{n}")
    other = Suite.objects.create(name=f"Other {n}", version="v1", slug=f"other-{n}")
    tasks = []
    for i in range(4):
        task = make_task(suite, f"t{n}-{i}", "bounded_action", [], position=i)
        if rng.random() < 0.5:
            add_rubric(task, [rng.choice([0.5, 1.0, 2.0]) for _ in range(rng.randint(1, 3))], version=1, current=False)
        add_rubric(task, [rng.choice([0.5, 1.0, 3.0]) for _ in range(rng.randint(1, 4))], version=2)
        tasks.append(task)
    stray = make_task(other, f"stray-{n}", "bounded_action", [], position=0)
    add_rubric(stray, [1.0])
    judges = [
        JudgeConfig.objects.create(name=f"ours-{n}", origin=JudgeConfig.Origin.OURS),
        JudgeConfig.objects.create(name=f"second-{n}", origin=JudgeConfig.Origin.OURS),
        JudgeConfig.objects.create(name=f"own-{n}", origin=JudgeConfig.Origin.SELF_REPORTED),
    ]
    return suite, tasks + [stray], judges


def _run_of(suite, n: int, **fields) -> Run:
    """A run of ``suite`` by a model of its own."""
    model = Model.objects.create(name=f"Model {n}", slug=f"model-{n}")
    return Run.objects.create(name=f"Run {n}", slug=f"run-{n}", suite=suite, model=model, **fields)


def _random_run(seed: int) -> Run:
    rng = random.Random(seed)
    suite, tasks, judges = _world(rng, seed)
    run = _run_of(
        suite,
        seed,
        provenance=rng.choice([Run.Provenance.HARNESS, Run.Provenance.UPLOAD, Run.Provenance.IMPORTED]),
        judge_config=rng.choice([None, *judges]),
        attempts_per_task=rng.choice([None, 1, 2, 3]),
    )
    active = rng.sample(judges, rng.randint(0, 3))
    for task in tasks:
        for attempt in rng.sample(range(4), rng.randint(1, 3)):
            status = rng.choice(STATUSES)
            trajectory = Trajectory.objects.create(
                run=run,
                task=task,
                attempt=attempt,
                status=status,
                n_steps=rng.choice([0, 3]),
                error=rng.choice(["", "gave up after 3 tries", "the agent crashed"]) if status == "error" else "",
            )
            if active and rng.random() < 0.3:
                trajectory.imported_score = rng.choice([0.0, 0.5, 1.0])
                trajectory.imported_score_judge = rng.choice(active)
                trajectory.save()
            for judge in active:
                for item in task.rubric_items.all():
                    if rng.random() < 0.93:
                        Judgment.objects.create(
                            trajectory=trajectory, rubric_item=item, judge=judge, verdict=rng.choice(VERDICTS)
                        )
    return run


@pytest.mark.slow
def test_a_trajectory_alone_scores_as_in_its_whole_run():
    graded_per_run = {}
    for seed in range(24):
        run = _random_run(seed)
        judge_id, graded = outcomes.graded_scores(run)
        trajectories = list(Trajectory.objects.filter(run=run).select_related("run", "task"))
        alone = {t.pk: trajectory_score(t) for t in trajectories}
        assert {pk: score for pk, score in alone.items() if score is not None} == pytest.approx(graded), seed
        assert trajectory_scores(trajectories) == pytest.approx(graded), seed
        if graded:
            assert default_judge_id(run) == judge_id, seed
        graded_per_run[seed] = len(graded)
    # the comparison is worth something only if many runs have graded trajectories
    assert sum(1 for n in graded_per_run.values() if n) >= 12 and sum(graded_per_run.values()) >= 30, graded_per_run


def test_the_configured_judge_wins_and_authors_own_verdicts_never_score():
    rng = random.Random(99)
    suite, tasks, (ours, second, own) = _world(rng, 99)
    model = Model.objects.create(name="Model", slug="model")
    run = Run.objects.create(name="Run", slug="run", suite=suite, model=model, provenance="upload", judge_config=ours)
    trajectory = Trajectory.objects.create(run=run, task=tasks[0], attempt=0, status="finished", n_steps=2)
    items = list(tasks[0].rubric_items.filter(is_current=True))
    for item in items:
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=own, verdict="success")
    assert trajectory_score(trajectory) is None, "only the author's own verdicts: not graded"
    for item in items:
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=second, verdict="failure")
    assert trajectory_score(trajectory) == 0.0, "the only other judge scores it"
    for item in items:
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=ours, verdict="success")
    assert trajectory_score(trajectory) == 1.0, "the run's own judge, once it judged"


def test_declared_attempts_count_only_this_runs_attempts_at_its_suites_tasks():
    """A run declares one attempt but numbers its attempts from 1; another run of the suite numbers
    from 0, and the run also holds an attempt 0 at a task outside its suite. Only the run's own attempt
    numbers at its suite's tasks make its grid: attempt 1 is scored, attempt 2 is beyond it."""
    rng = random.Random(7)
    suite, tasks, (ours, _second, _own) = _world(rng, 7)
    stray = tasks[-1]  # of another suite
    model = Model.objects.create(name="Model", slug="model")
    run = Run.objects.create(name="R", slug="r", suite=suite, model=model, provenance="upload", judge_config=ours,
                             attempts_per_task=1)  # fmt: skip
    other = Run.objects.create(name="O", slug="o", suite=suite, model=model, provenance="upload", judge_config=ours)
    first = Trajectory.objects.create(run=run, task=tasks[0], attempt=1, status="finished", n_steps=2)
    beyond = Trajectory.objects.create(run=run, task=tasks[0], attempt=2, status="finished", n_steps=2)
    Trajectory.objects.create(run=run, task=stray, attempt=0, status="finished", n_steps=2)
    Trajectory.objects.create(run=other, task=tasks[0], attempt=0, status="finished", n_steps=2)
    for trajectory in (first, beyond):
        for item in tasks[0].rubric_items.filter(is_current=True):
            Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=ours, verdict="success")
    assert outcomes.graded_scores(run)[1] == {first.pk: 1.0}
    assert trajectory_scores([first, beyond]) == {first.pk: 1.0}


def _one_task_run(n: int):
    """A run of one task (a two-item current rubric, version 2) with one finished trajectory."""
    suite = Suite.objects.create(name=f"S{n}", version="v1", slug=f"s-{n}")
    task = make_task(suite, f"one-{n}", "bounded_action", [], position=0)
    judge = JudgeConfig.objects.create(name=f"judge-{n}", origin=JudgeConfig.Origin.OURS)
    model = Model.objects.create(name=f"M{n}", slug=f"m-{n}")
    run = Run.objects.create(name=f"R{n}", slug=f"r-{n}", suite=suite, model=model, judge_config=judge)
    trajectory = Trajectory.objects.create(run=run, task=task, attempt=0, status="finished", n_steps=2)
    add_rubric(task, [1.0, 1.0], version=2)
    return run, task, judge, trajectory


def test_a_trajectory_scored_only_by_its_imported_score_keeps_it_alone_as_in_its_run():
    run, _, judge, trajectory = _one_task_run(1)
    Trajectory.objects.filter(pk=trajectory.pk).update(imported_score=0.5, imported_score_judge=judge)
    trajectory.refresh_from_db()
    assert outcomes.graded_scores(run)[1] == {trajectory.pk: 0.5}
    assert trajectory_score(trajectory) == 0.5


def test_a_trajectory_judged_only_against_an_older_rubric_is_not_graded_alone_or_in_its_run():
    run, task, judge, trajectory = _one_task_run(2)
    for item in add_rubric(task, [1.0, 1.0], version=1, current=False):
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=judge, verdict="success")
    assert outcomes.graded_scores(run)[1] == {}
    assert trajectory_score(trajectory) is None


# -- the judge a run is scored by, rule by rule (outcomes._compute chooses the same; checked above) --


def _judged_run(n: int, configured=None, *, judged=(), imported=()):
    """A run of a fresh world with one finished trajectory per task; ``judged`` lists (judge index,
    trajectory count) pairs whose judge judges that many trajectories in full; ``imported`` the same
    for imported task scores. Returns the run and the world's judges (ours, second, own)."""
    rng = random.Random(n)
    suite, tasks, judges = _world(rng, n)
    run = _run_of(suite, n, judge_config=None if configured is None else judges[configured])
    trajectories = [
        Trajectory.objects.create(run=run, task=task, attempt=0, status="finished", n_steps=2) for task in tasks[:4]
    ]
    for judge, count in judged:
        for trajectory in trajectories[:count]:
            for item in trajectory.task.rubric_items.filter(is_current=True):
                Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=judges[judge], verdict="success")
    for judge, count in imported:
        for trajectory in trajectories[-count:]:
            Trajectory.objects.filter(pk=trajectory.pk).update(imported_score=1.0, imported_score_judge=judges[judge])
    return run, judges


def test_the_configured_judge_scores_its_run_even_when_another_judged_more():
    run, (ours, second, _) = _judged_run(101, configured=0, judged=[(0, 1), (1, 3)])
    assert default_judge_id(run) == ours.pk


def test_a_configured_judge_known_in_the_run_by_imported_scores_only_scores_it():
    run, (ours, second, _) = _judged_run(102, configured=0, judged=[(1, 3)], imported=[(0, 1)])
    assert default_judge_id(run) == ours.pk


def test_a_configured_judge_that_never_judged_the_run_leaves_it_to_the_judge_that_did():
    run, (ours, second, _) = _judged_run(103, configured=0, judged=[(1, 1)])
    other, _ = _judged_run(104, configured=0, judged=[(0, 2)], imported=[(0, 1)])
    # ours judged the other run (judgments and imported scores) but not this one
    Judgment.objects.filter(trajectory__run=other).update(judge=ours)
    Trajectory.objects.filter(run=other, imported_score__isnull=False).update(imported_score_judge=ours)
    assert default_judge_id(run) == second.pk


def test_another_judges_imported_scores_do_not_make_the_configured_judge_count():
    run, (ours, second, _) = _judged_run(105, configured=0, imported=[(1, 2)])
    assert default_judge_id(run) == second.pk


def test_a_judge_known_by_imported_scores_only_counts_each_trajectory_it_scored():
    run, (ours, second, _) = _judged_run(106, judged=[(0, 1)], imported=[(1, 2)])
    assert default_judge_id(run) == second.pk


def test_a_judge_named_on_a_trajectory_without_an_imported_score_does_not_count():
    """A judge's name left on a trajectory whose imported score is empty scored nothing there: the
    configured judge has judged nothing in the run, so the judge that did scores it (and it would win
    the tie otherwise, being the older judge)."""
    run, (ours, second, _) = _judged_run(107, configured=0, judged=[(1, 1)])
    Trajectory.objects.filter(run=run).exclude(judgments__isnull=False).update(imported_score_judge=ours)
    assert default_judge_id(run) == second.pk
    run.judge_config = None
    assert default_judge_id(run) == second.pk


def test_imported_scores_without_a_judge_count_for_no_judge():
    run, (_, second, _) = _judged_run(108, judged=[(1, 1)])
    Trajectory.objects.filter(run=run).exclude(judgments__isnull=False).update(imported_score=1.0)
    assert default_judge_id(run) == second.pk


def test_a_rubric_whose_weights_are_all_zero_counts_its_items_equally_alone_as_in_its_run():
    run, task, judge, trajectory = _one_task_run(109)
    task.rubric_items.update(weight=0.0, normalised_weight=0.0)
    first, second = task.rubric_items.filter(is_current=True).order_by("position")
    Judgment.objects.create(trajectory=trajectory, rubric_item=first, judge=judge, verdict="success")
    Judgment.objects.create(trajectory=trajectory, rubric_item=second, judge=judge, verdict="failure")
    assert outcomes.graded_scores(run)[1] == {trajectory.pk: 0.5}
    assert trajectory_score(trajectory) == 0.5


def test_the_authors_own_judges_are_read_once_for_trajectories_of_many_runs():
    trajectories = [_one_task_run(110 + n)[3] for n in range(3)]
    trajectories = list(Trajectory.objects.filter(pk__in=[t.pk for t in trajectories]).select_related("run", "task"))
    with CaptureQueriesContext(connection) as ctx:
        trajectory_scores(trajectories)
    judge_queries = [q["sql"] for q in ctx.captured_queries if 'FROM "leaderboard_judgeconfig"' in q["sql"]]
    assert len(judge_queries) == 1, judge_queries
