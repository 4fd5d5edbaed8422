"""The version scores are cached at: a key of cheap aggregates that moves whenever judgments,
trajectories, tasks or rubric items change (:func:`data_version`), the counters that saves and
deletes move through signals (every score; the catalog beside one trajectory), and the version the
page being built is built at (:func:`scored_at`, :func:`cache_version`). leaderboard/scoring/outcomes.py
caches every scoring at one of them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.core.cache import cache
from django.db import connection
from django.db.models.signals import post_save
from django.dispatch import receiver

from leaderboard.models import RubricItem, Run, Task
from leaderboard.scoring import public_version
from leaderboard.scoring.public_version import CATALOG_MODELS, on_save_and_delete
from trajectories.models import Judgment, Step, Trajectory

_SIGNAL_VERSION_KEY = "scoring:signal-version"
_CATALOG_VERSION_KEY = "scoring:catalog-version"


def data_version() -> str:
    """A key that changes whenever judgments, trajectories, tasks or rubric items change, read in
    one query of cheap aggregates (max ids and the indexed max(updated_at) of trajectories and
    judgments; the task and rubric tables are small). Inserts, bulk ones included, raise a max id.
    Every trajectory or judgment write moves its table's max(updated_at): saves (auto_now),
    update_or_create, and QuerySet.update()/bulk_update() too, since their querysets set
    ``updated_at`` (the evaluation, slot, action-count and failure-signal code write that way, often
    in a worker or a command whose signals this process never hears). Saves and deletes also bump
    a counter through signals; a rubric edit changes the count of current items; task edits move
    the tasks' max(updated_at)."""
    j, t, r, k = (m._meta.db_table for m in (Judgment, Trajectory, RubricItem, Task))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT MAX(id) FROM {j}), (SELECT MAX(updated_at) FROM {j}),"
            f" (SELECT MAX(id) FROM {t}), (SELECT MAX(updated_at) FROM {t}),"
            f" (SELECT MAX(id) FROM {r}), (SELECT COUNT(*) FROM {r} WHERE is_current),"
            f" (SELECT MAX(id) FROM {k}), (SELECT MAX(updated_at) FROM {k})"
        )
        parts = list(cursor.fetchone())
    parts.append(cache.get(_SIGNAL_VERSION_KEY, 0))
    return "-".join(str(p).replace(" ", "_") for p in parts)  # no spaces: a cache key on every backend


def catalog_version() -> int:
    """A counter that saves and deletes of everything pages show beside one trajectory's own rows move
    (tasks, rubric items, runs, models, judges, reported figures), but not judgments, trajectories or
    steps: the player's cache key reads it with that trajectory's own rows, so a judgment of another
    trajectory leaves its page alone."""
    return cache.get(_CATALOG_VERSION_KEY, 0)


def signal_version_key() -> str:
    """The cache key of the counter that saves and deletes move (see :func:`bump_version`)."""
    return _SIGNAL_VERSION_KEY


def bump_version() -> None:
    """Invalidate every cached score and page built on them (called on saves and deletes). The
    counter lives in Django's cache: shared by every process when that is Redis; per process with
    the local-memory default, where the aggregates of :func:`data_version` still see new data."""
    public_version.count_up(_SIGNAL_VERSION_KEY)


# a step saved one by one (its derivatives made, a live step replaced): the player's cached page shows it
@receiver(post_save, sender=Step)
# what pages show beside the scores too: which runs are published, their names, the catalog
@on_save_and_delete(Judgment, Trajectory, Run, *CATALOG_MODELS)
def _scores_changed(sender, **kwargs):
    bump_version()


@on_save_and_delete(Run, *CATALOG_MODELS)
def _catalog_changed(sender, instance=None, **kwargs):
    if sender is Run and not public_version.run_change_is_public(instance):
        return  # a draft run (an upload being stored, a launch): nothing any page key reads changed
    public_version.count_up(_CATALOG_VERSION_KEY)


# The version of the public data an anonymous page is being built at (mypcbench_site/page_cache.py):
# every scoring asked for while it renders, by whichever helper, is cached at that version, so the pages
# built at one version share their scorings.
_page_built_at: ContextVar[str | None] = ContextVar("page_built_at", default=None)


@contextmanager
def scored_at(version: str) -> Iterator[None]:
    """Scorings asked for without a version within this block are cached at ``version``: for a page of
    published runs built at the public data version, which moves with everything those runs show."""
    token = _page_built_at.set(version)
    try:
        yield
    finally:
        _page_built_at.reset(token)


def cache_version() -> str:
    """The version figures are cached at when the caller names none: the one the page being built is
    built at (:func:`scored_at`), else the data version now."""
    return _page_built_at.get() or data_version()
