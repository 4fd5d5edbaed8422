"""OSWorld as a suite kind: import_tasks reads OSWorld's task definitions
(examples/<domain>/<uuid>.json + test_all.json), and a run on such a suite, scored by result.txt,
shows on the leaderboard, run, task, player and compare pages with no rubric anywhere. The real 369
Ubuntu definitions are read from ../shared/upstream/osworld/ when present; a small set is generated
here from the same format facts otherwise."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from harness.tasks import TaskFileError
from leaderboard.catalog.task_import import import_tasks
from leaderboard.models import Suite, Task
from leaderboard.scoring import outcomes
from tests.conftest import need_upstream
from tests.factories import png_bytes
from trajectories.recording.import_results import import_results

pytestmark = pytest.mark.django_db

IDS = {
    "chrome": ["bb5e4c0d-f964-439c-97b6-bdb9747de3f4", "030eeff7-b492-4218-b312-701ec99ee0cc"],
    "os": ["94d95f96-9699-4208-98ba-3c3119edf9c2"],
}


def write_definitions(root: Path, ids=IDS) -> Path:
    """OSWorld's evaluation_examples/ shape: test_all.json and one JSON per task."""
    for domain, task_ids in ids.items():
        for n, task_id in enumerate(task_ids):
            folder = root / "examples" / domain
            folder.mkdir(parents=True, exist_ok=True)
            task = {
                "id": task_id, "snapshot": domain, "instruction": f"Do {domain} thing {n}.", "source": "test",
                "config": [{"type": "launch", "parameters": {"command": [domain]}}],
                "related_apps": [domain], "evaluator": {"func": "exact_match", "expected": {"type": "rule"}},
            }  # fmt: skip
            (folder / f"{task_id}.json").write_text(json.dumps(task))
    (root / "test_all.json").write_text(json.dumps(ids))
    return root


def write_run(root: Path, scores: dict[str, str]) -> Path:
    """results/pyautogui/screenshot/<model>/<domain>/<id>/ with traj.jsonl, a screenshot and result.txt."""
    domains = {task_id: domain for domain, ids in IDS.items() for task_id in ids}
    for task_id, score in scores.items():
        task_dir = root / "pyautogui" / "screenshot" / "openai" / "gpt-4o-mini" / domains[task_id] / task_id
        task_dir.mkdir(parents=True)
        shot = "step_1_20250101@120000000000.png"
        (task_dir / shot).write_bytes(png_bytes())
        row = {"step_num": 1, "action_timestamp": "20250101@120000000000", "action": "DONE", "response": "ok",
               "reward": 0, "done": True, "info": {}, "screenshot_file": shot}  # fmt: skip
        (task_dir / "traj.jsonl").write_text(json.dumps(row) + "\n")
        (task_dir / "result.txt").write_text(score)
    return root


@pytest.mark.slow
def test_real_osworld_definitions_import_as_an_osworld_suite():
    real = need_upstream("osworld/test_all.json") / "osworld"
    summary = import_tasks(real)
    suite = summary.suite
    assert suite.kind == Suite.Kind.OSWORLD and suite.name == "OSWorld"
    assert suite.tasks.count() == 369
    assert set(suite.tasks.values_list("category", flat=True)) == set(json.loads((real / "test_all.json").read_text()))
    task = suite.tasks.get(task_id="bb5e4c0d-f964-439c-97b6-bdb9747de3f4")
    assert task.category == "chrome" and "evaluator" in task.extra and task.rubric_items.count() == 0
    assert import_tasks(real).wrote_anything is False  # re-import changes nothing


def test_definitions_become_tasks_with_domains_apps_and_evaluators(tmp_path):
    summary = import_tasks(write_definitions(tmp_path / "osworld"))
    assert summary.suite.kind == "osworld" and summary.tasks_total == 3
    task = Task.objects.get(task_id=IDS["os"][0])
    assert task.category == "os" and task.instruction == "Do os thing 0." and task.apps_involved == ["os"]
    assert task.extra["evaluator"]["func"] == "exact_match" and not task.rubric_items.exists()


def test_a_listed_task_without_its_file_is_refused_naming_it(tmp_path):
    root = write_definitions(tmp_path / "osworld")
    (root / "examples" / "os" / f"{IDS['os'][0]}.json").unlink()
    with pytest.raises(TaskFileError, match="listed in test_all.json but missing"):
        import_tasks(root)
    assert not Suite.objects.exists()


