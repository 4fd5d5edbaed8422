"""Runs over world variants: ``--world-variant K`` (or one per attempt) is read and refused by name when
bad or when the backend cannot serve it, a fake-guest run records the variant in every bundle.json, and
the import reads it (a result folder written before variants existed reads as the canonical world)."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from harness.backends import make_env
from harness.results import WorldVariantError, parse_world_variants, read_task_dir, world_variant_of
from harness.run import main
from trajectories.models import Trajectory
from trajectories.recording.import_results import import_results

ROOT = Path(__file__).resolve().parents[2]
DEMO_SUITE = ROOT / "seeding" / "demo_suite.json"


def run_harness(*args) -> int:
    return main(["run", "--tasks", str(DEMO_SUITE), "--no-progress", *map(str, args)])


def test_world_variants_are_one_number_or_one_per_attempt():
    assert parse_world_variants("3") == [3]
    assert parse_world_variants(" 0, 3,7 ") == [0, 3, 7]
    assert parse_world_variants("0") == [0]


@pytest.mark.parametrize(
    ("text", "named"),
    [("", "empty"), ("-1", "'-1' (item 1)"), ("3,x", "'x' (item 2)"), ("0,,2", "'(nothing)' (item 2)"),
     ("1.5", "'1.5' (item 1)"), ("10000", "10000 (item 1) is above 9999")],
)  # fmt: skip
def test_bad_world_variants_are_refused_by_name(text, named):
    with pytest.raises(WorldVariantError) as caught:
        parse_world_variants(text)
    assert str(caught.value).startswith("--world-variant: ")
    assert named in str(caught.value)


def test_bad_world_variant_on_the_command_line_stops_before_anything_runs(tmp_path, capsys):
    out = tmp_path / "results"
    assert run_harness("--backend", "fake", "--world-variant", "2,b", "--out", out) == 2
    assert "--world-variant: 'b' (item 2) is not a world variant" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("backend", ["remote", "qemu", "docker"])
def test_backends_without_variant_worlds_refuse_k_above_0_by_name(backend):
    env = make_env(backend, url="http://127.0.0.1:9")
    assert env.world_variant_problem(0) == ""
    problem = env.world_variant_problem(3)
    assert problem.startswith(f"world variant 3: the {backend} backend ")
    with pytest.raises(ValueError, match="world variant 3: "):
        env.use_world_variant(3)


def test_the_local_guest_serves_variants_as_the_demo_apps_and_refuses_another_start_page(tmp_path, capsys):
    demo = make_env("local", start_url="hoolimail.html")
    assert demo.world_variant_problem(3) == ""
    demo.use_world_variant(3)
    assert demo.world_variant == 3
    make_env("local").use_world_variant(3)  # about:blank: the demo's index of variant 3
    shown = make_env("local", start_url="http://127.0.0.1:9/page")
    shown.use_world_variant(0)
    with pytest.raises(ValueError, match="world variant 3: the local backend serves a world variant as the demo apps"):
        shown.use_world_variant(3)
    out = tmp_path / "results"
    code = run_harness("--backend", "local", "--start-url", "http://127.0.0.1:9/page", "--world-variant", "0,3",
                       "--out", out)  # fmt: skip
    assert code == 2 and not out.exists()
    assert "--world-variant: world variant 3: the local backend serves" in capsys.readouterr().err


def test_the_released_image_backend_refuses_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "results"
    assert run_harness("--backend", "qemu", "--world-variant", "0,4", "--out", out) == 2
    err = capsys.readouterr().err
    assert "--world-variant: world variant 4: the qemu backend runs the released image" in err
    assert "canonical world (variant 0) only" in err
    assert not out.exists()


def test_a_fake_guest_run_records_its_variant(tmp_path, capsys):
    out = tmp_path / "results"
    assert run_harness("--backend", "fake", "--task", "demo-d001", "--agent", "dummy", "--world-variant", "3",
                       "--out", out) == 0  # fmt: skip
    bundle = json.loads((out / "demo-d001" / "bundle.json").read_text())
    assert bundle["world_variant"] == 3
    assert json.loads((out / "run.json").read_text())["world_variants"] == [3]
    assert read_task_dir(out / "demo-d001").world_variant == 3


def test_a_list_runs_one_attempt_per_variant(tmp_path, capsys):
    out = tmp_path / "results"
    assert run_harness("--backend", "fake", "--task", "demo-d001", "--agent", "dummy", "--world-variant", "0,7",
                       "--out", out) == 0  # fmt: skip
    assert "1 task(s): finished 2, done 2" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["attempt_1", "attempt_2", "run.json"]
    first = json.loads((out / "attempt_1" / "demo-d001" / "bundle.json").read_text())
    second = json.loads((out / "attempt_2" / "demo-d001" / "bundle.json").read_text())
    assert (first["world_variant"], second["world_variant"]) == (0, 7)


def test_results_without_the_field_read_as_the_canonical_world():
    assert world_variant_of({}) == 0
    assert world_variant_of({"world_variant": None}) == 0
    assert world_variant_of({"world_variant": 5}) == 5
    for bad in (-1, "3", True, 2.5):
        with pytest.raises(WorldVariantError, match="bundle.json: world_variant is"):
            world_variant_of({"world_variant": bad})


@pytest.mark.django_db
def test_import_stores_each_attempts_variant(tmp_path, capsys):
    out = tmp_path / "results"
    assert run_harness("--backend", "fake", "--task", "demo-d001", "--agent", "dummy", "--world-variant", "2,5",
                       "--out", out) == 0  # fmt: skip
    # A folder written before variants existed: the same run without the field.
    legacy = tmp_path / "legacy"
    assert run_harness("--backend", "fake", "--task", "demo-d001", "--agent", "dummy", "--out", legacy) == 0
    bundle_file = legacy / "demo-d001" / "bundle.json"
    data = json.loads(bundle_file.read_text())
    del data["world_variant"]
    bundle_file.write_text(json.dumps(data))

    call_command("import_tasks", str(DEMO_SUITE), "--suite", "MyPCBench demo", "--suite-version", "demo-1")
    summary = import_results(out, "Fake run over variants", model_name="dummy")
    stored = Trajectory.objects.filter(run=summary.run).order_by("attempt")
    assert [(t.attempt, t.world_variant) for t in stored] == [(0, 2), (1, 5)]
    old = import_results(legacy, "Fake run from before variants", model_name="dummy")
    assert [t.world_variant for t in Trajectory.objects.filter(run=old.run)] == [0]


def test_a_bad_variant_in_bundle_json_names_the_file(tmp_path, capsys):
    out = tmp_path / "results"
    assert run_harness("--backend", "fake", "--task", "demo-d001", "--agent", "dummy", "--out", out) == 0
    bundle_file = out / "demo-d001" / "bundle.json"
    bundle_file.write_text(json.dumps({**json.loads(bundle_file.read_text()), "world_variant": "three"}))
    with pytest.raises(ValueError, match="bundle.json: world_variant is 'three'"):
        read_task_dir(out / "demo-d001")
