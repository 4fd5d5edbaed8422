"""Rubric versions, as a judged result names them: a result's rubric is matched to the stored version
with the same criteria, verification and weights (current first, then the newest), and a rubric no
version holds is kept as a new historical version tied to the run, said once in the import's report.
A task file that edits a rubric makes a new current version for that task. The edits tried are the
ones that change what a score means: a weight, a verification, an item more or less."""

from dataclasses import replace
from types import SimpleNamespace

import pytest

from harness.tasks import RubricSpec
from leaderboard.models import RubricItem
from tests.factories import RUBRIC, make_run, make_suite
from trajectories.recording import rubric_versions
from trajectories.recording.ingest import IngestReport
from trajectories.recording.rubric_versions import rubric_version_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def task():
    return make_suite(["retrieval-f016"]).tasks.get()


@pytest.fixture
def run(task):
    return make_run(task.suite)


def entries(rubric=RUBRIC) -> list[RubricSpec]:
    total = sum(item["weight"] for item in rubric)
    return [
        RubricSpec(
            position=i,
            rubric_id=f"R{i}",
            criterion=item["criterion"],
            verification=item.get("verification", ""),
            weight=item["weight"],
            normalised_weight=item["weight"] / total,
            content_hash=f"h{i}",
        )
        for i, item in enumerate(rubric, start=1)
    ]


def versions(task) -> list[tuple[int, bool, int]]:
    """(version, current, items) per stored version."""
    rows = {}
    for item in RubricItem.objects.filter(task=task).order_by("version"):
        current, count = rows.get(item.version, (item.is_current, 0))
        rows[item.version] = (current, count + 1)
    return [(v, c, n) for v, (c, n) in rows.items()]


def test_the_same_rubric_is_the_current_version(task):
    report = IngestReport()
    spaced = [replace(e, criterion="  " + e.criterion.replace(" ", "\n  ") + " ") for e in entries()]
    found = rubric_version_for(task, spaced, report)  # whitespace is not a difference
    assert sorted(found) == [1, 2, 3] and {item.version for item in found.values()} == {1}
    assert found[2].criterion == RUBRIC[1]["criterion"]
    assert report.new_rubric_versions == [] and versions(task) == [(1, True, 3)]
    tiny = [replace(e, weight=e.weight + 1e-13) for e in entries()]  # rounding, not an edit
    assert {i.version for i in rubric_version_for(task, tiny, report).values()} == {1}


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda es: [replace(es[0], weight=0.6), *es[1:]], id="a weight"),
        pytest.param(lambda es: [replace(es[0], weight=0.5 * (1 + 1e-6)), *es[1:]], id="a weight by a millionth"),
        pytest.param(lambda es: [*es[:2], replace(es[2], verification="Check the sent folder")], id="a verification"),
        pytest.param(lambda es: [*es[:2], replace(es[2], criterion=es[2].criterion + "!")], id="a criterion"),
        pytest.param(lambda es: es[:2], id="an item less"),
        pytest.param(lambda es: [*es, replace(es[0], position=4, rubric_id="R4")], id="an item more"),
    ],
)
def test_an_edited_rubric_is_kept_as_a_historical_version(task, run, edit):
    report = IngestReport()
    edited = edit(entries())
    found = rubric_version_for(task, edited, report, run)
    assert {item.version for item in found.values()} == {2}
    assert sorted(found) == [e.position for e in edited]
    assert all(not item.is_current and item.source_run == run for item in found.values())
    assert [found[e.position].weight for e in edited] == [e.weight for e in edited]
    assert report.new_rubric_versions == [
        "retrieval-f016: the judged rubric matches no stored version; kept as historical version 2"
    ]
    assert versions(task) == [(1, True, 3), (2, False, len(edited))]
    # the same edit again finds that version instead of making another
    again = IngestReport()
    assert {item.version for item in rubric_version_for(task, edited, again, run).values()} == {2}
    assert again.new_rubric_versions == [] and len(versions(task)) == 2
    # and the current rubric is still found as version 1
    assert {item.version for item in rubric_version_for(task, entries(), again).values()} == {1}


def test_the_current_version_wins_then_the_newest(task):
    def store(version, rubric, current=False):
        for e in entries(rubric):
            RubricItem.objects.create(task=task, version=version, is_current=current, **RubricItem.spec_fields(e))

    heavier = [{**RUBRIC[0], "weight": 0.7}, *RUBRIC[1:]]
    store(2, heavier)
    store(5, heavier)  # the same content twice: the newer is found
    store(3, RUBRIC)  # the current rubric's content again, historical
    report = IngestReport()
    assert {i.version for i in rubric_version_for(task, entries(heavier), report).values()} == {5}
    assert {i.version for i in rubric_version_for(task, entries(), report).values()} == {1}
    lighter = [{**RUBRIC[0], "weight": 0.1}, *RUBRIC[1:]]
    assert {i.version for i in rubric_version_for(task, entries(lighter), report).values()} == {6}  # past the gap
    assert report.new_rubric_versions == [
        "retrieval-f016: the judged rubric matches no stored version; kept as historical version 6"
    ]


