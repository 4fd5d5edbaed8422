"""A run launched from the admin on world variant 3 is judged with variant 3's rubric, end to end: the admin
launch, the fake guest, our judge against the provider simulator. The task is MyPCBench's
preference_inference-f004, whose rubric item 2 names the top restaurant (the one rubric item of the 184
tasks that names a world value that varies across variants 0..3); a second attempt on variant 2, where
another restaurant is on top, shows the words really change. The values are read from each variant's
database with a query written here."""

import sqlite3

import pytest
from django.urls import reverse

from leaderboard.models import RubricItem
from seeding.world.apps import db_path
from seeding.world.rubric_templates import variant_world
from tests.catalog_data import make_task
from tests.evaluation_data import LAUNCH, form_data
from tests.html_text import visible_text
from tests.simulators import ProviderSimulator
from trajectories.judge_spec import JudgeSpec
from trajectories.judging import our_judge, variant_rubric
from trajectories.models import Judgment, Trajectory
from trajectories.tasks import run_trajectory

pytestmark = [pytest.mark.django_db, pytest.mark.slow, pytest.mark.usefixtures("quiet_settings")]  # two builds

TASK = "preference_inference-f004"
RUBRIC = [
    "Agent opens HangryDash and reads Michael's live order history",
    "Agent identifies Cooper's Seafood House as Michael's top HangryDash delivery restaurant based on the live order "
    "history counts",
]
TOP = (  # the restaurants with the most TableFind reservations, as the key's first fact ranks them
    "WITH n AS (SELECT restaurant_id, COUNT(*) AS c FROM reservations GROUP BY restaurant_id) "
    "SELECT r.name FROM n JOIN restaurants r ON r.id = n.restaurant_id WHERE n.c = (SELECT MAX(c) FROM n)"
)
GOOD = '{"reasoning": "Seen in step 1.", "cited_steps": [1], "verdict": "success"}'


@pytest.fixture(scope="module")
def variant_rubric_worlds(tmp_path_factory):
    cache = tmp_path_factory.mktemp("world-variants")
    for variant in (2, 3):
        variant_world(cache, variant, variant_rubric.SHIPPED_SPEC, variant_rubric.DEMO_ANCHOR)
    return cache


def _top(cache, variant) -> set[str]:
    con = sqlite3.connect(f"file:{cache / f'world-2026-04-13-v{variant}' / db_path('tablefind')}?mode=ro", uri=True)
    try:
        return {name for (name,) in con.execute(TOP)}
    finally:
        con.close()


def test_a_run_on_variant_3_is_judged_with_variant_3s_rubric(
    admin_client, world, queued, settings, variant_rubric_worlds, monkeypatch
):
    settings.MYPCBENCH_WORLD_VARIANTS_DIR = str(variant_rubric_worlds)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    task = make_task(world["suite"], TASK, "preference_inference", [], position=9)
    for position, text in enumerate(RUBRIC, 1):
        RubricItem.objects.create(task=task, position=position, rubric_id=f"R{position}", criterion=text, weight=1.0,
                                  normalised_weight=0.5, content_hash=f"h{position}")  # fmt: skip
    admin_client.post(reverse(LAUNCH), form_data(world, tasks=[task.pk], attempts=2, world_variants="3,2"))
    for trajectory_id in queued:
        assert run_trajectory.run(trajectory_id) == "done"
    asked = {}
    for trajectory in Trajectory.objects.select_related("task", "run").order_by("attempt"):
        with ProviderSimulator(lambda request: GOOD) as sim:
            judge = our_judge.build_judge(JudgeSpec(provider="anthropic", base_url=sim.url), check_classifier=False)
            our_judge.judge_trajectory(trajectory, judge)
        asked[trajectory.world_variant] = " ".join(r.last_text for r in sim.requests)
    third, second = _top(variant_rubric_worlds, 3), _top(variant_rubric_worlds, 2)
    assert any(f"Agent identifies {name} as Michael's top" in asked[3] for name in third)
    assert any(f"Agent identifies {name} as Michael's top" in asked[2] for name in second)
    assert "Cooper's Seafood House as Michael's top" not in asked[2]  # variant 2 names the other place on top
    assert RUBRIC[0] in asked[2] and RUBRIC[0] in asked[3]  # an item naming no world value is unchanged
    assert sorted(Judgment.objects.values_list("world_variant", flat=True)) == [2, 2, 3, 3]
    second_words = Judgment.objects.get(trajectory__world_variant=2, rubric_item__position=2).judged_criterion
    assert second_words.startswith("Agent identifies") and second_words in asked[2]
    assert Judgment.objects.get(trajectory__world_variant=2, rubric_item__position=1).judged_criterion == ""
    assert RubricItem.objects.get(task=task, position=2).criterion == RUBRIC[1]  # the stored rubric is untouched
    run_page = visible_text(
        admin_client.get(reverse("leaderboard:run_detail", args=[task.suite.runs.get().slug])).content.decode()
    )
    assert "world variants 2 and 3" in run_page
    player = admin_client.get(reverse("trajectories:trajectory_player", args=[Trajectory.objects.get(attempt=0).pk]))
    assert "world variant 3" in visible_text(player.content.decode())
