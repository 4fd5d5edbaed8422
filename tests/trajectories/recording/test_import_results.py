"""import_results: result folders become a run with trajectories, steps, screenshots and the
source's own judgments; bad input is refused with a precise message and writes nothing."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from leaderboard.models import JudgeConfig, Model, RubricItem, Run
from tests.factories import JUDGE_MODEL, RUBRIC, make_suite, png_bytes, write_legacy_task_dir, write_task_dir
from trajectories.models import Judgment, Step, Trajectory
from trajectories.recording.import_notes import ImportResultsError
from trajectories.recording.import_results import import_results
from trajectories.recording.ingest import IngestError, inspect_screenshot

pytestmark = pytest.mark.django_db


def media_files(media_root: Path) -> list[Path]:
    return [p for p in media_root.rglob("*") if p.is_file()]


def assert_nothing_written(media_root):
    assert Run.objects.count() == 0
    assert Trajectory.objects.count() == 0
    assert Step.objects.count() == 0
    assert Judgment.objects.count() == 0
    assert media_files(media_root) == []


def test_upstream_folder_with_full_trajectory_judge(tmp_path, isolated_media, django_capture_on_commit_callbacks):
    make_suite(["retrieval-f016", "aggregation-f002"])
    results = tmp_path / "results"
    write_task_dir(results, "retrieval-f016", full_judge=[True, False, True], task_score=70)
    write_task_dir(results, "aggregation-f002", task_score=100)

    with django_capture_on_commit_callbacks() as callbacks:
        summary = import_results(results, "Opus 4.6 upstream", model_name="Claude Opus 4.6")

    run = summary.run
    assert run.provenance == Run.Provenance.IMPORTED and run.status == Run.Status.FINISHED
    assert run.publication == Run.Publication.DRAFT
    assert run.source == "results" and len(run.source_hash) == 64  # the folder name, never a server path
    assert run.model.name == "Claude Opus 4.6" and run.model.provider == Model.Provider.ANTHROPIC
    assert len(callbacks) == 2  # derivatives requested once per committed trajectory

    traj = Trajectory.objects.get(run=run, task__task_id="retrieval-f016")
    assert traj.ended_by == "done" and traj.n_steps == 3 and traj.n_turns == 3
    assert traj.final_answer == "The invoice total is $1,204.50."
    assert traj.input_tokens == 1200 and traj.output_tokens == 300
    steps = list(traj.steps.order_by("index"))
    assert [s.action["type"] for s in steps] == ["click", "type", "done"]
    # screenshots stored byte for byte, with hash and size recorded
    original = sorted((results / "retrieval-f016").glob("step_1_*.png"))[0].read_bytes()
    assert steps[0].screenshot.read() == original
    assert steps[0].screenshot_width == 64 and steps[0].screenshot_height == 40
    assert len(steps[0].screenshot_sha256) == 64

    judgments = list(traj.judgments.order_by("rubric_item__position"))
    assert [j.verdict for j in judgments] == ["success", "failure", "success"]
    assert [j.cited_steps for j in judgments] == [[2], [], [2]]  # "Seen in step 2." in the reasoning
    assert all(j.rubric_item.version == 1 and j.rubric_item.is_current for j in judgments)
    judge = judgments[0].judge
    assert judge.origin == JudgeConfig.Origin.IMPORTED
    assert judge.name == f"upstream full-trajectory judge ({JUDGE_MODEL})"
    assert traj.imported_score == pytest.approx(0.7) and traj.imported_score_judge == judge

    score_only = Trajectory.objects.get(run=run, task__task_id="aggregation-f002")
    assert score_only.judgments.count() == 0
    assert score_only.imported_score == 1.0
    assert score_only.imported_score_judge.origin == JudgeConfig.Origin.IMPORTED
    assert summary.report.screenshots == 6 and summary.report.judgments == 3


def test_a_rubric_that_matches_no_stored_version_is_kept_as_history(tmp_path):
    make_suite(["retrieval-f016"])
    older = [dict(item, criterion=item["criterion"] + " (old wording)") for item in RUBRIC]
    write_task_dir(tmp_path / "r", "retrieval-f016", rubric=older, full_judge=[True, True, False])

    summary = import_results(tmp_path / "r", "old rubric run")

    items = RubricItem.objects.filter(task__task_id="retrieval-f016", version=2)
    assert items.count() == 3 and not items.filter(is_current=True).exists()
    assert RubricItem.objects.filter(version=1, is_current=True).count() == 3  # current rubric untouched
    judged = {j.rubric_item_id for j in Judgment.objects.all()}
    assert judged == set(items.values_list("id", flat=True))
    assert any("historical version 2" in line for line in summary.report.new_rubric_versions)


def test_judge_errors_are_reported_not_failures(tmp_path):
    make_suite(["retrieval-f016"])
    error = ["python3 judge.py", "1", "", "RuntimeError: GEMINI_API_KEY missing"]
    write_task_dir(tmp_path / "r", "retrieval-f016", task_score=error)
    summary = import_results(tmp_path / "r", "run")
    traj = Trajectory.objects.get()
    assert traj.imported_score is None and Judgment.objects.count() == 0
    assert "GEMINI_API_KEY missing" in summary.report.judge_errors[0]


def test_vm_nesting_osworld_and_legacy_layouts(tmp_path):
    make_suite(["t-1", "t-2", "t-3"])
    write_task_dir(tmp_path / "par" / "vm0", "t-1")
    write_task_dir(tmp_path / "par" / "vm1", "t-2")
    summary = import_results(tmp_path / "par", "parallel")
    assert summary.report.trajectories == 2

    osworld = tmp_path / "results" / "pyautogui" / "screenshot" / "qwen3-vl" / "multi_apps"
    write_task_dir(osworld, "t-3", rubric=None, with_response=False)
    summary = import_results(tmp_path / "results", "osworld run")
    assert summary.model.name == "qwen3-vl"
    traj = summary.run.trajectories.get()
    assert traj.source_layout == "osworld" and traj.n_steps == 3

    write_legacy_task_dir(tmp_path / "legacy", "t-1", n_steps=2)
    summary = import_results(tmp_path / "legacy", "legacy run", publish=True)
    traj = summary.run.trajectories.get()
    assert traj.source_layout == "legacy-context" and traj.steps.count() == 2
    assert summary.model.name == "unknown model"
    assert summary.run.publication == Run.Publication.PUBLISHED


def test_command_prints_a_summary(tmp_path, capsys):
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "r", "retrieval-f016", full_judge=[True, True, True])
    call_command("import_results", str(tmp_path / "r"), "--run", "cli run", "--suite", "mypcbench-eval-round0")
    out = capsys.readouterr().out
    assert "trajectories: 1" in out and "steps: 3" in out and "screenshots: 3" in out
    assert "judgments: 3" in out and JUDGE_MODEL in out


# ------------------------------------------------------------------ refusals write nothing


def test_line_that_is_not_json(tmp_path, isolated_media):
    make_suite(["t-1", "t-2"])
    write_task_dir(tmp_path / "r", "t-1")
    traj = write_task_dir(tmp_path / "r", "t-2") / "traj.jsonl"
    traj.write_text(traj.read_text() + "{not json\n")
    with pytest.raises(ImportResultsError) as caught:
        import_results(tmp_path / "r", "run")
    assert "r/t-2/traj.jsonl, line 4: not valid JSON" in str(caught.value)
    assert str(tmp_path) not in str(caught.value)  # the folder's name, never the server's path
    assert_nothing_written(isolated_media)


def test_unknown_task_id(tmp_path, isolated_media):
    make_suite(["t-1"])
    write_task_dir(tmp_path / "r", "t-1")
    folder = write_task_dir(tmp_path / "r", "no-such-task")
    with pytest.raises(ImportResultsError) as caught:
        import_results(tmp_path / "r", "run")
    message = str(caught.value)
    assert folder.name in message and "'no-such-task'" in message and "mypcbench-eval-round0" in message
    assert_nothing_written(isolated_media)


def test_screenshot_that_is_not_an_image(tmp_path, isolated_media):
    make_suite(["t-1", "t-2"])
    write_task_dir(tmp_path / "r", "t-1")  # imported first: its stored files must be removed again
    task_dir = write_task_dir(tmp_path / "r", "t-2")
    fake = sorted(task_dir.glob("step_3_*.png"))[0]
    fake.write_bytes(b"<html>not a png</html>")
    with pytest.raises(ImportResultsError) as caught:
        import_results(tmp_path / "r", "run")
    assert f"r/t-2/{fake.name}" in str(caught.value) and "not an image" in str(caught.value)
    assert_nothing_written(isolated_media)
    assert JudgeConfig.objects.count() == 0


def test_referenced_step_file_missing(tmp_path, isolated_media):
    make_suite(["t-1"])
    task_dir = write_task_dir(tmp_path / "r", "t-1")
    missing = sorted(task_dir.glob("step_2_*.png"))[0]
    missing.unlink()
    with pytest.raises(ImportResultsError) as caught:
        import_results(tmp_path / "r", "run")
    message = str(caught.value)
    assert "line 2" in message and "missing screenshot (1)" in message and missing.name in message
    assert f"r/{task_dir.name}/traj.jsonl" in message and "--allow-missing-screenshots" in message
    assert_nothing_written(isolated_media)


def test_duplicate_task_dirs(tmp_path, isolated_media):
    make_suite(["t-1"])
    write_task_dir(tmp_path / "r" / "vm0", "t-1")
    write_task_dir(tmp_path / "r" / "vm1", "t-1")
    with pytest.raises(ImportResultsError) as caught:
        import_results(tmp_path / "r", "run")
    assert "vm0/t-1" in str(caught.value) and "vm1/t-1" in str(caught.value)
    assert_nothing_written(isolated_media)


def test_run_name_taken(tmp_path, isolated_media):
    make_suite(["t-1"])
    write_task_dir(tmp_path / "r", "t-1")
    import_results(tmp_path / "r", "taken")
    before_steps, before_files = Step.objects.count(), len(media_files(isolated_media))
    with pytest.raises(ImportResultsError, match="--run: a run named 'taken' already exists"):
        import_results(tmp_path / "r", "taken")
    assert Run.objects.count() == 1
    assert Step.objects.count() == before_steps and len(media_files(isolated_media)) == before_files


def test_suite_must_be_chosen_when_ambiguous(tmp_path, isolated_media):
    make_suite(["t-1"], slug="suite-a")
    make_suite(["t-1"], slug="suite-b")
    make_suite(["t-1"], slug="demo", is_demo=True)
    write_task_dir(tmp_path / "r", "t-1")
    with pytest.raises(ImportResultsError, match=r"3 suites hold all 1 task ids \(demo, suite-a, suite-b\)"):
        import_results(tmp_path / "r", "run")
    with pytest.raises(ImportResultsError, match="no suite 'nope'"):
        import_results(tmp_path / "r", "run", suite_slug="nope")
    assert_nothing_written(isolated_media)
    assert import_results(tmp_path / "r", "run", suite_slug="suite-b").suite.slug == "suite-b"


def test_command_reports_errors_as_command_errors(tmp_path):
    make_suite(["t-1"])
    with pytest.raises(CommandError, match="does not exist"):
        call_command("import_results", str(tmp_path / "nowhere"), "--run", "x")


# ------------------------------------------------------------------ screenshot validation


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_accepted_screenshot_formats(fmt):
    info = inspect_screenshot(png_bytes(fmt=fmt), "shot")
    assert (info.width, info.height, info.format) == (64, 40, fmt)


def test_refused_screenshots():
    with pytest.raises(IngestError, match="shot.gif: not an image"):
        inspect_screenshot(png_bytes(fmt="GIF"), "shot.gif")
    with pytest.raises(IngestError, match="truncated"):
        inspect_screenshot(png_bytes(800, 600)[:300], "cut.png")
    with pytest.raises(IngestError, match="width 4 px"):
        inspect_screenshot(png_bytes(4, 40), "tiny.png")


def test_decompression_bomb_refused(monkeypatch):
    from PIL import Image

    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    with pytest.raises(IngestError, match="bomb.png: .*(pixel limit|decompression bomb)"):
        inspect_screenshot(png_bytes(64, 40), "bomb.png")


# ------------------------------------------------------------------ conformance with a real task id


def test_real_upstream_task_id(tmp_path, upstream_dir):
    task = json.loads((upstream_dir / "all_tasks_with_grading.json").read_text())[0]
    rubric = task["grading"]["rubrics"]
    make_suite([task["id"]], rubric=rubric)
    write_task_dir(tmp_path / "r", task["id"], rubric=rubric, full_judge=[True] * len(rubric))
    summary = import_results(tmp_path / "r", "real id")
    traj = summary.run.trajectories.get()
    assert traj.judgments.count() == len(rubric)
    assert not summary.report.new_rubric_versions


def test_scores_json_gives_the_task_score_when_no_judge_file_does(tmp_path):
    make_suite(["t-1", "t-2"])
    write_task_dir(tmp_path / "r", "t-1")
    write_task_dir(tmp_path / "r", "t-2", task_score=40)
    rows = [{"task_id": "t-1", "status": "judged", "score": 0.8}, {"task_id": "t-2", "status": "cached", "score": 0.9}]
    (tmp_path / "r" / "scores.json").write_text(json.dumps({"rows": rows}))
    run = import_results(tmp_path / "r", "run").run
    assert run.trajectories.get(task__task_id="t-1").imported_score == pytest.approx(0.8)
    assert run.trajectories.get(task__task_id="t-2").imported_score == pytest.approx(0.4)  # the task's own file wins


def test_ingest_bundle_alone_finds_the_task_and_cleans_up_on_failure(tmp_path, isolated_media):
    from harness.results import read_task_dir
    from leaderboard.models import Suite
    from trajectories.recording.ingest import ingest_bundle

    suite = make_suite(["t-1"])
    run = Run.objects.create(
        name="live", slug="live", suite=suite, model=Model.objects.create(name="m", slug="m"), provenance="harness"
    )
    good = read_task_dir(write_task_dir(tmp_path / "a", "t-1"))
    assert ingest_bundle(run, good).task.task_id == "t-1"

    bad_dir = write_task_dir(tmp_path / "b", "t-1")
    bad = read_task_dir(bad_dir)
    with pytest.raises(IngestError, match="already has attempt 0 of task 't-1'"):
        ingest_bundle(run, bad)
    bad.attempt = 1
    sorted(bad_dir.glob("step_3_*.png"))[0].write_bytes(b"GIF89a nonsense")
    files_before = media_files(isolated_media)
    with pytest.raises(IngestError, match="not an image"):
        ingest_bundle(run, bad)
    assert Trajectory.objects.count() == 1 and media_files(isolated_media) == files_before

    stranger = read_task_dir(write_task_dir(tmp_path / "c", "t-9"))
    with pytest.raises(IngestError, match=f"'t-9' is not a task of suite '{Suite.objects.get().slug}'"):
        ingest_bundle(run, stranger)


def test_cited_steps_outside_the_trajectory_are_dropped(tmp_path):
    make_suite(["retrieval-f016"])
    task_dir = write_task_dir(tmp_path / "results", "retrieval-f016", full_judge=[True, True, False])
    judge_file = task_dir / "osworld_full_traj_result.json"
    data = json.loads(judge_file.read_text())
    data["rubric_results"][0]["reasoning"] = "Steps 1-3 show the search; step 17 does not exist."
    data["rubric_results"][1]["cited_steps"] = [3, 1]  # structured citations win over the prose
    judge_file.write_text(json.dumps(data))

    import_results(tmp_path / "results", "cited")

    judgments = Judgment.objects.order_by("rubric_item__position")
    assert [j.cited_steps for j in judgments] == [[1, 2, 3], [3, 1], []]


def test_the_import_function_classifies_failed_verdicts_for_every_caller(tmp_path):
    """Not only the command: whoever calls import_results gets failure modes on imported failed verdicts."""
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "results", "retrieval-f016", full_judge=[True, False, True])
    run = import_results(tmp_path / "results", "classified by the function").run
    (failed,) = Judgment.objects.filter(trajectory__run=run, verdict="failure")
    # the agent ended the task itself after a few turns: "ended early by its own done"
    assert failed.signals["ended_by_done_before_budget"] is True and failed.failure_mode == "premature_done"
