"""The analysis page of sessions: Proactivity against Completeness per run (the chart's points and the
table, with the gap) and the status distribution per category, from the hand-built run
(tests/session_data.py: Proc 33.3, Comp 37.5; both sessions situated_action: 1 completed, 1 inferred,
2 provided, 1 open of 5 intents); the API gives the same numbers."""

import json

import pytest
from django.urls import reverse

from leaderboard.analysis.charts import proc_comp
from tests.html_text import visible_text
from tests.session_data import import_hand_run

pytestmark = pytest.mark.django_db


def test_the_sessions_analysis_plots_proc_against_comp_and_the_statuses_per_category(client, tmp_path):
    run = import_hand_run(tmp_path)
    page = client.get(reverse("leaderboard:analysis_sessions"))
    text = visible_text(page)
    assert f"{run.name} 33.3 37.5 4.2 2.5 2 rules (prompt mypc-user-rules-1)" in text
    assert "situated_action 20.0% 20.0% 40.0% 20.0%" in text
    html = page.content.decode()
    figure = json.loads(html.split('id="chart-proc-comp" type="application/json">')[1].split("</script>")[0])
    diagonal, runs = figure["data"]
    assert diagonal["x"] == diagonal["y"] == [0, 100]  # where Proactivity equals Completeness
    assert runs["x"] == [37.5] and runs["y"] == [33.3] and runs["text"] == ["Hand sessions run"]
    api = client.get("/api/analysis/sessions").json()
    assert api["runs"][0]["proactivity_pct"] == 33.3 and api["runs"][0]["completeness_pct"] == 37.5
    assert api["statuses_by_category"] == [
        {"run_name": run.name, "category": "situated_action",
         "counts": {"completed": 1, "inferred": 1, "provided": 2, "open": 1}}
    ]  # fmt: skip


def test_the_sessions_analysis_says_when_no_run_has_sessions(client):
    text = visible_text(client.get(reverse("leaderboard:analysis_sessions")))
    assert "No run has recorded sessions yet." in text


def test_a_run_label_faces_into_the_chart_at_its_edges():
    """A run at Completeness 100 is labelled on its left and one at Proactivity 0 above it: neither label
    is cut off at the chart's edge (they were, below and to the right, on the demo's two runs)."""
    runs = proc_comp([("proactive", 100.0, 96.0), ("reactive", 100.0, 0.0), ("middle", 50.0, 50.0)])["data"][1]
    assert runs["textposition"] == ["bottom left", "top left", "bottom center"]
    assert runs["cliponaxis"] is False
