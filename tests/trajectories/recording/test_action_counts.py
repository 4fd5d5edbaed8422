"""Per-trajectory action counts: written by the ingest path and by live ingest (a re-sent step
counted once, a restarted trajectory's replaced and dropped steps uncounted), kept by the step
admin, filled by the migration for trajectories stored before; the scaling page and its API show
the shares the tests count by hand from the steps sent."""

import importlib
from pathlib import Path

import pytest
from django.apps import apps
from django.core.cache import cache
from django.urls import reverse

from harness.actions import ACTION_KINDS
from harness.results import StepRecord, TrajectoryBundle
from leaderboard.models import App, JudgeConfig, Model, Run, Suite
from tests.catalog_data import add_rubric, make_task
from trajectories.models import Judgment, Step, Trajectory
from trajectories.recording import ingest, live_ingest

pytestmark = pytest.mark.django_db

fill_migration = importlib.import_module("trajectories.migrations.0002_trajectory_action_counts")


@pytest.fixture(autouse=True)
def quiet(settings):
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_JUDGE_ON_FINISH = False
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def world():
    suite = Suite.objects.create(name="MyPCBench", version="counts", slug="counts")
    mail = App.objects.create(name="HooliMail", slug="hoolimail", kind="web")
    cal = App.objects.create(name="HooliCalendar", slug="hoolicalendar", kind="web")
    lookup = make_task(suite, "lookup-1", "personal_lookup", [mail], position=1)
    action = make_task(suite, "action-2", "bounded_action", [cal], position=2)
    judge = JudgeConfig.objects.create(name="our-judge", origin="ours")
    runs = {}
    for slug in ("imported", "live"):
        model = Model.objects.create(name=slug.title(), slug=slug)
        runs[slug] = Run.objects.create(
            name=f"{slug.title()} run", slug=f"{slug}-run", suite=suite, model=model, provenance="harness",
            publication="published", judge_config=judge,
        )  # fmt: skip
    return {"tasks": {"lookup": lookup, "action": action}, "items": {t: add_rubric(t, [1.0]) for t in (lookup, action)},
            "judge": judge, "runs": runs}  # fmt: skip


def judged(world, trajectory):
    (item,) = world["items"][trajectory.task]
    Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=world["judge"], verdict="success")


def record(index, tool, action):
    return StepRecord(index=index, turn=index, tool=tool, action=action, action_text=str(action))


# every kind of step, as a bundle's traj.jsonl gives them: 2 clicks, a type, a key, a scroll, a
# drag, a bash call, an editor call and an unparsed action count; wait, done and control do not
IMPORTED_LOOKUP = [
    ("computer", {"type": "click", "x": 1, "y": 2}),
    ("computer", {"type": "double_click", "x": 1, "y": 2}),
    ("computer", {"type": "type", "text": "hi"}),
    ("computer", {"type": "hotkey", "keys": ["ctrl", "s"]}),
    ("computer", {"type": "scroll", "dy": -3}),
    ("computer", {"type": "drag", "x": 5, "y": 5}),
    ("bash", {"type": "bash"}),
    ("editor", {"type": "str_replace"}),
    ("computer", {"type": "wait"}),
    ("computer", {"type": "other", "text": "pyautogui.moveTo(3, 3) if x else 0"}),
    ("computer", {"type": "done"}),
    ("control", {"type": "other", "text": "PREDICT_CRASH"}),
]
IMPORTED_LOOKUP_COUNTS = {"click": 2, "type": 1, "key": 1, "scroll": 1, "drag": 1, "bash": 1, "editor": 1, "other": 1}
IMPORTED_ACTION = [
    ("computer", {"type": "click", "x": 9, "y": 9}),
    ("bash", {"type": "bash"}),
    ("bash", {"type": "bash"}),
    ("control", {"type": "done"}),
]
IMPORTED_ACTION_COUNTS = {"click": 1, "bash": 2}


