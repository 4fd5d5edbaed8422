"""Search over tasks, runs and trajectories: what a visitor finds, what they never find (unpublished
runs and their trajectories), every word must match, pages of results, and hostile queries."""

import pytest

from leaderboard.models import Run
from tests import run_page_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def site():
    run, tasks = run_page_data.launch(2)
    Run.objects.filter(pk=run.pk).update(publication=Run.Publication.PUBLISHED, name="Careful opus run")
    hidden, _ = run_page_data.launch(1)
    Run.objects.filter(pk=hidden.pk).update(publication=Run.Publication.DRAFT, name="Secret draft run")
    run.refresh_from_db()
    hidden.refresh_from_db()
    return run, hidden, tasks


def text(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def test_a_task_is_found_by_its_id_and_by_words_of_its_instruction(client, site):
    run, _hidden, tasks = site
    task = tasks[0]
    page = text(client.get("/search/", {"q": task.task_id}))
    assert f'href="/tasks/{task.suite.slug}/{task.task_id}/"' in page
    words = " ".join(task.instruction.split()[:2])
    assert f">{task.task_id}</a>" in text(client.get("/search/", {"q": words.upper()}))


def test_visitors_find_published_runs_and_their_trajectories_never_drafts(client, site, django_user_model):
    run, hidden, tasks = site
    page = text(client.get("/search/", {"q": "run"}))
    assert "Careful opus run" in page and "Secret draft run" not in page
    trajectory = run.trajectories.order_by("pk").first()
    found = text(client.get("/search/", {"q": trajectory.task.task_id}))
    assert f'href="/trajectories/{trajectory.pk}/play/"' in found
    for draft in hidden.trajectories.all():
        assert f'href="/trajectories/{draft.pk}/play/"' not in found
    staff = django_user_model.objects.create_user("toby", password="pw", is_staff=True)
    client.force_login(staff)
    assert "Secret draft run" in text(client.get("/search/", {"q": "draft"}))


def test_every_word_must_match_and_nothing_found_says_so(client, site):
    page = text(client.get("/search/", {"q": "Careful zzzqqq"}))
    assert "Nothing matches" in page and "Careful opus run" not in page


def test_results_come_a_page_at_a_time(client, site):
    run, _hidden, _tasks = site
    base = Run.objects.get(pk=run.pk)
    for i in range(25):
        Run.objects.create(
            name=f"Pager run {i:02d}", slug=f"pager-{i:02d}", suite=base.suite, model=base.model,
            provenance=base.provenance, publication=Run.Publication.PUBLISHED,
        )  # fmt: skip
    first = text(client.get("/search/", {"q": "pager"}))
    assert "Pager run 00" in first and "page 1 of 2" in first and "Pager run 24" not in first
    second = text(client.get("/search/", {"q": "pager", "kind": "runs", "page": "2"}))
    assert "page 2 of 2" in second and "Pager run 24" in second


@pytest.mark.parametrize("query", ["%", "_", "' OR 1=1 --", "<script>alert(1)</script>", "x" * 5000, "\u202e"])
def test_hostile_queries_are_just_words(client, site, query):
    page = text(client.get("/search/", {"q": query}))
    assert "<script>alert(1)</script>" not in page


def test_the_header_offers_search_on_every_page(client, site):
    assert 'action="/search/"' in text(client.get("/"))


def test_an_empty_search_explains_itself(client, db):
    assert "Find a task by its id" in text(client.get("/search/"))
