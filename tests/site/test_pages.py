"""Server-rendered pages: what a visitor sees, what stays hidden, and that untrusted text is inert."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboard.catalog.reported import load_reported
from tests.catalog_data import HOSTILE, add_rubric, make_task
from tests.html_text import visible_text

pytestmark = pytest.mark.django_db


def task_ids(response) -> list[str]:
    return [t.task_id for t in response.context["page"].object_list]


# -- home -----------------------------------------------------------------------------------


def test_home_leads_to_one_leaderboard_best_first_with_paper_link_and_citation(client):
    load_reported()
    response = client.get("/")
    assert response.status_code == 200
    page = visible_text(response)
    # The headline chart: published figures, best first, each labelled by its protocol and judge.
    values = [bar.value for bar in response.context["chart"]]
    assert values == sorted(values, reverse=True) and values[0] == 55.4
    assert re.search(r"Claude Opus 4\.6 \(arXiv v1, computer \+ bash\) reported", page)
    assert re.search(r"judged by the paper(?:'|&#x27;)s own judge", page)
    assert 'href="https://arxiv.org/abs/2606.16748"' in response.content.decode()
    assert "eprint = {2606.16748}" in page and "last updated" in page
    assert f'href="{reverse("leaderboard:board")}"' in response.content.decode()
    # The leaderboard shows the same rows best first (Opus 55.4 on top, Qwen 3.5 9B 2.7 last),
    # published figures labelled as reported, with no interval.
    board = client.get(reverse("leaderboard:board"))
    shown = [(r.model_name, r.perfect.value) for r in board.context["rows"]]
    assert shown[0] == ("Claude Opus 4.6", 55.4) and shown[-1] == ("Qwen 3.5 9B", 2.7)
    assert [v for _, v in shown] == sorted((v for _, v in shown), reverse=True)
    assert all(r.reported and not r.perfect.has_interval for r in board.context["rows"])
    # each model once, from the paper's newest version (arXiv v1; GPT-5.4 only in the submission version)
    assert visible_text(board).replace("&#x27;", "'").count("judged by the paper's judge") == 7
    every = client.get(reverse("leaderboard:board") + "?versions=all")
    assert visible_text(every).replace("&#x27;", "'").count("judged by the paper's judge") == 12
    assert sorted(r.position for r in board.context["rows"]) == list(range(1, 8))


def test_home_links_to_suites_tasks_runs_and_trajectories(client):
    html = client.get("/").content.decode()
    for name in ("leaderboard:suite_list", "leaderboard:task_list", "leaderboard:run_list"):
        assert f'href="{reverse(name)}"' in html
    assert f'href="{reverse("trajectories:trajectory_list")}"' in html
    # nothing loaded yet: the page says so in plain words, never with an operator command
    assert "No results yet" in html and "manage.py" not in html


def test_home_hides_a_withdrawn_reported_run(client):
    load_reported()
    from leaderboard.models import Run

    Run.objects.filter(slug="reported-arxiv-computer-bash-gpt-55").update(publication="withdrawn")
    assert "GPT-5.5" not in visible_text(client.get("/"))


# -- suites ---------------------------------------------------------------------------------


def test_suite_page_counts_tasks_rubric_items_types_and_bins(client, catalog):
    response = client.get(reverse("leaderboard:suite_detail", args=["mypcbench-eval-round0"]))
    assert response.status_code == 200
    stats = response.context["stats"]
    assert stats.task_count == 3
    assert stats.rubric_item_count == 6  # 2 + 3 + 1 current; the stale version-1 items are not counted
    assert stats.by_type["personal_lookup"] == 1 and stats.by_type["pattern_inference"] == 0
    assert stats.by_apps_touched_bin == {"1": 1, "2-3": 1, "4-6": 0, "7+": 1}
    page = visible_text(response)
    assert "Tasks 3" in page and "Rubric items (current) 6" in page
    assert "Multi-step orchestration 1" in page


def test_suite_list_shows_every_suite_and_unknown_suite_is_404(client, catalog):
    response = client.get(reverse("leaderboard:suite_list"))
    assert [s.suite.slug for s in response.context["suites"]] == ["mypcbench-eval-round0", "demo-v1"]
    assert "demo" in visible_text(response)
    assert client.get("/suites/nope/").status_code == 404


# -- tasks ----------------------------------------------------------------------------------


def test_task_list_filters_by_type_app_difficulty_and_suite(client, catalog):
    url = reverse("leaderboard:task_list")
    assert len(task_ids(client.get(url))) == 4
    assert task_ids(client.get(url, {"type": "bounded_action"})) == ["action-b002", "demo-001"]
    assert task_ids(client.get(url, {"type": "bounded_action", "suite": "demo-v1"})) == ["demo-001"]
    assert task_ids(client.get(url, {"app": "hoolicalendar"})) == ["action-b002", "orchestration-c003"]
    assert task_ids(client.get(url, {"difficulty": "easy", "suite": "mypcbench-eval-round0"})) == ["retrieval-f016"]
    response = client.get(url, {"app": "libreoffice-calc", "difficulty": "hard"})
    assert task_ids(response) == [] and "No task matches these filters." in visible_text(response)


def test_task_list_keeps_filters_selected_and_ignores_unknown_values(client, catalog):
    url = reverse("leaderboard:task_list")
    html = client.get(url, {"type": "bounded_action"}).content.decode()
    assert '<option value="bounded_action" selected>' in html
    assert "2 tasks match the filters." in visible_text(client.get(url, {"type": "bounded_action"}))
    assert len(task_ids(client.get(url, {"type": "no-such-type", "difficulty": "impossible"}))) == 4


def test_task_list_pages_and_keeps_filters_in_page_links(client, catalog):
    for i in range(30):
        task = make_task(catalog.suite, f"extra-{i:03d}", "bounded_action", [catalog.apps.mail], position=10 + i)
        add_rubric(task, [1.0])
    url = reverse("leaderboard:task_list")
    first = client.get(url, {"type": "bounded_action"})
    assert len(task_ids(first)) == 25 and first.context["page"].paginator.count == 32
    assert 'href="?type=bounded_action&amp;page=2"' in first.content.decode()
    second = client.get(url, {"type": "bounded_action", "page": 2})
    assert len(task_ids(second)) == 7
    assert not set(task_ids(first)) & set(task_ids(second))


def test_task_list_query_count_does_not_grow_with_tasks(client, catalog):
    url = reverse("leaderboard:task_list")
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for i in range(20):
        task = make_task(catalog.suite, f"more-{i}", "aggregation_reporting", [catalog.apps.mail, catalog.apps.cal])
        add_rubric(task, [1.0, 2.0])
    with CaptureQueriesContext(connection) as many:
        client.get(url)
    assert len(many) == len(few)


def test_task_page_shows_trimmed_instruction_rubric_weights_and_assignment(client, catalog):
    response = client.get(reverse("leaderboard:task_detail", args=["mypcbench-eval-round0", "retrieval-f016"]))
    assert response.status_code == 200
    html = response.content.decode()
    # Whitespace trimmed at both ends, inner spacing kept verbatim.
    assert '<blockquote class="instruction">Find Jan\'s   birthday in HooliMail.</blockquote>' in html.replace(
        "&#x27;", "'"
    )
    page = visible_text(response)
    assert "Criterion 1 of retrieval-f016 (v2)" in page and "(v1)" not in page
    assert "25.0%" in page and "75.0%" in page
    assert "version 2, 1 earlier version kept" in page
    assert "Verification Check the reply text." in page
    assert "All items must pass for a perfect score." in page
    assert "Personal lookup (derived from category)" in page
    assert "HooliMail" in page
    # Its trajectory in the published run is linked; the draft run's trajectory is not.
    assert reverse("trajectories:trajectory_detail", args=[catalog.traj.pk]) in html


def test_unknown_task_is_404(client, catalog):
    assert client.get("/tasks/mypcbench-eval-round0/nope/").status_code == 404
    assert client.get("/tasks/demo-v1/retrieval-f016/").status_code == 404


# -- runs and visibility --------------------------------------------------------------------


def test_anonymous_visitors_see_only_published_runs(client, catalog):
    page = visible_text(client.get(reverse("leaderboard:run_list")))
    assert "Published harness run" in page and "Secret draft upload" not in page
    assert client.get(reverse("leaderboard:run_detail", args=["draft-run"])).status_code == 404
    assert client.get(reverse("trajectories:trajectory_detail", args=[catalog.draft_traj.pk])).status_code == 404
    assert "Secret draft upload" not in visible_text(client.get(reverse("trajectories:trajectory_list")))


def test_staff_see_unpublished_runs_marked_as_such(staff_client, catalog):
    page = visible_text(staff_client.get(reverse("leaderboard:run_list")))
    assert "Secret draft upload" in page and "Draft" in page
    assert staff_client.get(reverse("leaderboard:run_detail", args=["draft-run"])).status_code == 200
    assert staff_client.get(reverse("trajectories:trajectory_detail", args=[catalog.draft_traj.pk])).status_code == 200


def test_run_page_shows_protocol_and_per_trajectory_judgments(client, catalog):
    response = client.get(reverse("leaderboard:run_detail", args=["published-run"]))
    page = visible_text(response)
    assert "Run by our harness" in page
    assert "Agent type anthropic-cua" in page and "Image tag mypcbench:1.0" in page
    assert "our-judge-v1 (Our judge)" in page
    # Counted for the run's judge on current items: 1 success of 2 judged, 1 judge error;
    # the stale judgment by another judge is not counted.
    assert re.search(r"retrieval-f016 0 Finished Done 2 0\.75 1 / 2 1 error", page)


def test_reported_run_page_lists_its_published_figures(client):
    load_reported()
    response = client.get(reverse("leaderboard:run_detail", args=["reported-submission-native-cua-gpt-54"]))
    page = visible_text(response)
    assert "Reported (published figures, not recomputed)" in page
    assert "By behavioural type" in page and "Pattern inference 41.3" in page
    assert "Rubric % 7+ apps 29.9 " in page
    # Figures appear as published (no padding zeros), counts as integers.
    assert "Average steps — 41.2 anonymous" in page
    assert "Premature done 532 submission Table 7" in page


# -- trajectory page ------------------------------------------------------------------------


def test_trajectory_page_lists_steps_screenshots_and_judgments(client, catalog):
    response = client.get(reverse("trajectories:trajectory_detail", args=[catalog.traj.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    step1, step2 = catalog.steps
    # The original when no derivative exists, the display derivative when it does; both lazy.
    assert (
        f'<img src="{step1.screenshot.url}" alt="Screenshot after step 1: pyautogui.click(10, 20)" loading="lazy"'
        in html
    )
    assert f'<img src="{step2.display_image.url}"' in html and f'href="{step2.screenshot.url}"' in html
    page = visible_text(response)
    assert "Step 1 turn 1 computer" in page and "Step 2 turn 2 bash" in page
    assert "Error (not a failure)" in page and "Judge API timed out." in page
    assert "stale" in page and "Premature done" in page
    assert 'href="#step-1"' in html and 'id="step-2"' in html


def test_untrusted_text_is_escaped_and_csp_is_strict(client, catalog):
    response = client.get(reverse("trajectories:trajectory_detail", args=[catalog.traj.pk]))
    html = response.content.decode()
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(&#x27;owned&#x27;)&lt;/script&gt;" in html
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    # Our own pages carry no inline script or style for the CSP to block.
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    assert "<style" not in html and " style=" not in html


@pytest.mark.parametrize("name", ["/", "/suites/", "/tasks/", "/runs/", "/trajectories/"])
def test_every_list_page_renders_with_csp(client, catalog, name):
    response = client.get(name)
    assert response.status_code == 200
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]


# -- query counts and admin -----------------------------------------------------------------


def _count_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx)


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_list_pages_use_a_constant_number_of_queries(client, catalog):
    from leaderboard.models import Run
    from trajectories.models import Trajectory

    load_reported()
    urls = ["/", "/suites/", "/runs/", "/runs/published-run/", "/trajectories/"]
    before = {url: _count_queries(client, url) for url in urls}
    for i in range(5):
        task = make_task(catalog.suite, f"grow-{i}", "pattern_inference", [catalog.apps.mail, catalog.apps.cal])
        add_rubric(task, [1.0, 1.0])
        Trajectory.objects.create(run=catalog.published, task=task, n_steps=3)
        Run.objects.create(
            name=f"run {i}",
            slug=f"run-{i}",
            suite=catalog.suite,
            model=catalog.model,
            provenance="harness",
            publication="published",
        )
    after = {url: _count_queries(client, url) for url in urls}
    assert after == before


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_admin_lists_and_opens_every_model(client, catalog, django_user_model):
    load_reported()
    admin_user = django_user_model.objects.create_superuser("root", "root@example.org", "pw")
    client.force_login(admin_user)
    for path in [
        "leaderboard/suite",
        "leaderboard/app",
        "leaderboard/task",
        "leaderboard/rubricitem",
        "leaderboard/model",
        "leaderboard/judgeconfig",
        "leaderboard/run",
        "leaderboard/reportedfigure",
        "trajectories/trajectory",
        "trajectories/step",
        "trajectories/judgment",
        "trajectories/apitoken",
        "trajectories/submission",
    ]:
        assert client.get(f"/admin/{path}/").status_code == 200, path
    # Change pages with inlines: rubric items on a task, steps and judgments on a trajectory.
    task_page = client.get(f"/admin/leaderboard/task/{catalog.lookup.pk}/change/").content.decode()
    assert "Criterion 2 of retrieval-f016 (v2)" in task_page
    traj_page = client.get(f"/admin/trajectories/trajectory/{catalog.traj.pk}/change/").content.decode()
    assert "pyautogui.click(10, 20)" in traj_page and "Judge API timed out." in traj_page
    assert client.get("/admin/leaderboard/task/?q=retrieval-f016").status_code == 200


def test_a_suite_without_tasks_says_so_in_plain_words_and_only_staff_see_the_command(client, django_user_model):
    load_reported()  # reported figures create the MyPCBench eval-round0 suite before its tasks exist
    url = reverse("leaderboard:suite_detail", args=["mypcbench-eval-round0"])
    page = visible_text(client.get(url))
    assert "This suite's tasks are not on this site yet" in page
    assert "manage.py" not in page
    client.force_login(django_user_model.objects.create_user("staff", password="pw", is_staff=True))
    page = visible_text(client.get(url))
    assert 'import_tasks all_tasks_with_grading.json --task-types task_types.json --suite "MyPCBench"' in page


def test_run_page_shows_an_imported_folder_by_name_not_the_servers_path(client, catalog):
    run = catalog.published
    run.source = "/srv/mypcbench/imports/results-2026-04"
    run.save(update_fields=["source"])
    page = visible_text(client.get(reverse("leaderboard:run_detail", args=[run.slug])))
    assert "Source results-2026-04" in page and "/srv/mypcbench" not in page
