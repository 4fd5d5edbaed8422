"""A worker held to a share of one CPU while it checks and stores an upload (MYPCBENCH_UPLOAD_CPU_SHARE,
harness/pacing.py): it rests between screenshots and steps until its CPU time is within
the share of the time since it began; a web request's upload and a share of 1 never rest; the answer is
the same as without a share."""

import threading
import time

import pytest

from harness.results import pacing
from trajectories.recording import ingest
from trajectories.submissions import low_priority, validation

pytestmark = pytest.mark.slow  # an upload held to a share of a CPU takes many seconds by design


class Clocks:
    """A thread's CPU time and the wall clock, moved by hand; sleeping moves the wall clock only."""

    def __init__(self):
        self.cpu, self.wall, self.slept = 100.0, 5_000.0, []

    def work(self, seconds):
        self.cpu += seconds
        self.wall += seconds

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.wall += seconds

    def pacer(self, share):
        return pacing.Pacer(share, cpu=lambda: self.cpu, clock=lambda: self.wall, sleep=self.sleep)


def test_work_at_a_tenth_of_a_cpu_rests_nine_times_as_long_as_it_works():
    clocks = Clocks()
    pacer = clocks.pacer(0.1)
    for _ in range(3):
        clocks.work(0.01)
        pacer()
    assert clocks.slept == pytest.approx([0.09, 0.09, 0.09])
    assert pacer.rested == pytest.approx(0.27)
    assert clocks.cpu - 100.0 == pytest.approx(0.1 * (clocks.wall - 5_000.0))


def test_time_spent_waiting_counts_toward_the_share():
    """Waiting on the database or the disk uses no CPU: work that waited long enough does not rest."""
    clocks = Clocks()
    pacer = clocks.pacer(0.5)
    clocks.work(0.1)
    clocks.wall += 0.3  # waited on something
    pacer()
    assert clocks.slept == []
    clocks.work(0.3)
    pacer()
    assert clocks.slept == pytest.approx([0.1]), "0.4 s of CPU at half a CPU: rest until 0.8 s, from 0.7 s"


@pytest.mark.parametrize("share", [0, -0.5, 1.01])
def test_a_share_outside_above_0_to_1_is_refused(share):
    with pytest.raises(ValueError, match="a CPU share is above 0 and at most 1"):
        pacing.Pacer(share)


def test_outside_a_share_and_at_a_share_of_1_nothing_rests():
    pacing.pace()
    with pacing.cpu_share(1.0) as pacer:
        assert pacer is None
        pacing.pace()
    with pacing.cpu_share(0.5) as pacer:
        assert isinstance(pacer, pacing.Pacer)
    assert pacing._current.get() is None, "the share ends with its block"


def _busy_with_pace_points(units=20, seconds=0.004):
    """Work that keeps the CPU busy in small units with a pace point after each; what the pacer did."""
    for _ in range(units):
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
        pacing.pace()
    return pacing._current.get(), threading.current_thread().name


@pytest.mark.parametrize("nice", [0, 5])
def test_a_workers_upload_rests_at_its_share_and_a_web_requests_never(settings, nice):
    settings.MYPCBENCH_UPLOAD_NICE = nice
    settings.MYPCBENCH_UPLOAD_CPU_SHARE = 0.25
    started = time.monotonic()
    pacer, _ = low_priority.at_low_priority(_busy_with_pace_points, idle=True)
    assert pacer.share == 0.25
    # 80 ms of CPU at a quarter of a CPU: at least 320 ms in all, however busy the machine (the rest
    # shrinks when the work itself was slowed, so only the total is certain)
    assert time.monotonic() - started >= 0.3
    pacer, _ = low_priority.at_low_priority(_busy_with_pace_points)
    assert pacer is None, "a web request's upload: the author waits for it, so it never rests"
    settings.MYPCBENCH_UPLOAD_CPU_SHARE = 1.0
    pacer, _ = low_priority.at_low_priority(_busy_with_pace_points, idle=True)
    assert pacer is None


@pytest.mark.django_db
def test_a_worker_rests_after_each_screenshot_checked_and_each_step_stored(settings, monkeypatch, tmp_path):
    """An upload checked by the worker's code path at a share: a pace point after each screenshot file
    decoded and each step stored, and the upload accepted as without a share."""
    from django.contrib.auth import get_user_model

    from tests.factories import make_suite
    from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
    from trajectories import queue
    from trajectories.models import Step, Submission
    from trajectories.submissions import uploads

    settings.MYPCBENCH_UPLOAD_NICE = 0
    settings.MYPCBENCH_UPLOAD_CPU_SHARE = 0.5
    settings.MYPCBENCH_UPLOAD_VALIDATION = "worker"
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    monkeypatch.setattr(queue, "enqueue", lambda *args, **kwargs: None)  # the worker is called below
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    points = {"validation": 0, "ingest": 0}

    def counted(where):
        def pace():
            points[where] += 1
            pacing.pace()

        return pace

    monkeypatch.setattr(validation, "pace", counted("validation"))
    monkeypatch.setattr(ingest, "pace", counted("ingest"))
    entries = good_entries(tmp_path)
    received = uploads.take_upload(author, upload(zip_bytes(entries), "run.zip"), METADATA)
    assert received.submission.status == Submission.Status.VALIDATING
    assert points == {"validation": 0, "ingest": 0}, "the web process's part never rests"
    assert low_priority.at_low_priority(uploads.validate_received, received.submission.pk, idle=True) == "accepted"
    submission = Submission.objects.get(pk=received.submission.pk)
    assert points["ingest"] == Step.objects.filter(trajectory__run=submission.run).count() > 0
    assert points["validation"] == sum(name.endswith(".png") for name, _ in entries) > 0