def import_bundle(world, task, steps):
    bundle = TrajectoryBundle(
        task_id=task.task_id,
        layout="mypcbench",
        path=Path(f"results/{task.task_id}"),
        steps=[record(i, tool, action) for i, (tool, action) in enumerate(steps, start=1)],
        ended_by="done",
    )
    trajectory = ingest.ingest_bundle(world["runs"]["imported"], bundle)
    judged(world, trajectory)
    return trajectory


def live_row(n, action, **extra):
    return {"step_num": n, "action": action, "response": f"turn {n}", "done": False, "info": {}, **extra}


def page_counts(client, **query):
    cache.clear()
    shapes = client.get(reverse("leaderboard:analysis_scaling"), query).context["shapes"]
    return {s.run.slug: s.counts for s in shapes}


def api_shares(client, **query):
    cache.clear()
    runs = client.get("/api/analysis/scaling", query).json()["runs"]
    return {r["run"]: r["action_shape"] for r in runs}


def shares(counts):
    total = sum(counts.values())
    return {k: round(100 * counts.get(k, 0) / total, 2) for k in ACTION_KINDS}


def summed(*counts):
    out = {}
    for c in counts:
        for k, n in c.items():
            out[k] = out.get(k, 0) + n
    return out


def test_ingested_steps_are_counted_per_trajectory_and_summed_per_run_on_the_page_and_api(client, world):
    lookup = import_bundle(world, world["tasks"]["lookup"], IMPORTED_LOOKUP)
    action = import_bundle(world, world["tasks"]["action"], IMPORTED_ACTION)
    lookup.refresh_from_db()
    action.refresh_from_db()
    assert lookup.action_counts == IMPORTED_LOOKUP_COUNTS
    assert action.action_counts == IMPORTED_ACTION_COUNTS
    both = summed(IMPORTED_LOOKUP_COUNTS, IMPORTED_ACTION_COUNTS)  # click 3, bash 3, the rest 1 each
    assert page_counts(client) == {"imported-run": both}
    assert api_shares(client)["imported-run"] == shares(both)
    # a task filter counts only that task's trajectories
    assert page_counts(client, type="bounded_action") == {"imported-run": IMPORTED_ACTION_COUNTS}
    assert api_shares(client, app="hoolimail")["imported-run"] == shares(IMPORTED_LOOKUP_COUNTS)


def test_live_steps_are_counted_as_they_stream_and_a_resent_step_once(client, world):
    trajectory = ingest.start_trajectory(world["runs"]["live"], world["tasks"]["lookup"])
    judged(world, trajectory)
    sink = live_ingest.LiveIngestSink(trajectory)
    sink.begin({})
    sink.step(live_row(1, "pyautogui.click(1, 1)"), None)
    sink.step(live_row(2, "pyautogui.typewrite('hello')"), None)
    sink.step(live_row(3, "pyautogui.hotkey('ctrl', 's')"), None)
    # the worker died after step 3 was stored and the broker re-sent it
    live_ingest.write_step(trajectory, live_ingest.step_record(live_row(3, "pyautogui.hotkey('ctrl', 's')"), 3), None)
    sink.step(live_row(4, "TOOL_CALL"), None)
    sink.step(live_row(5, "pyautogui.click(2, 2)", tool="editor"), None)
    sink.step(live_row(6, "WAIT"), None)
    sink.step(live_row(7, "DONE"), None)
    # shown while the trajectory runs: click, type, hotkey (once), bash, editor
    streaming = {"click": 1, "type": 1, "key": 1, "bash": 1, "editor": 1}
    assert Step.objects.filter(trajectory=trajectory).count() == 7
    assert page_counts(client) == {"live-run": streaming}
    assert api_shares(client)["live-run"] == shares(streaming)

    # the guest broke: the trajectory restarts from step 1, rewrites two steps and ends there
    sink.begin({})
    sink.step(live_row(1, "pyautogui.scroll(-3)"), None)
    sink.step(live_row(2, "pyautogui.dragTo(5, 5)"), None)
    live_ingest.close(trajectory, steps=sink.written, ended_by="done", status="finished")
    restarted = {"scroll": 1, "drag": 1}
    trajectory.refresh_from_db()
    assert trajectory.n_steps == 2 and trajectory.action_counts == restarted
    assert page_counts(client) == {"live-run": restarted}
    assert api_shares(client)["live-run"] == shares(restarted)


