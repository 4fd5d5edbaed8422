"""The contamination scan's counts where a figure is a number: the leaderboard's CSV and JSON downloads
(a run's hits over its trajectories), the run API (per trajectory, in total, and each flag with a link to
its step in the player); the methodology page lists the patterns in force; ``manage.py check`` refuses
bad patterns naming them."""

import csv
import io

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from tests.html_text import visible_text
from trajectories.models import Step, Trajectory
from trajectories.recording import contamination

pytestmark = pytest.mark.django_db


def leak(trajectory: Trajectory, index: int, text: str) -> None:
    Step.objects.create(
        trajectory=trajectory, index=index, turn=index, tool="computer", action={"type": "type", "text": text}
    )
    contamination.record_scan(trajectory)


@pytest.fixture
def leaky_board(board):
    """The hand-built board with run A's first two trajectories flagged: 2 hits and 1 hit."""
    first, second = Trajectory.objects.filter(run__slug="run-a").order_by("pk")[:2]
    leak(first, 901, "curl https://api.github.com/repos/ljang0/MyPCBench/contents/all_tasks_with_grading.json")
    leak(second, 902, "https://arxiv.org/abs/2606.16748")
    return first, second


def test_the_downloads_count_each_runs_hits(client, leaky_board):
    exported = list(csv.DictReader(io.StringIO(client.get("/leaderboard/?format=csv").content.decode())))
    hits = {(e["run"], e["kind"]): e["contamination_hits"] for e in exported}
    assert hits[("run-a", "graded")] == "3"  # repository + task file on one step, the paper on another
    assert hits[("run-b", "graded")] == "0"
    assert hits[("reported-alpha", "reported")] == ""  # no trajectories: not a zero
    rows = client.get("/leaderboard/?format=json").json()["rows"]
    assert {(r["run"], r["contamination_hits"]) for r in rows if r["kind"] == "graded"} == {
        ("run-a", 3),
        ("run-b", 0),
    }


def test_the_run_api_gives_the_hits_and_a_link_to_each_step(client, leaky_board):
    first, second = leaky_board
    body = client.get("/api/runs/run-a").json()
    assert body["contamination_hits"] == 3
    per_trajectory = {t["id"]: t["contamination_hits"] for t in body["trajectories"]}
    assert per_trajectory[first.pk] == 2 and per_trajectory[second.pk] == 1
    assert sum(per_trajectory.values()) == 3
    flags = sorted((f["trajectory_id"], f["step"], f["kind"], f["player_url"]) for f in body["contamination_flags"])
    assert flags == [
        (first.pk, 901, "repository", f"http://testserver/trajectories/{first.pk}/play/?step=901"),
        (first.pk, 901, "task file", f"http://testserver/trajectories/{first.pk}/play/?step=901"),
        (second.pk, 902, "paper", f"http://testserver/trajectories/{second.pk}/play/?step=902"),
    ]
    assert client.get("/api/runs/run-b").json()["contamination_hits"] == 0


def test_the_methodology_page_lists_the_patterns_in_force(client, settings):
    settings.CONTAMINATION_SITE_HOST = "bench.example.org"
    page = visible_text(client.get("/methodology/"))
    assert "Contamination flags" in page
    assert "MyPCBench repository (the benchmark's repository)" in page
    assert "this site (bench.example.org) (this site)" in page
    assert f"{contamination.RUBRIC_RUN_WORDS} words in a row from the task's rubric" in page


def test_bad_patterns_are_refused_by_the_checks_and_the_page_still_answers(client, settings):
    settings.CONTAMINATION_PATTERNS = [{"name": "repo", "pattern": "ljang0/(MyPCBench"}]
    with pytest.raises(
        SystemCheckError, match=r"CONTAMINATION_PATTERNS\[0\]: pattern 'ljang0/\(MyPCBench' is not a valid"
    ):
        call_command("check")
    response = client.get("/methodology/")
    assert response.status_code == 200
    assert "The site's contamination patterns are misconfigured: CONTAMINATION_PATTERNS[0]" in visible_text(response)
