"""Our judge's prompt version (ours or the paper's protocol) chosen on the site, a judge that stops
after identical permanent failures recorded as one error, and task scores through the harness's
task_score (a bad weight is an error naming the item). Provider simulator + real SDK on loopback."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from leaderboard.models import JudgeConfig, RubricItem, Run
from tests.evaluation_data import PLAN, make_eval_suite
from tests.simulators import ProviderSimulator, Reply
from trajectories.evaluations import lifecycle
from trajectories.judging import our_judge
from trajectories.models import Judgment
from trajectories.tasks import run_trajectory

pytestmark = pytest.mark.django_db

TASKS = ["retrieval-f001", "retrieval-f002", "retrieval-f003", "retrieval-f004"]
GOOD = 'Seen.\n{"reasoning": "The mail is open in step 2.", "cited_steps": [2], "verdict": "success"}'


def judge_cmd(run, sim, *extra):
    call_command("judge", run.slug, "--provider", "anthropic", "--base-url", sim.url, *extra)


def ours():
    return Judgment.objects.filter(judge__origin=JudgeConfig.Origin.OURS)


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_choosing_the_papers_prompt_records_paper_v1_in_the_judge_configuration(imported_run):
    with ProviderSimulator(lambda request: GOOD) as sim:
        judge_cmd(imported_run, sim, "--prompt-version", "paper-v1")
        paper = JudgeConfig.objects.get(origin=JudgeConfig.Origin.OURS)
        assert paper.prompt_version == "paper-v1" and "paper-v1" in paper.name
        assert paper.settings["prompt_version"] == "paper-v1" and paper.settings["protocol"] == "paper"
        assert ours().filter(judge=paper).count() == 12
        judge_cmd(imported_run, sim)  # the default prompt is another configuration, judged anew
    default = JudgeConfig.objects.exclude(pk=paper.pk).get(origin=JudgeConfig.Origin.OURS)
    assert default.prompt_version == "mypc-judge-1" and default.settings["protocol"] == "ours"
    assert ours().filter(judge=default).count() == 12


def test_an_unknown_prompt_version_or_persona_file_is_refused_before_any_call(imported_run, tmp_path):
    with pytest.raises(our_judge.JudgingError, match="unknown prompt version 'paper-v9'"):
        our_judge.build_judge(our_judge.JudgeSpec(provider="anthropic", prompt_version="paper-v9"))
    with ProviderSimulator(lambda request: GOOD) as sim:
        with pytest.raises(CommandError, match="invalid choice: 'v9'"):
            judge_cmd(imported_run, sim, "--prompt-version", "v9")
        with pytest.raises(CommandError, match="persona"):
            judge_cmd(imported_run, sim, "--persona-summary", str(tmp_path / "absent.md"))
    assert sim.requests == [] and not ours().exists()


def test_a_persona_summary_is_sent_and_makes_its_own_configuration(imported_run, tmp_path):
    persona = tmp_path / "persona.md"
    persona.write_text("# Michael Scott\nRegional manager of Dunder Mifflin Scranton.\n", encoding="utf-8")
    with ProviderSimulator(lambda request: GOOD) as sim:
        judge_cmd(imported_run, sim, "--persona-summary", str(persona))
    config = JudgeConfig.objects.get(origin=JudgeConfig.Origin.OURS)
    assert config.settings["persona_summary"]["sent"] is True and " persona " in config.name
    assert "Regional manager of Dunder Mifflin Scranton" in json.dumps(sim.requests[0].body)


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_stopped_judge_records_one_error_and_leaves_the_unsent_items_unjudged(imported_run):
    with ProviderSimulator(lambda request: Reply(status=401)) as sim:
        with pytest.raises(CommandError, match="the judge stopped after 3 calls failed the same way"):
            judge_cmd(imported_run, sim, "--concurrency", "1")
    assert len(sim.requests) == 3, "nothing is sent after the stop"
    assert ours().filter(verdict="error").count() == 3, "12 items, but only the 3 tried carry an error"
    imported_run.refresh_from_db()
    (reason,) = imported_run.metadata["judge_stopped"].values()
    assert reason.startswith("stopped after 3 calls failed the same way and none succeeded")
    assert lifecycle.progress(imported_run)["judge_stopped"] == imported_run.metadata["judge_stopped"]
    with ProviderSimulator(lambda request: GOOD) as sim:
        judge_cmd(imported_run, sim)
    imported_run.refresh_from_db()
    assert ours().filter(verdict="success").count() == 12
    assert "judge_stopped" not in imported_run.metadata, "a judging that went through clears the stop"


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_the_celery_task_reports_the_stop_and_the_task_score(imported_run):
    trajectory = imported_run.trajectories.order_by("pk").first()
    spec = our_judge.JudgeSpec(provider="anthropic", concurrency=1)
    with ProviderSimulator(lambda request: GOOD) as sim:
        spec.base_url = sim.url
        result = our_judge.judge_trajectory_by_id(trajectory.pk, spec.as_dict())
    assert result["score"] == 100 and result["complete"] is True and "stopped" not in result
    with ProviderSimulator(lambda request: Reply(status=401)) as sim:
        spec.base_url = sim.url
        result = our_judge.judge_trajectory_by_id(trajectory.pk, spec.as_dict(), force=True)
    assert result["stopped"].startswith("stopped after 3 calls")
    assert result["complete"] is False and result["score"] == 0


def test_a_rubric_weight_the_harness_cannot_use_is_an_error_naming_the_item(imported_run):
    trajectory = imported_run.trajectories.order_by("pk").first()
    item = RubricItem.objects.filter(task=trajectory.task, is_current=True).order_by("position").first()
    RubricItem.objects.filter(pk=item.pk).update(weight=-1)
    config = JudgeConfig.objects.create(name="ours: test", origin=JudgeConfig.Origin.OURS, provider="anthropic")
    result = our_judge.trajectory_score(trajectory, config)
    assert f"rubric item {item.rubric_id} (position {item.position}) has weight -1" in result["score_error"]
    assert trajectory.task.task_id in result["score_error"]


def test_the_launch_form_passes_the_chosen_prompt_version(admin_client, monkeypatch, settings):
    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    suite, tasks, model = make_eval_suite(1)
    monkeypatch.setattr(run_trajectory, "apply_async", lambda args, task_id: None)
    data = {"suite": suite.pk, "model": model.pk, "agent_type": "scripted", "tool_surface": "computer+bash",
            "turn_budget": 10, "screenshot_window": 5, "backend": "fake", "attempts": 1, "plan": json.dumps(PLAN),
            "judge_provider": "anthropic", "judge_prompt_version": "paper-v1"}  # fmt: skip
    response = admin_client.post(reverse("admin:run_launch"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    run = Run.objects.get()
    assert run.metadata["launch"]["judge"]["prompt_version"] == "paper-v1"
    assert run.judge_config.prompt_version == "paper-v1" and run.judge_config.settings["protocol"] == "paper"


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_the_papers_protocol_is_the_default_beside_published_figures(imported_run):
    # the imported run's suite gets the paper's published figures: what stands beside them is judged the same way
    Run.objects.create(
        name="Paper figures",
        slug="paper-figures",
        suite=imported_run.suite,
        model=imported_run.model,
        provenance="reported",
        publication="published",
    )
    paper_answer = "Thoughts: the mail is open in step 2.\nStatus: success"
    with ProviderSimulator(lambda request: paper_answer) as sim:
        judge_cmd(imported_run, sim)  # no --prompt-version
        chosen = JudgeConfig.objects.get(origin=JudgeConfig.Origin.OURS)
        assert chosen.prompt_version == "paper-v1"
        assert ours().filter(judge=chosen, verdict="success").count() == 12
        judge_cmd(imported_run, sim, "--prompt-version", "mypc-judge-1")  # an explicit choice still wins
    assert JudgeConfig.objects.filter(origin="ours", prompt_version="mypc-judge-1").exists()
    # a suite without published figures keeps our prompt: with_protocol_for leaves the spec alone
    other = make_eval_suite(1)[0]
    spec = our_judge.JudgeSpec(provider="anthropic")
    assert our_judge.with_protocol_for(spec, other.pk).prompt_version == ""
    assert our_judge.with_protocol_for(spec, imported_run.suite_id).prompt_version == "paper-v1"
