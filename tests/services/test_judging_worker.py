"""A real Celery worker on the "judging" queue judges an imported run against a provider
simulator (the real Anthropic SDK on loopback), and verdicts land in the database."""

import pytest

from leaderboard.models import JudgeConfig
from tests.factories import make_suite, write_task_dir
from tests.services.test_worker import wait_for
from tests.simulators import ProviderSimulator
from trajectories.judging import our_judge
from trajectories.models import Judgment
from trajectories.recording.import_results import import_results

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

GOOD = '{"reasoning": "The invoice is open in step 2.", "cited_steps": [2], "verdict": "success"}'
BAD = '{"reasoning": "No reply was sent in any step.", "cited_steps": [], "verdict": "failure"}'


def answer(request):
    return BAD if "Replies to the sender" in request.last_text else GOOD


def test_worker_judges_a_run_queued_as_a_group(tmp_path, settings, monkeypatch, worker_factory):
    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # read by the worker process too
    make_suite(["retrieval-f001", "retrieval-f002"])
    for task_id in ["retrieval-f001", "retrieval-f002"]:
        write_task_dir(tmp_path / "results", task_id)
    run = import_results(tmp_path / "results", "Queued judging").run

    with ProviderSimulator(answer) as sim:
        worker = worker_factory()
        spec = our_judge.JudgeSpec.from_settings(provider="anthropic", base_url=sim.url)
        our_judge.judge_run(run, spec)
        ours = Judgment.objects.filter(trajectory__run=run, judge__origin=JudgeConfig.Origin.OURS)
        wait_for(lambda: ours.count() == 6, "6 judgments from the worker", worker)

    assert sorted(ours.values_list("verdict", flat=True)) == ["failure"] * 2 + ["success"] * 4
    config = ours.first().judge
    assert our_judge.judging_progress(run, config)["done"] == 2
    assert len(sim.requests) == 6
