"""Re-scoring after a rubric erratum: for a run judged on version 1, the items the erratum changed are
worked out (reworded and added ones judged again, moved and reweighted ones keep their verdict), the
re-judge sends only those to the judge, and the run's score is then on version 2 with version 2's
weights. A judge the site cannot run (an imported one) is refused with its name."""

import pytest
from django.urls import reverse

from leaderboard.models import JudgeConfig, RubricItem
from leaderboard.scoring.outcomes import GRADED, STALE, run_outcomes
from tests.simulators import ProviderSimulator
from trajectories.judging import our_judge, rescoring
from trajectories.models import Judgment

pytestmark = pytest.mark.django_db

TASKS = ["retrieval-f001", "retrieval-f002"]
GOOD = 'Seen.\n{"reasoning": "The mail is open in step 2.", "cited_steps": [2], "verdict": "success"}'
BAD = 'Not seen.\n{"reasoning": "No such step.", "cited_steps": [], "verdict": "failure"}'
REWORDED = "Replies to the sender, or forwards the invoice, with its total"
ADDED = "Deletes no mail"

# version 2 of the factories' rubric: R1 moved to the end (same words), R2 reworded, R3 reweighted 0.2 -> 0.4,
# R4 added (weight 0.1)
V2 = [
    ("R2", REWORDED, 0.3),
    ("R3", "States the total in the final answer", 0.4),
    ("R4", ADDED, 0.1),
    ("R1", "Opens HooliMail and finds the invoice from Dunder Mifflin", 0.5),
]


def answer(request):
    """Version 1: R1 and R3 succeed, R2 fails. Version 2's new words: R2 succeeds, R4 fails."""
    text = request.last_text
    return BAD if ("Replies to the sender with" in text or ADDED in text) else GOOD


def publish_version_2(task):
    RubricItem.objects.filter(task=task, is_current=True).update(is_current=False)
    total = sum(w for _, _, w in V2)
    for position, (rubric_id, criterion, weight) in enumerate(V2, start=1):
        RubricItem.objects.create(
            task=task,
            version=2,
            position=position,
            rubric_id=rubric_id,
            criterion=criterion,
            weight=weight,
            normalised_weight=weight / total,
            content_hash=f"{task.task_id}-{rubric_id}-v2",
        )
    task.rubric_version = 2
    task.save()


def judge_with(sim, run):
    spec = our_judge.JudgeSpec.from_settings(provider="anthropic", base_url=sim.url)
    judge = our_judge.build_judge(spec)
    our_judge.judge_run_inline(run, judge)
    return our_judge.judge_config_for(judge)


def judged_by_hand(run, config):
    """Version 1 judged as the simulator would: R1 and R3 succeed, R2 fails."""
    for trajectory in run.trajectories.select_related("task"):
        for item in RubricItem.objects.filter(task=trajectory.task):
            verdict = "failure" if item.rubric_id == "R2" else "success"
            Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=config, verdict=verdict)
    return config


def test_the_plan_names_the_changed_items_and_keeps_the_verdicts_that_hold(imported_run):
    config = JudgeConfig.objects.create(name="ours: by hand", origin=JudgeConfig.Origin.OURS)
    judged_by_hand(imported_run, config)
    for trajectory in imported_run.trajectories.select_related("task"):
        publish_version_2(trajectory.task)
    outcomes = run_outcomes([imported_run], judge=config)[imported_run.pk]
    assert list(outcomes.status.ravel()) == [STALE, STALE]  # nothing judged on version 2 yet

    [ours] = rescoring.superseded_plans(imported_run)
    assert (ours.trajectories, ours.to_judge, ours.carried) == (2, 4, 4)
    for items in ours.judge_again.values():
        assert [i.rubric_id for i in items] == ["R2", "R4"]
    for items in ours.carry.values():
        assert sorted((RubricItem.objects.get(pk=pk).rubric_id, j.verdict) for pk, j in items.items()) == [
            ("R1", "success"),
            ("R3", "success"),
        ]
    assert "2 trajectory(-ies)" in ours.text() and "4 changed item(s) to judge again" in ours.text()


def test_a_judge_the_site_cannot_run_is_refused_by_name(imported_run):
    source = JudgeConfig.objects.create(name="source judge", origin=JudgeConfig.Origin.IMPORTED)
    authors = JudgeConfig.objects.create(name="author's judge", origin=JudgeConfig.Origin.SELF_REPORTED)
    trajectory = imported_run.trajectories.select_related("task").first()
    for item in RubricItem.objects.filter(task=trajectory.task):
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=source, verdict="success")
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=authors, verdict="success")
    publish_version_2(trajectory.task)
    [imported] = rescoring.superseded_plans(imported_run)  # the author's own judge is never scored: no plan
    assert (imported.to_judge, imported.carried) == (2, 2)
    with pytest.raises(rescoring.RejudgeRefused, match="is not our judge .* cannot be judged again here"):
        rescoring.rejudge_changed_items(imported)
    assert not Judgment.objects.filter(judge=source, rubric_item__version=2).exists()  # nothing carried either


