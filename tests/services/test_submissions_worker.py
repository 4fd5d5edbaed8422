"""An upload judged by a real Celery worker: the submission queues our judge on commit, the worker
judges every trajectory against the provider simulator, and the submission moves from "judging"
to "awaiting review" by itself (the hook after each judged trajectory), with nobody viewing it, and
its run's badge turns "re-judged"."""

import pytest
from django.contrib.auth import get_user_model

from leaderboard.catalog.badges import run_badge
from leaderboard.models import JudgeConfig
from tests.factories import make_suite
from tests.services.test_worker import wait_for
from tests.simulators import ProviderSimulator
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.models import Judgment, Submission
from trajectories.submissions.uploads import receive_archive, submit_archive

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

GOOD = '{"reasoning": "The invoice is open in step 2.", "cited_steps": [2], "verdict": "success"}'


def test_worker_judges_an_upload_and_it_moves_to_review(tmp_path, settings, monkeypatch, worker_factory):
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # read by the worker process too
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))

    with ProviderSimulator(lambda request: GOOD) as sim:
        settings.MYPCBENCH_JUDGE = {"provider": "anthropic", "base_url": sim.url, "attempts": 1}
        worker = worker_factory()
        sub = submit_archive(author, upload(archive), METADATA).submission  # queues on commit
        wait_for(
            lambda: Submission.objects.get(pk=sub.pk).status == Submission.Status.AWAITING_REVIEW,
            "the submission to reach awaiting review",
            worker,
        )
    sub.refresh_from_db()
    assert sub.metadata["judging"]["state"] == "judged"
    ours = Judgment.objects.filter(trajectory__run=sub.run, judge__origin=JudgeConfig.Origin.OURS)
    assert ours.count() == 6 and len(sim.requests) == 6
    sub.run.refresh_from_db()
    badge = run_badge(sub.run.provenance, sub.run.metadata)
    assert badge.label == "re-judged" and "6 of 6 rubric items" in badge.title, "the run records our judge is done"


def test_worker_checks_a_received_upload_then_judges_it(tmp_path, settings, monkeypatch, worker_factory):
    """MYPCBENCH_UPLOAD_VALIDATION=worker: the web process's part only keeps the archive and sends one
    message; the worker (its own temporary folder, the archive read back from media storage) checks and
    stores it, then judges it with the judge its own settings name, and the submission reaches review."""
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_UPLOAD_VALIDATION = "worker"
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "web-upload-tmp"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("MYPCBENCH_DERIVATIVES", "off")
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))

    with ProviderSimulator(lambda request: GOOD) as sim:
        monkeypatch.setenv("MYPCBENCH_JUDGE_PROVIDER", "anthropic")  # the worker's own settings
        monkeypatch.setenv("MYPCBENCH_JUDGE_BASE_URL", sim.url)
        monkeypatch.setenv("MYPCBENCH_JUDGE_ATTEMPTS", "1")
        worker = worker_factory()
        sub = receive_archive(author, upload(archive), METADATA).submission  # queues on commit
        assert sub.status == Submission.Status.VALIDATING and sub.run is None
        wait_for(
            lambda: (
                (judged := Submission.objects.get(pk=sub.pk)).status == Submission.Status.AWAITING_REVIEW
                and (judged.metadata.get("judging") or {}).get("state") == "judged"
            ),
            "the received submission to be checked, judged and reach awaiting review",
            worker,
        )
    sub.refresh_from_db()
    assert sub.run.trajectories.count() == 2, sub.metadata
    assert sub.metadata["judging"]["state"] == "judged", (sub.metadata["judging"], worker.log()[-3000:])
    assert Judgment.objects.filter(trajectory__run=sub.run, judge__origin=JudgeConfig.Origin.OURS).count() == 6
    assert "trajectories.tasks.validate_submission" in worker.log()
