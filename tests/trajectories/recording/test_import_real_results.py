"""import_results on result folders as researchers actually have them: OSWorld run.py trees
with model ids holding '/', the published archive layout, gaps (missing screenshots, Git LFS
pointers), the per-step judge's rubric_result.json, TOOL_CALL rows filled from messages.json, rubric
drift, usage counters of every kind, trajectories that never answered, side-by-side attempts, no
server paths, a quiet report. Fixtures are generated here from the format facts (formats.md 2-3 and
OSWorld's run.py / lib_run_single.py outputs: traj.jsonl, step_<n>_<ts>.png, result.txt as a score)."""

import json
import logging
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from harness.results import LayoutError, classify
from leaderboard.models import RubricItem, Run
from tests.factories import RUBRIC, make_suite, png_bytes, write_task_dir
from trajectories.models import Judgment, Step, Trajectory
from trajectories.player import payloads
from trajectories.recording.import_notes import ImportResultsError
from trajectories.recording.import_results import import_results

pytestmark = pytest.mark.django_db

UUID_A = "bb5e4c0d-f964-439c-97b6-bdb9747de3f4"
UUID_B = "030eeff7-b492-4218-b312-701ec99ee0cc"
LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 48213\n"
)


def osworld_task_dir(parent: Path, task_id: str, *, score: str = "0", n_steps: int = 2) -> Path:
    """One task folder as OSWorld's lib_run_single writes it: traj.jsonl rows (step_num, action_timestamp,
    action, response, reward, done, info, screenshot_file), step_<n>_<ts>.png after each action, and
    result.txt holding the evaluator's score."""
    task_dir = Path(parent) / task_id
    task_dir.mkdir(parents=True)
    rows = []
    for n in range(1, n_steps + 1):
        stamp = f"20250101@1200{n:02d}"  # lib_run_single's %Y%m%d@%H%M%S
        name = f"step_{n}_{stamp}.png"
        (task_dir / name).write_bytes(png_bytes())
        action = "DONE" if n == n_steps else f"pyautogui.click({100 * n}, 200)"
        rows.append({"step_num": n, "action_timestamp": stamp, "action": action, "response": f"thought {n}",
                     "reward": 0, "done": n == n_steps, "info": {}, "screenshot_file": name})  # fmt: skip
    (task_dir / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (task_dir / "result.txt").write_text(score + "\n")
    return task_dir


# ------------------------------------------------------------------ 2. layouts


def test_osworld_tree_with_a_slash_in_the_model_id_keeps_a_score_of_zero(tmp_path):
    make_suite([UUID_A, UUID_B], slug="osworld")
    base = tmp_path / "results" / "pyautogui" / "screenshot" / "ByteDance-Seed" / "UI-TARS-1.5-7B"
    osworld_task_dir(base / "chrome", UUID_A, score="0")
    osworld_task_dir(base / "os", UUID_B, score="1.0")

    summary = import_results(tmp_path / "results", "UI-TARS run")

    assert summary.model.name == "ByteDance-Seed/UI-TARS-1.5-7B"
    zero = Trajectory.objects.get(task__task_id=UUID_A)
    # "0" is the evaluator's score of 0, not "ended by error"
    assert zero.source_layout == "osworld" and zero.ended_by == "done"
    assert zero.imported_score == 0.0 and zero.imported_score_judge.name == "OSWorld evaluator score"
    assert Trajectory.objects.get(task__task_id=UUID_B).imported_score == 1.0
    assert summary.report.warnings == []  # OSWorld's timestamps are read, not warned about
    assert zero.started_at is not None and zero.steps.first().timestamp.second == 1


def test_archive_layout_run_domain_uuid_is_osworld(tmp_path):
    make_suite([UUID_A], slug="osworld")
    osworld_task_dir(tmp_path / "claude-run-3" / "chrome", UUID_A, score="0.5")
    traj = import_results(tmp_path / "claude-run-3", "archive layout").run.trajectories.get()
    assert traj.source_layout == "osworld" and traj.imported_score == 0.5 and traj.ended_by == "done"


def test_a_folder_no_path_explains_is_refused_naming_the_flag(tmp_path, isolated_media):
    make_suite(["Task_7"], slug="odd")
    osworld_task_dir(tmp_path / "r", "Task_7", score="0")
    with pytest.raises(ImportResultsError) as caught:
        import_results(tmp_path / "r", "odd run")
    assert "--layout osworld|mypcbench" in str(caught.value) and "Task_7" in str(caught.value)
    assert Run.objects.count() == 0
    traj = import_results(tmp_path / "r", "odd run", layout="osworld").run.trajectories.get()
    assert traj.imported_score == 0.0 and traj.ended_by == "done"


def test_classify_reads_paths_alone():
    folder = classify("results/pyautogui/screenshot_a11y_tree/openai/gpt-4o-mini/multi_apps/" + UUID_A)
    assert (folder.kind, folder.model, folder.domain) == ("osworld", "openai/gpt-4o-mini", "multi_apps")
    assert classify("vm3/retrieval-f016").kind == "mypcbench"
    assert classify("retrieval-f016/attempt_2").attempt == 2
    with pytest.raises(LayoutError, match="--layout"):
        classify("x/Weird_Id")


# ------------------------------------------------------------------ 3. gaps


def test_every_gap_is_reported_grouped_and_the_flag_imports_without_them(tmp_path, isolated_media, client):
    make_suite(["retrieval-f016", "aggregation-f002", "counterfactual-f008"])
    first = write_task_dir(tmp_path / "r", "retrieval-f016")
    (write_task_dir(tmp_path / "r", "counterfactual-f008") / "usage.json").write_text("[1, 2")
    second = write_task_dir(tmp_path / "r", "aggregation-f002")
    sorted(first.glob("step_1_*.png"))[0].unlink()
    sorted(second.glob("step_2_*.png"))[0].unlink()
    sorted(second.glob("step_3_*.png"))[0].write_text(LFS_POINTER)

    with pytest.raises(ImportResultsError) as caught:
        import_results(tmp_path / "r", "gappy")
    message = str(caught.value)
    assert "4 problems (invalid JSON 1, missing screenshot 2, Git LFS pointer 1)" in message
    assert "Git LFS pointer, not the image: run `git lfs pull`" in message
    assert "--allow-missing-screenshots" in message and str(tmp_path) not in message
    assert Run.objects.count() == 0 and Step.objects.count() == 0

    (tmp_path / "r" / "counterfactual-f008" / "usage.json").write_text("{}")
    summary = import_results(tmp_path / "r", "gappy", allow_missing_screenshots=True, publish=True)
    assert summary.report.missing_screenshots == 3 and summary.report.screenshots == 6
    assert "screenshots: 6 imported, 3 missing" in "\n".join(summary.lines())
    traj = Trajectory.objects.get(task__task_id="aggregation-f002")
    payload = payloads.step_payloads(traj.steps.all())
    assert payload[0]["problem"] == "" and payload[0]["image"]
    assert payload[2]["image"] == "" and "Git LFS pointer" in payload[2]["problem"]
    page = client.get(reverse("leaderboard:run_detail", args=[summary.run.slug])).content.decode()
    assert "3 screenshots missing" in page


def test_a_traj_file_left_as_an_lfs_pointer_is_named_as_such(tmp_path):
    make_suite(["retrieval-f016"])
    (write_task_dir(tmp_path / "r", "retrieval-f016") / "traj.jsonl").write_text(LFS_POINTER)
    with pytest.raises(ImportResultsError, match="Git LFS pointer, not the file: run `git lfs pull`"):
        import_results(tmp_path / "r", "lfs")


# ------------------------------------------------------------------ 4. per-step judge verdicts


def test_rubric_result_json_verdicts_are_a_separate_labelled_judge(tmp_path, client):
    make_suite(["retrieval-f016"])
    task_dir = write_task_dir(tmp_path / "r", "retrieval-f016", full_judge=[True, True, False])
    per_step = {
        "score": 80, "passed": False, "reasoning": "per-step max-reduce over 3 of 3 steps", "n_steps_total": 3,
        "n_steps_scored": 3, "concurrency": 4, "model": "claude-sonnet-4-6", "final_fraction": 0.8,
        "per_rubric_max": [1, 1, 0],
        "per_step_scores": [{"step_num": 1, "scores": [1, 0, 0], "error": None},
                            {"step_num": 2, "scores": [0, 1, 0], "error": None},
                            {"step_num": 3, "scores": [0, 0, 0], "error": None}],
        "rubrics": RUBRIC,
    }  # fmt: skip
    (task_dir / "rubric_result.json").write_text(json.dumps(per_step))

    summary = import_results(tmp_path / "r", "two judges", publish=True)

    per_step_judgments = Judgment.objects.filter(judge__name="upstream per-step judge (claude-sonnet-4-6)")
    assert [j.verdict for j in per_step_judgments.order_by("rubric_item__position")] == [
        "success", "success", "failure"]  # fmt: skip
    assert [j.cited_steps for j in per_step_judgments.order_by("rubric_item__position")] == [[1], [2], []]
    assert Judgment.objects.filter(judge__name__startswith="upstream full-trajectory judge").count() == 3
    assert "judges found: 2" in "\n".join(summary.lines())
    traj = summary.run.trajectories.get()
    page = client.get(reverse("trajectories:trajectory_detail", args=[traj.pk])).content.decode()
    assert "Not judged yet" not in page and "upstream per-step judge" in page


# ------------------------------------------------------------------ 5. tool steps from messages.json


def test_tool_call_rows_show_the_commands_outputs_and_exit_status(tmp_path):
    make_suite(["retrieval-f016"])
    actions = [(1, "TOOL_CALL"), (2, "pyautogui.click(10, 10)"), (3, "TOOL_CALL"), (4, "DONE")]
    task_dir = write_task_dir(tmp_path / "r", "retrieval-f016", actions=actions)
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Find the invoice."}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                           "input": {"command": "ls ~/Documents"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": [{"type": "text", "text": "invoice.pdf\nreport.txt"}]}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "computer",
                                           "input": {"action": "left_click", "coordinate": [10, 10]}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                      "content": [{"type": "image", "source": "<stripped:base64 image>"}]}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "bash",
                                           "input": {"command": "cat ~/missing.txt"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "is_error": True,
                                      "content": "cat: /home/user/missing.txt: No such file or directory"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done.\n```DONE```"}]},
    ]  # fmt: skip
    (task_dir / "messages.json").write_text(json.dumps(messages, indent=2))

    run = import_results(tmp_path / "r", "tools").run
    steps = list(Step.objects.filter(trajectory__run=run).order_by("index"))
    assert steps[0].tool == "bash" and steps[0].action_text == "ls ~/Documents"
    assert steps[0].tool_output == "invoice.pdf\nreport.txt"
    assert steps[2].action_text == "cat ~/missing.txt" and "No such file" in steps[2].tool_output
    assert steps[2].info["exit_status"] == "error"
    assert "TOOL_CALL" not in {s.action_text for s in steps}


