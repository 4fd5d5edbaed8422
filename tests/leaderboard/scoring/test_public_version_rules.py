"""What visitors' cached pages are keyed on (leaderboard/scoring/public_version.py), rule by rule: a
change only a signal sees still moves the key, the counter never expires, an unpublished run's delete
leaves visitors' pages alone, and what the process remembers of publications and trajectories' runs
(read once a second, bounded, a row it cannot place counted as public)."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import JudgeConfig, Run
from leaderboard.scoring import public_version
from tests.factories import make_run, make_suite
from trajectories.models import Judgment, Trajectory

pytestmark = pytest.mark.django_db

LOCAL_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture
def published():
    """A published run of two tasks, each attempt judged on every current rubric item."""
    suite = make_suite(["t1", "t2"])
    run = make_run(suite, publication=Run.Publication.PUBLISHED)
    judge = JudgeConfig.objects.create(name="judge", origin=JudgeConfig.Origin.OURS)
    for task in suite.tasks.order_by("position"):
        trajectory = Trajectory.objects.create(run=run, task=task, attempt=1, status="finished", n_steps=2)
        for item in task.rubric_items.filter(is_current=True):
            Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=judge, verdict="success")
    return run


@pytest.fixture
def clock(monkeypatch):
    now = {"t": 1_000.0}
    monkeypatch.setattr(public_version.time, "monotonic", lambda: now["t"])
    return now


def test_deleting_an_older_judgment_moves_the_visitors_version_from_the_first_delete(published):
    """The aggregates cannot see it (the newest id and write stay the same); the counter does, from a
    cache that has never counted anything (a new or restarted cache)."""
    cache.clear()
    version = public_version.published_data_version()
    oldest, second = Judgment.objects.order_by("pk")[:2]
    oldest.delete()
    after_one = public_version.published_data_version()
    assert after_one != version
    second.delete()
    assert public_version.published_data_version() not in (version, after_one)


def test_the_counter_never_expires(settings, monkeypatch):
    """A counter that expired would start again from nothing, and a version seen before could come
    back with other data behind it."""
    import time

    settings.CACHES = LOCAL_CACHE
    public_version.bump()
    public_version.bump()
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 30 * 24 * 3600)
    assert public_version.counter() == 2


def test_deleting_a_draft_run_leaves_visitors_pages_alone_and_a_published_one_does_not():
    suite = make_suite(["t1"])
    draft = make_run(suite, slug="draft", name="Draft")
    shown = make_run(suite, slug="shown", name="Shown", publication=Run.Publication.PUBLISHED)
    counter = public_version.counter()
    Run.objects.get(pk=draft.pk).delete()  # read afresh: nothing remembered of an earlier save
    assert public_version.counter() == counter
    Run.objects.get(pk=shown.pk).delete()
    assert public_version.counter() > counter


def test_a_runs_publication_is_read_once_a_second_and_again_at_exactly_one_second(published, clock):
    draft = make_run(published.suite, slug="draft", name="Draft")
    with CaptureQueriesContext(connection) as first:
        assert public_version.run_is_public(draft.pk) is False
    assert len(first.captured_queries) == 1
    Run.objects.filter(pk=draft.pk).update(publication=Run.Publication.PUBLISHED)  # no signal
    clock["t"] += public_version.PUBLICATION_MEMO_SECONDS - 0.01
    with CaptureQueriesContext(connection) as within:
        assert public_version.run_is_public(draft.pk) is False
    assert within.captured_queries == []
    clock["t"] += 0.01
    assert public_version.run_is_public(draft.pk) is True


def test_a_trajectorys_run_is_read_once(published):
    trajectory = Trajectory.objects.filter(run=published).first()
    assert public_version.trajectory_is_public(trajectory.pk) is True
    with CaptureQueriesContext(connection) as again:
        assert public_version.trajectory_is_public(trajectory.pk) is True
    assert again.captured_queries == [], "its run and that run's publication both remembered"


def test_the_memos_never_hold_more_than_their_bound(published, monkeypatch):
    monkeypatch.setattr(public_version, "MEMO_MAX", 2)
    runs = [published] + [make_run(published.suite, slug=f"r{n}", name=f"R{n}") for n in range(2)]
    for run in runs:
        public_version.run_is_public(run.pk)
    assert len(public_version._publication_memo) == 1, "full at two: emptied before the third"
    public_version.forget_memos()
    task = published.suite.tasks.first()
    trajectories = [Trajectory.objects.create(run=run, task=task, attempt=5, status="finished") for run in runs]
    for trajectory in trajectories:
        public_version.trajectory_is_public(trajectory.pk)
    assert len(public_version._run_of_trajectory) == 1


def test_a_row_whose_run_or_trajectory_cannot_be_found_counts_as_public():
    """Counting it moves visitors' version once too often; not counting it could leave a page stale."""
    assert public_version.run_is_public(None) is True
    assert public_version.trajectory_is_public(10**9) is True
    assert public_version._run_of_trajectory == {}, "nothing remembered of a trajectory that is gone"