@pytest.mark.slow  # two judgings through the provider simulator and the eager Celery group
def test_the_rejudge_sends_only_changed_items_and_the_score_moves_to_version_2(imported_run, settings):
    from mypcbench_site.celery import app

    with ProviderSimulator(answer) as sim:
        config = judge_with(sim, imported_run)
        first = our_judge.trajectory_score(imported_run.trajectories.first(), config)
        assert first["score"] == 70  # R1 0.5 + R3 0.2 of 1.0
        for trajectory in imported_run.trajectories.select_related("task"):
            publish_version_2(trajectory.task)
        [plan] = [p for p in rescoring.superseded_plans(imported_run) if p.judge == config]
        sent_before = len(sim.requests)
        settings.CELERY_TASK_ALWAYS_EAGER = True
        app.conf.task_always_eager = True
        try:
            carried, queued = rescoring.rejudge_changed_items(plan)
        finally:
            app.conf.task_always_eager = False
        asked = [r.last_text for r in sim.requests[sent_before:]]
    assert (carried, queued) == (4, 4)
    assert len(asked) == 4  # R2 and R4 of each trajectory, nothing else
    assert sum(REWORDED in t for t in asked) == 2 and sum(ADDED in t for t in asked) == 2
    assert not any("Opens HooliMail and finds" in t or "States the total" in t for t in asked)

    on_v2 = Judgment.objects.filter(judge=config, rubric_item__version=2)
    assert on_v2.count() == 8
    kept = on_v2.get(trajectory=imported_run.trajectories.first(), rubric_item__rubric_id="R3")
    assert kept.verdict == "success" and kept.signals["carried_from_version"] == 1
    # version 2: R1 0.5 + R2 0.3 + R3 0.4 succeed, R4 0.1 fails, of 1.3
    for trajectory in imported_run.trajectories.all():
        assert our_judge.trajectory_score(trajectory, config)["score"] == 92  # 1.2 / 1.3, as a whole percent
    outcomes = run_outcomes([imported_run], judge=config)[imported_run.pk]
    assert list(outcomes.status.ravel()) == [GRADED, GRADED]
    assert [round(s, 4) for s in outcomes.scores.ravel()] == [round(1.2 / 1.3, 4)] * 2
    assert [p for p in rescoring.superseded_plans(imported_run) if p.judge == config] == []  # nothing left


def test_one_click_in_the_runs_admin_carries_what_holds_and_queues_only_changed_items(
    imported_run, admin_client, monkeypatch
):
    config = judged_by_hand(imported_run, JudgeConfig.objects.create(name="ours: by hand", origin="ours"))
    for trajectory in imported_run.trajectories.select_related("task"):
        publish_version_2(trajectory.task)
    # the judge rebuilt from its configuration (spec_for: the slow test above builds it for real) and the
    # queue are stood in for; what is queued is checked
    spec = our_judge.JudgeSpec.from_settings(provider="anthropic", prompt_version="mypc-judge-1")
    monkeypatch.setattr(rescoring, "spec_for", lambda c: spec if c == config else None)
    queued = []
    monkeypatch.setattr(our_judge, "judge_run", lambda run, spec, **kw: queued.append((run, spec, kw)))

    changelist = reverse("admin:leaderboard_run_changelist")
    listed = admin_client.get(changelist + "?rubric=superseded").content.decode()
    assert imported_run.name in listed
    action = {"action": "rejudge_changed_items", "_selected_action": [imported_run.pk]}
    page = admin_client.post(changelist, action, follow=True).content.decode()
    assert "4 verdict(s) carried to the current rubrics, 4 changed item(s) on 2 trajectory(-ies) queued" in page
    [(run, sent, kw)] = queued
    assert run == imported_run and sent is spec
    assert sorted(kw["trajectory_ids"]) == sorted(imported_run.trajectories.values_list("pk", flat=True))
    assert Judgment.objects.filter(judge=config, rubric_item__version=2).count() == 4  # R1 and R3, carried

    queued.clear()  # a second click: the verdicts are carried already, the changed items still owed
    page = admin_client.post(changelist, action, follow=True).content.decode()
    assert "0 verdict(s) carried" in page and len(queued) == 1


def test_the_admin_says_when_there_is_nothing_to_rejudge(imported_run, admin_client):
    changelist = reverse("admin:leaderboard_run_changelist")
    action = {"action": "rejudge_changed_items", "_selected_action": [imported_run.pk]}
    page = admin_client.post(changelist, action, follow=True).content.decode()
    assert "every verdict is on the current rubrics; nothing to do" in page
    assert imported_run.name not in admin_client.get(changelist + "?rubric=superseded").content.decode()
