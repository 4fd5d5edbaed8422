"""``manage.py import_tasks`` and the import_tasks service: conformance on the upstream suite,
idempotent re-imports, rubric versioning, and all-or-nothing refusal of bad input."""

import io
import json
from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from leaderboard.catalog.task_import import import_tasks
from leaderboard.models import App, RubricItem, Suite, Task
from tests.harness.test_taskfile import make_task, write

pytestmark = pytest.mark.django_db

PAPER_TYPES = {
    "bounded_action": 64,
    "multi_step_orchestration": 48,
    "cross_source_reconciliation": 25,
    "aggregation_reporting": 23,
    "personal_lookup": 13,
    "pattern_inference": 11,
}


def run_command(*args) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_tasks", *[str(a) for a in args], stdout=out, stderr=err)
    return out.getvalue()


def db_state():
    """Everything an import writes, to compare before and after a refused import."""
    return (
        list(Suite.objects.values_list("id", "name", "version", "source_hash", "updated_at")),
        list(Task.objects.values_list("id", "task_id", "instruction", "rubric_version", "content_hash", "updated_at")),
        list(RubricItem.objects.values_list("id", "version", "criterion", "is_current")),
        list(App.objects.values_list("id", "name", "kind")),
    )


def graded_copy(upstream_dir, tmp_path, edit=None):
    tasks = json.loads((upstream_dir / "all_tasks_with_grading.json").read_text())
    if edit:
        edit(tasks)
    return write(tmp_path / "all_tasks_with_grading.json", tasks)


# --- conformance on the real upstream suite --------------------------------------------------


@pytest.mark.slow
def test_upstream_suite_with_task_types(upstream_dir):
    output = run_command(upstream_dir / "all_tasks_with_grading.json", "--task-types", upstream_dir / "task_types.json")
    suite = Suite.objects.get()
    assert (suite.name, suite.version, suite.slug) == ("MyPCBench", "eval-round0", "mypcbench-eval-round0")
    assert suite.source_name == "all_tasks_with_grading.json" and len(suite.source_hash) == 64
    assert suite.tasks.count() == 184
    assert RubricItem.objects.filter(task__suite=suite, is_current=True).count() == 1132
    assert Counter(suite.tasks.values_list("behavioural_type", flat=True)) == PAPER_TYPES
    assert set(suite.tasks.values_list("type_source", flat=True)) == {"file"}
    assert Counter(suite.tasks.values_list("apps_touched_bin", flat=True)) == {"1": 56, "2-3": 73, "4-6": 34, "7+": 21}
    assert "184 created" in output and "bounded_action 64" in output

    task = Task.objects.get(task_id="counterfactual-f008")
    assert task.bucket == "batbucks" and task.primary_app.name == "BatBucks"
    assert sorted(task.apps.values_list("name", flat=True)) == ["BatBucks", "LibreOffice Calc"]
    assert (task.apps_touched, task.apps_touched_bin, task.difficulty) == (2, "2-3", "medium")
    assert task.current_rubric().first().criterion.startswith("Agent computes the GameStop + Rivian")
    assert Task.objects.filter(bucket="multi_app", primary_app__isnull=True).count() == 118
    assert Task.objects.exclude(rubric_rule="").count() == 11
    gringotts = App.objects.get(name="Gringotts")
    assert (gringotts.kind, gringotts.port, gringotts.internal_name, gringotts.analogue) == (
        "web",
        3001,
        "vaultbank",
        "Chase Bank",
    )
    assert not App.objects.filter(kind=App.Kind.UNKNOWN).exists()


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_upstream_suite_without_task_types_uses_the_shipped_mapping(upstream_dir):
    summary = import_tasks(upstream_dir)
    assert Counter(Task.objects.values_list("behavioural_type", flat=True)) == PAPER_TYPES
    assert summary.types_by_source == {"shipped": 184}
    assert summary.rubric_items == 1132


