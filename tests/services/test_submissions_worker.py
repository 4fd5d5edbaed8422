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
from trajectories.submissions.uploads import submit_archive

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
