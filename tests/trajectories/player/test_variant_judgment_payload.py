"""The player shows the words the judge read: an item judged as a world variant words it carries those words,
the variant and the item as written; an item judged as written carries no second text."""

import pytest

from leaderboard.models import JudgeConfig, Model, Run, Suite
from tests.board_data import traj
from tests.catalog_data import add_rubric, make_task
from trajectories.models import Judgment
from trajectories.player.payloads import judges_payload

pytestmark = pytest.mark.django_db


def test_an_item_judged_in_a_variants_words_shows_them_beside_the_item_as_written():
    suite = Suite.objects.create(name="P", version="v1", slug="p")
    task = make_task(suite, "p-t1", "personal_lookup", [], position=1)
    first, second = add_rubric(task, [1, 1])
    model = Model.objects.create(slug="m", name="M")
    run = Run.objects.create(name="r", slug="r", suite=suite, model=model, provenance="harness")
    trajectory = traj(run, task, 2, world_variant=3)
    ours = JudgeConfig.objects.create(name="ours (payload)", origin="ours")
    Judgment.objects.create(trajectory=trajectory, rubric_item=first, judge=ours, verdict="success", world_variant=3)
    Judgment.objects.create(trajectory=trajectory, rubric_item=second, judge=ours, verdict="failure", world_variant=3,
                            judged_criterion="Names Sweetgreen as the top place")  # fmt: skip
    (judge,) = judges_payload(trajectory)
    one, two = sorted(judge["items"], key=lambda item: item["position"])
    assert (one["criterion"], one["written_criterion"]) == (first.criterion, "")
    assert two["criterion"] == "Names Sweetgreen as the top place"
    assert (two["written_criterion"], two["rubric_world_variant"]) == (second.criterion, 3)
