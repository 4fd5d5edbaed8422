"""A real Celery worker process makes screenshot derivatives for rows the test commits, and a
worker killed mid-trajectory loses nothing it already wrote."""

import io
import time

import pytest
from django.core.files.storage import default_storage
from PIL import Image

from tests.services.factories import make_trajectory
from trajectories.recording import media
from trajectories.recording.after_finish import request_derivatives

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 90


def done_steps(trajectory):
    return list(trajectory.steps.exclude(display_image="").exclude(thumbnail="").order_by("index"))


def wait_for(predicate, what, worker):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.1)
    pytest.fail(f"timed out after {WAIT_SECONDS}s waiting for {what}; worker log:\n{worker.log()}")


def size_of(name: str) -> int:
    return default_storage.size(name)


def test_worker_writes_webp_derivatives_smaller_than_the_originals(settings, worker_factory):
    settings.MYPCBENCH_DERIVATIVES = "queue"
    trajectory = make_trajectory(3)
    worker = worker_factory()

    request_derivatives(trajectory.id)

    steps = wait_for(lambda: len(done_steps(trajectory)) == 3 and done_steps(trajectory), "3 derivatives", worker)
    for step in steps:
        assert step.media_error == ""
        for field, width in ((step.display_image, media.DISPLAY_MAX_WIDTH), (step.thumbnail, media.THUMBNAIL_WIDTH)):
            with default_storage.open(field.name, "rb") as fh:
                data = fh.read()
            with Image.open(io.BytesIO(data)) as image:
                assert image.format == "WEBP" and image.width == width
            assert len(data) < size_of(step.screenshot.name)
    assert "make_derivatives" in worker.log() and "succeeded" in worker.log()


def test_a_worker_killed_mid_trajectory_loses_nothing_already_written(settings, worker_factory):
    settings.MYPCBENCH_DERIVATIVES = "queue"
    trajectory = make_trajectory(30, size=(2560, 1440))
    worker = worker_factory()
    request_derivatives(trajectory.id)

    wait_for(lambda: len(done_steps(trajectory)) >= 2, "the first derivatives", worker)
    worker.kill()  # SIGKILL: no chance to clean up
    before = {s.index: (s.display_image.name, s.thumbnail.name) for s in done_steps(trajectory)}
    assert 2 <= len(before) < 30, "the worker finished before it could be killed; use more steps"

    for display, thumbnail in before.values():
        for name in (display, thumbnail):
            with default_storage.open(name, "rb") as fh, Image.open(fh) as image:
                image.verify()

    # A new worker picks the trajectory up again (as a redelivered message would) and only
    # finishes what is missing: the steps made before the kill keep their files.
    second = worker_factory()
    request_derivatives(trajectory.id)
    wait_for(lambda: len(done_steps(trajectory)) == 30, "all 30 derivatives", second)
    after = {s.index: (s.display_image.name, s.thumbnail.name) for s in done_steps(trajectory)}
    assert {i: after[i] for i in before} == before
    assert not trajectory.steps.exclude(media_error="").exists()
