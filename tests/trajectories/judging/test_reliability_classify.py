"""The optional LLM reading of failure modes, against the provider simulator with the real SDKs:
text only, the mode recorded with the signals, the rules deciding when the provider fails or answers
nonsense, off unless the setting asks for it, and maintainer overrides left alone."""

import pytest

from harness.judge.classify import BEGIN, FailureClassifier, parse_mode
from harness.judge.failure_modes import OTHER, PARTIAL_ARTIFACT, PREMATURE_DONE, SURFACE_ERROR_ABANDONMENT
from harness.judge.providers import make_provider
from tests.factories import make_suite, write_task_dir
from tests.simulators import ProviderSimulator, Reply
from trajectories.judging import our_judge
from trajectories.models import Judgment
from trajectories.recording.import_results import import_results

EXPLANATION = "The agent typed the reply but the draft was never sent; it then said it was done."
SIGNALS = {"ended_by_done_before_budget": True, "untouched_apps": [], "errors_before_end": []}


def classifier(provider, sim, **kwargs):
    return FailureClassifier(make_provider(provider, None, base_url=sim.url, temperature=0.0),
                             base_delay=0.01, **kwargs)  # fmt: skip


@pytest.fixture
def keys(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(name, "test-key")


@pytest.mark.parametrize("provider", ["google", "anthropic", "openai"])
def test_each_provider_classifies_from_text_alone(provider, keys):
    with ProviderSimulator(lambda r: 'Thinking.\n{"failure_mode": "partial_artifact", "reason": "unsent"}') as sim:
        found = classifier(provider, sim).classify(EXPLANATION, SIGNALS)
    assert (found.mode, found.by, found.reason) == (PARTIAL_ARTIFACT, "llm", "unsent")
    assert found.rules_mode == PREMATURE_DONE  # what the rules alone would have said, kept beside it
    (request,) = sim.requests
    assert request.n_images == 0
    assert BEGIN in request.all_text and EXPLANATION in request.all_text
    assert '"ended_by_done_before_budget": true' in request.all_text


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_the_rules_decide_when_the_provider_cannot(keys):
    with ProviderSimulator(lambda r: "I would say it is partial.") as sim:
        found = classifier("anthropic", sim).classify(EXPLANATION, SIGNALS)
    assert (found.mode, found.by) == (PREMATURE_DONE, "rules") and "no failure mode" in found.error

    with ProviderSimulator(lambda r: '{"failure_mode": "lazy", "reason": "x"}') as sim:
        assert classifier("anthropic", sim).classify(EXPLANATION, SIGNALS).by == "rules"

    with ProviderSimulator(lambda r: Reply(status=500)) as sim:
        found = classifier("anthropic", sim, attempts=2).classify(EXPLANATION, SIGNALS)
    assert (found.mode, found.by) == (PREMATURE_DONE, "rules") and "provider error" in found.error
    assert len(sim.requests) == 2  # retried once, then the rules


def test_a_429_is_retried(keys):
    replies = iter([Reply(status=429, headers={"retry-after": "0"}), '{"failure_mode": "other", "reason": "-"}'])
    with ProviderSimulator(lambda r: next(replies)) as sim:
        found = classifier("openai", sim).classify(EXPLANATION, SIGNALS)
    assert (found.mode, found.by) == (OTHER, "llm") and len(sim.requests) == 2


def test_parse_mode_takes_the_last_known_mode():
    assert parse_mode('{"failure_mode": "other"} then {"failure_mode": "Partial_Artifact"}')[0] == PARTIAL_ARTIFACT
    assert parse_mode("no json") is None


BAD = '{"reasoning": "The error dialog stopped it.", "cited_steps": [], "verdict": "failure"}'
GOOD = '{"reasoning": "Done in step 2.", "cited_steps": [2], "verdict": "success"}'


def judge_answer(request):
    if BEGIN in request.all_text:
        return '{"failure_mode": "partial_artifact", "reason": "the reply was never sent"}'
    return BAD if "Replies to the sender" in request.last_text else GOOD


@pytest.fixture
def run(tmp_path, keys, settings):
    settings.MYPCBENCH_DERIVATIVES = "off"
    make_suite(["retrieval-f001"])
    write_task_dir(tmp_path / "results", "retrieval-f001")
    return import_results(tmp_path / "results", "Opus upstream").run


def judge(run, sim, force=False):
    spec = our_judge.JudgeSpec(provider="anthropic", base_url=sim.url, attempts=1)
    our_judge.judge_run_inline(run, our_judge.build_judge(spec), force=force)
    return Judgment.objects.get(judge__origin="ours", verdict="failure")


@pytest.mark.django_db
def test_off_by_default_the_rules_classify(run):
    with ProviderSimulator(judge_answer) as sim:
        failed = judge(run, sim)
    assert failed.failure_mode == SURFACE_ERROR_ABANDONMENT  # the rules read "error dialog"
    assert "classification" not in failed.signals
    assert not any(BEGIN in r.all_text for r in sim.requests)


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
@pytest.mark.django_db
def test_the_setting_turns_on_the_llm_and_overrides_survive(run, settings):
    with ProviderSimulator(judge_answer) as sim:
        settings.MYPCBENCH_FAILURE_CLASSIFIER = {"mode": "llm", "provider": "anthropic", "base_url": sim.url}
        failed = judge(run, sim)
        assert failed.failure_mode == PARTIAL_ARTIFACT
        recorded = failed.signals["classification"]
        assert recorded["by"] == "llm" and recorded["rules_mode"] == SURFACE_ERROR_ABANDONMENT
        assert "errors_before_end" in failed.signals  # the deterministic signals stay beside it
        assert sum(BEGIN in r.all_text for r in sim.requests) == 1  # only the failed item

        Judgment.objects.filter(pk=failed.pk).update(failure_mode=OTHER, failure_mode_overridden=True)
        again = judge(run, sim, force=True)
    assert again.failure_mode == OTHER  # a maintainer's choice is not reclassified
    assert sum(BEGIN in r.all_text for r in sim.requests) == 1
