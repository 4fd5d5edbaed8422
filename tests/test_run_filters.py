"""The run filters every scored page parses (leaderboard/scoring/filters.py), rule by rule: a query
string in, the state and the shortest query string out; unknown values dropped, defaults left out of
URLs, each page reading and writing only the filters it offers; the choices the filter forms show."""

import pytest

from leaderboard.analysis.queries import HeatmapFilters, TaxonomyFilters
from leaderboard.scoring.filters import BoardFilters, RunFilters, run_filter_options


def test_values_are_trimmed_and_empty_ones_take_the_default():
    f = BoardFilters.from_query({"suite": "  big  ", "surface": " native ", "weighting": "  ", "sort": ""})
    assert (f.suite, f.surface, f.weighting, f.sort, f.metric, f.dir) == (
        "big",
        "native",
        "authored",
        "rank",
        "perfect",
        "",
    )
    assert f.as_query() == {"suite": "big", "surface": "native"}


@pytest.mark.parametrize(
    "name, value, kept",
    [
        ("surface", "computer+bash", "computer+bash"),
        ("surface", "telepathy", ""),
        ("provenance", "reported", "reported"),
        ("provenance", "rumour", ""),
        ("type", "pattern_inference", "pattern_inference"),
        ("type", "Pattern_Inference", ""),
        ("bin", "7+", "7+"),
        ("bin", "8", ""),
        ("weighting", "equal", "equal"),
        ("weighting", "heavy", "authored"),
        ("metric", "rubric", "rubric"),
        ("metric", "speed", "perfect"),
        ("sort", "cost", "cost"),
        ("sort", "colour", "rank"),
        ("dir", "asc", "asc"),
        ("dir", "desc", "desc"),
        ("dir", "up", ""),
    ],
)
def test_each_filter_keeps_a_known_value_and_drops_an_unknown_one(name, value, kept):
    assert getattr(BoardFilters.from_query({name: value}), name) == kept


def test_free_text_filters_are_kept_as_given():
    """Suites, judges and apps are names looked up later; a stale one simply matches nothing."""
    f = RunFilters.from_query({"suite": "old-suite", "judge": "a judge (v1)", "app": "hoolimail"})
    assert f.as_query() == {"suite": "old-suite", "judge": "a judge (v1)", "app": "hoolimail"}


def test_a_page_reads_only_the_filters_it_offers():
    f = TaxonomyFilters.from_query({"weighting": "equal", "metric": "rubric", "sort": "cost", "type": "bounded_action"})
    assert (f.weighting, f.metric) == ("authored", "perfect")  # not offered there: the defaults
    assert f.as_query() == {"type": "bounded_action"}


def test_the_query_string_holds_only_values_other_than_the_defaults():
    assert BoardFilters().as_query() == {}
    assert BoardFilters(weighting="equal", metric="rubric", sort="cost", dir="asc").as_query() == {
        "weighting": "equal", "metric": "rubric", "sort": "cost", "dir": "asc",
    }  # fmt: skip
    # the heatmap colours by rubric score unless told otherwise: its default is not written either
    assert HeatmapFilters.from_query({"metric": "rubric"}).as_query() == {}
    assert HeatmapFilters.from_query({"metric": "perfect"}).as_query() == {"metric": "perfect"}


def test_an_override_changes_one_value_on_the_way_out():
    f = BoardFilters.from_query({"type": "bounded_action", "sort": "cost"})
    assert f.as_query(sort="name") == {"type": "bounded_action", "sort": "name"}
    assert f.as_query(type="") == {"sort": "cost"}
    assert f.as_query(sort="rank") == {"type": "bounded_action"}  # back to the default: left out
    assert f.sort == "cost", "the state itself is unchanged"


def test_a_state_carried_to_another_page_keeps_what_that_page_offers():
    board = BoardFilters.from_query(
        {"type": "bounded_action", "sort": "cost", "weighting": "equal", "metric": "rubric"}
    )
    assert board.carried_to(TaxonomyFilters) == {"type": "bounded_action"}
    assert board.carried_to(HeatmapFilters) == {"type": "bounded_action", "weighting": "equal"}
    assert board.carried_to(HeatmapFilters, type="pattern_inference") == {
        "type": "pattern_inference", "weighting": "equal",
    }  # fmt: skip


@pytest.mark.parametrize(
    "query, slice_",
    [
        ({}, {}),
        ({"type": "bounded_action"}, {"type": "bounded_action"}),
        ({"bin": "2-3"}, {"bin": "2-3"}),
        ({"app": "hoolimail"}, {"app": "hoolimail"}),
        (
            {"type": "bounded_action", "bin": "2-3", "app": "hoolimail"},
            {"type": "bounded_action", "bin": "2-3", "app": "hoolimail"},
        ),
        ({"surface": "native", "judge": "j", "weighting": "equal"}, {}),  # run filters: no task slice
    ],
)
def test_only_type_bin_and_app_slice_the_tasks(query, slice_):
    f = RunFilters.from_query(query)
    assert f.task_slice == slice_
    assert f.slices_tasks is bool(slice_)


@pytest.mark.django_db
def test_the_filter_forms_offer_every_known_choice_in_plain_words():
    options = run_filter_options()
    assert options["bins"] == [("1", "1 app"), ("2-3", "2-3 apps"), ("4-6", "4-6 apps"), ("7+", "7+ apps")]
    assert options["weightings"] == [("authored", "authored weights"), ("equal", "equal weights")]
    assert options["metrics"] == [("perfect", "perfect rate"), ("rubric", "rubric score")]
    assert [value for value, _ in options["surfaces"]] == ["computer", "computer+bash", "native", "scripted"]
    assert [value for value, _ in options["provenances"]] == ["harness", "upload", "imported", "reported"]
    assert options["suites"] == options["judges"] == options["apps"] == []  # nothing stored yet
