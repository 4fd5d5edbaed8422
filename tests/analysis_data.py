"""A small hand-scored world for the analysis tests: two graded runs over four tasks, judged by
their own judge (plus a stray judge that must not count), with failure modes and steps whose
numbers the tests compute by hand."""

from types import SimpleNamespace

import pytest

from leaderboard.models import App, JudgeConfig, Model, Run, Suite
from tests.catalog_data import add_rubric, make_task
from trajectories.models import Judgment, Step, Trajectory
from trajectories.recording import action_counts


def judge_all(traj, items, judge, verdicts, modes=None, cited=None):
    modes = modes or {}
    cited = cited or {}
    for i, (item, verdict) in enumerate(zip(items, verdicts, strict=True)):
        Judgment.objects.create(
            trajectory=traj,
            rubric_item=item,
            judge=judge,
            verdict=verdict,
            explanation=f"{verdict} on {item.rubric_id}",
            failure_mode=modes.get(i, ""),
            cited_steps=cited.get(i, []),
        )


def build_world():
    """Tasks (behavioural type, apps-touched bin, apps, weights):
    t1 personal_lookup, bin 1, [mail], weights 1 and 3
    t2 bounded_action,  bin 2-3, [mail, cal], weights 1 and 1
    t3 personal_lookup, bin 1, [cal], weight 1
    t4 bounded_action,  bin 4-6 (5 apps touched), [calc], weight 1

    Run A (Alpha): t1 R1 fail (premature done, cites step 2) + R2 pass = 0.75; t2 perfect;
    t3 perfect; t4 missing (counts 0).
    Run B (Beta): t1 perfect; t2 one judge error (incomplete, left out) and R1 failed
    (premature done); t3 failed (skipped required app) = 0; t4 trajectory errored (counts 0).
    """
    suite = Suite.objects.create(name="MyPCBench", version="eval-round0", slug="mypcbench-eval-round0")
    mail = App.objects.create(name="HooliMail", slug="hoolimail", kind="web")
    cal = App.objects.create(name="HooliCalendar", slug="hoolicalendar", kind="web")
    calc = App.objects.create(name="LibreOffice Calc", slug="libreoffice-calc", kind="desktop")
    t1 = make_task(suite, "lookup-1", "personal_lookup", [mail], position=1)
    t2 = make_task(suite, "action-2", "bounded_action", [mail, cal], position=2)
    t3 = make_task(suite, "lookup-3", "personal_lookup", [cal], position=3)
    t4 = make_task(suite, "action-4", "bounded_action", [calc], position=4, apps_touched=5)
    r1, r2, r3 = add_rubric(t1, [1.0, 3.0]), add_rubric(t2, [1.0, 1.0]), add_rubric(t3, [1.0])
    add_rubric(t4, [1.0])

    judge = JudgeConfig.objects.create(name="our-judge", origin="ours", model="judge-model")
    stray = JudgeConfig.objects.create(name="someone-elses-judge", origin="imported")
    alpha = Model.objects.create(name="Alpha", slug="alpha", family="Fam")
    beta = Model.objects.create(name="Beta", slug="beta", family="Fam")
    run_a = Run.objects.create(
        name="Alpha run", slug="alpha-run", suite=suite, model=alpha, provenance="harness",
        publication="published", judge_config=judge,
    )  # fmt: skip
    run_b = Run.objects.create(
        name="Beta run", slug="beta-run", suite=suite, model=beta, provenance="imported",
        publication="published", judge_config=judge,
    )  # fmt: skip

    a1 = Trajectory.objects.create(run=run_a, task=t1, ended_by="done", n_steps=7, cost_usd="0.50")
    judge_all(a1, r1, judge, ["failure", "success"], modes={0: "premature_done"}, cited={0: [2]})
    judge_all(a1, r1, stray, ["failure", "failure"], modes={0: "other", 1: "other"})  # must not count
    a2 = Trajectory.objects.create(run=run_a, task=t2, ended_by="done", n_steps=3, cost_usd="0.25")
    judge_all(a2, r2, judge, ["success", "success"])
    a3 = Trajectory.objects.create(run=run_a, task=t3, ended_by="done", n_steps=12, cost_usd="0.25")
    judge_all(a3, r3, judge, ["success"])
    steps = [
        ("computer", {"type": "click", "x": 1, "y": 2}),
        ("computer", {"type": "double_click", "x": 1, "y": 2}),
        ("computer", {"type": "type", "text": "hi"}),
        ("computer", {"type": "hotkey", "keys": ["ctrl", "s"]}),
        ("computer", {"type": "scroll", "x": 1, "y": 2}),
        ("bash", {}),
        ("control", {"type": "done"}),
    ]
    for index, (tool, action) in enumerate(steps, start=1):
        Step.objects.create(trajectory=a1, index=index, turn=index, tool=tool, action=action)

    b1 = Trajectory.objects.create(run=run_b, task=t1, ended_by="done", n_steps=4)
    judge_all(b1, r1, judge, ["success", "success"])
    b2 = Trajectory.objects.create(run=run_b, task=t2, ended_by="done", n_steps=9)
    judge_all(b2, r2, judge, ["failure", "error"], modes={0: "premature_done"})
    b3 = Trajectory.objects.create(run=run_b, task=t3, ended_by="done", n_steps=20)
    judge_all(b3, r3, judge, ["failure"], modes={0: "skipped_required_app"}, cited={0: [1, 3]})
    b4 = Trajectory.objects.create(run=run_b, task=t4, status="error", ended_by="error", n_steps=1)
    for index, tool in enumerate(["editor", "bash", "bash"], start=1):
        Step.objects.create(trajectory=b1, index=index, turn=index, tool=tool, action={})
    action_counts.recount([a1.pk, b1.pk])  # what ingest stores as it writes steps

    return SimpleNamespace(
        suite=suite,
        tasks=[t1, t2, t3, t4],
        judge=judge,
        stray=stray,
        alpha=alpha,
        beta=beta,
        run_a=run_a,
        run_b=run_b,
        a1=a1,
        b3=b3,
        b4=b4,
        apps=SimpleNamespace(mail=mail, cal=cal, calc=calc),
    )


@pytest.fixture
def analysis_world(db):
    """The analysis world (tests/conftest.py registers this module's fixtures)."""
    return build_world()
