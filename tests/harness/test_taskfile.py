"""Reading task files (harness.tasks), the behavioural-type mapping and the app registry."""

import json
from collections import Counter

import pytest

from harness.apps import APPS, normalise_app
from harness.tasks import (
    SHIPPED_TYPES,
    SOURCE_DERIVED,
    SOURCE_FILE,
    SOURCE_SHIPPED,
    TYPES,
    TaskFileError,
    load_task_types,
    load_tasks,
    resolve_type,
)


def make_task(task_id="retrieval-f901", **over):
    task = {
        "id": task_id,
        "app": "hoolimail",
        "instruction": "Find the last email Jan sent me.",
        "apps_involved": ["HooliMail"],
        "category": "retrieval",
        "difficulty": "easy",
        "grading": {
            "type": "llm_judge",
            "rubrics": [
                {"criterion": "Opens HooliMail", "type": "llm_judge", "weight": 0.4},
                {"criterion": "Names the sender and subject", "type": "llm_judge", "weight": 0.6},
            ],
        },
    }
    task.update(over)
    return task


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def error_for(path) -> TaskFileError:
    with pytest.raises(TaskFileError) as info:
        load_tasks(path)
    return info.value


# --- the real upstream files ---------------------------------------------------------------


def test_upstream_flat_file(upstream_dir):
    loaded = load_tasks(upstream_dir / "all_tasks_with_grading.json")
    tasks = loaded.tasks
    assert len(tasks) == 184
    assert sum(len(t.rubric) for t in tasks) == 1132
    assert [t.position for t in tasks] == list(range(1, 185))
    assert all(abs(sum(i.normalised_weight for i in t.rubric) - 1) < 1e-9 for t in tasks)
    assert sum(1 for t in tasks if t.rubric_rule) == 11
    assert Counter(t.bucket for t in tasks)["multi_app"] == 118
    first = tasks[0]
    assert (first.id, first.bucket, first.apps_involved) == (
        "counterfactual-f008",
        "batbucks",
        ["BatBucks", "LibreOffice Calc"],
    )
    assert first.rubric[0].rubric_id == "R1" and first.rubric[0].weight == 0.16


def test_upstream_directory_reads_only_the_graded_file(upstream_dir):
    loaded = load_tasks(upstream_dir)
    assert [f.rsplit("/", 1)[-1] for f in loaded.files] == ["all_tasks_with_grading.json"]
    assert len(loaded.tasks) == 184


def test_directory_with_graded_file_ignores_other_json(tmp_path):
    write(tmp_path / "all_tasks_with_grading.json", [make_task()])
    write(tmp_path / "stray.json", "not json at all")
    assert [t.id for t in load_tasks(tmp_path).tasks] == ["retrieval-f901"]


def test_shipped_types_match_the_upstream_task_types_file(upstream_dir):
    file_types = load_task_types(upstream_dir / "task_types.json")
    assert file_types == SHIPPED_TYPES
    assert Counter(SHIPPED_TYPES.values()) == {
        "bounded_action": 64,
        "multi_step_orchestration": 48,
        "cross_source_reconciliation": 25,
        "aggregation_reporting": 23,
        "personal_lookup": 13,
        "pattern_inference": 11,
    }


def test_every_upstream_app_name_and_bucket_is_in_the_registry(upstream_dir):
    tasks = load_tasks(upstream_dir / "all_tasks_with_grading.json").tasks
    names = {name for t in tasks for name in t.apps_involved}
    assert len(names) == 24
    assert {name: normalise_app(name).name for name in names} == {name: name for name in names}
    buckets = {t.bucket for t in tasks} - {"multi_app"}
    assert all(normalise_app(b) is not None for b in buckets), buckets


# --- accepted variants ---------------------------------------------------------------------