# ------------------------------------------------------------------ 6. rubric drift


def test_a_run_graded_on_another_rubric_gets_its_own_version_and_a_warning(tmp_path, client):
    make_suite(["retrieval-f016"])
    drifted = RUBRIC[:2] + [{"criterion": "Mentions the due date", "type": "llm_judge", "weight": 0.2}]
    write_task_dir(tmp_path / "r" / "G0", "retrieval-f016", rubric=drifted)
    write_task_dir(tmp_path / "r" / "G1", "retrieval-f016", rubric=drifted)  # two attempts, one drift

    summary = import_results(tmp_path / "r", "drifted", publish=True)
    assert len(summary.report.rubric_drift) == 1

    version = RubricItem.objects.filter(task__task_id="retrieval-f016", version=2)
    assert version.count() == 3 and set(version.values_list("source_run", flat=True)) == {summary.run.pk}
    assert not version.filter(is_current=True).exists()
    report = "\n".join(summary.lines())
    assert "rubric versions created: 1" in report and "differs from the suite's current rubric" in report
    page = client.get(reverse("leaderboard:run_detail", args=[summary.run.slug])).content.decode()
    assert "Graded on a rubric that differs from the suite" in page


# ------------------------------------------------------------------ 7. token counters


def test_every_usage_counter_is_summed_by_kind(tmp_path, client):
    make_suite(["retrieval-f016"])
    task_dir = write_task_dir(tmp_path / "r", "retrieval-f016")
    usage = {"input_tokens": 12042, "output_tokens": 31000, "cache_creation_input_tokens": 98000,
             "cache_read_input_tokens": 1130000}  # fmt: skip
    (task_dir / "usage.json").write_text(json.dumps(usage))
    traj = import_results(tmp_path / "r", "tokens", publish=True).run.trajectories.get()
    assert traj.input_tokens == 12042 + 98000 + 1130000  # about 1.24 M read, not 12,042
    assert traj.cached_tokens == 1130000 and traj.output_tokens == 31000
    page = client.get(reverse("trajectories:trajectory_detail", args=[traj.pk])).content.decode()
    assert "cache creation 98000" in page and "cache read 1130000" in page