@pytest.mark.slow
def test_second_import_changes_nothing(upstream_dir):
    path = upstream_dir / "all_tasks_with_grading.json"
    import_tasks(path, upstream_dir / "task_types.json")
    before = db_state()
    output = run_command(path, "--task-types", upstream_dir / "task_types.json")
    assert db_state() == before
    assert "0 created, 0 changed, 184 unchanged" in output and "Nothing changed." in output
    # Leaving out the types file later does not throw away the types it gave.
    summary = import_tasks(path)
    assert db_state() == before
    assert summary.tasks_unchanged == 184 and summary.types_by_source == {"file": 184}


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_edited_criterion_creates_a_new_rubric_version_for_that_task_only(upstream_dir, tmp_path):
    import_tasks(upstream_dir / "all_tasks_with_grading.json")
    task = Task.objects.get(task_id="retrieval-f016")
    v1_ids = set(task.rubric_items.values_list("id", flat=True))
    old_criterion = task.current_rubric()[1].criterion

    def edit(tasks):
        target = next(t for t in tasks if t["id"] == "retrieval-f016")
        target["grading"]["rubrics"][1]["criterion"] = "Reports the balance to the cent"

    summary = import_tasks(graded_copy(upstream_dir, tmp_path, edit))
    assert summary.new_rubric_versions == {"retrieval-f016": 2}
    assert list(summary.tasks_changed) == ["retrieval-f016"] and summary.tasks_unchanged == 183
    task.refresh_from_db()
    assert task.rubric_version == 2
    assert [i.criterion for i in task.current_rubric()][1] == "Reports the balance to the cent"
    assert all(i.version == 2 for i in task.current_rubric())
    old = task.rubric_items.filter(version=1)
    assert set(old.values_list("id", flat=True)) == v1_ids and not old.filter(is_current=True).exists()
    assert old.get(position=2).criterion == old_criterion
    assert set(Task.objects.exclude(pk=task.pk).values_list("rubric_version", flat=True)) == {1}
    assert RubricItem.objects.filter(is_current=True).count() == 1132
    # Importing the edited file again is a no-op.
    again = import_tasks(tmp_path / "all_tasks_with_grading.json")
    assert again.tasks_unchanged == 184 and not again.new_rubric_versions


# --- small suites: variants, metadata changes, unknown apps, missing tasks ------------------


def test_metadata_change_updates_the_task_without_a_new_rubric_version(tmp_path):
    import_tasks(write(tmp_path / "a.json", [make_task()]))
    summary = import_tasks(write(tmp_path / "b.json", [make_task(difficulty="hard", apps_involved=["mail", "Files"])]))
    assert summary.tasks_changed == {
        "retrieval-f901": ["apps_involved", "apps_touched", "apps_touched_bin", "difficulty", "apps"]
    }
    assert not summary.new_rubric_versions
    task = Task.objects.get()
    assert (task.difficulty, task.apps_touched_bin, task.rubric_version) == ("hard", "2-3", 1)
    assert sorted(task.apps.values_list("name", flat=True)) == ["Files", "HooliMail"]
    assert task.apps_involved == ["mail", "Files"]  # names kept as written


def test_unknown_apps_and_missing_tasks_are_kept_and_reported(tmp_path):
    import_tasks(write(tmp_path / "a.json", [make_task("retrieval-f902"), make_task()]))
    output = run_command(write(tmp_path / "b.json", [make_task(apps_involved=["HooliMail", "MySpace"])]))
    assert "'MySpace' (1 task)" in output
    assert "1 task(s) of the suite are not in this file and were kept: retrieval-f902" in output
    assert Task.objects.filter(task_id="retrieval-f902").exists()
    myspace = App.objects.get(name="MySpace")
    # retrieval-f901 moved to the top: reported as a move, not as a change to its content.
    assert "changed retrieval-f901: apps_involved, apps_touched, apps_touched_bin, apps\n" in output
    assert "1 task(s) moved" in output
    assert Task.objects.get(task_id="retrieval-f901").position == 1
    assert myspace.kind == App.Kind.UNKNOWN
    assert list(Task.objects.get(task_id="retrieval-f901").apps.order_by("name")) == [
        App.objects.get(name="HooliMail"),
        myspace,
    ]


def test_old_variants_and_derived_types(tmp_path):
    task = make_task("demo-f001", category="long_horizon", app="multi_app")
    task["grading"] = {
        "type": "llm_judge",
        "rubrics": [
            {"rubric_id": "R1", "requirement": "Opens the calendar", "verification": "Screenshot shows the week"},
            {"rubric_id": "R2", "requirement": "Books the table"},
        ],
        "rubric_rule": "All-or-nothing",
    }
    summary = import_tasks(write(tmp_path / "one.json", task), suite_name="Demo", suite_version="v1", is_demo=True)
    assert summary.types_by_source == {"derived": 1}
    stored = Task.objects.get()
    assert (stored.behavioural_type, stored.type_source, stored.rubric_rule) == (
        "multi_step_orchestration",
        "derived",
        "All-or-nothing",
    )
    assert stored.primary_app is None and stored.suite.is_demo and stored.suite.slug == "demo-v1"
    items = list(stored.current_rubric().values_list("rubric_id", "criterion", "verification", "normalised_weight"))
    assert items == [
        ("R1", "Opens the calendar", "Screenshot shows the week", 0.5),
        ("R2", "Books the table", "", 0.5),
    ]


