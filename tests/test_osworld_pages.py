"""An OSWorld suite in the words OSWorld users expect: import_tasks reports domains (not a blank
behavioural type), the suite page counts tasks by domain, a task page shows its domain and the
evaluator config kept on import and no rubric block, the task list filters by domain, and an empty
OSWorld leaderboard says "No runs yet" rather than blaming filters nobody set."""

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from leaderboard.models import Suite
from tests.html_text import visible_text
from tests.leaderboard.catalog.test_import_osworld import IDS, write_definitions

pytestmark = pytest.mark.django_db

CHROME = IDS["chrome"][0]


@pytest.fixture
def suite(tmp_path):
    out = io.StringIO()
    call_command("import_tasks", str(write_definitions(tmp_path)), stdout=out)
    suite = Suite.objects.get(kind=Suite.Kind.OSWORLD)
    suite.import_report = out.getvalue()
    return suite


def test_import_reports_domains_not_a_blank_behavioural_type(suite):
    assert "Domains: chrome 2, os 1" in suite.import_report
    assert "Behavioural types" not in suite.import_report


def test_the_suite_page_counts_tasks_by_domain(suite, client):
    page = client.get(reverse("leaderboard:suite_detail", args=[suite.slug]))
    text = visible_text(page)
    assert "Tasks by domain" in text and "chrome 2" in text and "os 1" in text
    assert "behavioural type" not in text.lower()
    assert f"?suite={suite.slug}&amp;domain=chrome" in page.content.decode()


def test_the_task_list_filters_by_domain(suite, client):
    text = visible_text(client.get(reverse("leaderboard:task_list"), {"suite": suite.slug, "domain": "chrome"}))
    assert "2 tasks match the filters (OSWorld domain chrome" in text
    assert CHROME in text and IDS["os"][0] not in text
    assert "chrome (domain)" in text


def test_a_task_page_shows_its_domain_and_evaluator_and_no_rubric(suite, client):
    page = client.get(reverse("leaderboard:task_detail", args=[suite.slug, CHROME]))
    text = visible_text(page)
    assert "Domain chrome" in text and "Behavioural type" not in text
    assert "How OSWorld scores it" in text
    assert "Evaluator (evaluator)" in text and '"func": "exact_match"' in text
    assert "Setup (config)" in text
    assert "Rubric version" not in text and "judge reliability" not in text and "no rubric items" not in text


def test_an_empty_osworld_leaderboard_says_no_runs_yet(suite, client):
    text = visible_text(client.get(reverse("leaderboard:board"), {"suite": suite.slug}))
    assert "No runs yet on OSWorld test_all" in text
    assert "No run matches these filters" not in text and "(some set)" not in text
    # a filter someone did set still says so
    text = visible_text(client.get(reverse("leaderboard:board"), {"suite": suite.slug, "surface": "computer"}))
    assert "No run matches these filters" in text
