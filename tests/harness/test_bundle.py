"""Reading result folders into trajectory bundles, and the errors that name the file and line."""

import json
from datetime import datetime

import pytest

from harness.results import BundleError, cited_steps_from_text, read_results, read_task_dir
from tests.factories import JUDGE_MODEL, RUBRIC, png_bytes, write_legacy_task_dir, write_task_dir


def test_upstream_task_dir(tmp_path):
    task_dir = write_task_dir(tmp_path, "retrieval-f016", full_judge=[True, False, True], task_score=70)
    bundle = read_task_dir(task_dir)

    assert bundle.task_id == "retrieval-f016"
    assert bundle.layout == "mypcbench"
    assert [s.index for s in bundle.steps] == [1, 2, 3]
    assert [s.turn for s in bundle.steps] == [1, 2, 3]
    assert bundle.steps[0].action == {"type": "click", "x": 640, "y": 400}
    assert bundle.steps[1].action == {"type": "type", "text": "invoice"}
    assert bundle.steps[2].tool == "control" and bundle.steps[2].done
    assert bundle.steps[0].timestamp == datetime(2026, 4, 11, 12, 34, 1, 0)
    assert all(s.screenshot and s.screenshot.is_file() for s in bundle.steps)
    assert bundle.ended_by == "done"
    assert bundle.final_answer == "The invoice total is $1,204.50."
    assert bundle.completed is True
    assert bundle.usage == {"input_tokens": 1200, "output_tokens": 300}
    assert bundle.messages_path == task_dir / "messages.json"
    assert [e.criterion for e in bundle.rubric] == [r["criterion"] for r in RUBRIC]
    full, score = bundle.judges
    assert full.model == JUDGE_MODEL
    assert [v.verdict for v in full.verdicts] == ["success", "failure", "success"]
    assert score.score == pytest.approx(0.70) and score.model == JUDGE_MODEL


def test_several_screenshots_share_a_turn_and_rows_pick_their_own(tmp_path):
    actions = [(1, "pyautogui.click(1, 1)"), (1, "pyautogui.typewrite('a')"), (2, "DONE")]
    bundle = read_task_dir(write_task_dir(tmp_path, "t-1", actions=actions))
    assert [s.turn for s in bundle.steps] == [1, 1, 2]
    assert bundle.n_turns == 2
    assert len({s.screenshot for s in bundle.steps}) == 3


def test_special_rows(tmp_path):
    actions = [(1, "TOOL_CALL"), (2, "PREDICT_CRASH")]
    task_dir = write_task_dir(tmp_path, "t-1", actions=actions)
    lines = (task_dir / "traj.jsonl").read_text().splitlines()
    crash = json.loads(lines[1])
    crash["info"] = {"error": "RateLimitError: 429"}
    (task_dir / "traj.jsonl").write_text(lines[0] + "\n" + json.dumps(crash) + "\n")
    bundle = read_task_dir(task_dir)
    assert bundle.steps[0].tool == "bash" and bundle.steps[0].action == {"type": "bash"}
    assert bundle.ended_by == "error"
    assert "RateLimitError: 429" in bundle.error


def test_fail_with_infeasible_and_judge_error_list(tmp_path):
    task_dir = write_task_dir(
        tmp_path,
        "t-1",
        actions=[(1, "FAIL")],
        final_text="[INFEASIBLE] there is no such account",
        task_score=["python3 judge.py", "1", "", "google.genai.errors.ClientError: 403 PERMISSION_DENIED"],
    )
    bundle = read_task_dir(task_dir)
    assert bundle.ended_by == "infeasible"
    (judge,) = bundle.judges
    assert judge.score is None
    assert "403 PERMISSION_DENIED" in judge.error


def test_parallel_runner_nesting_is_walked(tmp_path):
    write_task_dir(tmp_path / "vm0", "t-1")
    write_task_dir(tmp_path / "vm1", "t-2")
    (tmp_path / "vm0" / "_tasks").mkdir()
    (tmp_path / "summary.json").write_text("{}")
    tree = read_results(tmp_path)
    assert sorted(b.task_id for b in tree.bundles) == ["t-1", "t-2"]


def test_same_task_twice_names_both_folders(tmp_path):
    write_task_dir(tmp_path / "vm0", "t-1")
    write_task_dir(tmp_path / "vm1", "t-1")
    with pytest.raises(BundleError) as caught:
        read_results(tmp_path)
    assert "vm0/t-1" in str(caught.value) and "vm1/t-1" in str(caught.value)
    assert "--attempts-from-folders" in str(caught.value)  # the flag that settles it