def test_page_and_api_show_imported_and_live_runs_side_by_side(client, world):
    import_bundle(world, world["tasks"]["lookup"], IMPORTED_LOOKUP)
    trajectory = ingest.start_trajectory(world["runs"]["live"], world["tasks"]["action"])
    judged(world, trajectory)
    sink = live_ingest.LiveIngestSink(trajectory)
    sink.begin({})
    for n, action in enumerate(["pyautogui.click(1, 1)", "pyautogui.doubleClick(1, 1)", "pyautogui.press('enter')"], 1):
        sink.step(live_row(n, action), None)
    live_ingest.close(trajectory, steps=sink.written, ended_by="done", status="finished")
    live = {"click": 2, "key": 1}
    assert page_counts(client) == {"imported-run": IMPORTED_LOOKUP_COUNTS, "live-run": live}
    assert api_shares(client) == {"imported-run": shares(IMPORTED_LOOKUP_COUNTS), "live-run": shares(live)}


def test_steps_changed_in_the_admin_move_the_counts(client, world, admin_client):
    trajectory = import_bundle(world, world["tasks"]["action"], IMPORTED_ACTION)
    bash = Step.objects.filter(trajectory=trajectory, tool="bash").first()
    response = admin_client.post(reverse("admin:trajectories_step_delete", args=[bash.pk]), {"post": "yes"})
    assert response.status_code == 302
    trajectory.refresh_from_db()
    assert trajectory.action_counts == {"click": 1, "bash": 1}
    assert page_counts(client) == {"imported-run": {"click": 1, "bash": 1}}


def test_the_migration_fills_counts_for_trajectories_stored_before(client, world, monkeypatch):
    """Steps written straight to the database, as before the counts existed (counts left empty),
    over more trajectories than one batch."""
    stored = {}
    for attempt in range(5):
        for key, steps in (("lookup", IMPORTED_LOOKUP), ("action", IMPORTED_ACTION[: attempt + 1])):
            trajectory = Trajectory.objects.create(
                run=world["runs"]["imported"], task=world["tasks"][key], attempt=attempt, n_steps=len(steps)
            )
            Step.objects.bulk_create(
                Step(trajectory=trajectory, index=i, turn=i, tool=tool, action=action)
                for i, (tool, action) in enumerate(steps, start=1)
            )
            judged(world, trajectory)
            stored[trajectory.pk] = (key, attempt)
    Trajectory.objects.create(run=world["runs"]["live"], task=world["tasks"]["lookup"])  # no steps at all
    assert not Trajectory.objects.exclude(action_counts={}).exists()

    monkeypatch.setattr(fill_migration, "BATCH", 3)
    fill_migration.fill_action_counts(apps, None)

    # the action task's attempts hold: click; click, bash; click, bash, bash; then + done (uncounted)
    action_counts = [{"click": 1}, {"click": 1, "bash": 1}] + [IMPORTED_ACTION_COUNTS] * 3
    for trajectory in Trajectory.objects.filter(pk__in=stored):
        key, attempt = stored[trajectory.pk]
        expected = IMPORTED_LOOKUP_COUNTS if key == "lookup" else action_counts[attempt]
        assert trajectory.action_counts == expected, (key, attempt)
    assert Trajectory.objects.get(run=world["runs"]["live"]).action_counts == {}
    everything = summed(*([IMPORTED_LOOKUP_COUNTS] * 5 + action_counts))
    assert page_counts(client) == {"imported-run": everything}
