"""A small catalog built with the ORM for page, API and browser tests: two suites, tasks with a
versioned rubric, a published and a draft run, trajectories with steps and judgments."""

import io
from types import SimpleNamespace

from django.core.files.base import ContentFile
from PIL import Image

from leaderboard.models import App, JudgeConfig, Model, RubricItem, Run, Suite, Task, apps_touched_bin
from trajectories.models import Judgment, Step, Trajectory

HOSTILE = "<script>alert('owned')</script>"


def png_bytes(color=(40, 90, 160), size=(64, 40)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


def make_task(suite, task_id, btype, apps, *, difficulty="", position=0, instruction=None, **extra):
    n = extra.pop("apps_touched", len(apps))
    task = Task.objects.create(
        suite=suite,
        task_id=task_id,
        position=position,
        category=extra.pop("category", "retrieval"),
        behavioural_type=btype,
        type_source=extra.pop("type_source", "shipped"),
        instruction=instruction or f"Do the thing for {task_id}.",
        primary_app=apps[0] if apps else None,
        apps_involved=[a.name for a in apps],
        apps_touched=n,
        apps_touched_bin=apps_touched_bin(n),
        difficulty=difficulty,
        content_hash=f"hash-{task_id}",
        **extra,
    )
    task.apps.set(apps)
    return task


def add_rubric(task, weights, version=1, current=True, verification=""):
    total = sum(weights)
    return [
        RubricItem.objects.create(
            task=task,
            version=version,
            position=i,
            rubric_id=f"R{i}",
            criterion=f"Criterion {i} of {task.task_id} (v{version})",
            verification=verification if i == 1 else "",
            weight=w,
            normalised_weight=w / total,
            content_hash=f"{task.task_id}-{version}-{i}",
            is_current=current,
        )
        for i, w in enumerate(weights, start=1)
    ]


def build_catalog():
    suite = Suite.objects.create(name="MyPCBench", version="eval-round0", slug="mypcbench-eval-round0")
    demo = Suite.objects.create(name="Demo", version="v1", slug="demo-v1", is_demo=True)
    mail = App.objects.create(name="HooliMail", slug="hoolimail", kind="web", port=3016)
    cal = App.objects.create(name="HooliCalendar", slug="hoolicalendar", kind="web", port=3017)
    calc = App.objects.create(name="LibreOffice Calc", slug="libreoffice-calc", kind="desktop")

    lookup = make_task(
        suite,
        "retrieval-f016",
        "personal_lookup",
        [mail],
        difficulty="easy",
        position=1,
        instruction="\n   Find Jan's   birthday in HooliMail.\n\n",
        rubric_rule="All items must pass for a perfect score.",
        rubric_version=2,
        type_source="derived",
    )
    add_rubric(lookup, [1.0, 1.0], version=1, current=False)
    lookup_items = add_rubric(lookup, [1.0, 3.0], version=2, verification="Check the reply text.")
    action = make_task(suite, "action-b002", "bounded_action", [mail, cal], difficulty="medium", position=2)
    add_rubric(action, [1.0, 1.0, 1.0])
    orchestration = make_task(
        suite, "orchestration-c003", "multi_step_orchestration", [mail, cal, calc], position=3, apps_touched=7
    )
    add_rubric(orchestration, [2.0])
    demo_task = make_task(demo, "demo-001", "bounded_action", [calc], difficulty="easy")
    add_rubric(demo_task, [1.0])

    model = Model.objects.create(name="Test Model 1", slug="test-model-1", family="Test")
    judge = JudgeConfig.objects.create(name="our-judge-v1", origin="ours", model="judge-model")
    other_judge = JudgeConfig.objects.create(name="upstream-judge", origin="imported")
    published = Run.objects.create(
        name="Published harness run",
        slug="published-run",
        suite=suite,
        model=model,
        provenance="harness",
        publication="published",
        judge_config=judge,
        turn_budget=100,
        agent_type="anthropic-cua",
        image_tag="mypcbench:1.0",
    )
    draft = Run.objects.create(
        name="Secret draft upload", slug="draft-run", suite=suite, model=model, provenance="upload", publication="draft"
    )

    traj = Trajectory.objects.create(
        run=published, task=lookup, ended_by="done", n_steps=2, n_turns=2, imported_score=0.75
    )
    step1 = Step(
        trajectory=traj,
        index=1,
        turn=1,
        tool="computer",
        action={"type": "click", "x": 10, "y": 20},
        action_text="pyautogui.click(10, 20)",
        model_text=f"I will click. {HOSTILE}",
        tool_output="ok",
    )
    step1.screenshot.save("step_1.png", ContentFile(png_bytes()), save=False)
    step1.save()
    step2 = Step(trajectory=traj, index=2, turn=2, tool="bash", action_text="ls ~/Documents", tool_output="a.ods")
    step2.screenshot.save("step_2.png", ContentFile(png_bytes((200, 60, 60))), save=False)
    step2.display_image.save("step_2.webp", ContentFile(png_bytes((200, 60, 60))), save=False)
    step2.save()
    stale_item = RubricItem.objects.get(task=lookup, version=1, position=1)
    judgments = [
        Judgment.objects.create(
            trajectory=traj, rubric_item=lookup_items[0], judge=judge, verdict="success", cited_steps=[1, 2]
        ),
        Judgment.objects.create(
            trajectory=traj,
            rubric_item=lookup_items[1],
            judge=judge,
            verdict="error",
            explanation="Judge API timed out.",
        ),
        Judgment.objects.create(
            trajectory=traj,
            rubric_item=stale_item,
            judge=other_judge,
            verdict="failure",
            explanation=f"Old rubric said no. {HOSTILE}",
            failure_mode="premature_done",
        ),
    ]
    draft_traj = Trajectory.objects.create(run=draft, task=action, ended_by="budget", n_steps=0)
    return SimpleNamespace(
        suite=suite,
        demo=demo,
        apps=SimpleNamespace(mail=mail, cal=cal, calc=calc),
        lookup=lookup,
        action=action,
        orchestration=orchestration,
        demo_task=demo_task,
        model=model,
        judge=judge,
        published=published,
        draft=draft,
        traj=traj,
        steps=[step1, step2],
        judgments=judgments,
        draft_traj=draft_traj,
    )