def test_shard_directory_takes_the_bucket_from_the_folder_and_keeps_extra_keys(tmp_path):
    shard = make_task(
        "cua_only-f901",
        horizon="H2",
        time_limit_seconds=300,
        cua_required=True,
        cua_reason="interactive-only state",
        required_subtasks=["open", "save"],
        collection="cua_only",
        date_policy="relative",
        persona="michael_scott",
    )
    del shard["app"]
    write(tmp_path / "thunar" / "thunar.rubrics.json", [shard])
    other = make_task("long_horizon-f901", category="long_horizon")
    del other["app"]
    write(tmp_path / "multi_app" / "multi_app.rubrics.json", [other])
    write(tmp_path / "schema.json", {"type": "object"})
    loaded = load_tasks(tmp_path)
    by_id = {t.id: t for t in loaded.tasks}
    assert [t.id for t in loaded.tasks] == ["long_horizon-f901", "cua_only-f901"]  # sorted file order
    assert by_id["cua_only-f901"].bucket == "thunar"
    assert by_id["long_horizon-f901"].bucket == "multi_app"
    assert by_id["cua_only-f901"].extra == {
        "horizon": "H2",
        "time_limit_seconds": 300,
        "cua_required": True,
        "cua_reason": "interactive-only state",
        "required_subtasks": ["open", "save"],
        "collection": "cua_only",
        "date_policy": "relative",
        "persona": "michael_scott",
    }


def test_old_rubric_variant_requirement_without_weights(tmp_path):
    task = make_task(_stripped_check_count=2)
    task["grading"] = {
        "type": "llm_judge",
        "rubrics": [
            {"rubric_id": "R1", "requirement": "Opens the file manager"},
            {"rubric_id": "R7", "requirement": "Renames the folder", "verification": "Check the final screenshot"},
            {"id": "X3", "rubric_id": "R3", "criterion": "Reports the new name"},
            {"requirement": "Does not delete anything", "weight": 0},
        ],
    }
    spec = load_tasks(write(tmp_path / "one.json", task)).tasks[0]  # a single task object, not an array
    assert [i.rubric_id for i in spec.rubric] == ["R1", "R7", "X3", "R4"]
    assert [i.criterion for i in spec.rubric][:2] == ["Opens the file manager", "Renames the folder"]
    assert spec.rubric[1].verification == "Check the final screenshot"
    assert [i.weight for i in spec.rubric] == [1.0, 1.0, 1.0, 1.0]
    assert [i.normalised_weight for i in spec.rubric] == [0.25, 0.25, 0.25, 0.25]
    assert spec.extra == {"_stripped_check_count": 2}


def test_weights_are_normalised_per_task_and_rubric_rule_kept(tmp_path):
    task = make_task()
    task["grading"]["rubrics"] = [{"criterion": "a", "weight": 2}, {"criterion": "b", "weight": 6}]
    task["grading"]["rubric_rule"] = "All-or-nothing rubric enforcement: missing any subtask caps rubric score at 60%."
    spec = load_tasks(write(tmp_path / "t.json", [task])).tasks[0]
    assert [i.weight for i in spec.rubric] == [2.0, 6.0]
    assert [i.normalised_weight for i in spec.rubric] == [0.25, 0.75]
    assert spec.rubric_rule.startswith("All-or-nothing")


def test_instruction_is_kept_verbatim_and_hash_tracks_content(tmp_path):
    a = load_tasks(write(tmp_path / "a.json", [make_task(instruction="  Do the thing.  ")])).tasks[0]
    b = load_tasks(write(tmp_path / "b.json", [make_task(instruction="  Do the thing.  ")])).tasks[0]
    task = make_task(instruction="  Do the thing.  ")
    task["grading"]["rubrics"][0]["criterion"] = "Opens HooliMail first"
    c = load_tasks(write(tmp_path / "c.json", [task])).tasks[0]
    assert a.instruction == "  Do the thing.  "
    assert a.content_hash == b.content_hash and a.rubric_hash == b.rubric_hash
    assert c.rubric_hash != a.rubric_hash and c.rubric[1].content_hash == a.rubric[1].content_hash


# --- refused inputs ------------------------------------------------------------------------


def test_not_json_reports_line_and_column(tmp_path):
    err = error_for(write(tmp_path / "broken.json", '[\n  {"id": "retrieval-f901",\n  oops}\n]'))
    assert err.file.endswith("broken.json")
    assert "line 3, column 3" in str(err) and "not JSON" in str(err)


