"""Cost per task and per perfect task, and the cost frontier, on the leaderboard, its exports and API.

Two tasks, one rubric item each; runs (our judge):
    Dear   recorded $2.00 over 2 trajectories, t1 S t2 F   -> 50 %,  $1.00 per task, $2.00 per perfect task
    Cheap  tokens only: 2,000,000 in + 500,000 out on gpt-5-mini (shipped prices $0.25 / $2.00 per million)
           -> $1.50 estimated, t1 S t2 S -> 100 %, $0.75 per task, $0.75 per perfect task
    Free   no usage recorded -> no cost, off the chart
Cheap is cheaper and better: on the frontier; Dear would need to cost under $0.75 per task to reach it.
"""

import csv
import io
import re

import pytest

from leaderboard.models import App, JudgeConfig, Model, Run, Suite
from tests.board_data import F, S, judge, traj
from tests.catalog_data import add_rubric, make_task
from tests.html_text import visible_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def priced(monkeypatch):
    monkeypatch.delenv("MYPCBENCH_JUDGE_PRICES", raising=False)
    suite = Suite.objects.create(name="Priced", version="v1", slug="priced")
    mail, _ = App.objects.get_or_create(slug="hoolimail", defaults={"name": "HooliMail", "kind": "web"})
    ours, _ = JudgeConfig.objects.get_or_create(name="our judge (test)", defaults={"origin": "ours"})
    tasks = [make_task(suite, f"t{i}", "personal_lookup", [mail], position=i) for i in (1, 2)]
    items = [add_rubric(t, [1]) for t in tasks]

    def run(name, verdicts, api_model="", usage=({}, {})):
        model, _ = Model.objects.get_or_create(slug=name.lower(), defaults={"name": name, "api_model": api_model})
        r = Run.objects.create(
            name=name, slug=name.lower(), suite=suite, model=model, provenance="harness",
            publication="published", tool_surface="computer", judge_config=ours,
        )  # fmt: skip
        for task, its, verdict, extra in zip(tasks, items, verdicts, usage, strict=True):
            judge(traj(r, task, 5, **extra), its, [verdict], ours)

    run("Dear", [S, F], usage=({"cost_usd": "1.50"}, {"cost_usd": "0.50"}))
    run("Cheap", [S, S], "gpt-5-mini", usage=({"input_tokens": 1_500_000, "output_tokens": 200_000},
                                            {"input_tokens": 500_000, "output_tokens": 300_000}))  # fmt: skip
    run("Free", [F, S])


def _cell(html, run, col):
    row = re.search(rf'<tr data-run="{run}" data-judge="[^"]*".*?</tr>', html, flags=re.S).group(0)
    return visible_text(re.search(rf'<td[^>]*data-col="{col}"[^>]*>(.*?)</td>', row, flags=re.S).group(1))


def test_the_cost_column_shows_per_task_per_perfect_task_and_the_frontier(client, priced):
    html = client.get("/leaderboard/?suite=priced").content.decode()
    assert _cell(html, "dear", "cost") == (
        "$2.00 $1.000 per task $2.000 per perfect task to reach the frontier: under $0.75 per task (the cost of Cheap)"
    )
    assert (
        _cell(html, "cheap", "cost") == "$1.50 estimated $0.750 per task $0.750 per perfect task on the cost frontier"
    )
    assert _cell(html, "free", "cost") == "—"
    assert 'id="chart-cost-frontier"' in html and "plotly" in html
    assert "Cost against accuracy" in visible_text(html)


def test_the_chart_draws_the_frontier_through_its_runs(client, priced):
    chart = client.get("/leaderboard/?suite=priced").context["cost_chart"]
    runs, frontier = chart["figure"]["data"]
    assert sorted(runs["text"]) == ["Cheap (estimated)", "Dear"]
    assert frontier["x"] == [0.75] and frontier["y"] == [100.0] and "frontier" in frontier["name"]


def test_exports_and_api_carry_the_cost_figures(client, priced):
    exported = {
        e["run"]: e
        for e in csv.DictReader(io.StringIO(client.get("/leaderboard/?suite=priced&format=csv").content.decode()))
    }
    dear, cheap, free = exported["dear"], exported["cheap"], exported["free"]
    assert (dear["cost_total_usd"], dear["cost_basis"], dear["cost_per_task_usd"]) == ("2.0", "recorded", "1.0")
    assert dear["cost_per_perfect_task_usd"] == "2.0" and dear["on_cost_frontier"] == "False"
    assert dear["frontier_cost_per_task_usd"] == "0.75"
    assert (cheap["cost_total_usd"], cheap["cost_basis"], cheap["on_cost_frontier"]) == ("1.5", "estimated", "True")
    assert free["cost_total_usd"] == "" and free["on_cost_frontier"] == ""
    rows = {r["run"]: r for r in client.get("/api/leaderboard?suite=priced").json()["rows"]}
    assert rows["cheap"]["cost_per_task_usd"] == 0.75 and rows["cheap"]["on_cost_frontier"] is True
    assert rows["dear"]["frontier_cost_per_task_usd"] == 0.75 and rows["free"]["cost_total_usd"] is None


def test_sorting_by_cost_uses_cost_per_task(client, priced):
    rows = client.get("/leaderboard/?suite=priced&sort=cost").context["board"].rows
    assert [r.run_slug for r in rows] == ["cheap", "dear", "free"]


def test_runs_that_all_cost_the_same_get_a_sentence_not_a_chart():
    from types import SimpleNamespace

    from leaderboard.boards.board_display import cost_chart, cost_note

    def row(name, per_task, perfect, on):
        return SimpleNamespace(
            run_name=name,
            cost_per_task=per_task,
            cost_basis="recorded",
            perfect=SimpleNamespace(value=perfect),
            on_frontier=on,
        )

    same = [row("A", 0.0, 50.0, True), row("B", 0.0, 20.0, False)]
    assert cost_chart(same) is None
    assert "all 2 runs with a known cost cost the same per task ($0.000)" in cost_note(same)
    apart = [row("A", 0.5, 50.0, True), row("B", 0.25, 20.0, True)]
    assert cost_chart(apart) is not None and cost_note(apart) == ""
    assert cost_note([row("A", 0.5, 50.0, True)]) == ""  # one run: nothing to compare, nothing said
