"""What anonymous visitors can see, versioned: the key the cached public pages (leaderboard, analysis,
task, run and player pages for visitors) are built on. It moves with the published runs' trajectories
and judgments, the catalog (tasks, rubrics, runs, models, judges, reported figures) and which runs are
published, and not with anything of a draft run: an author's upload being stored, or a draft run
being judged, leaves every visitor's page cached (bench/README.md, visitors under load).

Two parts: a counter that saves and deletes of public rows move through signals (registered in every
process by LeaderboardConfig.ready, workers included), and one query of aggregates over published
rows that also sees writes that send no signal (bulk inserts and updates, which move ``updated_at``)."""

from __future__ import annotations

import time

from django.core.cache import cache
from django.db import connection
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from leaderboard.models import JudgeConfig, Model, ReportedFigure, RubricItem, Run, Suite, Task
from trajectories.models import Judgment, Step, Trajectory

PUBLIC_VERSION_KEY = "scoring:public-version"
# How long a process trusts what it read of a run's publication when sorting a save into public or
# not (a publication change itself moves the counter at once; the aggregates see the rest anyway).
PUBLICATION_MEMO_SECONDS = 1.0
_publication_memo: dict[int, tuple[float, bool]] = {}
_run_of_trajectory: dict[int | None, int] = {}  # never changes for a trajectory
MEMO_MAX = 100_000


# What pages show beside the scores: tasks and rubrics, reported figures, judges, models.
CATALOG_MODELS = (RubricItem, Task, ReportedFigure, JudgeConfig, Model, Suite)  # Suite: revealed intents


def on_save_and_delete(*senders):
    """Decorator: the function receives post_save and post_delete of each model in ``senders``."""

    def connect(function):
        for sender in senders:
            receiver([post_save, post_delete], sender=sender)(function)
        return function

    return connect


def count_up(key: str) -> None:
    """One more on a counter in Django's cache (shared by every process when that is Redis)."""
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, None)


def bump() -> None:
    count_up(PUBLIC_VERSION_KEY)


def counter() -> int:
    return cache.get(PUBLIC_VERSION_KEY, 0)


def published_data_version() -> str:
    """The aggregates of published rows, in one query of about half a millisecond on the bench
    database: the latest id and latest write of published runs' judgments and trajectories (each read
    newest first through the id or updated_at index, stopping at the first published row), the tasks
    and current rubric items, and which runs are published; then the signal counter (deletes, which
    send a signal each, move it)."""
    j, t, r, k, runs = (m._meta.db_table for m in (Judgment, Trajectory, RubricItem, Task, Run))
    published = f"SELECT id FROM {runs} WHERE publication = %s"
    public_judgments = f"FROM {j} jj JOIN {t} tt ON tt.id = jj.trajectory_id WHERE tt.run_id IN ({published})"
    public_trajectories = f"FROM {t} WHERE run_id IN ({published})"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT jj.id {public_judgments} ORDER BY jj.id DESC LIMIT 1),"
            f" (SELECT jj.updated_at {public_judgments} ORDER BY jj.updated_at DESC LIMIT 1),"
            f" (SELECT id {public_trajectories} ORDER BY id DESC LIMIT 1),"
            f" (SELECT updated_at {public_trajectories} ORDER BY updated_at DESC LIMIT 1),"
            f" (SELECT MAX(id) FROM {r}), (SELECT COUNT(*) FROM {r} WHERE is_current),"
            f" (SELECT MAX(id) FROM {k}), (SELECT MAX(updated_at) FROM {k}),"
            f" (SELECT COUNT(*) FROM ({published}) p), (SELECT MAX(id) FROM ({published}) p)",
            [Run.Publication.PUBLISHED] * 6,
        )
        parts = list(cursor.fetchone())
    parts.append(counter())
    return "-".join(str(p).replace(" ", "_") for p in parts)  # no spaces: a cache key on every backend


def run_is_public(run_id: int | None) -> bool:
    if run_id is None:
        return True  # not known: count it, to be safe
    now = time.monotonic()
    memo = _publication_memo.get(run_id)
    if memo is not None and now - memo[0] < PUBLICATION_MEMO_SECONDS:
        return memo[1]
    public = Run.objects.filter(pk=run_id, publication=Run.Publication.PUBLISHED).exists()
    if len(_publication_memo) >= MEMO_MAX:
        _publication_memo.clear()
    _publication_memo[run_id] = (now, public)
    return public


def trajectory_is_public(trajectory_id: int | None) -> bool:
    run_id = _run_of_trajectory.get(trajectory_id)
    if run_id is None:
        # pk=None (an unsaved trajectory) finds nothing
        run_id = Trajectory.objects.filter(pk=trajectory_id).values_list("run_id", flat=True).first()  # type: ignore[misc]
        if run_id is None:
            return True  # gone (deleted with its run): count it, to be safe
        if len(_run_of_trajectory) >= MEMO_MAX:
            _run_of_trajectory.clear()
        _run_of_trajectory[trajectory_id] = run_id
    return run_is_public(run_id)


def run_change_is_public(run: Run) -> bool:
    """A run saved or deleted that visitors see, or saw until this save (withdrawn, made a draft)."""
    return run.publication == Run.Publication.PUBLISHED or getattr(run, "_was_published", False)


def forget_memos() -> None:
    """For tests: what this process remembers of publications and trajectories' runs."""
    _publication_memo.clear()
    _run_of_trajectory.clear()


@receiver(pre_save, sender=Run)
def _remember_publication(sender, instance, raw=False, **kwargs):
    instance._was_published = bool(
        instance.pk and not raw and Run.objects.filter(pk=instance.pk, publication=Run.Publication.PUBLISHED).exists()
    )


@on_save_and_delete(Run)
def _run_changed(sender, instance, **kwargs):
    _publication_memo.pop(instance.pk, None)
    if run_change_is_public(instance):
        bump()


@on_save_and_delete(Trajectory)
def _trajectory_changed(sender, instance, **kwargs):
    if run_is_public(instance.run_id):
        bump()


@on_save_and_delete(Judgment, Step)
def _trajectory_row_changed(sender, instance, **kwargs):
    if trajectory_is_public(instance.trajectory_id):
        bump()


@on_save_and_delete(*CATALOG_MODELS)
def _catalog_changed(sender, **kwargs):
    bump()
