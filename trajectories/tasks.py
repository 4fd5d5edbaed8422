"""Celery tasks for trajectories: media derivatives (display WebP and thumbnails)."""
from celery import shared_task


@shared_task(acks_late=True)
def make_derivatives(trajectory_id: int) -> int:
    """Make display-size WebP derivatives and thumbnails for a trajectory's steps."""
    raise NotImplementedError("being implemented (infrastructure helper)")


def request_derivatives(trajectory_id: int) -> None:
    """Queue derivative generation for a freshly ingested trajectory (call on commit)."""
