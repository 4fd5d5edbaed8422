"""The player of a recorded session: the user's turns as a lane (each jumping to the first step that
answered it) and the intents panel (status, turn, step, a jump); while the suite's intents are hidden,
visitors see the statuses but not the intents' wording, the user's later messages or the checklist's."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.catalog.sessions import set_intents_revealed
from leaderboard.models import JudgeConfig
from tests.factories import make_suite, write_task_dir
from tests.html_text import visible_text
from tests.session_data import RIDE, import_hand_run, write_two_sessions
from trajectories.models import Judgment, Trajectory
from trajectories.recording.import_results import import_results

pytestmark = pytest.mark.django_db


def _ride_page(client, tmp_path):
    run = import_hand_run(tmp_path)
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    return run, client.get(reverse("trajectories:trajectory_player", args=[ride.pk]))


def test_a_maintainer_sees_the_user_lane_and_every_intent_with_its_status_and_jump(staff_client, tmp_path):
    _run, page = _ride_page(staff_client, tmp_path)
    html = page.content.decode()
    text = visible_text(page)
    assert "Initial request" in text
    assert "U1 Book me a ride to the airport." in text
    assert "U2 Yes: Tip the driver 25 percent." in text
    assert "U3 Oh, and Pickup from the office at 4pm." in text
    # each turn jumps to the first step that answered it: steps 1, 3 and 5
    lane = html.split('id="user-lane"')[1].split("</ol>")[0]
    assert [chunk.split('"')[0] for chunk in lane.split('data-jump-step="')[1:]] == ["1", "3", "5"]
    assert "2 of 3 settled without the user saying it" in text
    assert "It ended once every intent was settled and the agent had answered." in text
    assert "The user was played by rules (prompt mypc-user-rules-1)" in text
    assert "I1 Completed Book an XL ride. turn 1, step 2 Go to step 2" in text
    assert "I2 Inferred Tip the driver 25 percent. turn 2, step 2 Go to step 2" in text
    assert "I3 Provided Pickup from the office at 4pm. turn 3, step 4 Go to step 4" in text
    assert "hidden until a maintainer reveals" not in text


def test_a_visitor_sees_statuses_but_not_what_the_intents_say_until_they_are_revealed(client, tmp_path):
    run, page = _ride_page(client, tmp_path)
    text = visible_text(page)
    assert "U1 Book me a ride to the airport." in text  # the request is the task's instruction: public
    assert "Tip the driver 25 percent" not in page.content.decode()
    assert "Pickup from the office" not in page.content.decode()
    assert "Book an XL ride" not in text
    assert "I1 Completed turn 1, step 2 Go to step 2" in text
    assert "I3 Provided turn 3, step 4 Go to step 4" in text
    assert "hidden until a maintainer reveals this suite's intents" in text

    set_intents_revealed([run.suite], True)
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    text = visible_text(client.get(reverse("trajectories:trajectory_player", args=[ride.pk])))
    assert "I2 Inferred Tip the driver 25 percent. turn 2, step 2" in text
    assert "U3 Oh, and Pickup from the office at 4pm." in text


def test_a_visitor_does_not_read_the_checklist_wording_in_the_players_data(client, tmp_path):
    run = import_hand_run(tmp_path)
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    judge = JudgeConfig.objects.create(name="session judge")
    item = ride.task.rubric_items.get(rubric_id="R1", is_current=True)
    Judgment.objects.create(trajectory=ride, rubric_item=item, judge=judge, verdict="success", explanation="XL booked")
    page = client.get(reverse("trajectories:trajectory_player", args=[ride.pk]))
    data = json.loads(page.content.decode().split('id="player-data" type="application/json">')[1].split("</script>")[0])
    (entry,) = data["judges"]
    assert entry["items"][0]["criterion"] == "Checklist item R1 (hidden until the suite's intents are revealed)"
    assert "An XL ride is booked" not in page.content.decode()


def test_a_single_turn_trajectory_has_no_lane_or_intents_panel(client, tmp_path):
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "plain", "retrieval-f016")
    run = import_results(tmp_path / "plain", "plain run", publish=True).run
    page = client.get(reverse("trajectories:trajectory_player", args=[run.trajectories.get().pk]))
    assert page.status_code == 200
    assert 'id="user-lane"' not in page.content.decode() and 'id="intents-panel"' not in page.content.decode()


def _tight(text: str) -> str:
    """Page text without the spaces tag boundaries leave before closing punctuation."""
    return text.replace(" )", ")").replace(" :", ":")


def test_the_plain_step_list_shows_the_conversation_and_hides_the_checklist_from_visitors(
    client, staff_client, tmp_path
):
    run = import_hand_run(tmp_path)
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    judge = JudgeConfig.objects.create(name="session judge")
    item = ride.task.rubric_items.get(rubric_id="R1", is_current=True)
    Judgment.objects.create(trajectory=ride, rubric_item=item, judge=judge, verdict="success", explanation="XL booked")
    url = reverse("trajectories:trajectory_detail", args=[ride.pk])
    staff = _tight(visible_text(staff_client.get(url)))
    assert "User (answered from step 3): Yes: Tip the driver 25 percent. Agent: Booked." in staff
    assert "An XL ride is booked" in staff
    visitor = _tight(visible_text(Client().get(url)))
    assert "User (answered from step 1): Book me a ride to the airport." in visitor
    assert "Tip the driver" not in visitor and "An XL ride is booked" not in visitor and "XL booked" not in visitor


def test_the_compare_page_of_two_sessions_hides_the_checklist_from_visitors(staff_client, tmp_path):
    first = import_hand_run(tmp_path)
    folder = write_two_sessions(tmp_path / "two")
    second = import_results(folder, "Second run", suite_slug=first.suite.slug, publish=True).run
    a, b = (Trajectory.objects.get(run=r, task__task_id=RIDE) for r in (first, second))
    judge = JudgeConfig.objects.create(name="session judge")
    item = a.task.rubric_items.get(rubric_id="R1", is_current=True)
    for t in (a, b):
        Judgment.objects.create(trajectory=t, rubric_item=item, judge=judge, verdict="success", explanation="XL")
    url = reverse("trajectories:trajectory_compare") + f"?a={a.pk}&b={b.pk}"
    assert "An XL ride is booked" in staff_client.get(url).content.decode()
    page = Client().get(url).content.decode()
    assert page.count("Checklist item R1 (hidden until the suite's intents are revealed)") >= 2
    assert "An XL ride is booked" not in page


def test_the_admin_trajectory_page_lists_the_user_turns_and_intent_statuses(admin_client, tmp_path):
    run = import_hand_run(tmp_path)
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    text = visible_text(admin_client.get(reverse("admin:trajectories_trajectory_change", args=[ride.pk])))
    assert "Oh, and Pickup from the office at 4pm." in text
    assert "I2 Inferred 2 2" in text


def test_the_reliability_pages_leave_out_the_checklist_wording_until_the_intents_are_revealed(staff_client, tmp_path):
    run = import_hand_run(tmp_path)
    ride = Trajectory.objects.get(run=run, task__task_id=RIDE)
    judge = JudgeConfig.objects.create(name="session judge")
    item = ride.task.rubric_items.get(rubric_id="R1", is_current=True)
    Judgment.objects.create(trajectory=ride, rubric_item=item, judge=judge, verdict="success", explanation="XL")
    urls = [
        reverse("trajectories:run_reliability", args=[run.slug]),
        reverse("trajectories:suite_reliability", args=[run.suite.slug]),
        reverse("trajectories:task_reliability", args=[run.suite.slug, RIDE]),
    ]
    for url in urls:
        visitor = visible_text(Client().get(url))
        assert "An XL ride is booked" not in visitor and "wording hidden with the session's intents" in visitor, url
        assert "An XL ride is booked" in visible_text(staff_client.get(url)), url
    set_intents_revealed([run.suite], True)
    for url in urls:
        assert "An XL ride is booked" in visible_text(Client().get(url)), url