# ------------------------------------------------------------------ 8. no answer


def test_a_trajectory_that_never_answered_shows_no_answer(tmp_path, client):
    make_suite(["retrieval-f016"])
    cut_off = [(1, "pyautogui.click(1, 1)"), (2, "pyautogui.click(2, 2)")]
    write_task_dir(tmp_path / "r", "retrieval-f016", actions=cut_off, final_text="Let me check the inbox next")
    traj = import_results(tmp_path / "r", "no answer", publish=True).run.trajectories.get()
    assert traj.final_answer == ""
    page = client.get(reverse("trajectories:trajectory_detail", args=[traj.pk])).content.decode()
    assert "No answer" in page and "Let me check the inbox next</pre>" not in page


# ------------------------------------------------------------------ 10. no server paths


def test_no_server_path_in_the_api_or_pages(tmp_path, client):
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "results-opus", "retrieval-f016", full_judge=[True, True, True])
    (tmp_path / "results-opus" / "retrieval-f016" / "rubric_result.json").write_text("{not json")
    with pytest.raises(ImportResultsError) as caught:
        import_results(tmp_path / "results-opus", "paths")
    assert str(tmp_path) not in str(caught.value) and "results-opus/retrieval-f016" in str(caught.value)
    (tmp_path / "results-opus" / "retrieval-f016" / "rubric_result.json").unlink()

    run = import_results(tmp_path / "results-opus", "paths", publish=True).run
    traj = run.trajectories.get()
    assert run.source == "results-opus" and str(tmp_path) not in traj.source_path
    api = client.get(f"/api/runs/{run.slug}").content.decode()
    assert "results-opus" in api and str(tmp_path) not in api
    page = client.get(reverse("leaderboard:run_detail", args=[run.slug])).content.decode()
    assert str(tmp_path) not in page


