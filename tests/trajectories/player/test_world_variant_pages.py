"""The world variant each trajectory ran on, where people and programs read runs: the run page (a
"World" line, and a column when the attempts span variants), the trajectory page and the player, the
run's progress rows, the run and trajectory API, and the player's payload. A trajectory that does not
say ran on the canonical world, and the pages say so in plain words."""

import pytest
from django.core.cache import cache
from django.urls import reverse

from tests.factories import make_run, make_suite
from tests.html_text import visible_text
from trajectories.evaluations import run_table
from trajectories.models import Trajectory
from trajectories.player.payloads import trajectory_payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def world_variant_run():
    """A published run whose task has three attempts on world variants 0, 3 and 7."""
    cache.clear()
    suite = make_suite(["retrieval-f016"])
    run = make_run(suite, slug="variant-run", name="Variant run", publication="published")
    task = suite.tasks.get()
    for attempt, variant in enumerate((0, 3, 7)):
        Trajectory.objects.create(run=run, task=task, attempt=attempt, world_variant=variant, n_steps=1)
    return run


def _page_text(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return visible_text(response.content.decode())


def test_the_run_page_names_every_variant_and_gives_each_attempts(client, world_variant_run):
    text = _page_text(client, reverse("leaderboard:run_detail", args=[world_variant_run.slug]))
    assert "Ran on world variants 0, 3 and 7" in text
    assert "variant 0 is the canonical world" in text
    html = client.get(reverse("leaderboard:run_detail", args=[world_variant_run.slug])).content.decode()
    assert html.count('data-cell="world_variant"') == 3
    cells = [row["world_variant"] for row in run_table.trajectory_rows(world_variant_run)]
    assert cells == [0, 3, 7]


def test_a_run_on_the_canonical_world_says_so_without_a_column(client):
    cache.clear()
    suite = make_suite(["retrieval-f016"])
    run = make_run(suite, slug="canonical-run", publication="published")
    Trajectory.objects.create(run=run, task=suite.tasks.get(), n_steps=1)
    url = reverse("leaderboard:run_detail", args=[run.slug])
    assert "Ran on the canonical world (variant 0)" in _page_text(client, url)
    assert 'data-cell="world_variant"' not in client.get(url).content.decode()


def test_the_trajectory_page_and_player_show_its_variant(client, world_variant_run):
    third = Trajectory.objects.get(run=world_variant_run, attempt=2)
    first = Trajectory.objects.get(run=world_variant_run, attempt=0)
    assert "World world variant 7" in _page_text(client, reverse("trajectories:trajectory_detail", args=[third.pk]))
    assert "canonical world (variant 0)" in _page_text(
        client, reverse("trajectories:trajectory_detail", args=[first.pk])
    )
    assert "world variant 7" in _page_text(client, reverse("trajectories:trajectory_player", args=[third.pk]))
    assert "world variant" not in _page_text(client, reverse("trajectories:trajectory_player", args=[first.pk]))
    assert trajectory_payload(third)["world_variant"] == 7


def test_the_api_gives_each_trajectorys_variant_and_the_runs_set(client, world_variant_run):
    run = client.get(f"/api/runs/{world_variant_run.slug}").json()
    assert run["world_variants"] == [0, 3, 7]
    assert [t["world_variant"] for t in run["trajectories"]] == [0, 3, 7]
    third = Trajectory.objects.get(run=world_variant_run, attempt=2)
    assert client.get(f"/api/trajectories/{third.pk}").json()["world_variant"] == 7
