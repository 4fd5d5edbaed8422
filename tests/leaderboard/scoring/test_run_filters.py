"""The run filters every scored page parses (leaderboard/scoring/filters.py), rule by rule: a query
string in, the state and the shortest query string out; unknown values dropped, defaults left out of
URLs, each page reading and writing only the filters it offers; the choices the filter forms show."""

import pytest

from leaderboard.analysis.queries import HeatmapFilters, TaxonomyFilters
from leaderboard.models import App, JudgeConfig, Model, Run, Suite
from leaderboard.scoring import outcomes
from leaderboard.scoring.filters import BoardFilters, RunFilters, filterable_judges, run_filter_options, scored_slice
from tests.catalog_data import add_rubric, make_task
from trajectories.models import Judgment, Trajectory


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


@pytest.mark.django_db
def test_the_suites_offered_come_benchmark_first_then_by_name_then_by_version():
    """Written out of order on purpose: demo suites after the benchmark's, names A to Z, versions in
    order within one name (the stored order would put v2 before v1)."""
    Suite.objects.create(name="Zeta", version="v1", slug="zeta-v1")
    Suite.objects.create(name="Alpha demo", version="v1", slug="alpha-demo", is_demo=True)
    Suite.objects.create(name="MyPCBench", version="v2", slug="mypcbench-v2")
    Suite.objects.create(name="MyPCBench", version="v1", slug="mypcbench-v1")
    assert [slug for slug, _, _ in run_filter_options()["suites"]] == [
        "mypcbench-v1", "mypcbench-v2", "zeta-v1", "alpha-demo",
    ]  # fmt: skip
    assert run_filter_options()["suites"][0] == ("mypcbench-v1", "MyPCBench", "v1")


@pytest.mark.django_db
def test_only_apps_some_task_touches_are_offered_each_once_by_name():
    suite = Suite.objects.create(name="S", version="v1", slug="s")
    mail = App.objects.create(name="HooliMail", slug="hoolimail", kind="web")
    cal = App.objects.create(name="HooliCalendar", slug="hoolicalendar", kind="web")
    App.objects.create(name="Unused", slug="unused", kind="web")
    make_task(suite, "t1", "bounded_action", [mail, cal])
    make_task(suite, "t2", "bounded_action", [mail], position=1)
    assert run_filter_options()["apps"] == [("hoolicalendar", "HooliCalendar"), ("hoolimail", "HooliMail")]


def _judged_once(judge: JudgeConfig, publication: str, n: int) -> None:
    """One verdict by ``judge`` in a run of its own with the given publication."""
    suite = Suite.objects.create(name=f"S{n}", version="v1", slug=f"s{n}")
    task = make_task(suite, f"t{n}", "bounded_action", [])
    [item] = add_rubric(task, [1.0])
    model = Model.objects.create(name=f"M{n}", slug=f"m{n}")
    run = Run.objects.create(name=f"R{n}", slug=f"r{n}", suite=suite, model=model, publication=publication)
    trajectory = Trajectory.objects.create(run=run, task=task, attempt=0, status="finished", n_steps=1)
    Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=judge, verdict="success")


@pytest.mark.django_db
def test_the_judge_filter_names_ours_and_imported_but_an_authors_own_only_once_published():
    own = JudgeConfig.Origin.SELF_REPORTED
    JudgeConfig.objects.create(name="b ours", origin=JudgeConfig.Origin.OURS)
    JudgeConfig.objects.create(name="a imported", origin=JudgeConfig.Origin.IMPORTED)
    published = JudgeConfig.objects.create(name="c alice's own (published)", origin=own)
    draft = JudgeConfig.objects.create(name="d bob's own (draft)", origin=own)
    JudgeConfig.objects.create(name="e carol's own (never used)", origin=own)
    _judged_once(published, Run.Publication.PUBLISHED, 1)
    _judged_once(published, Run.Publication.DRAFT, 2)
    _judged_once(draft, Run.Publication.DRAFT, 3)
    names = filterable_judges()
    assert names == ["a imported", "b ours", "c alice's own (published)"]
    assert run_filter_options()["judges"] == names


def _scored_pair():
    suite = Suite.objects.create(name="S", version="v1", slug="s")
    add_rubric(make_task(suite, "t", "bounded_action", []), [1.0])
    model = Model.objects.create(name="M", slug="m")
    return [Run.objects.create(name=f"R{i}", slug=f"r{i}", suite=suite, model=model) for i in range(2)]


@pytest.mark.django_db
@pytest.mark.parametrize("query, every_judge", [({}, False), ({}, True), ({"judge": "j"}, False)])
def test_a_slice_is_scored_at_the_pages_version_so_the_pages_scorings_are_shared(monkeypatch, query, every_judge):
    """A page scores its runs once at its version; the slice asked for at that version reuses that
    scoring instead of scoring them again at the data version of the moment."""
    runs = _scored_pair()
    computed = []
    real = outcomes._compute
    monkeypatch.setattr(outcomes, "_compute", lambda *a: computed.append(a[1]) or real(*a))
    filters = RunFilters.from_query(query)
    outcomes.run_outcomes(runs, version="page-7")
    outcomes.judged_outcomes(runs, version="page-7")
    assert computed == ["default", "all"]
    scored_slice(runs, filters, version="page-7", every_judge=every_judge)
    assert computed == ["default", "all"], "scored again, not shared with the page"
    scored_slice(runs, filters, version="page-8", every_judge=every_judge)
    assert len(computed) == 3, "another version is scored anew"
