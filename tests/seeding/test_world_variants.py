"""World variants on a small persona of our own (two builds of about a second each): variant 0 is the
canonical world, byte for byte; variant K redraws surface facts (codes, fares, times of day) and keeps the
story (people, events, their dates and the spec's own amounts and codes); bad variants are refused by name.
The two tests that build a third world are marked slow; the rest read the fixture's two builds."""

import datetime as dt
import json
import sqlite3

import pytest

from seeding.__main__ import main
from seeding.world.build import build
from seeding.world.check import check, render_figures
from seeding.world.core import BuildError
from tests.seeding.test_seeding_world import SMALL

ANCHOR = dt.date(2026, 4, 13)


@pytest.fixture(scope="module")
def pat_variants(tmp_path_factory) -> dict:
    """The small persona built as variant 0 (no variant given) and variant 1."""
    base = tmp_path_factory.mktemp("variants")
    persona = base / "pat_tester.json"
    persona.write_text(json.dumps(SMALL))
    built = {"persona": persona}
    built[0] = base / "k0"
    build(persona, built[0], ANCHOR)
    built[1] = base / "k1"
    build(persona, built[1], ANCHOR, variant=1)
    return built


def _rows(world, app: str, sql: str) -> list[tuple]:
    con = sqlite3.connect(world / "apps" / f"{app}.sqlite")
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.mark.slow  # a third build
def test_variant_0_is_the_canonical_world_byte_for_byte(pat_variants, tmp_path):
    again = tmp_path / "k0-flag"
    persona = str(pat_variants["persona"])
    assert main(["build", "--persona", persona, "--out", str(again), "--anchor", "2026-04-13", "--variant", "0"]) == 0
    assert (again / "manifest.json").read_bytes() == (pat_variants[0] / "manifest.json").read_bytes()
    assert "variant" not in json.loads((again / "manifest.json").read_text())


@pytest.mark.slow  # a third build
def test_a_variant_is_deterministic_and_named_in_its_manifest(pat_variants, tmp_path):
    again = tmp_path / "k1-again"
    build(pat_variants["persona"], again, ANCHOR, variant=1)
    assert (again / "manifest.json").read_bytes() == (pat_variants[1] / "manifest.json").read_bytes()
    manifest = json.loads((again / "manifest.json").read_text())
    assert manifest["variant"] == 1
    canonical = json.loads((pat_variants[0] / "manifest.json").read_text())
    assert manifest["files"]["apps/etaxi.sqlite"]["sha256"] != canonical["files"]["apps/etaxi.sqlite"]["sha256"]


def test_a_variant_redraws_ride_codes_fares_and_times_but_not_the_commute_days(pat_variants):
    sql = "SELECT ride_code, requested_at, fare FROM rides WHERE provenance = 'routines.commute' ORDER BY id"
    canonical, redrawn = (_rows(pat_variants[k], "etaxi", sql) for k in (0, 1))
    assert len(canonical) == len(redrawn) >= 5
    # The spec's commute days (Monday and Thursday) are story: the same days in both worlds.
    assert [r[1][:10] for r in canonical] == [r[1][:10] for r in redrawn]
    assert {dt.date.fromisoformat(r[1][:10]).weekday() for r in redrawn} == {0, 3}
    # Codes, fares and times of day are surface: every code differs, and most fares and times do.
    assert not {r[0] for r in canonical} & {r[0] for r in redrawn}
    assert sum(a[2] != b[2] for a, b in zip(canonical, redrawn, strict=True)) > len(canonical) // 2
    assert sum(a[1] != b[1] for a, b in zip(canonical, redrawn, strict=True)) > len(canonical) // 2
    # Still a morning commute at a taxi fare.
    assert all("07:00:00" <= r[1][11:] <= "10:00:00" and 5 < r[2] < 40 for r in redrawn)


def test_a_variant_keeps_people_events_and_the_specs_own_facts(pat_variants):
    people = "SELECT name, email, relationship FROM users ORDER BY id"
    assert _rows(pat_variants[0], "buzzchat", people) == _rows(pat_variants[1], "buzzchat", people)
    assert [r[1] for r in _rows(pat_variants[1], "buzzchat", people)] == [
        "pat@paper.example",
        "robin@paper.example",
        "sam@home.example",
    ]
    hotel = "SELECT confirmation, check_in, check_out, total, cancellation_deadline FROM bookings"
    booking = ("HI-22222", "2026-05-01", "2026-05-03", 300.0, "2026-04-25")
    assert _rows(pat_variants[0], "cheskepdia", hotel) == _rows(pat_variants[1], "cheskepdia", hotel) == [booking]
    events = [json.loads((pat_variants[k] / "events.json").read_text()) for k in (0, 1)]
    story = ("id", "kind", "title", "date", "time", "end_date", "merchant", "people")
    assert [[e.get(f) for f in story] for e in events[0]] == [[e.get(f) for f in story] for e in events[1]]
    # The spec's own amounts stay; an amount it leaves open (the birthday dinner's bill) is redrawn.
    amounts = [{e["id"]: e.get("amount") for e in listed} for listed in events]
    assert amounts[0]["trips[0].hotel"] == amounts[1]["trips[0].hotel"] == 300
    assert amounts[0]["cross_app_events[0]"] != amounts[1]["cross_app_events[0]"]
    # Generated order and ride numbers are surface; the spec's own confirmation codes are not.
    codes = [{e["id"]: e.get("code") for e in listed} for listed in events]
    assert codes[0]["trips[0].hotel"] == codes[1]["trips[0].hotel"]
    assert codes[0]["trips[0].etaxi_to_airport"] != codes[1]["trips[0].etaxi_to_airport"]


def test_the_check_of_a_variant_claims_no_released_facts(pat_variants):
    report = check(pat_variants[1])
    assert "released" not in report.figures and report.figures["variant"] == 1
    assert "Released world's facts: not claimed for world variant 1" in render_figures(report)


def test_a_bad_variant_is_refused_by_name(pat_variants, tmp_path, capsys):
    with pytest.raises(BuildError, match="variant must be a whole number 0 or more, got -1"):
        build(pat_variants["persona"], tmp_path / "bad", ANCHOR, variant=-1)
    assert not (tmp_path / "bad").exists()
    with pytest.raises(SystemExit):
        main(["build", "--persona", str(pat_variants["persona"]), "--out", str(tmp_path / "x"), "--variant", "two"])
    assert "--variant must be a whole number 0 or more, got 'two'" in capsys.readouterr().err
