"""The shipped demo content: the demo suite is valid upstream task data covering every behavioural type and
apps-touched bin, the recorded demo result folders are well-formed upstream results with real screenshots,
and ``load_demo`` loads them once, however often it runs."""

import io
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from PIL import Image

from harness.apps import normalise_app
from harness.bundle import read_results
from harness.task_types import TYPES, resolve_type
from harness.taskfile import load_tasks
from leaderboard.models import APPS_TOUCHED_BINS, Model, ReportedFigure, RubricItem, Run, Suite, Task, apps_touched_bin
from seeding import record_demo
from trajectories.models import Judgment, Step, Trajectory

SEEDING = Path(__file__).resolve().parent.parent / "seeding"
SUITE_FILE = SEEDING / "demo_suite.json"
RESULTS = SEEDING / "demo_results"
FLAT_KEYS = ["id", "app", "instruction", "apps_involved", "category", "difficulty", "grading"]
STEP_PNG = re.compile(r"^step_(\d+)_(\d{8}@\d{12})\.png$")


def demo_tasks():
    return json.loads(SUITE_FILE.read_text(encoding="utf-8"))


def result_dirs():
    return sorted(p for p in RESULTS.iterdir() if p.is_dir())


def traj_rows(task_dir):
    return [json.loads(line) for line in (task_dir / "traj.jsonl").read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- the demo suite


def test_demo_suite_is_the_upstream_flat_format():
    tasks = demo_tasks()
    assert len(tasks) == 12
    ids = [t["id"] for t in tasks]
    assert len(set(ids)) == len(ids), "task ids must be unique"
    for task in tasks:
        assert list(task) == FLAT_KEYS, task["id"]
        assert re.fullmatch(r"^[a-z_]+-[a-z0-9]+$", task["id"])
        assert task["difficulty"] in ("easy", "medium", "hard")
        grading = task["grading"]
        assert grading["type"] == "llm_judge"
        assert set(grading) <= {"type", "rubrics", "rubric_rule"}
        assert 3 <= len(grading["rubrics"]) <= 8, task["id"]
        for item in grading["rubrics"]:
            assert set(item) == {"criterion", "type", "weight"}
            assert item["type"] == "llm_judge" and item["criterion"].strip()
            assert 0 < item["weight"] <= 1
        assert abs(sum(item["weight"] for item in grading["rubrics"]) - 1) < 1e-6, task["id"]


def test_demo_suite_validates_against_the_upstream_schema(upstream_dir):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((upstream_dir / "schema.json").read_text(encoding="utf-8"))
    for task in demo_tasks():
        jsonschema.validate(task, schema)


def test_demo_suite_covers_every_type_and_apps_touched_bin():
    spec = load_tasks(SUITE_FILE)
    types = {resolve_type(t.id, t.category).type for t in spec.tasks}
    assert types == set(TYPES)
    bins = {apps_touched_bin(len(t.apps_involved)) for t in spec.tasks}
    assert bins == set(APPS_TOUCHED_BINS)


def test_demo_suite_names_only_known_apps():
    for task in demo_tasks():
        for name in task["apps_involved"]:
            info = normalise_app(name)
            assert info is not None and info.name == name, f"{task['id']}: {name!r} is not an upstream display name"


# ---------------------------------------------------------------- the recorded result folders


def test_recorded_tasks_are_demo_tasks_with_one_verdict_per_rubric_item():
    suite = {t["id"]: t for t in demo_tasks()}
    dirs = result_dirs()
    assert len(dirs) >= 3
    for task_dir in dirs:
        task = suite[task_dir.name]
        judged = json.loads((task_dir / "osworld_full_traj_result.json").read_text(encoding="utf-8"))
        assert judged["model"] == "scripted-demo-verdicts"
        assert "not an LLM judge" in judged["reasoning"]
        rubrics = task["grading"]["rubrics"]
        assert [r["criterion"] for r in judged["rubric_results"]] == [r["criterion"] for r in rubrics]
        assert [r["weight"] for r in judged["rubric_results"]] == [r["weight"] for r in rubrics]
        expected = round(100 * sum(r["weight"] for r in judged["rubric_results"] if r["success"]))
        assert judged["score"] == expected
        assert judged["passed"] == (expected == 100)
        bundle_text = (task_dir / "rubric_bundle.json").read_text(encoding="utf-8")
        bundle = json.loads(bundle_text)
        assert bundle_text == json.dumps(bundle, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
        assert bundle["grading_manifest"]["rubrics"] == rubrics
        assert (task_dir / "result.txt").read_text() == "1.0\n"


def test_demo_run_has_a_success_a_partial_and_a_give_up():
    outcomes = set()
    for task_dir in result_dirs():
        score = json.loads((task_dir / "osworld_full_traj_result.json").read_text(encoding="utf-8"))["score"]
        last = traj_rows(task_dir)[-1]["action"]
        outcomes.add("fail" if last == "FAIL" else "success" if score == 100 else "partial")
    assert outcomes == {"success", "partial", "fail"}


def test_every_traj_row_has_a_real_1280x800_screenshot():
    for task_dir in result_dirs():
        rows = traj_rows(task_dir)
        assert rows and rows[-1]["done"] is True and rows[-1]["action"] in ("DONE", "FAIL")
        for n, row in enumerate(rows, start=1):
            assert set(row) == {
                "step_num",
                "action_timestamp",
                "action",
                "response",
                "reward",
                "done",
                "info",
                "screenshot_file",
            }
            assert row["step_num"] == n
            assert "Scripted demo agent" in row["response"]
            assert row["action"] in ("DONE", "FAIL") or row["action"].startswith("pyautogui.")
            match = STEP_PNG.match(row["screenshot_file"])
            assert match and int(match[1]) == n and match[2] == row["action_timestamp"]
            data = (task_dir / row["screenshot_file"]).read_bytes()
            assert data.startswith(b"\x89PNG\r\n\x1a\n")
            image = Image.open(io.BytesIO(data))
            image.verify()
            assert image.size == (1280, 800)
        on_disk = {p.name for p in task_dir.glob("step_*.png")}
        assert on_disk == {row["screenshot_file"] for row in rows}, "no stray or missing screenshots"


def test_result_folders_are_read_by_the_importers_reader():
    tree = read_results(RESULTS)
    assert sorted(b.task_id for b in tree.bundles) == [d.name for d in result_dirs()]
    for bundle in tree.bundles:
        assert bundle.ended_by in ("done", "fail")
        assert all(step.screenshot is not None for step in bundle.steps)
        assert bundle.judges and bundle.judges[0].model == "scripted-demo-verdicts"


def test_committed_demo_results_stay_small():
    total = sum(p.stat().st_size for p in RESULTS.rglob("*") if p.is_file())
    assert total < 3 * 1024 * 1024


def test_record_plans_match_the_suite():
    record_demo.check_plans(record_demo.PLANS, record_demo.load_suite())
    broken = record_demo.DemoPlan(task_id="demo-d001", page="hoolimail.html", turns=record_demo.PLANS[0].turns)
    with pytest.raises(record_demo.RecordError, match="0 verdicts, expected 5"):
        record_demo.check_plans([broken], record_demo.load_suite())


@pytest.mark.browser
def test_rerecording_gives_identical_json(tmp_path):
    # A thread of its own: the browser tests' session-wide sync Playwright keeps an event loop on this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        folders = pool.submit(record_demo.record_all, tmp_path / "out").result()
    for folder in folders:
        committed = RESULTS / folder.name
        for name in ("traj.jsonl", "rubric_bundle.json", "osworld_full_traj_result.json", "result.txt"):
            assert (folder / name).read_bytes() == (committed / name).read_bytes(), f"{folder.name}/{name}"
        for png in folder.glob("step_*.png"):
            assert Image.open(png).size == (1280, 800)
    assert not list(tmp_path.glob(".record-*")), "the scratch folder is removed"


# ---------------------------------------------------------------- load_demo


def row_counts():
    return {
        model.__name__: model.objects.count()
        for model in (Suite, Task, RubricItem, Model, Run, ReportedFigure, Trajectory, Step, Judgment)
    }


@pytest.mark.django_db
def test_load_demo_twice_gives_the_same_rows(monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    first = row_counts()
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    assert row_counts() == first

    suite = Suite.objects.get(name="MyPCBench demo", version="demo-1")
    assert suite.is_demo and suite.tasks.count() == 12
    run = Run.objects.get(name="Scripted demo agent")
    assert run.suite == suite
    assert run.publication == Run.Publication.PUBLISHED
    assert run.model.provider == Model.Provider.SCRIPTED
    assert run.tool_surface == Run.ToolSurface.SCRIPTED
    assert "not by an LLM judge" in run.notes
    assert Run.objects.filter(provenance=Run.Provenance.REPORTED).exists()
    assert run.trajectories.count() == len(result_dirs())
    for trajectory in run.trajectories.all():
        steps = list(trajectory.steps.all())
        assert steps and all(step.screenshot for step in steps)
        assert trajectory.judgments.count() == trajectory.task.current_rubric().count()
    assert set(run.trajectories.values_list("ended_by", flat=True)) == {"done", "fail"}


@pytest.mark.django_db
def test_load_demo_creates_the_staff_account_once(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", "demo-admin")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "first-password")
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    user = get_user_model().objects.get(username="demo-admin")
    assert user.is_staff and user.is_superuser and user.check_password("first-password")

    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "another-password")
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    user.refresh_from_db()
    assert user.check_password("first-password"), "an existing account's password is never reset"
    assert get_user_model().objects.filter(username="demo-admin").count() == 1
