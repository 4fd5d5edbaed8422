"""Our judge on the site: manage.py judge on an imported run (provider simulator + real SDK),
one judgment per item and configuration, reruns judging only what is missing or errored, token
and cost totals, the Celery task and its queue, and judging started when a trajectory finishes."""

from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from leaderboard.models import JudgeConfig
from tests.factories import make_suite, write_task_dir
from tests.simulators import ProviderSimulator, Reply
from trajectories.judging import our_judge
from trajectories.models import Judgment
from trajectories.recording.import_results import import_results

pytestmark = pytest.mark.django_db

TASKS = ["retrieval-f001", "retrieval-f002"]
GOOD = 'Seen.\n{"reasoning": "The mail is open in step 2.", "cited_steps": [2, 40], "verdict": "success"}'
BAD = 'Not seen.\n{"reasoning": "No reply in any step.", "cited_steps": [], "verdict": "failure"}'


def answer(request):
    return BAD if "Replies to the sender" in request.last_text else GOOD


def judge_cmd(run, sim, *extra):
    call_command("judge", run.slug, "--provider", "anthropic", "--base-url", sim.url, *extra)


def ours():
    return Judgment.objects.filter(judge__origin=JudgeConfig.Origin.OURS)


def test_manage_py_judge_stores_one_judgment_per_item_with_tokens_and_cost(imported_run, capsys):
    with ProviderSimulator(answer) as sim:
        judge_cmd(imported_run, sim)
    assert len(sim.requests) == 6
    rows = list(ours().select_related("rubric_item", "judge").order_by("trajectory", "rubric_item__position"))
    assert [r.verdict for r in rows] == ["success", "failure", "success"] * 2
    config = rows[0].judge
    assert config.provider == "anthropic" and config.model == "claude-sonnet-4-6"
    assert config.prompt_version == "mypc-judge-1" and config.max_images == 100  # Anthropic's per-request cap
    assert rows[0].cited_steps == [2]  # step 40 does not exist in a 3-step trajectory
    assert rows[0].signals["judge_notes"]["cited_steps_not_in_trajectory"] == [40]
    assert all(r.input_tokens > 0 and r.output_tokens > 0 and r.cost_usd > 0 for r in rows)
    assert rows[1].cached_tokens > 0  # the second item read the cached prefix
    usage = our_judge.run_judge_usage(imported_run, config)
    assert usage["judgments"] == 6 and usage["cost_usd"] == sum((r.cost_usd for r in rows), Decimal(0))
    per_trajectory = [
        our_judge.trajectory_judge_usage(t, config)["input_tokens"] for t in imported_run.trajectories.all()
    ]
    assert sum(per_trajectory) == usage["input_tokens"]
    assert our_judge.judging_progress(imported_run, config)["done"] == 2
    assert "2/2 trajectories fully judged" in capsys.readouterr().out


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_rerun_judges_only_missing_or_errored_items_and_force_redoes_all(imported_run, capsys, settings):
    settings.MYPCBENCH_JUDGE = {"attempts": 2}  # one retry after a 1 s backoff, then error

    def broken_third_item(request):
        return Reply(status=500) if "States the total" in request.last_text else answer(request)

    with ProviderSimulator(broken_third_item) as sim:
        call_command("judge", imported_run.slug, "--provider", "anthropic", "--base-url", sim.url)
    # an unreachable provider leaves errors, never failures
    assert ours().filter(verdict="error").count() == 2 and ours().filter(verdict="failure").count() == 2
    assert "ended in error" in capsys.readouterr().out

    with ProviderSimulator(answer) as sim:
        judge_cmd(imported_run, sim)
        assert len(sim.requests) == 2  # the two errored items only
        judge_cmd(imported_run, sim)
        assert len(sim.requests) == 2  # nothing left
        judge_cmd(imported_run, sim, "--force")
        assert len(sim.requests) == 8
    assert ours().count() == 6 and not ours().filter(verdict="error").exists()


def test_a_different_model_is_a_different_judge_configuration(imported_run):
    with ProviderSimulator(answer) as sim:
        judge_cmd(imported_run, sim)
        judge_cmd(imported_run, sim, "--model", "claude-haiku-4-5")
    assert len(sim.requests) == 12
    assert JudgeConfig.objects.filter(origin="ours").count() == 2


def test_missing_key_or_run_is_a_clear_error_before_any_call(imported_run, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with ProviderSimulator(answer) as sim:
        with pytest.raises(CommandError, match="no API key for the anthropic judge: set ANTHROPIC_API_KEY"):
            judge_cmd(imported_run, sim)
        with pytest.raises(CommandError, match="no run with slug 'nope'"):
            call_command("judge", "nope")
    assert sim.requests == [] and not ours().exists()


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_judge_run_as_a_celery_group_on_the_judging_queue(imported_run, settings):
    from mypcbench_site.celery import app
    from trajectories.tasks import judge_trajectory_task

    route = app.amqp.router.route({}, judge_trajectory_task.name)
    assert route["queue"].name == "judging"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    try:
        with ProviderSimulator(answer) as sim:
            spec = our_judge.JudgeSpec.from_settings(provider="anthropic", base_url=sim.url)
            our_judge.judge_run(imported_run, spec)
            # a redelivered message judges nothing new
            judge_trajectory_task.delay(imported_run.trajectories.first().pk, spec.as_dict())
    finally:
        app.conf.task_always_eager = False
    assert len(sim.requests) == 6 and ours().count() == 6


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_judging_starts_when_a_trajectory_finishes_only_when_asked(
    tmp_path, settings, monkeypatch, django_capture_on_commit_callbacks
):
    from mypcbench_site.celery import app

    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    make_suite(TASKS)
    for task_id in TASKS:
        write_task_dir(tmp_path / "results", task_id)
    with ProviderSimulator(answer) as sim:
        settings.MYPCBENCH_JUDGE = {"provider": "anthropic", "base_url": sim.url}
        import_results(tmp_path / "results", "not judged")
        assert sim.requests == []  # off by default
        settings.MYPCBENCH_JUDGE_ON_FINISH = True
        app.conf.task_always_eager = True
        try:
            other = tmp_path / "again"
            for task_id in TASKS:
                write_task_dir(other, task_id)
            with django_capture_on_commit_callbacks(execute=True):
                run = import_results(other, "judged on finish").run
        finally:
            app.conf.task_always_eager = False
    assert ours().filter(trajectory__run=run).count() == 6
