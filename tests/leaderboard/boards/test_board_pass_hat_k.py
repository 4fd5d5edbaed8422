"""pass^k on the leaderboard, its exports and API, and consistency on the run page and its API, on a
hand-built suite of 3 tasks (one rubric item each):

    Quad (4 attempts)   t1 [S, S, S, S]   t2 [S, S, F, F]   t3 [F, F, F, F]
                        Perfect % = 6/12 = 50.0; pass^4 = (1 + 0 + 0) / 3 = 33.3; pass^2 = (1 + 1/6 + 0) / 3 = 38.9
                        best of 2 = (1 + 5/6 + 0) / 3 = 61.1; t2 flaky, t1 consistent, t3 never
    Solo (1 attempt)    t1 [S]  t2 [F]  t3 [S]: no pass^k (one attempt)
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
def repeated():
    suite = Suite.objects.create(name="Repeated", version="v1", slug="repeated")
    mail, _ = App.objects.get_or_create(slug="hoolimail", defaults={"name": "HooliMail", "kind": "web"})
    ours, _ = JudgeConfig.objects.get_or_create(name="our judge (test)", defaults={"origin": "ours"})
    model, _ = Model.objects.get_or_create(slug="alpha", defaults={"name": "Alpha"})
    tasks = [make_task(suite, f"t{i}", "personal_lookup", [mail], position=i) for i in (1, 2, 3)]
    items = [add_rubric(t, [1]) for t in tasks]

    def run(name, verdicts):
        r = Run.objects.create(
            name=name, slug=name.lower(), suite=suite, model=model, provenance="harness",
            publication="published", tool_surface="computer", judge_config=ours,
        )  # fmt: skip
        for task, its, per_attempt in zip(tasks, items, verdicts, strict=True):
            for attempt, verdict in enumerate(per_attempt):
                judge(traj(r, task, 5, attempt=attempt), its, [verdict], ours)
        return r

    quad = run("Quad", [[S, S, S, S], [S, S, F, F], [F, F, F, F]])
    solo = run("Solo", [[S], [F], [S]])
    return quad, solo


def _cell(html: str, run: str, col: str) -> str:
    row = re.search(rf'<tr data-run="{run}" data-judge="[^"]*".*?</tr>', html, flags=re.S).group(0)
    return visible_text(re.search(rf'<td[^>]*data-col="{col}"[^>]*>(.*?)</td>', row, flags=re.S).group(1))


def test_the_board_shows_pass_hat_k_for_runs_with_several_attempts(client, repeated):
    r = client.get("/leaderboard/?suite=repeated")
    html = r.content.decode()
    assert "All k perfect" in visible_text(html)
    quad = _cell(html, "quad", "pass_hat_k")
    assert quad.startswith("33.3 [") and "all 4 attempts perfect" in quad
    assert _cell(html, "quad", "perfect").startswith("50.0 [")
    assert _cell(html, "solo", "pass_hat_k") == "—"
    # sortable: highest first puts the only run with a value first
    sorted_rows = client.get("/leaderboard/?suite=repeated&sort=pass_hat_k").context["board"].rows
    assert [row.run_slug for row in sorted_rows] == ["quad", "solo"]


def test_the_column_is_left_out_when_every_run_has_one_attempt(client, repeated):
    _quad, _solo = repeated
    Run.objects.filter(slug="quad").update(publication="draft")
    html = client.get("/leaderboard/?suite=repeated").content.decode()
    assert 'data-col="pass_hat_k"' not in html and "All k perfect" not in visible_text(html)


def test_exports_and_api_carry_the_figure(client, repeated):
    exported = {
        e["run"]: e
        for e in csv.DictReader(io.StringIO(client.get("/leaderboard/?suite=repeated&format=csv").content.decode()))
    }
    assert exported["quad"]["pass_hat_k"] == "4" and float(exported["quad"]["pass_hat_k_pct"]) == 33.3
    assert float(exported["quad"]["pass_hat_k_low"]) <= 33.3 <= float(exported["quad"]["pass_hat_k_high"])
    assert exported["solo"]["pass_hat_k"] == "" and exported["solo"]["pass_hat_k_pct"] == ""
    rows = {row["run"]: row for row in client.get("/api/leaderboard?suite=repeated").json()["rows"]}
    assert rows["quad"]["pass_hat_k"] == 4 and rows["quad"]["pass_hat_k_pct"]["value"] == 33.3
    assert rows["solo"]["pass_hat_k"] is None and rows["solo"]["pass_hat_k_pct"]["value"] is None


def test_the_run_page_draws_the_curve_and_lists_flaky_tasks(client, repeated):
    r = client.get("/runs/quad/")
    assert r.status_code == 200
    html = r.content.decode()
    assert 'id="chart-consistency"' in html and "plotly" in html
    by_k = {int(k): visible_text(row) for k, row in re.findall(r'<tr data-k="(\d)">(.*?)</tr>', html, flags=re.S)}
    assert sorted(by_k) == [1, 2, 3, 4]
    assert by_k[1].startswith("1 50.0 [") and "50.0 [" in by_k[1].split("]")[1]
    assert by_k[2].startswith("2 38.9 [") and " 61.1 [" in by_k[2]
    assert by_k[4].startswith("4 33.3 [") and " 66.7 [" in by_k[4]
    tasks = dict(re.findall(r'<tr data-task="(t\d)" data-kind="(\w+)"', html))
    assert tasks == {"t1": "consistent", "t2": "flaky", "t3": "never"}
    assert "2 of 4" in visible_text(re.search(r'<tr data-task="t2".*?</tr>', html, flags=re.S).group(0))
    flaky = client.get("/runs/quad/?tasks=flaky").content.decode()
    assert re.findall(r'<tr data-task="(t\d)"', flaky) == ["t2"]
    worst_first = client.get("/runs/quad/?order=rate").content.decode()
    assert re.findall(r'<tr data-task="(t\d)"', worst_first) == ["t3", "t2", "t1"]
    bad = client.get("/runs/quad/?tasks=shaky")
    assert bad.status_code == 200 and "tasks='shaky' is not a filter" in visible_text(bad.content.decode())


def test_a_run_with_one_attempt_has_no_consistency_section(client, repeated):
    html = client.get("/runs/solo/").content.decode()
    assert 'id="consistency"' not in html and "plotly" not in html


def test_the_consistency_api(client, repeated):
    data = client.get("/api/runs/quad/consistency").json()
    assert data["attempts"] == 4 and [f["k"] for f in data["by_k"]] == [1, 2, 3, 4]
    assert data["by_k"][1]["pass_hat_k_pct"] == 38.9 and data["by_k"][1]["best_of_k_pct"] == 61.1
    assert data["task_counts"] == {"flaky": 1, "never": 1, "consistent": 1, "unknown": 0}
    t2 = next(t for t in data["tasks"] if t["task"] == "t2")
    assert (t2["perfect_attempts"], t2["known_attempts"], t2["consistency"]) == (2, 4, "flaky")
    flaky = client.get("/api/runs/quad/consistency?tasks=flaky&order=-rate").json()["tasks"]
    assert [t["task"] for t in flaky] == ["t2"]
    bad = client.get("/api/runs/quad/consistency?order=sideways")
    assert bad.status_code == 400 and "order='sideways' is not an order" in bad.json()["detail"]
    assert client.get("/api/runs/no-such-run/consistency").status_code == 404
