"""Rubric errata on import: a task file whose rubric changed records one erratum per changed item
(added, removed, reworded, reweighted) with the reason and source given on the command line or in the
task file; a bad source link is refused before anything is written; moving an item is no erratum."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from leaderboard.catalog.errata import ErratumNote, changelog, rubric_changes, suite_rubric_revision
from leaderboard.catalog.task_import import import_tasks
from leaderboard.models import RubricErratum, RubricItem, Task
from tests.harness.test_taskfile import make_task, write

pytestmark = pytest.mark.django_db

V1 = [
    {"id": "R1", "criterion": "Opens HooliMail", "weight": 1},
    {"id": "R2", "criterion": "Names the sender", "weight": 1},
    {"id": "R3", "criterion": "Names the subject", "weight": 1},
    {"id": "R4", "criterion": "Replies to Jan", "weight": 1},
]
# R1 moved to the end (no erratum), R2 reworded, R3 reweighted, R4 removed, R5 added
V2 = [
    {"id": "R2", "criterion": "Names the sender as written in the mail", "weight": 1},
    {"id": "R3", "criterion": "Names the subject", "weight": 2},
    {"id": "R5", "criterion": "Does not delete the mail", "weight": 1},
    {"id": "R1", "criterion": "Opens HooliMail", "weight": 1},
]


def task_with(rubric, **over):
    return make_task(grading={"type": "llm_judge", "rubrics": rubric}, **over)


def import_command(path, *args) -> str:
    out = StringIO()
    call_command("import_tasks", str(path), *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_which_items_changed_by_hand():
    first = RubricItem(rubric_id="R1", criterion="a", verification="", weight=1.0, position=1)
    keep = RubricItem(rubric_id="R2", criterion="b", verification="", weight=1.0, position=2)
    reweigh = RubricItem(rubric_id="R3", criterion="c", verification="", weight=1.0, position=3)
    drop = RubricItem(rubric_id="R4", criterion="d", verification="", weight=1.0, position=4)
    new = [
        RubricItem(rubric_id="R2", criterion="b", verification="", weight=1.0, position=1),  # moved only
        RubricItem(rubric_id="R1", criterion="a", verification="now checked in Sent", weight=1.0, position=2),
        RubricItem(rubric_id="R3", criterion="c", verification="", weight=3.0, position=3),
        RubricItem(rubric_id="R9", criterion="e", verification="", weight=1.0, position=4),
    ]
    found = [(c.rubric_id, c.change) for c in rubric_changes([first, keep, reweigh, drop], new)]
    assert found == [("R1", "reworded"), ("R3", "reweighted"), ("R9", "added"), ("R4", "removed")]


def test_an_import_records_errata_item_by_item_with_reason_and_source(tmp_path):
    import_tasks(write(tmp_path / "v1.json", [task_with(V1)]))
    assert not RubricErratum.objects.exists()
    out = import_command(
        write(tmp_path / "v2.json", [task_with(V2)]),
        "--erratum-reason",
        "Audit: R2 accepted a nickname",
        "--erratum-source",
        "https://example.org/audit#r2",
    )
    assert "Errata: 4 rubric item(s) changed on 1 task(s): 1 reworded, 1 reweighted, 1 added, 1 removed" in out
    assert "without a reason" not in out
    task = Task.objects.get()
    assert task.rubric_version == 2
    rows = {e.rubric_id: e for e in RubricErratum.objects.all()}
    assert {k: e.change for k, e in rows.items()} == {
        "R2": "reworded",
        "R3": "reweighted",
        "R5": "added",
        "R4": "removed",
    }
    assert {(e.version, e.reason, e.source_url) for e in rows.values()} == {
        (2, "Audit: R2 accepted a nickname", "https://example.org/audit#r2")
    }
    assert rows["R2"].old_item.version == 1 and rows["R2"].new_item.version == 2
    assert rows["R2"].new_item.criterion == "Names the sender as written in the mail"
    assert rows["R4"].new_item is None and rows["R5"].old_item is None

    [entry] = changelog(task=task)
    assert (entry.version, entry.reason, entry.counts) == (
        2,
        "Audit: R2 accepted a nickname",
        "1 added, 1 removed, 1 reworded, 1 reweighted",
    )
    revision = suite_rubric_revision(task.suite)
    assert (revision.errata, revision.tasks) == (1, 1)
    assert revision.text.startswith("1 erratum on 1 task(s), latest ")

    import_command(tmp_path / "v2.json")  # the same file again: no new version, no erratum
    assert RubricErratum.objects.count() == 4


def test_a_task_file_gives_its_own_reason_and_source(tmp_path):
    import_tasks(write(tmp_path / "v1.json", [task_with(V1), task_with(V1, id="retrieval-f902")]))
    own = {"reason": "Sender may be named by address", "source": "https://example.org/issue/7"}
    tasks = [task_with(V2, erratum=own), task_with(V2, id="retrieval-f902")]
    import_tasks(write(tmp_path / "v2.json", tasks), erratum=ErratumNote("Second audit pass"))
    notes = set(RubricErratum.objects.values_list("task__task_id", "reason", "source_url"))
    assert notes == {
        ("retrieval-f901", "Sender may be named by address", "https://example.org/issue/7"),
        ("retrieval-f902", "Second audit pass", ""),
    }


def test_an_erratum_without_a_reason_is_recorded_and_the_report_asks_for_one(tmp_path):
    import_tasks(write(tmp_path / "v1.json", [task_with(V1)]))
    out = import_command(write(tmp_path / "v2.json", [task_with(V2)]))
    assert (
        "1 erratum(s) recorded without a reason (retrieval-f901): give one with --erratum-reason "
        'or the task\'s "erratum" field next time'
    ) in out
    assert set(RubricErratum.objects.values_list("reason", flat=True)) == {""}


def test_moving_items_is_a_new_version_but_no_erratum(tmp_path):
    import_tasks(write(tmp_path / "v1.json", [task_with(V1)]))
    import_tasks(write(tmp_path / "v2.json", [task_with(list(reversed(V1)))]))
    assert Task.objects.get().rubric_version == 2 and not RubricErratum.objects.exists()


@pytest.mark.parametrize(
    "args, said",
    [
        (["--erratum-source", "example.org/audit"], "erratum source 'example.org/audit': not an http(s) link"),
        (["--erratum-source", "ftp://example.org/a"], "erratum source 'ftp://example.org/a': not an http(s) link"),
    ],
)
def test_a_bad_source_link_is_refused_and_writes_nothing(tmp_path, args, said):
    import_tasks(write(tmp_path / "v1.json", [task_with(V1)]))
    with pytest.raises(CommandError, match=re.escape(said)):
        import_command(write(tmp_path / "v2.json", [task_with(V2)]), *args)
    assert Task.objects.get().rubric_version == 1 and not RubricErratum.objects.exists()


def test_a_bad_source_in_the_task_file_names_the_task_and_writes_nothing(tmp_path):
    import_tasks(write(tmp_path / "v1.json", [task_with(V1)]))
    bad = task_with(V2, erratum={"reason": "x", "source": "not a link"})
    with pytest.raises(
        CommandError, match=re.escape("task retrieval-f901: erratum.source: erratum source 'not a link'")
    ):
        import_command(write(tmp_path / "v2.json", [bad]))
    assert Task.objects.get().rubric_version == 1 and RubricItem.objects.count() == 4
