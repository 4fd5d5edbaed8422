"""Every test file in tests/browser/ is marked `browser` and every one in tests/services/ `services`, in
its module-level `pytestmark`, so `-m "not browser and not services"` (and bin/test --fast) never
launches Chromium or a worker. Read with ast: nothing is imported or collected."""

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]


def module_marks(path: Path) -> set[str]:
    """The names of the ``pytest.mark.<name>`` in the module's top-level ``pytestmark``."""
    names = set()
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if not any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets) or node.value is None:
            continue
        for sub in ast.walk(node.value):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "mark":
                names.add(sub.attr)
    return names


@pytest.mark.parametrize("folder", ["browser", "services"])
def test_every_file_of_the_folder_carries_its_marker(folder):
    files = sorted((TESTS / folder).glob("test_*.py"))
    assert files, f"no test files in tests/{folder}/"
    unmarked = [path.name for path in files if folder not in module_marks(path)]
    assert not unmarked, f"tests/{folder}/ files without pytestmark = pytest.mark.{folder}: {', '.join(unmarked)}"


def test_the_reader_sees_a_mark_in_a_list_and_alone(tmp_path):
    one = tmp_path / "test_one.py"
    one.write_text("import pytest\npytestmark = pytest.mark.browser\n")
    listed = tmp_path / "test_listed.py"
    listed.write_text("import pytest\npytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]\n")
    none = tmp_path / "test_none.py"
    none.write_text("import pytest\n\n@pytest.mark.browser\ndef test_x():\n    pass\n")
    assert module_marks(one) == {"browser"}
    assert module_marks(listed) == {"services", "django_db"}
    assert module_marks(none) == set()
