"""A run whose attempts span world variants shows, on the leaderboard, its run page, the API and the CSV/JSON
exports, its one-attempt Perfect % per variant and the variant-robust share (worked out by hand below); a run
whose attempts all ran on one variant shows none of it."""

import csv
import io

import pytest

from leaderboard.models import JudgeConfig, Model, Run, Suite
from tests.board_data import judge, traj
from tests.catalog_data import add_rubric, make_task
from tests.html_text import visible_text

pytestmark = pytest.mark.django_db

S, F = "success", "failure"


@pytest.fixture
def variant_runs():
    """Two tasks of one item. Spread run, attempt 0 on variant 0 and attempt 1 on variant 3:
    t1 S / S, t2 S / F -> variant 0: 2 of 2 perfect (100.0), variant 3: 1 of 2 (50.0); robust: t1 only, 1 of 2.
    Flat run: both attempts on variant 0."""
    suite = Suite.objects.create(name="Variants", version="v1", slug="variants")
    tasks = [make_task(suite, f"v-t{i}", "personal_lookup", [], position=i) for i in (1, 2)]
    items = [add_rubric(t, [1]) for t in tasks]
    ours, _ = JudgeConfig.objects.get_or_create(name="our judge (variants)", defaults={"origin": "ours"})
    model = Model.objects.create(slug="gamma", name="Gamma")
    runs = {}
    for slug, variants in (("spread", (0, 3)), ("flat", (0, 0))):
        runs[slug] = Run.objects.create(name=slug, slug=slug, suite=suite, model=model, provenance="harness",
                                        publication="published", judge_config=ours, attempts_per_task=2)  # fmt: skip
        for task, task_items, verdicts in zip(tasks, items, ((S, S), (S, F)), strict=True):
            for attempt, (variant, verdict) in enumerate(zip(variants, verdicts, strict=True)):
                t = traj(runs[slug], task, 5, attempt=attempt, world_variant=variant)
                judge(t, task_items, [verdict], ours)
    return runs


def test_the_board_run_page_api_and_exports_show_the_figures_over_variants(client, variant_runs):
    board = visible_text(client.get("/leaderboard/?suite=variants").content.decode())
    assert "variant-robust 50.0% (1 of 2)" in board
    assert "one attempt: variant 0 100.0% · variant 3 50.0%" in board
    assert board.count("variant-robust") == 1  # the flat run has none
    page = visible_text(client.get("/runs/spread/").content.decode())
    assert "Variant-robust: 50.0% of tasks (1 of 2) were solved on every variant tried" in page
    assert "0 (canonical) 2 on 2 tasks 100.0" in page and "3 2 on 2 tasks 50.0" in page
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