def test_shard_directory_import(tmp_path):
    shard = make_task("cua_only-f901", category="cua_only", horizon="H1", time_limit_seconds=240)
    del shard["app"]
    write(tmp_path / "thunar" / "thunar.rubrics.json", [shard])
    write(tmp_path / "hoolimail" / "hoolimail.rubrics.json", [make_task()])
    summary = run_command(tmp_path, "--suite-version", "shards")
    assert "2 created" in summary
    task = Task.objects.get(task_id="cua_only-f901")
    assert (task.bucket, task.primary_app.name, task.extra) == (
        "thunar",
        "Thunar",
        {"horizon": "H1", "time_limit_seconds": 240},
    )
    assert Suite.objects.get().source_name == tmp_path.name + "/"


def test_help_documents_the_suite_version_default(capsys):
    with pytest.raises(SystemExit):
        call_command("import_tasks", "--help")
    help_text = capsys.readouterr().out
    assert "eval-round0" in help_text and "--task-types" in help_text


# --- refused input writes nothing --------------------------------------------------------------


def _no_grading(task_id):
    return {k: v for k, v in make_task(task_id).items() if k != "grading"}


BAD_TASK_FILES = {
    "not-json": ("bad.json", '[{"id": "retrieval-f901",]', ["bad.json", "line 1, column 26", "not JSON"]),
    "wrong-shape": ("bad.json", {"tasks": "here"}, ["bad.json", "(top level)", "JSON array of task objects"]),
    "duplicate-ids": ("bad.json", [make_task(), make_task()], ["bad.json", "[1].id", "duplicate task id"]),
    "missing-instruction": (
        "bad.json",
        [{k: v for k, v in make_task().items() if k != "instruction"}],
        ["bad.json", "[0].instruction", "missing"],
    ),
    "bad-weight": (
        "bad.json",
        [make_task(grading={"rubrics": [{"criterion": "x", "weight": "heavy"}]})],
        ["bad.json", "[0].grading.rubrics[0].weight", "expected a number"],
    ),
    "no-rubrics": (
        "all_tasks.json",
        [_no_grading("retrieval-f901"), _no_grading("retrieval-f902")],
        ["all_tasks.json", "grading", "all_tasks_with_grading.json"],
    ),
}


@pytest.mark.parametrize("case", BAD_TASK_FILES)
@pytest.mark.parametrize("existing_suite", [False, True], ids=["empty-db", "suite-exists"])
def test_bad_task_file_is_refused_and_writes_nothing(tmp_path, case, existing_suite):
    if existing_suite:
        import_tasks(write(tmp_path / "good" / "tasks.json", [make_task(), make_task("retrieval-f902")]))
    before = db_state()
    name, content, words = BAD_TASK_FILES[case]
    path = write(tmp_path / name, content)
    with pytest.raises(CommandError) as info:
        run_command(path)
    message = str(info.value)
    assert message.startswith(str(path))
    for word in words:
        assert word in message
    assert "Nothing was imported." in message
    assert db_state() == before


@pytest.mark.parametrize("existing_suite", [False, True], ids=["empty-db", "suite-exists"])
def test_bad_task_types_file_is_refused_and_writes_nothing(tmp_path, existing_suite):
    tasks = write(tmp_path / "tasks.json", [make_task(), make_task("retrieval-f902")])
    if existing_suite:
        import_tasks(tasks)
    before = db_state()
    types = write(tmp_path / "task_types.json", {"retrieval-f901": "personal_lookup", "retrieval-f902": "lookup!"})
    with pytest.raises(CommandError) as info:
        run_command(write(tmp_path / "changed.json", [make_task(instruction="New words")]), "--task-types", types)
    assert str(info.value).startswith(str(types))
    assert '["retrieval-f902"]' in str(info.value) and "one of bounded_action" in str(info.value)
    assert db_state() == before


def test_failure_while_writing_rolls_everything_back(tmp_path, monkeypatch):
    import_tasks(write(tmp_path / "a.json", [make_task()]))
    before = db_state()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(RubricItem.objects, "bulk_create", broken)
    edited = make_task(instruction="Changed", apps_involved=["BrandNewApp"])
    edited["grading"]["rubrics"][0]["criterion"] = "Changed criterion"
    with pytest.raises(RuntimeError):
        import_tasks(write(tmp_path / "b.json", [edited, make_task("retrieval-f902")]), suite_version="other")
    with pytest.raises(RuntimeError):
        import_tasks(tmp_path / "b.json")
    assert db_state() == before
