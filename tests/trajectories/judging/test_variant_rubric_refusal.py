"""Our judge never judges a world variant's trajectory in the canonical world's words: when the variant's
world cannot be made, its items are errors naming why (not failures) and no call is made; a trajectory on
the canonical world is judged as written without building anything."""

import pytest

from leaderboard.models import Model, Run
from seeding.world.rubric_templates import load_templates
from tests.board_data import traj
from tests.factories import make_suite
from tests.simulators import ProviderSimulator
from trajectories.judge_spec import JudgeSpec
from trajectories.judging import our_judge

pytestmark = [pytest.mark.django_db, pytest.mark.slow]  # the world builder is imported and refuses the folder

TASK = "preference_inference-f004"
GOOD = '{"reasoning": "Seen in step 1.", "cited_steps": [1], "verdict": "success"}'


def test_a_variant_whose_rubric_cannot_be_made_is_an_error_never_the_canonical_words(tmp_path, settings, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    variants = tmp_path / "variants"
    settings.MYPCBENCH_WORLD_VARIANTS_DIR = str(variants)
    blocked = variants / "world-2026-04-13-v3"  # a folder that is not a build: the builder refuses to replace it
    blocked.mkdir(parents=True)
    (blocked / "notes.txt").write_text("not a world")
    canonical = load_templates()[TASK]["items"][0]["canonical"]
    suite = make_suite([TASK], rubric=[{"criterion": "Opens HangryDash", "weight": 1.0},
                                       {"criterion": canonical, "weight": 1.0}])  # fmt: skip
    run = Run.objects.create(name="r", slug="r", suite=suite, model=Model.objects.create(slug="m", name="M"),
                             provenance="harness")  # fmt: skip
    task = suite.tasks.get()
    on_variant, on_canonical = traj(run, task, 1, world_variant=3), traj(run, task, 1, attempt=1)
    with ProviderSimulator(lambda request: GOOD) as sim:
        judge = our_judge.build_judge(JudgeSpec(provider="anthropic", base_url=sim.url), check_classifier=False)
        refused = our_judge.judge_trajectory(on_variant, judge)
        assert not sim.requests
        judged = our_judge.judge_trajectory(on_canonical, judge)
    assert [j.verdict for j in refused] == ["error", "error"]
    assert "the rubric of world variant 3 could not be made" in refused[0].explanation
    assert [j.verdict for j in judged] == ["success", "success"] and len(sim.requests) == 2
    assert canonical in " ".join(r.last_text for r in sim.requests)
    assert sorted(p.name for p in variants.iterdir()) == ["world-2026-04-13-v3"]  # nothing built for variant 0
