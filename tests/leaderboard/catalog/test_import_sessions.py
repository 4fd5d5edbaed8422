"""Session suites: the Michael set imports like any suite, a bad session file is refused naming its field,
and task pages hide the intents from visitors until a maintainer reveals them in the admin."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from leaderboard.catalog.sessions import set_intents_revealed
from leaderboard.models import Suite, Task
from tests.html_text import visible_text
from tests.seeding.test_michael_sessions import MICHAEL_SESSIONS

pytestmark = pytest.mark.django_db

FIRST = "session_dundies-s01"
FIRST_INTENT = "The Dundies are at Chili's Grill & Bar, the place they have always been."


def _import(*args) -> str:
    out = io.StringIO()
    call_command("import_tasks", *[str(a) for a in args], stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def michael_suite() -> Suite:
    """The shipped Michael session set, imported through the command."""
    _import(MICHAEL_SESSIONS)
    return Suite.objects.get()


def test_the_session_file_imports_as_its_own_suite_and_reimports_as_nothing(michael_suite):
    assert (michael_suite.name, michael_suite.version) == ("MyPCBench sessions", "michael-v1")
    assert michael_suite.tasks.count() == 33
    task = michael_suite.tasks.get(task_id="session_dundies-s04")
    assert task.instruction == "Send out the Dundies invitations."
    assert task.extra["session"]["depends_on"] == [FIRST]
    assert [i["id"] for i in task.extra["session"]["intents"]] == ["I1", "I2", "I3", "I4"]
    assert task.rubric_items.filter(is_current=True).count() == 4
    assert "Nothing changed." in _import(MICHAEL_SESSIONS)


def test_a_bad_session_file_is_refused_naming_the_field_and_writes_nothing(tmp_path):
    data = json.loads(MICHAEL_SESSIONS.read_text())
    data["sessions"][2]["intents"][1]["evidence"] = []
    data["sessions"][5]["checklist"][0]["weight"] = "heavy"
    bad = tmp_path / "sessions.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(CommandError) as caught:
        _import(bad)
    assert str(caught.value).splitlines() == [
        f"{bad}: 2 problem(s):",
        "  sessions[2].intents[1].evidence: missing or empty (expected a non-empty array of evidence objects)",
        "  sessions[5].checklist[0].weight: found a JSON string (expected a number (missing or <= 0 counts as 1.0))",
        "Nothing was imported.",
    ]
    assert not Suite.objects.exists() and not Task.objects.exists()


def test_visitors_see_how_many_intents_but_not_what_they_are(client, michael_suite):
    text = visible_text(client.get(reverse("leaderboard:task_detail", args=[michael_suite.slug, FIRST])))
    assert "Initial request Can you sort out a venue for the Dundies?" in text
    assert "This session's 3 hidden intents are not shown" in text
    assert FIRST_INTENT not in text and "reservation_name" not in text
    # The checklist would give the intents away ("under the name 'Scott, party of fabulous'"): withheld too.
    assert "The checklist's 5 items are hidden with the intents: they name what the user wants." in text
    assert "party of fabulous" not in text


def test_the_api_withholds_intents_and_checklist_from_visitors_and_gives_them_to_maintainers(
    staff_client, michael_suite
):
    url = f"/api/tasks/{michael_suite.slug}/{FIRST}"
    public = Client().get(url).json()  # staff_client signs the shared client in: a fresh one is a visitor
    assert public["session"] == {
        "sequence": "dundies",
        "position": 1,
        "depends_on": [],
        "intent_count": 3,
        "hidden": True,
        "intents": [],
        "checklist_item_count": 5,
    }
    assert public["rubric"] == [] and public["instruction"].startswith("Can you sort out a venue")
    shown = staff_client.get(url).json()
    assert shown["session"]["hidden"] is False and len(shown["rubric"]) == 5
    assert shown["session"]["intents"][0]["statement"] == FIRST_INTENT
    assert shown["session"]["intents"][0]["evidence"][0] == "World record: calendar events where summary = THE DUNDIES"


def test_maintainers_always_see_the_intents_and_their_evidence(staff_client, michael_suite):
    text = visible_text(staff_client.get(reverse("leaderboard:task_detail", args=[michael_suite.slug, FIRST])))
    assert f"I1 {FIRST_INTENT}" in text
    assert "World record: calendar events where summary = THE DUNDIES" in text
    assert "Persona spec: app_overrides.tablefind.reservation_name" in text
    assert "Shown to maintainers only; visitors see the count." in text
    assert "The reservation is under the name 'Scott, party of fabulous'" in text  # the checklist
    later = visible_text(
        staff_client.get(reverse("leaderboard:task_detail", args=[michael_suite.slug, "session_dundies-s07"]))
    )
    assert "Earlier session session_dundies-s01, intent I2" in later


def test_revealing_in_the_admin_shows_visitors_the_intents_on_a_page_they_had_cached(
    client, michael_suite, django_user_model
):
    url = reverse("leaderboard:task_detail", args=[michael_suite.slug, FIRST])
    assert FIRST_INTENT not in visible_text(client.get(url))
    admin = django_user_model.objects.create_superuser("chief", password="pw")
    client.force_login(admin)
    changelist = reverse("admin:leaderboard_suite_changelist")
    response = client.post(
        changelist, {"action": "reveal_intents", "_selected_action": [michael_suite.pk]}, follow=True
    )
    assert "Hidden intents now shown to visitors in 1 suite(s)." in [str(m) for m in response.context["messages"]]
    client.logout()
    text = visible_text(client.get(url))
    assert FIRST_INTENT in text and "Shown to maintainers only" not in text
    assert "The reservation is under the name 'Scott, party of fabulous'" in text
    assert set_intents_revealed(Suite.objects.all(), False) == 1
    assert FIRST_INTENT not in visible_text(client.get(url))


def test_single_turn_tasks_show_no_session_section(client):
    suite = Suite.objects.create(name="Plain", version="v1", slug="plain")
    Task.objects.create(suite=suite, task_id="retrieval-a1", position=1, instruction="Find it.", category="retrieval")
    text = visible_text(client.get(reverse("leaderboard:task_detail", args=["plain", "retrieval-a1"])))
    assert "Instruction Find it." in text and "Hidden intents" not in text and "Session" not in text
    assert client.get("/api/tasks/plain/retrieval-a1").json()["session"] is None
