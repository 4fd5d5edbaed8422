"""Every pytest fixture is defined once: a fixture that several test files share lives in the conftest.py of
their nearest common folder (or a tests/*_data.py module), never copied into each file. Read with ast, so
nothing is imported. A name defined in more than one file must be listed below, file by file, with the
reason; every listed file must still define it, so the list cannot go stale."""

import ast
import functools
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

# name -> {file under tests/: why this file defines its own}. Each is a different fixture that shares a
# plain name with another (different data, scope or guest); none is a copy of another.
DELIBERATE = {
    "author": {
        "trajectories/submissions/conftest.py": "the submissions' author, with the suite her uploads are for",
        "trajectories/submissions/test_submissions.py": "override: an author alone (this module's suite fixture "
        "makes the suite)",
        "trajectories/submissions/test_uploads_by_worker.py": "override: an author whose uploads a worker checks",
        "browser/test_submissions_browser.py": "the browser tests' author, for the live server",
    },
    "clock": {
        "leaderboard/scoring/test_page_cache_rules.py": "the page cache's fake clock",
        "leaderboard/scoring/test_public_version_rules.py": "the public version's fake clock",
    },
    "env": {
        "conftest.py": "a fake guest with a 320x200 screen",
        "harness/test_agents.py": "override: the fake guest the provider agents' tests build (make_env)",
        "harness/test_agent_thinking.py": "override: a fake guest at 1280x800, the size Claude's tools are told",
    },
    "guest": {
        "harness/test_harness_control.py": "the fake guest behind the Control API",
        "harness/test_harness_guest_conformance.py": "each of our guests in turn (parametrized)",
        "harness/test_harness_postboot.py": "the headless guest with the web apps' stand-ins",
        "harness/test_harness_qemu.py": "the QEMU test guest, built once per module",
    },
    "image": {
        "harness/test_harness_docker.py": "the Docker test image, built once per module",
        "harness/test_harness_envs.py": "an image file for the command lines",
    },
    "people": {
        "leaderboard/catalog/test_badges.py": "the users the badges are shown to",
        "leaderboard/catalog/test_permission_rules.py": "the users the permission rules are about",
        "trajectories/submissions/test_submissions_judged.py": "the author and maintainer of judged uploads",
    },
    "run": {
        "leaderboard/catalog/test_rubric_versions.py": "a run whose results name rubric versions",
        "leaderboard/scoring/test_outcomes_cells.py": "the hand-made 3-task x 3-attempt run",
        "site/test_site_words.py": "a run whose pages are read for their words",
        "trajectories/judging/test_reliability_classify.py": "a judged run whose failures are classified",
        "trajectories/recording/test_ingest_rules.py": "the run the ingest rules write into",
    },
    "runs": {
        "leaderboard/catalog/test_badges.py": "runs of each badge",
        "leaderboard/catalog/test_permission_rules.py": "runs of each publication state",
    },
    "sim": {
        "harness/conftest.py": "the provider simulator for the agents' tests",
        "simulators/test_simulators_strict.py": "the simulator whose refusals are tested",
    },
    "site": {
        "browser/test_analysis_browser.py": "the analysis world on the live server",
        "browser/test_board_browser.py": "the board on the live server",
        "browser/test_pages_browser.py": "the catalog on the live server",
        "leaderboard/boards/test_site_search.py": "what search finds",
    },
    "small": {
        "browser/test_analysis_maps_browser.py": "a small analysis world",
        "seeding/test_seeding_world.py": "the small persona's world, built once per module",
    },
    "suite": {
        "trajectories/submissions/test_submissions.py": "the suite of the uploads' tasks",
        "trajectories/submissions/test_upload_validation_rules.py": "a two-task suite",
    },
    "task": {
        "harness/conftest.py": "the demo suite's first task, for the agent loop",
        "harness/judge/test_judge.py": "override: a task file the judge reads",
        "harness/judge/test_judge_protocol.py": "override: a task file for the judge's protocols",
        "leaderboard/catalog/test_rubric_versions.py": "a stored task with rubric versions",
        "trajectories/recording/test_ingest_rules.py": "the stored task the ingest rules write for",
    },
    "world": {
        "leaderboard/scoring/test_page_versions.py": "the rows a page version is keyed on",
        "seeding/test_demo_world_apps.py": "a seeded world for the demo apps, built once per module",
        "site/test_authz_matrix.py": "every kind of row, once per module, for every role",
        "trajectories/evaluations/conftest.py": "a suite of evaluation tasks and a model",
        "trajectories/evaluations/test_authz_runs.py": "override: runs, authors and staff for cancel and rerun",
        "trajectories/recording/test_action_counts.py": "trajectories whose actions are counted",
        "trajectories/recording/test_media_access.py": "media of runs in each publication state",
        "trajectories/submissions/test_authz_submissions.py": "submissions, tokens and their authors",
    },
}


def fixture_names(path: Path) -> set[str]:
    """Names of the fixtures ``path`` defines (``@pytest.fixture`` or ``@fixture``, ``name=`` respected)."""
    names: set[str] = set()
    text = path.read_text()
    if "fixture" not in text:
        return names
    tree = ast.parse(text, filename=str(path))
    # fixtures live at module level or in test classes: no need to walk every expression of the file
    nodes = [*tree.body, *(n for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body)]
    for node in nodes:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call else decorator
            if not (isinstance(target, ast.Attribute) and target.attr == "fixture") and not (
                isinstance(target, ast.Name) and target.id == "fixture"
            ):
                continue
            renamed = [kw.value.value for kw in (call.keywords if call else []) if kw.arg == "name"]
            names.add(renamed[0] if renamed else node.name)
    return names


@functools.cache
def where_defined(root: Path = TESTS) -> dict[str, set[str]]:
    found = defaultdict(set)
    for path in sorted(root.rglob("*.py")):
        for name in fixture_names(path):
            found[name].add(path.relative_to(root).as_posix())
    return found


def test_no_fixture_is_defined_in_two_files_unless_listed_with_its_reason():
    found = where_defined()
    copies = {
        name: sorted(files - DELIBERATE.get(name, {}).keys())
        for name, files in found.items()
        if len(files) > 1 and files - DELIBERATE.get(name, {}).keys()
    }
    assert not copies, (
        "fixtures defined in more than one file (move them to the nearest common conftest.py, or list a "
        "deliberate override in DELIBERATE with its reason): "
        + "; ".join(f"{name} in {', '.join(files)}" for name, files in sorted(copies.items()))
    )


def test_every_listed_definition_is_still_there():
    found = where_defined()
    stale = [f"{name} in {file}" for name, files in DELIBERATE.items() for file in files if file not in found[name]]
    assert not stale, f"DELIBERATE lists definitions that are gone: {', '.join(stale)}"


def test_the_reader_finds_fixtures_as_pytest_names_them(tmp_path):
    (tmp_path / "test_a.py").write_text(
        "import pytest\nfrom pytest import fixture\n\n@pytest.fixture\ndef one(): pass\n\n"
        "@pytest.fixture(scope='module', name='two')\ndef _two(): pass\n\n@fixture\ndef three(): pass\n\n"
        "def helper(): pass\n"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "conftest.py").write_text("import pytest\n\n@pytest.fixture(autouse=True)\ndef one(): pass\n")
    assert fixture_names(tmp_path / "test_a.py") == {"one", "two", "three"}
    assert where_defined(tmp_path)["one"] == {"test_a.py", "sub/conftest.py"}
