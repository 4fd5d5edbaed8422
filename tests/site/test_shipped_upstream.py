"""The MyPCBench files shipped in upstream/mypcbench/ are what sources.json says (sha256, licence), the same
bytes as the reference copies the tests read, and enough for what bin/demo does with them: the 184-task
suite lands in the suite the published figures belong to, which becomes the leaderboard's default."""

import hashlib
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from leaderboard.boards.board import board
from leaderboard.models import RubricItem, Suite
from leaderboard.scoring.filters import BoardFilters

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "upstream" / "mypcbench"
SOURCES = json.loads((SHIPPED / "sources.json").read_text())["files"]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_shipped_file_is_the_pinned_one(name):
    source = SOURCES[name]
    assert hashlib.sha256((SHIPPED / name).read_bytes()).hexdigest() == source["sha256"], name
    assert len(source["commit"]) == 40 and source["repo"] and source["path"].endswith(name)


def test_the_licence_and_the_provenance_ship_beside_them():
    assert (SHIPPED / "LICENSE").read_text().startswith("MIT License")
    readme = (SHIPPED / "README.md").read_text()
    for name, source in SOURCES.items():
        assert name in readme and source["commit"][:7] in readme
    assert set(p.name for p in SHIPPED.glob("*.json")) == {*SOURCES, "sources.json"}, "every shipped file listed"


def test_the_shipped_files_are_the_reference_copies(upstream_dir):
    for name in SOURCES:
        if (upstream_dir / name).exists():  # the reference folder predates some copies (variables.json)
            assert (SHIPPED / name).read_bytes() == (upstream_dir / name).read_bytes(), name


def test_the_real_suite_loads_from_the_shipped_files_into_the_published_figures_suite(db):
    call_command("load_reported", stdout=io.StringIO())
    call_command(
        "import_tasks",
        str(SHIPPED / "all_tasks_with_grading.json"),
        task_types=str(SHIPPED / "task_types.json"),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    suite = Suite.objects.get(slug="mypcbench-eval-round0")
    assert suite.tasks.count() == 184 and not suite.is_demo
    assert RubricItem.objects.filter(task__suite=suite).count() == 1132
    shown = board(None, BoardFilters())
    assert shown.suite == suite and shown.task_count == 184
    assert shown.reported_rows, "the published figures sit on the board beside the loaded suite"


def test_the_released_worlds_facts_ship_with_every_variable_keyed():
    """variables.json of the released image ships, and every variable in it has an entry in the keys."""
    variables = json.loads((SHIPPED / "variables.json").read_text())
    keys = json.loads((ROOT / "seeding/answer_keys/released/variables.json").read_text())["entries"]
    assert len(variables) == 213 and variables["GRINGOTTS_CREDIT_LIMIT"] == 8000.0
    assert [entry["var"] for entry in keys] == list(variables)
