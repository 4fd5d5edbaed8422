"""Steps' ``published`` flag (what step search filters visitors on) kept in step with their run's
publication: set when a step is stored (trajectories.models), moved here in the same transaction when a
run is published, withdrawn or made a draft (saved, a review's decision, or a bulk update of runs) and
when a trajectory is moved to another run. ``sync_published_steps`` with no arguments repairs every
step (steps written around Django, e.g. with COPY)."""

from __future__ import annotations

from django.db.models import Q
from django.db.models.signals import post_init, post_save, pre_save
from django.dispatch import receiver

from leaderboard.models import Run, publication_updated
from trajectories.models import Step, Trajectory


def sync_published_steps(*, run_ids=None, trajectory_ids=None) -> int:
    """Set ``published`` on the steps of these runs (or trajectories; every step when given neither) as
    their runs now say; the number of steps changed."""
    steps = Step.objects.all()
    if run_ids is not None:
        steps = steps.filter(trajectory__run_id__in=list(run_ids))
    if trajectory_ids is not None:
        steps = steps.filter(trajectory_id__in=list(trajectory_ids))
    published = Q(trajectory__run__publication=Run.Publication.PUBLISHED)
    changed = steps.filter(published, published=False).update(published=True)
    return changed + steps.exclude(published).filter(published=True).update(published=False)


@receiver(pre_save, sender=Run)
def _remember_publication_for_steps(sender, instance, raw=False, **kwargs):
    before = None
    if instance.pk and not raw:
        before = Run.objects.filter(pk=instance.pk).values_list("publication", flat=True).first()
    instance._steps_publication_before = before


@receiver(post_save, sender=Run)
def _run_saved(sender, instance, created=False, raw=False, **kwargs):
    before = getattr(instance, "_steps_publication_before", None)
    published = Run.Publication.PUBLISHED
    if raw or created or (before == published) == (instance.publication == published):
        return
    sync_published_steps(run_ids=[instance.pk])


@receiver(publication_updated, sender=Run)
def _runs_updated(sender, run_ids, **kwargs):
    sync_published_steps(run_ids=run_ids)


@receiver(post_init, sender=Trajectory)
def _remember_run(sender, instance, **kwargs):
    instance._run_id_as_read = instance.__dict__.get("run_id")  # not read when loaded without it (only())


@receiver(post_save, sender=Trajectory)
def _trajectory_saved(sender, instance, created=False, raw=False, **kwargs):
    read_with = getattr(instance, "_run_id_as_read", None)
    if not created and not raw and read_with is not None and read_with != instance.run_id:
        sync_published_steps(trajectory_ids=[instance.pk])
    instance._run_id_as_read = instance.run_id