@pytest.mark.parametrize(
    "data, field, words",
    [
        ('"just a string"', "(top level)", "JSON array of task objects"),
        ([], "(top level)", "at least one task"),
        ([make_task(), 7], "[1]", "a task object"),
        ([make_task(instruction="")], "[0].instruction", "non-empty string"),
        ([make_task(instruction="   ")], "[0].instruction", "non-empty string"),
        ([{k: v for k, v in make_task().items() if k != "instruction"}], "[0].instruction", "missing"),
        ([make_task("Retrieval F1")], "[0].id", "^[a-z_]+-[a-z0-9]+$"),
        ([make_task(category="shopping")], "[0].category", "one of retrieval"),
        ([make_task(difficulty="extreme")], "[0].difficulty", "easy, medium, hard"),
        ([make_task(apps_involved="HooliMail")], "[0].apps_involved", "an array of app names"),
        ([make_task(grading={"type": "llm_judge", "rubrics": []})], "[0].grading.rubrics", "non-empty array"),
        ([make_task(grading={"type": "llm_judge", "rubrics": [{"weight": 1}]})], "[0].grading.rubrics[0]", "criterion"),
        (
            [make_task(grading={"rubrics": [{"criterion": "x", "weight": "0.5"}]})],
            "[0].grading.rubrics[0].weight",
            "a number",
        ),
        (
            [make_task(grading={"rubrics": [{"criterion": "x", "weight": True}]})],
            "[0].grading.rubrics[0].weight",
            "found a JSON boolean",
        ),
        (
            [make_task(), {k: v for k, v in make_task("retrieval-f902").items() if k != "grading"}],
            "[1].grading",
            "missing",
        ),
    ],
)
def test_bad_task_files_name_the_file_and_field(tmp_path, data, field, words):
    err = error_for(write(tmp_path / "bad.json", data))
    assert err.file.endswith("bad.json")
    assert err.field.startswith(field), err
    assert words in str(err)
    assert str(err).startswith(str(tmp_path / "bad.json"))


def test_overflowing_weight_is_refused(tmp_path):
    text = json.dumps([make_task()]).replace('"weight": 0.4', '"weight": 1e400')
    err = error_for(write(tmp_path / "big.json", text))
    # Refused while parsing (1e400 would be read as infinity), with where it stands.
    assert err.file.endswith("big.json") and err.field.startswith("line 1, column ")
    assert "the number 1e400 is too large" in str(err)


def test_nan_weight_is_not_json(tmp_path):
    err = error_for(write(tmp_path / "nan.json", '[{"id": "retrieval-f901", "weight": NaN}]'))
    assert "NaN" in str(err) and err.file.endswith("nan.json")


def test_error_names_the_task_id_and_counts_other_problems(tmp_path):
    err = error_for(write(tmp_path / "bad.json", [make_task(instruction="", difficulty="x")]))
    assert "(task retrieval-f901)" in str(err)
    assert "1 more problem" in str(err)


def test_duplicate_ids_in_one_file_name_both_positions(tmp_path):
    err = error_for(write(tmp_path / "dup.json", [make_task(), make_task("retrieval-f902"), make_task()]))
    assert err.field == "[2].id"
    assert "duplicate task id 'retrieval-f901'" in str(err) and "[0] in " in str(err) and "dup.json" in str(err)


def test_duplicate_ids_across_shards_name_both_files(tmp_path):
    write(tmp_path / "files" / "files.rubrics.json", [make_task()])
    write(tmp_path / "thunar" / "thunar.rubrics.json", [make_task("cua_only-f901"), make_task()])
    err = error_for(tmp_path)
    assert err.file.endswith("thunar/thunar.rubrics.json") and err.field == "[1].id"
    assert "files/files.rubrics.json" in str(err)


def test_all_tasks_without_rubrics_is_refused_with_the_file_to_use(tmp_path):
    plain = [{k: v for k, v in make_task(f"retrieval-f90{i}").items() if k != "grading"} for i in range(3)]
    err = error_for(write(tmp_path / "all_tasks.json", plain))
    assert err.file.endswith("all_tasks.json")
    assert "all_tasks_with_grading.json" in str(err) and "grading" in err.field


