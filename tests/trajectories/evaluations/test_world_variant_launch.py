"""Evaluations launched from the admin on a world variant: the form takes one variant or one per attempt,
each queued trajectory carries its variant, the fake guest's run records it and the run page says it;
bad values, a count that does not match the attempts and a backend running the released image are
refused with the reason before anything is queued."""

import html

import pytest
from django.urls import reverse

from leaderboard.models import Run
from tests.evaluation_data import LAUNCH, PLAN, form_data
from tests.html_text import visible_text
from trajectories.evaluations import lifecycle
from trajectories.evaluations.lifecycle import LaunchRefused, LaunchSpec
from trajectories.models import Trajectory
from trajectories.tasks import run_trajectory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quiet_settings")]


def test_a_run_launched_on_variant_3_says_so_on_its_run_page_and_in_the_player(admin_client, world, queued):
    response = admin_client.post(reverse(LAUNCH), form_data(world, tasks=[world["tasks"][0].pk], world_variants="3"))
    run = Run.objects.get()
    assert response.status_code == 302
    assert run.metadata["launch"]["world_variants"] == [3]
    (trajectory_id,) = queued
    assert run_trajectory.run(trajectory_id) == "done"
    trajectory = Trajectory.objects.get(pk=trajectory_id)
    assert trajectory.world_variant == 3 and trajectory.status == "finished"
    page = visible_text(admin_client.get(reverse("leaderboard:run_detail", args=[run.slug])).content.decode())
    assert "Ran on world variant 3" in page
    player = admin_client.get(reverse("trajectories:trajectory_player", args=[trajectory_id])).content.decode()
    assert "world variant 3" in visible_text(player)


def test_one_variant_per_attempt_and_reruns_keep_each_attempts_variant(world, queued):
    spec = LaunchSpec(suite=world["suite"], model=world["model"], agent_type="scripted", plan=PLAN,
                      tasks=[world["tasks"][0]], attempts=3, world_variants=[0, 4, 9])  # fmt: skip
    run = lifecycle.launch_run(spec)
    assert list(run.trajectories.order_by("attempt").values_list("attempt", "world_variant")) == [
        (0, 0),
        (1, 4),
        (2, 9),
    ]
    again = lifecycle.rerun(run, "all")
    assert list(again.trajectories.order_by("attempt").values_list("world_variant", flat=True)) == [0, 4, 9]


@pytest.mark.parametrize(
    ("backend", "variants", "attempts", "named"),
    [("qemu", [3], 1, "world variant 3: the qemu backend runs the released image"),
     ("remote", [0, 2], 2, "world variant 2: the remote backend drives a guest it did not build"),
     ("fake", [1, 2, 3], 2, "world variants 1, 2, 3: 3 given for 2 attempt(s) per task")],
)  # fmt: skip
def test_variants_a_launch_cannot_serve_are_refused_by_name(world, queued, backend, variants, attempts, named):
    spec = LaunchSpec(suite=world["suite"], model=world["model"], agent_type="scripted", plan=PLAN, backend=backend,
                      image="/nowhere.qcow2", attempts=attempts, world_variants=variants)  # fmt: skip
    with pytest.raises(LaunchRefused) as caught:
        lifecycle.launch_run(spec)
    assert any(problem.startswith(named) for problem in caught.value.problems), caught.value.problems
    assert not Run.objects.exists() and not queued


def test_the_form_names_a_bad_variant(admin_client, world, queued):
    page = admin_client.post(reverse(LAUNCH), form_data(world, world_variants="0,three")).content.decode()
    assert "world variant: 'three' (item 2) is not a world variant" in html.unescape(page)
    assert not Run.objects.exists() and not queued
