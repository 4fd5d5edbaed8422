"""A run whose attempts span world variants shows, on the leaderboard, its run page, the API and the CSV/JSON
exports, its one-attempt Perfect % per variant and the variant-robust share (worked out by hand below); a run
whose attempts all ran on one variant shows none of it."""

import csv
import io

import pytest

from tests.board_data import build_variant_runs
from tests.html_text import visible_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def variant_runs():
    return build_variant_runs()


def test_the_board_run_page_api_and_exports_show_the_figures_over_variants(client, variant_runs):
    board = visible_text(client.get("/leaderboard/?suite=variants").content.decode())
    assert "variant-robust 50.0% (1 of 2)" in board
    assert "one attempt: variant 0 100.0% · variant 3 50.0%" in board
    assert board.count("variant-robust") == 1  # the flat run has none
    page = visible_text(client.get("/runs/spread/").content.decode())
    assert "Variant-robust: 50.0% of tasks (1 of 2) were solved on every variant tried" in page
    assert "0 (canonical) 2 attempts 100.0" in page and "3 2 attempts 50.0" in page
    assert "Over world variants" not in visible_text(client.get("/runs/flat/").content.decode())
    rows = {r["run"]: r for r in client.get("/api/leaderboard?suite=variants").json()["rows"]}
    assert rows["spread"]["world_variants"]["variant_robust_pct"] == 50.0
    assert [v["perfect_pct"] for v in rows["spread"]["world_variants"]["per_variant"]] == [100.0, 50.0]
    assert rows["flat"]["world_variants"] is None
    exported = {
        r["run"]: r
        for r in csv.DictReader(io.StringIO(client.get("/leaderboard/?suite=variants&format=csv").content.decode()))
    }
    assert exported["spread"]["per_variant_perfect"] == "0: 100.0; 3: 50.0"
    assert exported["spread"]["variant_robust_pct"] == "50.0" and exported["flat"]["variant_robust_pct"] == ""
    as_json = {r["run"]: r for r in client.get("/leaderboard/?suite=variants&format=json").json()["rows"]}
    assert as_json["spread"]["variant_robust_solved"] == 1 and as_json["spread"]["variant_robust_tasks"] == 2