def test_a_run_is_scored_by_result_txt_over_the_suite_and_every_page_shows_it(tmp_path, client):
    call_command("import_tasks", str(write_definitions(tmp_path / "osworld")), verbosity=0)
    chrome_a, chrome_b = IDS["chrome"]
    results = write_run(tmp_path / "results", {chrome_a: "1.0\n", chrome_b: "0\n"})  # the os task never ran
    summary = import_results(results, "gpt-4o-mini OSWorld", publish=True)
    run = summary.run
    assert summary.suite.kind == "osworld" and run.model.name == "openai/gpt-4o-mini"

    outcome = outcomes.run_outcomes([run])[run.pk]
    assert outcome.n_tasks == 3  # the denominator is the suite, not the folders found
    assert outcome.mean_score() == pytest.approx(1 / 3)
    chrome = outcome.subset([t.category == "chrome" for t in Task.objects.order_by("position")])
    assert chrome.mean_score() == pytest.approx(0.5)  # per-domain breakdown

    traj = run.trajectories.get(task__task_id=chrome_a)
    second = import_results(
        write_run(tmp_path / "again", {chrome_a: "0.0\n"}), "rerun", model_name="UI-TARS", publish=True
    )
    other = second.run.trajectories.get()
    for url in (
        reverse("leaderboard:board") + f"?suite={summary.suite.slug}",
        reverse("leaderboard:run_detail", args=[run.slug]),
        reverse("leaderboard:suite_detail", args=[summary.suite.slug]),
        reverse("leaderboard:task_detail", args=[summary.suite.slug, chrome_a]),
        reverse("trajectories:trajectory_detail", args=[traj.pk]),
        reverse("trajectories:trajectory_player", args=[traj.pk]),
        reverse("trajectories:trajectory_compare") + f"?a={traj.pk}&b={other.pk}",
        reverse("leaderboard:analysis_heatmaps") + f"?suite={summary.suite.slug}",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
    board = client.get(reverse("leaderboard:board") + f"?suite={summary.suite.slug}").content.decode()
    assert "gpt-4o-mini OSWorld" in board
    maps = client.get("/api/analysis/heatmaps", {"suite": summary.suite.slug}).json()
    (domain_map,) = [m for m in maps["maps"] if m["title"].endswith("by OSWorld domain")]
    assert [c["label"] for c in domain_map["columns"]] == ["chrome", "os"] and domain_map["dimension"] == "domain"
    row = domain_map["rows"][[r["label"] for r in domain_map["rows"]].index("gpt-4o-mini OSWorld")]
    assert [round(c["value"]) for c in row["cells"]] == [50, 0]  # chrome: one of two; os: never ran


def test_computer_13_dict_actions_import_as_clicks_typing_and_keys_not_other(tmp_path):
    """OSWorld's computer_13 action space records dicts ({"action_type": ..., "parameters": ...}); each
    step is stored as the action it is and counted in its kind."""
    call_command("import_tasks", str(write_definitions(tmp_path / "osworld")), verbosity=0)
    chrome_a = IDS["chrome"][0]
    results = write_run(tmp_path / "results", {chrome_a: "1.0\n"})
    task_dir = next(results.rglob(chrome_a))
    actions = [
        {"action_type": "CLICK", "parameters": {"button": "left", "x": 412, "y": 88, "num_clicks": 1}},
        {"action_type": "TYPING", "parameters": {"text": "dundermifflin.com"}},
        {"action_type": "HOTKEY", "parameters": {"keys": ["ctrl", "enter"]}},
        {"action_type": "SCROLL", "parameters": {"dx": 0, "dy": -3}},
        "DONE",
    ]
    rows = []
    for n, action in enumerate(actions, start=1):
        shot = f"step_{n}_20250101@12000{n}000000.png"
        (task_dir / shot).write_bytes(png_bytes())
        stamp = f"20250101@12000{n}000000"
        rows.append({"step_num": n, "action_timestamp": stamp, "action": action, "response": "", "reward": 0,
                     "done": action == "DONE", "info": {}, "screenshot_file": shot})  # fmt: skip
    (task_dir / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = import_results(results, "computer_13 run", layout="osworld").run
    trajectory = run.trajectories.get()
    stored = [s.action for s in trajectory.steps.order_by("index")]
    assert stored == [
        {"type": "click", "x": 412, "y": 88},
        {"type": "type", "text": "dundermifflin.com"},
        {"type": "hotkey", "keys": ["ctrl", "enter"]},
        {"type": "scroll", "dy": -3},
        {"type": "done"},
    ]
    assert trajectory.action_counts == {"click": 1, "type": 1, "key": 1, "scroll": 1}


def test_a_domain_heatmap_cell_opens_only_that_domains_trajectories(tmp_path, client):
    call_command("import_tasks", str(write_definitions(tmp_path / "osworld")), verbosity=0)
    chrome_a, chrome_b = IDS["chrome"]
    (os_task,) = IDS["os"]
    summary = import_results(write_run(tmp_path / "results", {chrome_a: "1\n", chrome_b: "0\n", os_task: "1\n"}),
                             "three domains", publish=True)  # fmt: skip
    maps = client.get("/api/analysis/heatmaps", {"suite": summary.suite.slug}).json()
    (domain_map,) = [m for m in maps["maps"] if m["dimension"] == "domain"]
    (row,) = domain_map["rows"]
    by_column = dict(zip([c["label"] for c in domain_map["columns"]], row["cells"], strict=True))
    listed = {}
    for domain, cell in by_column.items():
        page = client.get(cell["url"])
        assert page.status_code == 200
        listed[domain] = sorted(t.task.task_id for t in page.context["page"].object_list)
    assert listed == {"chrome": sorted([chrome_a, chrome_b]), "os": [os_task]}