def test_osworld_tree(tmp_path):
    parent = tmp_path / "results" / "pyautogui" / "screenshot" / "claude-opus-4-6" / "chrome"
    task_dir = write_task_dir(parent, "t-1", rubric=None, with_response=False)
    (task_dir / "result.txt").write_text("0.5\n")
    with (task_dir / "traj.jsonl").open("a") as traj:
        traj.write(json.dumps({"Error": "Time limit exceeded in chrome/t-1"}) + "\n")
    (tree_bundle,) = read_results(tmp_path / "results").bundles
    assert tree_bundle.layout == "osworld"
    assert tree_bundle.model == "claude-opus-4-6"
    assert len(tree_bundle.steps) == 3 and tree_bundle.steps[0].model_text == ""
    assert tree_bundle.judges[0].score == 0.5
    assert "Time limit exceeded" in tree_bundle.error


def test_legacy_context_layout(tmp_path):
    bundle = read_task_dir(write_legacy_task_dir(tmp_path, "t-1", n_steps=3))
    assert bundle.layout == "legacy-context"
    assert [s.turn for s in bundle.steps] == [1, 2, 3]
    assert bundle.steps[0].action == {"type": "click", "x": 10, "y": 20}
    assert bundle.steps[0].model_text == "response 1"
    assert all(s.screenshot for s in bundle.steps)
    assert bundle.ended_by == "done"


def test_line_that_is_not_json_names_file_and_line(tmp_path):
    task_dir = write_task_dir(tmp_path, "t-1")
    traj = task_dir / "traj.jsonl"
    lines = traj.read_text().splitlines()
    lines[1] = lines[1][:-5]
    traj.write_text("\n".join(lines) + "\n")
    with pytest.raises(BundleError) as caught:
        read_task_dir(task_dir)
    assert str(traj) in str(caught.value)
    assert caught.value.line == 2 and "line 2" in str(caught.value)


def test_missing_screenshot_names_task_dir_line_and_file(tmp_path):
    task_dir = write_task_dir(tmp_path, "t-1")
    victim = sorted(task_dir.glob("step_2_*.png"))[0]
    victim.unlink()
    bundle = read_task_dir(task_dir)  # a gap, not a refusal: the importer decides
    (gap,) = bundle.gaps
    assert str(task_dir) in gap.where and "line 2" in gap.where and victim.name in gap.problem
    assert bundle.steps[1].screenshot is None and "missing" in bundle.steps[1].screenshot_gap


def test_screenshot_outside_task_dir_is_refused(tmp_path):
    task_dir = write_task_dir(tmp_path, "t-1", actions=[(1, "DONE")])
    (tmp_path / "secret.png").write_bytes(png_bytes())
    row = json.loads((task_dir / "traj.jsonl").read_text())
    row["screenshot_file"] = "../secret.png"
    (task_dir / "traj.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(BundleError, match="outside the task folder"):
        read_task_dir(task_dir)


def test_bad_step_num_and_rubric_field_named(tmp_path):
    task_dir = write_task_dir(tmp_path, "t-1", actions=[(1, "DONE")])
    row = json.loads((task_dir / "traj.jsonl").read_text())
    (task_dir / "traj.jsonl").write_text(json.dumps({**row, "step_num": "one"}) + "\n")
    with pytest.raises(BundleError, match=r"line 1: step_num"):
        read_task_dir(task_dir)

    other = write_task_dir(tmp_path, "t-2", rubric=[{"weight": 1}])
    with pytest.raises(BundleError, match=r"rubric_bundle.json: grading_manifest.rubrics\[0\].criterion"):
        read_task_dir(other)


def test_empty_folder_is_refused(tmp_path):
    with pytest.raises(BundleError, match="contains no task folders"):
        read_results(tmp_path)


def test_errored_marker_and_incomplete_detail(tmp_path):
    task_dir = write_task_dir(tmp_path, "t-1", actions=[(1, "pyautogui.click(1, 1)")])
    (task_dir / "result.txt").write_text("0.0\n")
    bundle = read_task_dir(task_dir)
    assert bundle.completed is False and bundle.ended_by == "error"
    (task_dir / "incomplete.txt").write_text("errored: TimeoutError: VM did not answer\n")
    assert read_task_dir(task_dir).error == "errored: TimeoutError: VM did not answer"


def test_turn_budget_reached(tmp_path):
    actions = [(turn, "pyautogui.click(1, 1)") for turn in range(1, 6)]
    bundle = read_task_dir(write_task_dir(tmp_path, "t-1", actions=actions), turn_budget=5)
    assert bundle.ended_by == "budget"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Seen in step 2.", [2]),
        ("Steps 4, 7 and 9 show it; step 4 again.", [4, 7, 9]),
        ("In steps 5-8 the agent scrolls", [5, 6, 7, 8]),
        ("STEP #12 is the last", [12]),
        ("The agent took 3 steps.", []),
        ("", []),
    ],
)
def test_cited_steps_from_judge_reasoning(text, expected):
    assert cited_steps_from_text(text) == expected
