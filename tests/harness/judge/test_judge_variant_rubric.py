"""The offline judge given a world variant's built world (--variant-world) judges a trajectory run on that
variant with the variant's rubric: the item naming the top restaurant names that world's, the other items are
sent as written, the item file records the variant; a trajectory on a variant whose world was not given is a
judge error naming it. The "world" here is a folder holding the one database the task's answer key reads."""

import json
import sqlite3

from harness.judge.cli import ITEMS_FILE, VariantRubrics, judge_folder, main
from seeding.world.rubric_templates import load_templates
from tests.factories import write_task_dir
from tests.harness.judge.test_judge import GOOD, make_judge
from tests.simulators import ProviderSimulator

TASK = "preference_inference-f004"


def _world(folder, variant, top):
    """A world whose TableFind holds three reservations at ``top`` and one at Benihana."""
    (folder / "apps").mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"anchor": "2026-04-13", "variant": variant, "files": {}}))
    con = sqlite3.connect(folder / "apps" / "tablefind.sqlite")
    con.execute("CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("CREATE TABLE reservations (id INTEGER PRIMARY KEY, restaurant_id INTEGER)")
    con.executemany("INSERT INTO restaurants VALUES (?, ?)", [(1, "Benihana"), (2, top)])
    con.executemany("INSERT INTO reservations VALUES (?, ?)", [(1, 1), (2, 2), (3, 2), (4, 2)])
    con.commit()
    con.close()
    return folder


def _task(root, variant):
    canonical = load_templates()[TASK]["items"][0]["canonical"]
    rubric = [{"criterion": "Opens HangryDash", "weight": 0.5}, {"criterion": canonical, "weight": 0.5}]
    task_dir = write_task_dir(root, TASK, rubric=rubric)
    (task_dir / "bundle.json").write_text(json.dumps({"world_variant": variant}))
    return task_dir


def test_a_trajectory_on_variant_3_is_judged_with_variant_3s_rubric(tmp_path):
    task_dir = _task(tmp_path / "results", 3)
    variants = VariantRubrics([_world(tmp_path / "world-3", 3, "Sweetgreen")])
    with ProviderSimulator(lambda request: GOOD) as sim:
        summary = judge_folder(tmp_path / "results", make_judge(sim, "anthropic"), variants=variants)
    sent = " ".join(r.last_text for r in sim.requests)
    assert summary["graded"] == 1
    assert "Agent identifies Sweetgreen as Michael's top HangryDash delivery restaurant" in sent
    assert "Cooper's Seafood House" not in sent and "Opens HangryDash" in sent
    items = json.loads((task_dir / ITEMS_FILE).read_text())
    assert items["world_variant"] == 3 and items["items"][1]["criterion"].startswith("Agent identifies Sweetgreen")


def test_a_variant_whose_world_was_not_given_is_a_judge_error_naming_it(tmp_path, capsys):
    _task(tmp_path / "results", 5)
    world = _world(tmp_path / "world-3", 3, "Sweetgreen")
    with ProviderSimulator(lambda request: GOOD) as sim:
        summary = judge_folder(tmp_path / "results", make_judge(sim, "anthropic"), variants=VariantRubrics([world]))
    assert summary["judge_errors"] == 1 and not sim.requests
    assert "world variant 5: no --variant-world of that variant given" in json.dumps(summary)
    assert main([str(tmp_path / "results"), "--variant-world", str(tmp_path / "nowhere")]) == 2
    assert "--variant-world" in capsys.readouterr().err
