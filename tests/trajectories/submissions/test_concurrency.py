"""Two of the same thing at the same moment leave one consistent result: two identical archives
uploaded at once (one submission, one run, every screenshot still on disk, nothing left in the
upload folder), and workers claiming VM slots at once (never two trajectories on one slot). Threads
with their own database connections, released together by a barrier at the racy step.

Run on PostgreSQL (bin/test's second pass): concurrent transactions are what is tested, and the
SQLite test database serialises writers (a second writer waits or fails with "database is locked"
instead of racing), so these tests skip there and say so."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db import connection

from leaderboard.models import Run
from tests import run_page_data
from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, files_under, good_entries, upload, zip_bytes
from trajectories.evaluations import slots
from trajectories.models import Step, Submission, VmSlot
from trajectories.submissions import uploads

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


@pytest.fixture(autouse=True)
def concurrent_database():
    if connection.vendor != "postgresql":
        pytest.skip("concurrent transactions need PostgreSQL (bin/test's second pass); SQLite serialises writers")


def together(n: int, work) -> list:
    """Run ``work(i)`` in ``n`` threads at once; each result, or the exception it raised."""
    results: list = [None] * n

    def run(i):
        try:
            results[i] = work(i)
        except Exception as exc:  # returned to the test, which says what went wrong
            results[i] = exc
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def store_together(monkeypatch, n: int = 2) -> None:
    """Hold each of ``n`` uploads just before it stores anything (each has checked that its archive is
    new), and let them all go at once: the race itself."""
    barrier = threading.Barrier(n, timeout=30)
    real_store = uploads._store

    def store(*args, **kwargs):
        barrier.wait()
        return real_store(*args, **kwargs)

    monkeypatch.setattr(uploads, "_store", store)


def test_two_identical_archives_uploaded_at_once_are_stored_once(tmp_path, settings, monkeypatch):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    cache.clear()
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    archive = zip_bytes(good_entries(tmp_path))
    queued = []
    monkeypatch.setattr(uploads, "queue_judging", queued.append)  # no broker needed: judging is tested elsewhere
    store_together(monkeypatch)
    results = together(2, lambda i: uploads.submit_archive(author, upload(archive, f"run-{i}.zip"), METADATA))

    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(r.created for r in results) == [False, True], "one request stores it, the other is told it exists"
    assert results[0].submission.pk == results[1].submission.pk
    assert Submission.objects.count() == 1 and Run.objects.filter(provenance="upload").count() == 1
    run = Run.objects.get(provenance="upload")
    assert run.trajectories.count() == len(TASK_IDS)
    screenshots = set(Step.objects.filter(trajectory__run=run).values_list("screenshot", flat=True))
    assert screenshots and all(default_storage.exists(name) for name in screenshots), "the loser removed no file"
    assert files_under(settings.MYPCBENCH_UPLOAD_TMP_DIR) == [], "no temporary file left by either request"
    assert len(queued) == 1, "judging asked once"


def test_two_identical_archives_received_at_once_wait_as_one_submission(tmp_path, settings, monkeypatch):
    """MYPCBENCH_UPLOAD_VALIDATION=worker: both requests keep the archive and insert a submission at the
    same moment; one wins, the other answers with it, and one worker message is sent."""
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.MYPCBENCH_UPLOAD_VALIDATION = "worker"
    settings.MEDIA_ROOT = tmp_path / "media"
    cache.clear()
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    archive = zip_bytes(good_entries(tmp_path))
    sent = []
    monkeypatch.setattr(uploads.queue, "enqueue", lambda name, *args, **kwargs: sent.append(args))
    barrier = threading.Barrier(2, timeout=30)
    real_measure = uploads._measure_upload

    def measure(*args, **kwargs):  # both have read the archive and found no submission of it before either saves
        measured = real_measure(*args, **kwargs)
        barrier.wait()
        return measured

    monkeypatch.setattr(uploads, "_measure_upload", measure)
    results = together(2, lambda i: uploads.receive_archive(author, upload(archive, f"run-{i}.zip"), METADATA))

    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(r.created for r in results) == [False, True]
    assert results[0].submission.pk == results[1].submission.pk and Submission.objects.count() == 1
    assert sent == [(results[0].submission.pk,)], "one worker message"
    kept = Submission.objects.get().metadata["archive_file"]
    assert [p.relative_to(settings.MEDIA_ROOT).as_posix() for p in files_under(settings.MEDIA_ROOT)] == [kept], (
        "the loser's copy of the archive is gone; the winner's stays"
    )
    assert files_under(settings.MYPCBENCH_UPLOAD_TMP_DIR) == []


def test_workers_claiming_slots_at_once_never_share_one():
    run, _ = run_page_data.launch(8)
    trajectories = run_page_data.trajectories(run)
    barrier = threading.Barrier(len(trajectories), timeout=30)

    def claim(i):
        barrier.wait()
        return slots.acquire(trajectories[i], worker="host-a", slots=3)

    leases = together(len(trajectories), claim)

    assert not [lease for lease in leases if isinstance(lease, Exception)], leases
    won = [lease for lease in leases if lease is not None]
    assert len(won) == 3, "three slots, three leases, the other claims told none is free"
    assert sorted(lease.slot for lease in won) == [0, 1, 2]
    held = VmSlot.objects.filter(worker="host-a", trajectory__isnull=False)
    assert held.count() == 3 and len(set(held.values_list("trajectory_id", flat=True))) == 3
    assert VmSlot.objects.filter(worker="host-a").count() == 3, "each slot's row made once"


def test_two_different_archives_of_a_new_model_uploaded_at_once_are_both_stored(tmp_path, settings, monkeypatch):
    """Both name a model the site has never seen, by the same author in the same minute: one model row,
    two runs with their own slugs, two submissions (before, the second insert of the model or of the
    run's slug failed the whole upload)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    cache.clear()
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    archives = [
        zip_bytes(good_entries(tmp_path / f"copy-{i}", final_text=f"Answer {i}.\n```DONE```")) for i in range(2)
    ]
    assert archives[0] != archives[1]
    monkeypatch.setattr(uploads, "queue_judging", lambda pk: None)  # no broker needed: judging is tested elsewhere
    store_together(monkeypatch)
    metadata = {**METADATA, "model": "Brand-new Model 9"}
    results = together(2, lambda i: uploads.submit_archive(author, upload(archives[i], f"run-{i}.zip"), metadata))

    assert not [r for r in results if isinstance(r, Exception)], results
    assert [r.created for r in results] == [True, True]
    runs = Run.objects.filter(provenance="upload")
    assert runs.count() == 2 and len(set(runs.values_list("slug", flat=True))) == 2
    assert set(runs.values_list("model__name", flat=True)) == {"Brand-new Model 9"}
    assert len(set(runs.values_list("model_id", flat=True))) == 1, "one model row for both"
    assert Submission.objects.count() == 2
