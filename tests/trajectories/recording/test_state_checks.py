"""State checks end to end: a rubric item's command run on the fake guest when the trajectory ends
(passed, failed, a command error that is "error" and never a failure, not run), written to
state_checks.json, imported with the run and shown beside the judge's verdict in the player."""

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser

from harness.agents import ScriptedAgent
from harness.agents.scripted import Plan
from harness.control import ControlError, ExecResult
from harness.judge.state_checks import output_matches, run_state_checks
from harness.results import BundleError, read_task_dir
from harness.run import LoopConfig, run_suite
from harness.tasks import TaskFileError, load_tasks
from leaderboard.catalog.task_import import import_tasks
from leaderboard.models import JudgeConfig, RubricItem
from trajectories.models import Judgment, StateCheckResult, Trajectory
from trajectories.player import payloads
from trajectories.recording import selectors
from trajectories.recording.import_results import import_results

DEMO_SUITE = Path(__file__).resolve().parents[3] / "seeding" / "demo_suite.json"
REPORT = "cat /home/user/report.txt"
COUNT = ["wc", "-l", "/home/user/list.csv"]
BROKEN = "cat /home/user/missing.txt"
UNTOUCHED = "grep -c Dinoco /home/user/notes.txt"


def task_file(tmp_path) -> Path:
    """The first demo task with state checks on four of its five rubric items."""
    task = json.loads(DEMO_SUITE.read_text())[0]
    rubrics = task["grading"]["rubrics"]
    rubrics[0]["state_check"] = {"command": REPORT, "expected": "DN-83823", "match": "contains"}
    rubrics[1]["state_check"] = {"command": COUNT, "expected": r"^3 ", "match": "regex"}
    rubrics[2]["state_check"] = {"command": BROKEN, "expected": "DN1562"}
    rubrics[3]["state_check"] = {"command": UNTOUCHED, "expected": "1"}
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([task]))
    return path


def run_with_checks(tmp_path, env) -> Path:
    env.guest.script(REPORT, output="Booking DN-83823 for MBJ\n")
    env.guest.script(COUNT, output="7 /home/user/list.csv\n")  # the regex wants 3 lines: failed
    env.guest.script(BROKEN, returncode=1, error="cat: /home/user/missing.txt: No such file or directory")
    env.guest.script(UNTOUCHED, output="1\n")
    tasks = load_tasks(task_file(tmp_path)).tasks
    plan = {"turns": [{"response": "Look.", "actions": ["pyautogui.click(10, 10)"]}], "final_answer": "DN-83823"}
    agent = ScriptedAgent({"*": Plan.from_dict(plan, "plan")})
    out = tmp_path / "results"
    run_suite(tasks, env, agent, out, LoopConfig(sleep_after=0.0), progress=False)
    return out


def test_checks_run_on_the_guest_when_the_trajectory_ends(tmp_path, env):
    out = run_with_checks(tmp_path, env)
    sent = [c["command"] for c in env.guest.commands]
    # after the agent's own actions, in rubric order; a string runs through the shell, an argv does not
    assert sent[-4:] == [REPORT, COUNT, BROKEN, UNTOUCHED]
    assert [c["shell"] for c in env.guest.commands[-4:]] == [True, False, True, True]

    data = json.loads((out / "demo-d001" / "state_checks.json").read_text())
    by_id = {row["rubric_id"]: row for row in data["checks"]}
    assert {k: v["status"] for k, v in by_id.items()} == {"R1": "passed", "R2": "failed", "R3": "error", "R4": "passed"}
    assert "No such file" in by_id["R3"]["error"] and by_id["R3"]["returncode"] == 1
    assert by_id["R2"]["output"].startswith("7 ")
    bundle = read_task_dir(out / "demo-d001")
    assert [row["status"] for row in bundle.state_checks] == ["passed", "failed", "error", "passed"]


@pytest.mark.django_db
def test_imported_checks_show_beside_the_verdict(tmp_path, env, client):
    out = run_with_checks(tmp_path, env)
    # R4's result is lost (as if the file were written by hand without it): the page says "not run"
    path = out / "demo-d001" / "state_checks.json"
    data = json.loads(path.read_text())
    data["checks"] = [row for row in data["checks"] if row["rubric_id"] != "R4"]
    path.write_text(json.dumps(data))

    import_tasks(task_file(tmp_path), suite_name="MyPCBench demo", suite_version="checks")
    summary = import_results(out, "Run with checks", model_name="scripted", publish=True)
    trajectory = Trajectory.objects.get(run=summary.run)
    stored = {r.rubric_item.rubric_id: r for r in StateCheckResult.objects.filter(trajectory=trajectory)}
    assert {k: r.status for k, r in stored.items()} == {"R1": "passed", "R2": "failed", "R3": "error"}
    assert stored["R1"].command == REPORT and stored["R2"].command == COUNT and stored["R2"].match == "regex"

    judge = JudgeConfig.objects.create(name="ours: test", origin="ours", provider="google", model="m")
    for item in RubricItem.objects.filter(task=trajectory.task, is_current=True):
        verdict = "success" if item.position in (1, 4) else "failure"
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=judge, verdict=verdict)

    data = payloads.player_payload(selectors.trajectory_detail(AnonymousUser(), trajectory.pk))
    shown = {it["rubric_id"]: (it["verdict"], it["state_check"]) for it in data["judges"][0]["items"]}
    assert shown["R1"][1]["label"] == "passed"
    assert shown["R2"][1]["status"] == "failed" and "7 /home/user/list.csv" in shown["R2"][1]["detail"]
    assert shown["R3"][1]["status"] == "error" and "No such file" in shown["R3"][1]["detail"]
    assert shown["R4"][1]["label"] == "not run"
    assert shown["R5"][1] is None  # no state check on this item

    # the player page carries the payload the script renders as "state check: ..."
    response = client.get(f"/trajectories/{trajectory.pk}/play/")
    assert response.status_code == 200 and b"reliability.css" in response.content


