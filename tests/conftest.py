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


@pytest.fixture
def clock_mid_hour(monkeypatch):
    """Django's clock stopped at half past the current hour, so a test of the per-clock-hour rate
    limits never sees its window turn over between two requests."""

    from django.utils import timezone

    stopped = timezone.now().replace(minute=30, second=0, microsecond=0)
    monkeypatch.setattr(timezone, "now", lambda: stopped)
    return stopped