# ------------------------------------------------------------------ 11. attempts side by side


def test_g_folders_are_attempts_of_one_run(tmp_path):
    make_suite(["retrieval-f016", "aggregation-f002"])
    for g in ("G0", "G1", "G2"):
        write_task_dir(tmp_path / "r" / g, "retrieval-f016")
        write_task_dir(tmp_path / "r" / g, "aggregation-f002")
    summary = import_results(tmp_path / "r", "three attempts")
    attempts = sorted(summary.run.trajectories.filter(task__task_id="retrieval-f016").values_list("attempt", flat=True))
    assert attempts == [0, 1, 2] and summary.report.attempts == 3
    assert "attempts per task: 3" in "\n".join(summary.lines())
    summary.run.refresh_from_db()
    assert summary.run.attempts_per_task == 3  # the declared grid the scores use


def test_attempt_numbers_must_be_contiguous_from_the_first(tmp_path):
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "r" / "G0", "retrieval-f016")
    write_task_dir(tmp_path / "r" / "G2", "retrieval-f016")
    with pytest.raises(ImportResultsError, match="not contiguous.*missing 1"):
        import_results(tmp_path / "r", "gap")


def test_the_same_task_under_several_parents_needs_the_flag(tmp_path):
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "r" / "seed-a", "retrieval-f016")
    write_task_dir(tmp_path / "r" / "seed-b", "retrieval-f016")
    with pytest.raises(ImportResultsError, match="--attempts-from-folders"):
        import_results(tmp_path / "r", "seeds")
    run = import_results(tmp_path / "r", "seeds", attempts_from_folders=True).run
    assert sorted(run.trajectories.values_list("attempt", flat=True)) == [0, 1]


# ------------------------------------------------------------------ 12. no broker warning


