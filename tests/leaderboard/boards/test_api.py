"""The read-only API: shapes, counts, filters, visibility and 404s."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.catalog.reported import load_reported
from tests.catalog_data import HOSTILE, add_rubric, make_task

pytestmark = pytest.mark.django_db


def get(client, url, status=200, **params):
    response = client.get(url, params)
    assert response.status_code == status, response.content
    return response.json()


def test_suites_with_counts_per_type_and_bin(client, catalog):
    suites = get(client, "/api/suites")
    assert [s["slug"] for s in suites] == ["mypcbench-eval-round0", "demo-v1"]
    main = suites[0]
    assert main["task_count"] == 3 and main["rubric_item_count"] == 6
    assert main["by_apps_touched_bin"] == {"1": 1, "2-3": 1, "4-6": 0, "7+": 1}
    assert main["by_type"]["multi_step_orchestration"] == 1
    assert set(main["by_type"]) == {
        "bounded_action",
        "multi_step_orchestration",
        "cross_source_reconciliation",
        "aggregation_reporting",
        "personal_lookup",
        "pattern_inference",
    }
    assert get(client, "/api/suites/demo-v1")["is_demo"] is True
    get(client, "/api/suites/nope", status=404)


def test_tasks_filters_and_pagination(client, catalog):
    everything = get(client, "/api/tasks")
    assert everything["count"] == 4
    first = everything["items"][0]
    assert first["suite"] == "mypcbench-eval-round0" and first["task_id"] == "retrieval-f016"
    assert first["apps"] == ["HooliMail"] and first["rubric_item_count"] == 2 and first["apps_touched_bin"] == "1"
    by_type = get(client, "/api/tasks", type="bounded_action", suite="mypcbench-eval-round0")
    assert [t["task_id"] for t in by_type["items"]] == ["action-b002"]
    assert get(client, "/api/tasks", app="hoolicalendar")["count"] == 2
    assert get(client, "/api/tasks", difficulty="easy")["count"] == 2
    # A filter value that is not a behavioural type is a client error, not an empty list.
    get(client, "/api/tasks", status=422, type="nonsense")

    for i in range(60):
        add_rubric(make_task(catalog.suite, f"extra-{i:03d}", "pattern_inference", [], position=100 + i), [1.0])
    page1 = get(client, "/api/tasks", type="pattern_inference")
    page2 = get(client, "/api/tasks", type="pattern_inference", page=2)
    assert page1["count"] == 60 and len(page1["items"]) == 50 and len(page2["items"]) == 10


def test_tasks_query_count_is_constant(client, catalog):
    with CaptureQueriesContext(connection) as few:
        get(client, "/api/tasks")
    for i in range(15):
        add_rubric(make_task(catalog.suite, f"more-{i}", "aggregation_reporting", [catalog.apps.mail]), [1.0, 1.0])
    with CaptureQueriesContext(connection) as many:
        get(client, "/api/tasks")
    assert len(many) == len(few)


def test_task_detail_has_current_rubric_with_normalised_weights(client, catalog):
    task = get(client, "/api/tasks/mypcbench-eval-round0/retrieval-f016")
    assert task["rubric_version"] == 2 and task["rubric_item_count"] == 2
    assert [(r["rubric_id"], r["normalised_weight"], r["version"]) for r in task["rubric"]] == [
        ("R1", 0.25, 2),
        ("R2", 0.75, 2),
    ]
    assert task["rubric"][0]["verification"] == "Check the reply text."
    assert task["rubric_rule"] == "All items must pass for a perfect score."
    assert task["type_source"] == "derived"
    get(client, "/api/tasks/mypcbench-eval-round0/nope", status=404)


def test_runs_are_published_only_for_anonymous_and_all_for_staff(client, catalog, django_user_model):
    runs = get(client, "/api/runs")
    assert [r["slug"] for r in runs["items"]] == ["published-run"]
    assert runs["items"][0]["model"]["name"] == "Test Model 1" and runs["items"][0]["trajectory_count"] == 1
    get(client, "/api/runs/draft-run", status=404)
    get(client, f"/api/trajectories/{catalog.draft_traj.pk}", status=404)

    client.force_login(django_user_model.objects.create_user("staff", is_staff=True))
    assert {r["slug"] for r in get(client, "/api/runs")["items"]} == {"published-run", "draft-run"}
    assert get(client, "/api/runs/draft-run")["publication"] == "draft"


def test_run_detail_lists_trajectories_with_judgment_counts(client, catalog):
    run = get(client, "/api/runs/published-run")
    assert run["judge"] == "our-judge-v1" and run["provenance"] == "harness"
    (traj,) = run["trajectories"]
    assert traj["task_id"] == "retrieval-f016"
    assert (traj["judged"], traj["passed"], traj["judge_errors"]) == (2, 1, 1)
    assert traj["imported_score"] == 0.75
    get(client, "/api/runs/nope", status=404)


def test_reported_run_carries_its_figures(client):
    load_reported()
    run = get(client, "/api/runs/reported-arxiv-computer-bash-claude-opus-46")
    assert run["provenance"] == "reported" and run["tool_surface"] == "computer+bash"
    overall = {f["metric"]: f["value"] for f in run["reported_figures"] if f["slice_kind"] == "overall"}
    assert overall["perfect"] == 55.4 and overall["rubric"] == 81.8
    assert run["trajectories"] == []


def test_trajectory_has_steps_and_judgments_with_text_as_data(client, catalog):
    traj = get(client, f"/api/trajectories/{catalog.traj.pk}")
    assert traj["run"] == "published-run" and traj["task_id"] == "retrieval-f016"
    assert [s["index"] for s in traj["steps"]] == [1, 2]
    step1, step2 = traj["steps"]
    assert step1["action"] == {"type": "click", "x": 10, "y": 20}
    assert HOSTILE in step1["model_text"]  # JSON carries the text as data; pages escape it
    assert step1["screenshot_url"].startswith("http://testserver/media/screenshots/")
    assert step1["image_url"] == step1["screenshot_url"]
    assert step2["image_url"].startswith("http://testserver/media/derivatives/")
    verdicts = [(j["rubric_id"], j["rubric_version"], j["verdict"], j["stale"]) for j in traj["judgments"]]
    assert verdicts == [("R1", 2, "success", False), ("R2", 2, "error", False), ("R1", 1, "failure", True)]
    assert traj["judgments"][0]["cited_steps"] == [1, 2]
    get(client, "/api/trajectories/999999", status=404)


def test_openapi_docs_are_served(client):
    response = client.get("/api/docs")
    assert response.status_code == 200
    # Swagger UI's assets come from our own static files: no CDN (and none reachable offline)
    assets = re.findall(r'(?:src|href)="([^"]+)"', response.content.decode())
    assert "/static/ninja/swagger-ui-bundle.js" in assets
    assert not [a for a in assets if a.startswith(("http:", "https:", "//"))]
    schema = get(client, "/api/openapi.json")
    assert {"/api/suites", "/api/tasks", "/api/runs/{slug}", "/api/trajectories/{trajectory_id}"} <= set(
        schema["paths"]
    )
