"""Task pages mark the rubric items a world variant words differently (everyone sees the mark, maintainers also
the template and where each value is read), task review shows the templates, and an item an erratum reworded,
or a task without a template, carries no mark."""

import pytest
from django.contrib.auth.models import User

from seeding.world.rubric_templates import load_templates
from tests.factories import make_suite
from tests.html_text import visible_text

pytestmark = pytest.mark.django_db

TASK = "preference_inference-f004"
MARK = "varies by world variant"


def _suite():
    template = load_templates()[TASK]
    (item,) = template["items"]
    rubric = [{"criterion": "Opens HangryDash", "weight": 1.0}, {"criterion": item["canonical"], "weight": 1.0}]
    return make_suite([TASK, "retrieval-w01"], rubric=rubric), item


def test_the_task_page_marks_the_item_that_varies_and_maintainers_see_its_template(client):
    suite, item = _suite()
    anonymous = visible_text(client.get(f"/tasks/{suite.slug}/{TASK}/").content.decode())
    assert anonymous.count(MARK) == 1
    assert anonymous.index(MARK) > anonymous.index("Cooper's Seafood House as Michael's top")
    assert "{f1_r1_name}" not in anonymous
    client.force_login(User.objects.create_user("ann", password="pw", is_staff=True))
    staff = visible_text(client.get(f"/tasks/{suite.slug}/{TASK}/").content.decode())
    assert "Agent identifies {f1_r1_name} as Michael's top" in staff
    assert "{f1_r1_name} : name of row 1 of “TableFind reservations per restaurant (top five)”" in staff
    other = visible_text(client.get(f"/tasks/{suite.slug}/retrieval-w01/").content.decode())
    assert MARK not in other
    api = client.get(f"/api/tasks/{suite.slug}/{TASK}").json()
    assert [i["varies_by_world_variant"] for i in api["rubric"]] == [False, True]


def test_an_item_an_erratum_reworded_is_judged_as_written_and_carries_no_mark(client):
    suite, _ = _suite()
    suite.tasks.get(task_id=TASK).rubric_items.filter(position=2).update(criterion="Names the top restaurant")
    assert MARK not in visible_text(client.get(f"/tasks/{suite.slug}/{TASK}/").content.decode())


def test_task_review_shows_the_template_for_review(client):
    suite, _ = _suite()
    client.force_login(User.objects.create_superuser("rev", password="pw"))
    page = visible_text(client.get(f"/world/review/{suite.slug}/{TASK}/").content.decode())
    assert MARK in page and "Template: Agent identifies {f1_r1_name} as Michael's top" in page
    assert "written as text" in page