def test_queueing_on_the_embedded_broker_prints_no_hostname_warning(caplog):
    from mypcbench_site.celery import app

    with caplog.at_level(logging.WARNING), app.connection_for_write() as connection:
        connection.info()
    assert not [r for r in caplog.records if "No hostname was supplied" in r.getMessage()]


# ------------------------------------------------------------------ what real result folders hold


def test_without_suite_the_suite_holding_the_ids_is_chosen_and_bundle_json_names_the_model(tmp_path):
    make_suite([], slug="mypcbench-eval-round0")  # the empty benchmark suite load_demo leaves
    make_suite(["demo-d001"], slug="demo", is_demo=True)
    task_dir = write_task_dir(tmp_path / "out", "demo-d001")
    (task_dir / "bundle.json").write_text(json.dumps({"format": "mypcbench-bundle", "agent": "anthropic",
                                                      "model": "claude-sonnet-4-6"}))  # fmt: skip
    summary = import_results(tmp_path / "out", "harness smoke run")
    assert summary.suite.slug == "demo" and summary.model.name == "claude-sonnet-4-6"

    make_suite(["demo-d001"], slug="demo-copy", is_demo=True)
    with pytest.raises(ImportResultsError, match=r"2 suites hold all 1 task ids \(demo, demo-copy\)"):
        import_results(tmp_path / "out", "again")


def test_command_report_is_quiet_and_complete(tmp_path, capsys):
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "r", "retrieval-f016", full_judge=[True, True, False])
    call_command("import_results", str(tmp_path / "r"), "--run", "cli")
    captured = capsys.readouterr()
    for needle in ("tasks: 1", "attempts per task: 1", "trajectories: 1", "steps: 3",
                   "screenshots: 3 imported, 0 missing", "judges found: 1", "rubric versions created: 0"):  # fmt: skip
        assert needle in captured.out
    assert "warnings" not in captured.out  # nothing to warn about, nothing printed


# ------------------------------------------------------------------ our judge and missing screenshots


def test_our_judge_refuses_a_trajectory_with_missing_screenshots_unless_told(tmp_path, monkeypatch, settings):
    from tests.simulators import ProviderSimulator

    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    make_suite(["retrieval-f016"])
    task_dir = write_task_dir(tmp_path / "r", "retrieval-f016")
    sorted(task_dir.glob("step_2_*.png"))[0].unlink()
    run = import_results(tmp_path / "r", "gappy", allow_missing_screenshots=True).run
    verdict = 'ok\n{"reasoning": "Seen in step 1.", "cited_steps": [1], "verdict": "success"}'
    with ProviderSimulator(lambda request: verdict) as sim:
        call_command("judge", run.slug, "--provider", "anthropic", "--base-url", sim.url)
        assert sim.requests == []  # nothing was sent: the judge would have graded blind
        ours = Judgment.objects.filter(judge__origin="ours")
        assert {j.verdict for j in ours} == {"error"} and ours.count() == 3
        assert "not judged: 1 of its steps was imported without a screenshot" in ours[0].explanation
        call_command("judge", run.slug, "--provider", "anthropic", "--base-url", sim.url, "--allow-missing-screenshots")
        assert len(sim.requests) == 3
    assert {j.verdict for j in Judgment.objects.filter(judge__origin="ours")} == {"success"}


def test_a_run_imported_before_keeps_its_server_path_out_of_the_api(client):
    suite = make_suite(["retrieval-f016"])
    from leaderboard.models import Model

    model = Model.objects.create(name="m", slug="m")
    run = Run.objects.create(name="old", slug="old", suite=suite, model=model, provenance="imported",
                             publication="published", source="/srv/data/results/claude-opus")  # fmt: skip
    api = client.get(f"/api/runs/{run.slug}").json()
    assert api["source"] == "claude-opus"
    listed = client.get("/api/runs").content.decode()
    assert "/srv/data" not in listed


def test_a_named_osworld_suite_settles_the_layout(tmp_path):
    from leaderboard.models import Suite

    make_suite(["Task_7"], slug="odd")
    Suite.objects.filter(slug="odd").update(kind="osworld")
    osworld_task_dir(tmp_path / "r", "Task_7", score="0.25")
    traj = import_results(tmp_path / "r", "odd run", suite_slug="odd").run.trajectories.get()
    assert traj.imported_score == 0.25 and traj.ended_by == "done"
