"""The published MyPCBench figures load as reported runs, exactly and idempotently."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from leaderboard.catalog.reported import DATA_FILE, ReportedDataError, load_reported
from leaderboard.models import Model, ReportedFigure, Run, Suite

pytestmark = pytest.mark.django_db


def figure(run_slug, metric, slice_kind="overall", slice_value=""):
    return ReportedFigure.objects.get(
        run__slug=run_slug, metric=metric, slice_kind=slice_kind, slice_value=slice_value
    ).value


def test_loads_exact_headline_figures():
    load_reported()
    opus = "reported-arxiv-computer-bash-claude-opus-46"
    assert figure(opus, "perfect") == 55.4
    assert figure(opus, "rubric") == 81.8
    assert figure(opus, "avg_steps") == 46.5
    assert figure(opus, "traj_eff") == 3.61
    assert figure(opus, "rubric", "apps_touched", "7+") == 67.9
    assert figure(opus, "bash_share") == 24
    qwen9 = "reported-submission-native-cua-qwen-35-9b"
    assert figure(qwen9, "rubric", "task_type", "personal_lookup") == 32.3
    assert figure(qwen9, "failure_count", "failure_mode_all_models", "skipped_required_app") == 578


def test_runs_models_and_suite_are_labelled_reported_and_published():
    load_reported()
    runs = Run.objects.filter(provenance=Run.Provenance.REPORTED)
    assert runs.count() == 12
    assert set(runs.values_list("publication", flat=True)) == {"published"}
    assert set(runs.values_list("tool_surface", flat=True)) == {"computer+bash", "native"}
    assert Model.objects.count() == 7  # GPT-5.5 only in arXiv, GPT-5.4 only in the submission
    assert Model.objects.get(name="Qwen 3.5 9B").open_weights is True
    assert Model.objects.get(name="GPT-5.4").family == "OpenAI"
    suite = Suite.objects.get()
    assert (suite.name, suite.version, suite.slug) == ("MyPCBench", "eval-round0", "mypcbench-eval-round0")
    opus = Run.objects.get(slug="reported-arxiv-computer-bash-claude-opus-46")
    assert opus.source.startswith("arXiv 2606.16748")


def test_null_figures_are_not_stored():
    load_reported()
    gpt55 = "reported-arxiv-computer-bash-gpt-55"
    assert not ReportedFigure.objects.filter(run__slug=gpt55, metric="avg_steps", slice_kind="overall").exists()
    assert not ReportedFigure.objects.filter(
        run__slug="reported-arxiv-computer-bash-qwen-35-35b-a3b", metric="traj_eff"
    ).exists()


def test_second_load_changes_nothing():
    first = load_reported()
    assert first.changed
    before = list(ReportedFigure.objects.order_by("pk").values_list("pk", "value", "source"))
    second = load_reported()
    assert not second.changed
    assert second.figures_unchanged == first.figures_created
    assert list(ReportedFigure.objects.order_by("pk").values_list("pk", "value", "source")) == before


def test_reuses_an_existing_suite_of_the_same_name_and_version():
    Suite.objects.create(name="MyPCBench", version="eval-round0", slug="imported-already")
    load_reported()
    assert Suite.objects.count() == 1
    assert Run.objects.filter(suite__slug="imported-already").count() == 12


def test_changed_figure_is_updated_not_duplicated(tmp_path):
    load_reported()
    data = json.loads(DATA_FILE.read_text())
    data["result_sets"][0]["models"][0]["perfect"] = 56.0
    path = tmp_path / "figures.json"
    path.write_text(json.dumps(data))
    summary = load_reported(path)
    assert summary.figures_updated == 1 and summary.figures_created == 0
    assert figure("reported-arxiv-computer-bash-claude-opus-46", "perfect") == 56.0


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: d["result_sets"][0]["models"][1].__setitem__("perfect", "high"), "result_sets[0].models[1].perfect"),
        (lambda d: d["result_sets"][1].__setitem__("tool_surface", "mouse"), "result_sets[1].tool_surface"),
        (
            lambda d: d["result_sets"][0]["bash_share"]["values"].__setitem__("Nobody 1", 3),
            "unknown model 'Nobody 1'",
        ),
        (lambda d: d.pop("result_sets"), "'result_sets' is a required property"),
    ],
)
def test_bad_file_names_the_field_and_writes_nothing(tmp_path, mutate, expected):
    data = json.loads(DATA_FILE.read_text())
    mutate(data)
    path = tmp_path / "figures.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ReportedDataError) as err:
        load_reported(path)
    assert str(path) in str(err.value) and expected in str(err.value)
    assert not Run.objects.exists() and not Model.objects.exists() and not Suite.objects.exists()


def test_not_json_is_refused(tmp_path):
    path = tmp_path / "figures.json"
    path.write_text("{not json")
    with pytest.raises(ReportedDataError, match="not valid JSON"):
        load_reported(path)


def test_command_prints_summary_and_reports_nothing_changed_on_rerun(tmp_path):
    out = StringIO()
    call_command("load_reported", stdout=out)
    assert "runs created: 12" in out.getvalue()
    out = StringIO()
    call_command("load_reported", stdout=out)
    assert "Nothing changed" in out.getvalue()
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    with pytest.raises(CommandError, match="bad.json"):
        call_command("load_reported", "--file", str(bad))
