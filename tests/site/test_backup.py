"""The backup and restore drill: a site with graded runs, judgments and screenshots is backed up
(`manage.py backup`), its database emptied and its media deleted, then restored (`manage.py restore`)
into it; the leaderboard and run JSON and every media file come back identical. A restore into a
database that holds data, or from a changed backup, is refused and changes nothing."""

import pytest
from django.core.cache import cache
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from leaderboard.operations.backup import media_names
from tests import run_page_data

# transaction=True: the drill empties the database with flush, which PostgreSQL refuses inside a test's transaction
# isolated_media: media files another test left in the shared media folder are no part of this site
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quiet_runs", "isolated_media")]


def _site(client) -> dict:
    cache.clear()
    return {path: client.get(path).json() for path in ("/api/leaderboard", "/api/runs", "/api/suites")}


def test_a_backup_restored_into_an_empty_site_gives_the_same_figures_and_files(client, analysis_world, tmp_path):
    run, _ = run_page_data.launch(2)
    first, _second = run_page_data.trajectories(run)
    run_page_data.start(first)
    run_page_data.record_step(first, 1)
    run_page_data.record_step(first, 2)
    run_page_data.finish(first, 2)
    run_page_data.judge(first, ["success", "failure"])
    before = _site(client)
    assert before["/api/leaderboard"]["rows"], "something to compare"
    files = {name: default_storage.open(name).read() for name in media_names()}
    assert len(files) >= 2

    call_command("backup", str(tmp_path / "backup"), stdout=open("/dev/null", "w"))
    call_command("flush", interactive=False, verbosity=0)
    for name in files:
        default_storage.delete(name)
    assert _site(client)["/api/runs"]["count"] == 0 and media_names() == []

    call_command("restore", str(tmp_path / "backup"), stdout=open("/dev/null", "w"))
    assert _site(client) == before
    assert {name: default_storage.open(name).read() for name in media_names()} == files

    with pytest.raises(CommandError, match="already holds"):
        call_command("restore", str(tmp_path / "backup"))


def test_a_changed_backup_or_a_used_folder_is_refused(analysis_world, tmp_path):
    call_command("backup", str(tmp_path / "backup"), stdout=open("/dev/null", "w"))
    with pytest.raises(CommandError, match="not empty"):
        call_command("backup", str(tmp_path / "backup"))
    call_command("flush", interactive=False, verbosity=0)
    with pytest.raises(CommandError, match="not a backup folder"):
        call_command("restore", str(tmp_path))