def test_a_command_the_guest_cannot_run_is_an_error_not_a_failure(env):
    task = load_tasks(DEMO_SUITE).tasks[0]
    check = {"command": "cat /x", "expected": "x", "match": "exact"}
    item = task.rubric[0].__class__(**{**task.rubric[0].__dict__, "state_check": check})
    env.guest.fail_next("execute", "error")  # the Control API answers HTTP 500
    (row,) = run_state_checks(env.execute, [item])
    assert row["status"] == "error" and "HTTP 500" in row["error"]

    def unreachable(command, shell):
        raise ControlError("http://127.0.0.1:9/execute", "cannot connect")

    (row,) = run_state_checks(unreachable, [item])
    assert row["status"] == "error" and "guest unreachable" in row["error"]

    def timed_out(command, shell):
        return ExecResult(returncode=-1, error="no answer within 120 s", timed_out=True)

    (row,) = run_state_checks(timed_out, [item])
    assert row["status"] == "error" and "no answer" in row["error"]


def test_an_errored_trajectory_leaves_its_checks_not_run(tmp_path, env):
    from harness.judge.state_checks import record_state_checks

    tasks = load_tasks(task_file(tmp_path)).tasks
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "state_checks.json").write_text('{"checks": []}')  # stale, from an earlier try
    assert record_state_checks(tasks[0], env.execute, folder, finished=False) == []
    assert not (folder / "state_checks.json").exists()
    assert env.guest.commands == []


@pytest.mark.parametrize(
    "output, expected, match, passed",
    [
        ("DN-83823\n", "DN-83823", "exact", True),
        ("DN-83823 and more", "DN-83823", "exact", False),
        ("code DN-83823.", "DN-83823", "contains", True),
        ("3 lines", r"^\d lines$", "regex", True),
        ("13 lines", r"^\d lines$", "regex", False),
    ],
)
def test_output_match_rules(output, expected, match, passed):
    assert output_matches(output, expected, match) is passed


def test_bad_state_checks_in_a_task_file_name_the_field(tmp_path):
    task = json.loads(DEMO_SUITE.read_text())[0]
    task["grading"]["rubrics"][1]["state_check"] = {"command": "x", "expected": "(", "match": "regex"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([task]))
    with pytest.raises(TaskFileError, match=r"rubrics\[1\]\.state_check\.expected: not a valid regex"):
        load_tasks(path)
    task["grading"]["rubrics"][1]["state_check"] = {"command": "x", "expected": "1", "match": "fuzzy"}
    path.write_text(json.dumps([task]))
    with pytest.raises(TaskFileError, match=r"state_check\.match .*\"fuzzy\" is not allowed"):
        load_tasks(path)


def test_items_without_checks_keep_their_upstream_hashes(tmp_path):
    plain = load_tasks(DEMO_SUITE).tasks[0]
    checked = load_tasks(task_file(tmp_path)).tasks[0]
    assert plain.rubric[4].content_hash == checked.rubric[4].content_hash
    assert plain.rubric[0].content_hash != checked.rubric[0].content_hash


def test_a_malformed_state_checks_file_is_a_clear_error(tmp_path, env):
    out = run_with_checks(tmp_path, env)
    (out / "demo-d001" / "state_checks.json").write_text('{"checks": [{"rubric_id": "R1", "status": "ok"}]}')
    with pytest.raises(BundleError, match=r"checks\[0\]\.status.*one of passed, failed, error"):
        read_task_dir(out / "demo-d001")


@pytest.mark.django_db
def test_runs_launched_from_the_site_store_their_checks(monkeypatch, settings):
    from tests.evaluation_data import PLAN, make_eval_suite
    from trajectories.evaluations import lifecycle
    from trajectories.tasks import run_trajectory

    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_JUDGE_ON_FINISH = False
    queued = []
    monkeypatch.setattr(run_trajectory, "apply_async", lambda args, task_id: queued.append(args[0]))
    suite, tasks, model = make_eval_suite(1)
    first, second = RubricItem.objects.filter(task=tasks[0], is_current=True).order_by("position")[:2]
    # The fake guest runs no shell: it prints nothing and exits 0, so "" passes and "done" fails.
    RubricItem.objects.filter(pk=first.pk).update(state_check={"command": "test -f /tmp/r", "expected": ""})
    RubricItem.objects.filter(pk=second.pk).update(state_check={"command": "cat /tmp/r", "expected": "done"})
    spec = lifecycle.LaunchSpec(suite=suite, model=model, agent_type="scripted", plan=PLAN, tasks=[tasks[0]])
    lifecycle.launch_run(spec, None)
    assert run_trajectory.run(queued[0]) == "done"
    stored = StateCheckResult.objects.filter(trajectory_id=queued[0]).order_by("rubric_item__position")
    assert [(r.rubric_item_id, r.status) for r in stored] == [(first.pk, "passed"), (second.pk, "failed")]
