"""Failure modes of failed rubric items: deterministic trajectory signals, the rule-based reading
of the judge's explanation, storage beside each failed judgment, and the admin override that
re-judging keeps."""

import json

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.forms.models import model_to_dict
from django.test import RequestFactory

from harness.judge import TrajectoryForJudge
from harness.judge.failure_modes import (
    HALLUCINATED_PERSONA_DATA,
    OTHER,
    PARTIAL_ARTIFACT,
    PREMATURE_DONE,
    SKIPPED_REQUIRED_APP,
    SURFACE_ERROR_ABANDONMENT,
    classify_failure,
    trajectory_signals,
)
from harness.results import StepRecord
from leaderboard.models import Task
from tests.factories import make_suite, write_task_dir
from tests.simulators import ProviderSimulator
from trajectories.models import Judgment
from trajectories.recording.import_results import import_results


def step(n, action, output="", text=""):
    return StepRecord(
        index=n,
        turn=n,
        tool="bash" if output else "computer",
        action={},
        action_text=action,
        model_text=text,
        tool_output=output,
    )


def trajectory(*steps, ended_by="done"):
    return TrajectoryForJudge("t", "Do it.", list(steps), ended_by=ended_by)


def test_signals_name_untouched_apps_errors_before_the_end_and_unsaved_documents():
    seen = trajectory(
        step(1, "pyautogui.hotkey('ctrl', 'l'); pyautogui.typewrite('localhost:3016')", text="Opening HooliMail"),
        step(2, "cat ~/Documents/report.odt", output="cat: report.odt: No such file or directory"),
        step(3, "soffice ~/Documents/budget.ods"),
        step(4, "DONE"),
    )
    signals = trajectory_signals(seen, ["HooliMail", "HooliChat", "LibreOffice Calc"], turn_budget=100)
    assert signals["untouched_apps"] == ["HooliChat"]  # mail reached by port, Calc through soffice
    assert signals["errors_before_end"] == [2]
    assert signals["document_opened_not_saved"] is True
    assert signals["ended_by_done_before_budget"] is True
    saved = trajectory(step(1, "soffice ~/a.ods"), step(2, "pyautogui.hotkey('ctrl', 's')"), ended_by="budget")
    again = trajectory_signals(saved, [], turn_budget=2)
    assert again["document_opened_not_saved"] is False and again["ended_by_done_before_budget"] is False


@pytest.mark.parametrize(
    "explanation, signals, mode",
    [
        ("The total $1,502.13 in the reply does not match the invoice.", {}, HALLUCINATED_PERSONA_DATA),
        ("The agent never opened HooliChat.", {"untouched_apps": ["HooliChat"]}, SKIPPED_REQUIRED_APP),
        ("It did not check the calendar.", {}, OTHER),  # no app named, none untouched: not enough to say
        ("An error dialog appeared and the agent gave up.", {}, SURFACE_ERROR_ABANDONMENT),
        ("The spreadsheet was never saved.", {}, PARTIAL_ARTIFACT),
        ("The agent declared done without submitting the form.", {}, PREMATURE_DONE),
        ("No reply was sent.", {"untouched_apps": ["HooliMail"], "errors_before_end": [2]}, SURFACE_ERROR_ABANDONMENT),
        ("No reply was sent.", {"ended_by_done_before_budget": True}, PREMATURE_DONE),
        ("No reply was sent.", {}, OTHER),
    ],
)
def test_failure_mode_from_the_explanation_and_signals(explanation, signals, mode):
    assert classify_failure(explanation, signals) == mode


NEVER_OPENED = 'No.\n{"reasoning": "The agent never opened HooliChat.", "cited_steps": [1], "verdict": "failure"}'
PASSED = 'Yes.\n{"reasoning": "Done in step 2.", "cited_steps": [2], "verdict": "success"}'


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
@pytest.mark.django_db
def test_failed_items_get_a_mode_and_signals_and_an_admin_override_survives_rejudging(tmp_path, settings, monkeypatch):
    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    make_suite(["retrieval-f001"])
    Task.objects.filter(task_id="retrieval-f001").update(apps_involved=["HooliMail", "HooliChat"])
    write_task_dir(tmp_path / "r", "retrieval-f001", final_text="I checked HooliMail. DONE")
    run = import_results(tmp_path / "r", "modes").run

    def answer(request):
        return NEVER_OPENED if "Replies to the sender" in request.last_text else PASSED

    with ProviderSimulator(answer) as sim:
        call_command("judge", run.slug, "--provider", "anthropic", "--base-url", sim.url)
        failed = Judgment.objects.get(verdict="failure")
        assert failed.failure_mode == SKIPPED_REQUIRED_APP and not failed.failure_mode_overridden
        assert failed.signals["untouched_apps"] == ["HooliChat"]
        assert failed.signals["ended_by_done_before_budget"] is True
        assert Judgment.objects.filter(verdict="success", failure_mode="").count() == 2

        model_admin = admin.site._registry[Judgment]
        request = RequestFactory().post("/")
        form_class = model_admin.get_form(request, failed)
        data = {k: v for k, v in model_to_dict(failed).items() if v is not None}
        data.update(
            cited_steps=json.dumps(failed.cited_steps),
            signals=json.dumps(failed.signals),
            failure_mode=PARTIAL_ARTIFACT,
        )
        form = form_class(data, instance=failed)
        assert form.is_valid(), form.errors
        model_admin.save_model(request, form.save(commit=False), form, change=True)
        failed.refresh_from_db()
        assert failed.failure_mode == PARTIAL_ARTIFACT and failed.failure_mode_overridden

        call_command("judge", run.slug, "--provider", "anthropic", "--base-url", sim.url, "--force")
    failed.refresh_from_db()
    assert failed.failure_mode == PARTIAL_ARTIFACT and failed.failure_mode_overridden
