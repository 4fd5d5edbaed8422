"""Tests that read ../shared/upstream skip on a user's clone but fail in CI when the files are missing
(tests/conftest.py need_upstream, used by every such test)."""

import pytest

from tests.conftest import need_upstream


def test_missing_upstream_files_skip_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("MYPCBENCH_UPSTREAM_DIR", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no-such-file.json"):
        need_upstream("no-such-file.json")


@pytest.mark.parametrize("value", ["true", "1", "yes"])
def test_missing_upstream_files_fail_in_ci(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    monkeypatch.delenv("MYPCBENCH_UPSTREAM_DIR", raising=False)
    with pytest.raises(pytest.fail.Exception, match="CI must have the upstream files"):
        need_upstream("no-such-file.json")


def test_a_folder_holding_the_files_is_found(monkeypatch, tmp_path):
    (tmp_path / "only-here").mkdir()
    (tmp_path / "only-here" / "marker.json").write_text("{}")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("MYPCBENCH_UPSTREAM_DIR", str(tmp_path))
    assert need_upstream("only-here/marker.json") == tmp_path
