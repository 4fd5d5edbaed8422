"""Who may cancel and rerun a harness run from its page: anonymous visitors, an author, staff without
the permission to change runs, and a maintainer (staff who may change runs). Everyone but the maintainer
gets 403 and changes nothing, and sees no staff buttons on the (published) run page."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from leaderboard.models import Run
from tests import run_page_data
from trajectories.tasks import run_trajectory

pytestmark = pytest.mark.django_db

WHO = ["anonymous", "author", "staff_without_permission", "maintainer"]


@pytest.fixture
def world(settings, monkeypatch):
    from mypcbench_site.celery import app

    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    # no broker in these tests: what a rerun would queue and a cancel would revoke goes nowhere
    monkeypatch.setattr(run_trajectory, "apply_async", lambda args, task_id: None)
    monkeypatch.setattr(app.control, "revoke", lambda ids: None)
    users = get_user_model().objects
    maintainer = users.create_user("michael", password="pw", is_staff=True)
    change_run = Permission.objects.get(codename="change_run", content_type__app_label="leaderboard")
    maintainer.user_permissions.add(change_run)
    people = {
        "author": users.create_user("pam", password="pw"),
        "staff_without_permission": users.create_user("toby", password="pw", is_staff=True),
        "maintainer": maintainer,
    }
    run, tasks = run_page_data.launch(2)
    Run.objects.filter(pk=run.pk).update(publication=Run.Publication.PUBLISHED)
    return {"users": people, "run": Run.objects.get(pk=run.pk), "tasks": tasks}


def as_who(client, world, who):
    if who != "anonymous":
        client.force_login(world["users"][who])
    return client


def unchanged(world) -> bool:
    run = Run.objects.get(pk=world["run"].pk)
    return run.status == "queued" and not Run.objects.filter(parent=run).exists()


@pytest.mark.parametrize("who, expected", [("anonymous", 403), ("author", 403), ("staff_without_permission", 403),
                                           ("maintainer", 200)])  # fmt: skip
def test_the_cancel_confirmation_page(client, world, who, expected):
    response = as_who(client, world, who).get(reverse("trajectories:run_cancel", args=[world["run"].slug]))
    assert response.status_code == expected
    assert unchanged(world)


@pytest.mark.parametrize("who, expected", [("anonymous", 403), ("author", 403), ("staff_without_permission", 403),
                                           ("maintainer", 302)])  # fmt: skip
def test_cancelling(client, world, who, expected):
    response = as_who(client, world, who).post(reverse("trajectories:run_cancel", args=[world["run"].slug]))
    assert response.status_code == expected
    assert Run.objects.get(pk=world["run"].pk).status == ("cancelled" if who == "maintainer" else "queued")


@pytest.mark.parametrize("which", ["failed", "all", "task"])
@pytest.mark.parametrize("who, expected", [("anonymous", 403), ("author", 403), ("staff_without_permission", 403),
                                           ("maintainer", 302)])  # fmt: skip
def test_rerunning(client, world, who, expected, which):
    if which == "failed":  # something to rerun: the first trajectory errored
        first = run_page_data.trajectories(world["run"])[0]
        run_page_data.start(first)
        run_page_data.finish(first, 0, ended_by="error", status="error")
    form = {"which": which, "task": world["tasks"][0].pk, "reruns_seen": "0"}  # as the confirmation page posts it
    response = as_who(client, world, who).post(reverse("trajectories:run_rerun", args=[world["run"].slug]), form)
    assert response.status_code == expected
    assert Run.objects.filter(parent=world["run"]).exists() is (who == "maintainer")


@pytest.mark.parametrize("who", WHO)
def test_only_a_maintainer_sees_the_staff_buttons(client, world, who):
    response = as_who(client, world, who).get(reverse("leaderboard:run_detail", args=[world["run"].slug]))
    assert response.status_code == 200, "a published run's page is public"
    page = response.content.decode()
    shown = who == "maintainer"
    assert ("Staff actions" in page) is shown
    assert (reverse("trajectories:run_cancel", args=[world["run"].slug]) in page) is shown
    assert (reverse("trajectories:run_rerun", args=[world["run"].slug]) in page) is shown


def test_rerun_queues_only_a_confirmed_post(client, world):
    as_who(client, world, "maintainer")
    url = reverse("trajectories:run_rerun", args=[world["run"].slug])
    assert "Queue the rerun" in client.get(url, {"which": "all"}).content.decode(), "a GET only asks"
    assert "Queue the rerun" in client.post(url, {"which": "all"}).content.decode(), "so does an unconfirmed POST"
    assert unchanged(world)


def test_the_answer_to_others_does_not_tell_whether_a_run_exists(client, world):
    Run.objects.filter(pk=world["run"].pk).update(publication=Run.Publication.DRAFT)
    for slug in (world["run"].slug, "no-such-run"):
        assert client.get(reverse("trajectories:run_cancel", args=[slug])).status_code == 403
    as_who(client, world, "maintainer")
    assert client.get(reverse("trajectories:run_cancel", args=[world["run"].slug])).status_code == 200
    assert client.get(reverse("trajectories:run_cancel", args=["no-such-run"])).status_code == 404
