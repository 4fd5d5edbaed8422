"""Public marks of media in object storage kept in step with publication. A published run's media may
be fetched by their plain URL (a public-read ACL, or a copy under the bucket policy's public prefix:
mypcbench_site.storage); when a run stops being published its files lose that mark in the same request,
not when someone next views them, unless another published run still names a shared file. The media
view also checks the mark once per state per cache period (``sync_public_mark``)."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from leaderboard.models import Run
from trajectories.models import Step

logger = logging.getLogger(__name__)
MEDIA_FIELDS = ("screenshot", "display_image", "thumbnail")
# put_object_acl / copy_object calls in flight at once when a whole run changes publication
MARK_THREADS = 8
INLINE_MARKS = 50
CHUNK = 500


def marks_public() -> bool:
    """Whether this deployment marks objects public (object storage, and marks not turned off)."""
    return hasattr(default_storage, "mark_public") and settings.MYPCBENCH_S3_MARK_PUBLIC


def _mark_key(name: str) -> str:
    return f"media-public-mark:{name}"


def sync_public_mark(name: str, public: bool) -> None:
    """Mark one object public or private unless this state was set within the cache period."""
    if cache.get(_mark_key(name)) == public:
        return
    if default_storage.mark_public(name, public):  # type: ignore[attr-defined]  # checked by marks_public
        cache.set(_mark_key(name), public, settings.MYPCBENCH_MEDIA_PUBLIC_MAX_AGE)


def run_media_names(run_id: int) -> set[str]:
    """Every stored file the steps of a run name (screenshots and their derivatives)."""
    names: set[str] = set()
    for row in Step.objects.filter(trajectory__run_id=run_id).values_list(*MEDIA_FIELDS):
        names.update(name for name in row if name)
    return names


def still_public(names: set[str]) -> set[str]:
    """Those of ``names`` that a published run's steps name (content-addressed files are shared)."""
    public: set[str] = set()
    ordered = sorted(names)
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start : start + CHUNK]
        for field in MEDIA_FIELDS:
            public.update(
                Step.objects.filter(
                    trajectory__run__publication=Run.Publication.PUBLISHED, **{f"{field}__in": chunk}
                ).values_list(field, flat=True)
            )
    return public & names


def sync_run_media(run_id: int) -> dict[str, int]:
    """Set every file of a run public or private as its runs now say; returns the counts."""
    names = run_media_names(run_id)
    public = still_public(names)

    def mark(name: str) -> bool:
        wanted = name in public
        done = bool(default_storage.mark_public(name, wanted))  # type: ignore[attr-defined]
        if done:
            cache.set(_mark_key(name), wanted, settings.MYPCBENCH_MEDIA_PUBLIC_MAX_AGE)
        else:
            cache.delete(_mark_key(name))
        return done

    if len(names) <= INLINE_MARKS:  # each thread opens its own connection: not worth it for a few
        done = [mark(name) for name in sorted(names)]
    else:
        with ThreadPoolExecutor(max_workers=MARK_THREADS) as pool:
            done = list(pool.map(mark, sorted(names)))
    counts = {"public": len(public), "private": len(names) - len(public), "failed": done.count(False)}
    if counts["failed"]:
        logger.warning("run %s: %d media files could not be marked (see above)", run_id, counts["failed"])
    return counts


@receiver(pre_save, sender=Run)
def _remember_publication_for_media(sender, instance, raw=False, **kwargs):
    before = None
    if instance.pk and not raw and marks_public():  # no query where nothing is marked (media on disk)
        before = Run.objects.filter(pk=instance.pk).values_list("publication", flat=True).first()
    instance._media_publication_before = before


@receiver(post_save, sender=Run)
def _publication_changed(sender, instance, created=False, raw=False, **kwargs):
    before = getattr(instance, "_media_publication_before", None)
    published = Run.Publication.PUBLISHED
    if raw or created or not marks_public():
        return
    if (before == published) == (instance.publication == published):
        return
    run_id = instance.pk
    transaction.on_commit(lambda: sync_run_media(run_id))