def test_task_types_file_given_as_tasks_is_refused(tmp_path):
    err = error_for(write(tmp_path / "task_types.json", {"retrieval-f901": "personal_lookup"}))
    assert "--task-types" in str(err)


def test_missing_path_and_empty_directory(tmp_path):
    assert "no such file" in str(error_for(tmp_path / "nope.json"))
    (tmp_path / "empty").mkdir()
    assert "no task files" in str(error_for(tmp_path / "empty"))


# --- behavioural types ---------------------------------------------------------------------


def test_type_resolution_order():
    file_types = {"retrieval-f016": "pattern_inference"}
    assert resolve_type("retrieval-f016", "retrieval", file_types) == ("pattern_inference", SOURCE_FILE)
    assert resolve_type("retrieval-f016", "retrieval") == ("personal_lookup", SOURCE_SHIPPED)
    # A shipped exception is not what the category rule would say.
    assert resolve_type("retrieval-f032", "retrieval") == ("multi_step_orchestration", SOURCE_SHIPPED)
    assert resolve_type("retrieval-f999", "retrieval") == ("personal_lookup", SOURCE_DERIVED)
    assert resolve_type("demo-f001", "long_horizon") == ("multi_step_orchestration", SOURCE_DERIVED)
    assert resolve_type("demo-f001", "hard_app") == ("bounded_action", SOURCE_DERIVED)


def test_task_types_file_accepts_ids_and_paper_labels(tmp_path):
    path = write(tmp_path / "types.json", {"a-f1": "bounded_action", "b-f2": "Aggregation & reporting"})
    assert load_task_types(path) == {"a-f1": "bounded_action", "b-f2": "aggregation_reporting"}


@pytest.mark.parametrize(
    "content, words",
    [
        ({"a-f1": "bounded_action", "b-f2": "heroic_rescue"}, ['["b-f2"]', "heroic_rescue", "one of bounded_action"]),
        ({"a-f1": 3}, ['["a-f1"]', "unknown behavioural type 3"]),
        (["bounded_action"], ["(top level)", "JSON object"]),
        ("{not json", ["line 1, column 2", "not JSON"]),
    ],
)
def test_bad_task_types_file(tmp_path, content, words):
    path = write(tmp_path / "types.json", content)
    with pytest.raises(TaskFileError) as info:
        load_task_types(path)
    assert str(info.value).startswith(str(path))
    for word in words:
        assert word in str(info.value)


# --- apps ----------------------------------------------------------------------------------


def test_registry_has_the_17_web_apps_and_desktop_apps():
    web = [a for a in APPS if a.kind == "web"]
    assert sorted(a.port for a in web) == list(range(3001, 3018))
    gringotts = normalise_app("Gringotts")
    assert (gringotts.port, gringotts.internal_name, gringotts.analogue, gringotts.category) == (
        3001,
        "vaultbank",
        "Chase Bank",
        "Finance",
    )
    desktop = {a.name for a in APPS if a.kind == "desktop"}
    assert {"Files", "Firefox", "LibreOffice Calc", "LibreOffice Writer", "LibreOffice Impress", "Thunar"} <= desktop


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("vaultbank", "Gringotts"),
        ("BUZZCHAT", "HooliChat"),
        ("work buzz", "HooliWork"),
        ("mail", "HooliMail"),
        ("kwik_e_mart", "Kwik-E-Mart"),
        ("dinoco-airlines", "Dinoco Airlines"),
        (" libreoffice calc ", "LibreOffice Calc"),
        ("Visual Studio Code", "VS Code"),
        ("ETAXI", "eTaxi"),
    ],
)
def test_app_names_normalise(name, canonical):
    assert normalise_app(name).name == canonical


def test_unknown_app_names_are_not_guessed():
    assert normalise_app("MySpace") is None
    assert normalise_app("multi_app") is None


def test_type_names_match_the_model_choices():
    from leaderboard.models import BehaviouralType, TypeSource

    assert set(TYPES) == set(BehaviouralType.values)
    assert {SOURCE_FILE, SOURCE_SHIPPED, SOURCE_DERIVED} == set(TypeSource.values)
