"""The keys cached pages are built on: one trajectory's page version moves when what its page shows may
change, including how its run is scored (another judge outnumbering the first, declared attempts),
which a bulk write elsewhere in the run changes without touching the trajectory's own rows; that run
state is read once per refresh window and in one query of the run; every version is a valid cache
key on every backend; and each page with a version of its own keeps its own memo."""

import warnings

import pytest
from django.core.cache import CacheKeyWarning, cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import JudgeConfig, Run
from leaderboard.scoring import data_version, one_trajectory, public_version
from mypcbench_site import page_cache
from tests.factories import make_run, make_suite
from trajectories.models import Judgment, Trajectory

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    """A published run of three tasks, each with one finished attempt; the first judged by ``first``."""
    suite = make_suite(["t1", "t2", "t3"])
    run = make_run(suite, publication=Run.Publication.PUBLISHED)
    first = JudgeConfig.objects.create(name="first judge", origin=JudgeConfig.Origin.OURS)
    second = JudgeConfig.objects.create(name="second judge", origin=JudgeConfig.Origin.OURS)
    trajectories = [
        Trajectory.objects.create(run=run, task=task, attempt=1, status="finished", n_steps=3)
        for task in suite.tasks.order_by("position")
    ]
    for item in trajectories[0].task.rubric_items.filter(is_current=True):
        Judgment.objects.create(trajectory=trajectories[0], rubric_item=item, judge=first, verdict="success")
    return run, trajectories, first, second


def judged_in_bulk(trajectories, judge):
    """Judgments written as ingest writes them: bulk inserts, no signals."""
    Judgment.objects.bulk_create(
        [
            Judgment(trajectory=t, rubric_item=item, judge=judge, verdict="failure")
            for t in trajectories
            for item in t.task.rubric_items.filter(is_current=True)
        ]
    )


def test_another_judge_outnumbering_the_first_moves_the_page_version_of_a_trajectory_it_never_judged(world, settings):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0  # every change shows at once
    run, (mine, *others), first, second = world
    before = one_trajectory.trajectory_page_version(mine.pk)
    assert one_trajectory.trajectory_score(mine) == 1.0
    judged_in_bulk(others, second)  # two trajectories judged by the second, one by the first
    assert one_trajectory.default_judge_id(run) == second.pk
    assert one_trajectory.trajectory_score(mine) is None  # scored by the second judge now: not graded
    assert one_trajectory.trajectory_page_version(mine.pk) != before


def test_declaring_the_attempts_a_run_scores_moves_the_page_version(world, settings):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0
    run, (mine, *_), _, _ = world
    before = one_trajectory.trajectory_page_version(mine.pk)
    Run.objects.filter(pk=run.pk).update(attempts_per_task=1)  # no signal, no catalog counter
    assert one_trajectory.trajectory_page_version(mine.pk) != before


def test_the_run_state_is_read_once_per_refresh_window(world, settings, monkeypatch):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    clock = [5_000.0]
    monkeypatch.setattr(one_trajectory.time, "monotonic", lambda: clock[0])
    run, (mine, *others), _, second = world
    before = one_trajectory.trajectory_page_version(mine.pk)
    judged_in_bulk(others, second)
    clock[0] += 9
    with CaptureQueriesContext(connection) as ctx:
        assert one_trajectory.trajectory_page_version(mine.pk) == before  # the last figures, within the window
    assert len(ctx.captured_queries) == 1, "one query for the trajectory's own rows, the run's state remembered"
    clock[0] += 2
    assert one_trajectory.trajectory_page_version(mine.pk) != before


def test_the_run_state_reads_the_run_in_one_query_with_every_field_it_uses(world, settings):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0
    run, (mine, *_), _, _ = world
    Run.objects.filter(pk=run.pk).update(attempts_per_task=1)
    run = Run.objects.get(pk=run.pk)
    with CaptureQueriesContext(connection) as rules:
        one_trajectory.default_judge_id(run)
        one_trajectory._scored_attempts(run)
    with CaptureQueriesContext(connection) as ctx:
        one_trajectory._run_scoring_state(run.pk)
    # the run itself, then the scoring rules' own queries: no field of the run read lazily afterwards
    assert len(ctx.captured_queries) == 1 + len(rules.captured_queries), [q["sql"] for q in ctx.captured_queries]
    assert one_trajectory._run_scoring_state(10**9) != one_trajectory._run_scoring_state(run.pk)


def test_a_missing_trajectorys_version_differs_from_every_stored_ones(world, settings):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0
    _, trajectories, _, _ = world
    versions = {one_trajectory.trajectory_page_version(t.pk) for t in trajectories}
    assert len(versions) == 3
    assert one_trajectory.trajectory_page_version(10**9) not in versions


def test_every_page_version_is_a_valid_cache_key_on_every_backend(world, settings):
    """Versions hold timestamps; a space in a cache key is refused by memcached (Django warns)."""
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0
    _, (mine, *_), _, _ = world
    versions = [
        data_version.data_version(),
        public_version.published_data_version(),
        one_trajectory.trajectory_page_version(mine.pk),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheKeyWarning)
        for version in versions:
            cache.validate_key(f"player-page:/trajectories/1/play/::{version}")


def test_each_page_with_a_version_of_its_own_keeps_its_own_memo(settings, monkeypatch):
    """Two players read within the memo window each get their own trajectory's version."""
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    monkeypatch.setattr(page_cache, "_page_memos", {})
    read = []

    def version_of(pk):
        read.append(pk)
        return f"v{pk}"

    assert page_cache._own_version("player", version_of, (1,), {})[0] == "v1"
    assert page_cache._own_version("player", version_of, (2,), {})[0] == "v2"
    assert page_cache._own_version("player", version_of, (1,), {})[0] == "v1"
    assert page_cache._own_version("compare", version_of, (1,), {})[0] == "v1"
    assert read == [1, 2, 1], "the second read of page 1 came from the memo; another page's memo is its own"


@pytest.mark.parametrize("window", [1, 10])
def test_the_run_state_is_read_again_at_exactly_the_end_of_its_window(world, settings, monkeypatch, window):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = window
    clock = [5_000.0]
    monkeypatch.setattr(one_trajectory.time, "monotonic", lambda: clock[0])
    run, _, _, _ = world
    state = one_trajectory._run_scoring_state(run.pk)
    clock[0] += window - 0.5
    with CaptureQueriesContext(connection) as ctx:
        assert one_trajectory._run_scoring_state(run.pk) == state
    assert ctx.captured_queries == [], "remembered within the window, even a window of one second"
    Run.objects.filter(pk=run.pk).update(attempts_per_task=1)
    clock[0] += 0.5
    assert one_trajectory._run_scoring_state(run.pk) != state, "read again at exactly the window's end"