def test_a_task_without_rubric_rows_starts_at_version_one(task):
    RubricItem.objects.filter(task=task).delete()
    report = IngestReport()
    assert {i.version for i in rubric_version_for(task, entries(), report).values()} == {1}
    assert report.new_rubric_versions[0].endswith("kept as historical version 1")


def bundle_with(rubric):
    return SimpleNamespace(rubric=entries(rubric) if rubric is not None else None)


def test_drift_from_the_current_rubric_is_said_once_per_task(task, run):
    report = IngestReport()
    rubric_versions.record_rubric_drift(run, task, bundle_with(RUBRIC), report)
    rubric_versions.record_rubric_drift(run, task, bundle_with(None), report)
    assert report.rubric_drift == [] and report.new_rubric_versions == []

    two = RUBRIC[:2]
    rubric_versions.record_rubric_drift(run, task, bundle_with(two), report)
    assert report.rubric_drift == [
        "retrieval-f016: rubric_bundle.json (2 items) differs from the suite's current rubric (version 1, 3 items); "
        "kept as rubric version 2 of this run"
    ]
    kept = RubricItem.objects.filter(task=task, version=2)
    assert [(i.is_current, i.source_run) for i in kept] == [(False, run), (False, run)]
    rubric_versions.record_rubric_drift(run, task, bundle_with(two), report)  # a second attempt: not said again
    assert len(report.rubric_drift) == 1 and len(versions(task)) == 2

    later = IngestReport()  # another import of the same rubric finds the stored version
    rubric_versions.record_rubric_drift(run, task, bundle_with(two), later)
    assert later.rubric_drift == [
        "retrieval-f016: rubric_bundle.json (2 items) differs from the suite's current rubric (version 1, 3 items); "
        "the same as stored rubric version 2"
    ]
    assert later.new_rubric_versions == []


def test_a_judges_rubric_compared_with_the_bundles():
    same = rubric_versions.same_entries
    assert same(entries(), [replace(e, verification="other", content_hash="x") for e in entries()])
    assert same(entries(), [replace(e, criterion=f" {e.criterion}\t") for e in entries()])
    assert not same(entries(), [replace(entries()[0], weight=0.51), *entries()[1:]])
    assert not same(entries(), [replace(entries()[0], criterion="Opens the mail"), *entries()[1:]])
    assert not same(entries(), entries()[:2]) and not same(entries()[:2], entries())
    assert same([], [])


def test_judges_named_for_their_provider():
    assert [rubric_versions._provider(m) for m in ["Gemini-3.1-flash", "claude-opus-4-6", "GPT-5", "qwen3-vl", ""]] == [
        "google",
        "anthropic",
        "openai",
        "",
        "",
    ]


def test_a_task_file_that_edits_only_a_weight_makes_a_new_current_version(tmp_path):
    from leaderboard.catalog.task_import import import_tasks
    from tests.harness.test_taskfile import make_task, write

    def weighted(first: float) -> dict:
        task = make_task()
        task["grading"]["rubrics"][0]["weight"] = first
        task["grading"]["rubrics"][1]["weight"] = 1 - first
        return task

    import_tasks(write(tmp_path / "a.json", [weighted(0.4)]))
    summary = import_tasks(write(tmp_path / "b.json", [weighted(0.5)]))
    assert summary.new_rubric_versions == {"retrieval-f901": 2}
    assert summary.tasks_changed == {"retrieval-f901": ["rubric (now version 2)"]}
    assert summary.rubric_items_written == 2
    stored = make_task_rows("retrieval-f901")
    assert stored == [(1, False, 1, 0.4), (1, False, 2, 0.6), (2, True, 1, 0.5), (2, True, 2, 0.5)]
    back = import_tasks(write(tmp_path / "c.json", [weighted(0.4)]))  # edited back: a new version again
    assert back.new_rubric_versions == {"retrieval-f901": 3}
    assert [row for row in make_task_rows("retrieval-f901") if row[1]] == [(3, True, 1, 0.4), (3, True, 2, 0.6)]
    assert import_tasks(write(tmp_path / "d.json", [weighted(0.4)])).new_rubric_versions == {}


def test_a_task_files_state_checks_are_stored_with_each_version(tmp_path):
    from leaderboard.catalog.task_import import import_tasks
    from tests.harness.test_taskfile import make_task, write

    task = make_task()
    task["grading"]["rubrics"][1]["state_check"] = {"command": "cat ~/sent.txt", "expected": "Jan"}
    import_tasks(write(tmp_path / "a.json", [task]))
    stored = RubricItem.objects.filter(task__task_id="retrieval-f901").order_by("position")
    assert [i.state_check for i in stored] == [{}, {"command": "cat ~/sent.txt", "expected": "Jan", "match": "exact"}]
    assert all(i.is_current for i in stored)


def test_a_one_item_rubric_is_matched_too(task):
    RubricItem.objects.filter(task=task, position__gt=1).delete()
    report = IngestReport()
    found = rubric_version_for(task, entries(RUBRIC[:1]), report)
    assert {i.version for i in found.values()} == {1} and report.new_rubric_versions == []


def make_task_rows(task_id: str) -> list[tuple[int, bool, int, float]]:
    return [
        (i.version, i.is_current, i.position, round(i.weight, 9))
        for i in RubricItem.objects.filter(task__task_id=task_id).order_by("version", "position")
    ]
