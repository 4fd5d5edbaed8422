"""Run pages and the leaderboard show a run's Proactivity, Completeness and turns (with intervals) when it
recorded sessions, and who played the user beside them; runs without sessions show nothing of it.
Figures of the hand-built run (tests/session_data.py): Proc 1/3, Comp 3/8, 2.5 turns."""

import pytest
from django.urls import reverse

from tests.html_text import visible_text
from tests.session_data import import_hand_run

pytestmark = pytest.mark.django_db


def test_the_run_page_shows_proc_comp_and_turns_with_the_user_simulator(client, tmp_path):
    run = import_hand_run(tmp_path)
    text = visible_text(client.get(reverse("leaderboard:run_detail", args=[run.slug])))
    assert "Sessions" in text
    assert "Proactivity % 33.3 [" in text  # 1/3
    assert "Completeness % 37.5 [" in text  # 3/8
    assert "Turns 2.5 [" in text
    assert "User played by rules (prompt mypc-user-rules-1)" in text
    assert "2 sessions; intents ended 1 completed, 1 inferred, 2 provided, 1 still open." in text
    assert "1 session hit the turn limit." in text
    assert "Completeness is 4.2 points above Proactivity" in text


def test_the_leaderboard_has_a_sessions_column_for_runs_with_sessions(client, tmp_path):
    run = import_hand_run(tmp_path)
    page = client.get(reverse("leaderboard:board") + f"?suite={run.suite.slug}")
    text = visible_text(page)
    assert "Sessions: Proc · Comp · turns" in text
    assert "Proc 33.3 [" in text and "Comp 37.5 [" in text and "turns 2.5 [" in text
    assert "2 sessions · user: rules (prompt mypc-user-rules-1)" in text


def test_a_run_without_sessions_shows_no_session_figures(client, tmp_path):
    from tests.factories import make_suite, write_task_dir
    from trajectories.recording.import_results import import_results

    suite = make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "plain", "retrieval-f016", full_judge=[True, True, False])
    run = import_results(tmp_path / "plain", "plain run", publish=True).run
    assert "Proactivity" not in visible_text(client.get(reverse("leaderboard:run_detail", args=[run.slug])))
    board = visible_text(client.get(reverse("leaderboard:board") + f"?suite={suite.slug}"))
    assert "Sessions: Proc" not in board


def test_the_methodology_page_says_where_the_session_figures_are_shown(client):
    text = visible_text(client.get(reverse("leaderboard:methodology")))
    assert 'the leaderboard adds a "Sessions" column' in text
    assert "plots each run's Proactivity against its Completeness" in text


def test_the_leaderboards_csv_and_json_carry_the_session_figures(client, tmp_path):
    import csv
    import io

    run = import_hand_run(tmp_path)
    url = reverse("leaderboard:board") + f"?suite={run.suite.slug}"
    rows = client.get(url + "&format=json").json()["rows"]
    row = next(r for r in rows if r["run"] == run.slug)
    assert row["sessions"] == 2 and row["proactivity_pct"] == 33.3 and row["completeness_pct"] == 37.5
    assert row["turns"] == 2.5 and row["turns_low"] <= 2.5 <= row["turns_high"]
    assert row["proactivity_low"] <= 33.3 <= row["proactivity_high"]
    assert row["user_simulator"] == "rules (prompt mypc-user-rules-1)"
    table = list(csv.DictReader(io.StringIO(client.get(url + "&format=csv").content.decode())))
    line = next(r for r in table if r["run"] == run.slug)
    assert (line["proactivity_pct"], line["completeness_pct"], line["turns"]) == ("33.3", "37.5", "2.5")
