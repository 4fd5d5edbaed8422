"""Shared fixtures: upstream reference data (skipped when absent) and an isolated media folder."""

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
UPSTREAM = SHARED / "upstream"
REFERENCE = SHARED / "reference"


@pytest.fixture
def upstream_dir():
    """../shared/upstream, the real upstream data files; tests using it skip when it is absent."""
    if not (UPSTREAM / "all_tasks_with_grading.json").exists():
        pytest.skip("../shared/upstream is not present on this machine")
    return UPSTREAM


@pytest.fixture(autouse=True)
def isolated_media(settings, tmp_path):
    """Every test writes media into its own temporary folder."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.MEDIA_ROOT.mkdir()
    return settings.MEDIA_ROOT
