"""The harness stays free of Django and the Django apps: import-linter's contract, plus a plain
AST scan of harness/ as a second guard that does not depend on import-linter's configuration."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "leaderboard", "trajectories", "mypcbench_site", "ninja", "celery")


def forbidden_imports(path: Path) -> list[str]:
    """`file:line module` for every import of a forbidden top-level package in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        for module in modules:
            if module.split(".")[0] in FORBIDDEN:
                found.append(f"{path.relative_to(path.parents[1])}:{node.lineno} {module}")
    return found


def test_import_linter_contracts_are_kept():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "The harness stays free of Django" in result.stdout
    assert "KEPT" in result.stdout and " 0 broken" in result.stdout


def test_harness_modules_import_nothing_from_django_or_the_apps():
    modules = sorted((ROOT / "harness").rglob("*.py"))
    assert modules, "harness/ has no modules"
    offenders = [hit for path in modules for hit in forbidden_imports(path)]
    assert offenders == [], "harness/ must not import Django or the apps:\n" + "\n".join(offenders)


def test_the_scan_catches_every_import_form(tmp_path):
    bad = tmp_path / "harness" / "agent.py"
    bad.parent.mkdir()
    bad.write_text(
        "import json\n"
        "import django\n"
        "from django.db import models\n"
        "import leaderboard.models as lm\n"
        "from trajectories import media\n"
        "from . import recorder\n"
        "def f():\n"
        "    from celery import shared_task\n"
    )
    hits = forbidden_imports(bad)
    assert [hit.split()[-1] for hit in hits] == [
        "django",
        "django.db",
        "leaderboard.models",
        "trajectories",
        "celery",
    ]
    assert hits[0].startswith("harness/agent.py:2 ")
