"""Who may do what with submissions and tokens: anonymous, the author, another author and staff,
over every page and API endpoint the submissions feature adds."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.accounts.tokens import create_token
from trajectories.models import ApiToken, Submission
from trajectories.submissions.uploads import submit_archive

pytestmark = pytest.mark.django_db

WHO = ["anonymous", "author", "other", "staff"]


@pytest.fixture
def world(tmp_path, settings, isolated_media):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()  # API call counters live in the cache; user ids repeat between tests
    make_suite(TASK_IDS)
    users = {
        "author": get_user_model().objects.create_user("pam", password="pw-beesly-2026"),
        "other": get_user_model().objects.create_user("dwight", password="pw-schrute-2026"),
        "staff": get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True),
    }
    sub = submit_archive(users["author"], upload(zip_bytes(good_entries(tmp_path)), "pam-run.zip"), METADATA).submission
    tokens = {name: create_token(user, f"{name} token")[1] for name, user in users.items()}
    return {"users": users, "submission": sub, "tokens": tokens}


def client_as(client, world, who):
    if who != "anonymous":
        client.force_login(world["users"][who])
    return client


def bearer(world, who) -> dict:
    return {} if who == "anonymous" else {"HTTP_AUTHORIZATION": f"Bearer {world['tokens'][who]}"}


# ---------------------------------------------------------------- pages


@pytest.mark.parametrize("who, expected", [("anonymous", 302), ("author", 200), ("other", 404), ("staff", 200)])
def test_submission_page(client, world, who, expected):
    response = client_as(client, world, who).get(
        reverse("trajectories:submission_detail", args=[world["submission"].pk])
    )
    assert response.status_code == expected
    if expected == 302:
        assert response["Location"].startswith(reverse("login"))
    if expected == 200:
        assert b"pam-run.zip" in response.content


@pytest.mark.parametrize("who, expected", [("anonymous", 302), ("author", 200), ("other", 404), ("staff", 200)])
def test_submission_progress_json_is_seen_by_whoever_sees_the_page(client, world, who, expected):
    sub = world["submission"]
    response = client_as(client, world, who).get(reverse("trajectories:submission_live", args=[sub.pk]))
    assert response.status_code == expected
    if expected == 302:
        assert response["Location"].startswith(reverse("login"))
    if expected == 404:
        assert b"pam-run.zip" not in response.content and b"retrieval-f016" not in response.content
    if expected == 200:
        body = response.json()
        assert body["id"] == sub.pk and body["status"] == "awaiting_review"
        assert [r["task"] for r in body["rows"]] == TASK_IDS
        assert "no-cache" in response["Cache-Control"], "progress is never served from a cache"


@pytest.mark.parametrize("who, sees", [("author", True), ("other", False), ("staff", True)])
def test_submission_list_shows_only_what_one_may_see(client, world, who, sees):
    response = client_as(client, world, who).get(reverse("trajectories:submission_list"))
    assert response.status_code == 200
    assert (b"pam-run.zip" in response.content) is sees


@pytest.mark.parametrize(
    "name", ["trajectories:submission_list", "trajectories:submission_new", "trajectories:token_list"]
)
def test_author_pages_need_a_login(client, world, name):
    response = client.get(reverse(name))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    for who in ("author", "other", "staff"):
        client.force_login(world["users"][who])
        assert client.get(reverse(name)).status_code == 200


@pytest.mark.parametrize("who, expected", [("anonymous", 302), ("other", 404), ("staff", 404), ("author", 302)])
def test_only_the_author_withdraws(client, world, who, expected):
    sub = world["submission"]
    response = client_as(client, world, who).post(reverse("trajectories:submission_withdraw", args=[sub.pk]))
    assert response.status_code == expected
    sub.refresh_from_db()
    assert (sub.status == Submission.Status.WITHDRAWN) is (who == "author")


def test_tokens_page_lists_only_ones_own_tokens(client, world):
    client.force_login(world["users"]["other"])
    page = client.get(reverse("trajectories:token_list")).content.decode()
    assert "other token" in page and "author token" not in page
    assert world["tokens"]["other"] not in page, "a token is shown only when created"


@pytest.mark.parametrize("who, expected", [("anonymous", 302), ("other", 404), ("staff", 404), ("author", 302)])
def test_only_the_owner_revokes_a_token(client, world, who, expected):
    token = ApiToken.objects.get(user=world["users"]["author"])
    response = client_as(client, world, who).post(reverse("trajectories:token_revoke", args=[token.pk]))
    assert response.status_code == expected
    token.refresh_from_db()
    assert (token.revoked_at is not None) is (who == "author")


@pytest.mark.parametrize("who", ["anonymous", "author", "other"])
def test_admin_review_is_staff_only(client, world, who):
    url = reverse("admin:trajectories_submission_changelist")
    response = client_as(client, world, who).post(
        url, {"action": "approve", "_selected_action": [world["submission"].pk], "reason": ""}
    )
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert Submission.objects.get().status == Submission.Status.AWAITING_REVIEW


@pytest.mark.parametrize("who, expected", [("anonymous", 302), ("author", 302), ("other", 302), ("staff", 200)])
def test_only_staff_download_the_original_archive(client, world, who, expected):
    response = client_as(client, world, who).get(
        reverse("trajectories:submission_archive", args=[world["submission"].pk])
    )
    assert response.status_code == expected
    if expected == 302:
        assert "/admin/login/" in response["Location"]


@pytest.mark.parametrize("who", ["anonymous", "author", "other"])
def test_mark_verified_is_staff_only(client, world, who):
    url = reverse("admin:trajectories_submission_changelist")
    response = client_as(client, world, who).post(
        url, {"action": "mark_verified", "_selected_action": [world["submission"].pk], "rerun": "any"}
    )
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert Submission.objects.get().review_log == []


def test_draft_upload_run_is_hidden_from_everyone_but_staff(client, world):
    url = reverse("leaderboard:run_detail", args=[world["submission"].run.slug])
    for who, expected in (("anonymous", 404), ("author", 404), ("other", 404), ("staff", 200)):
        client.logout()
        assert client_as(client, world, who).get(url).status_code == expected, who


# ---------------------------------------------------------------- API


@pytest.mark.parametrize("who, expected", [("anonymous", 401), ("author", 200), ("other", 404), ("staff", 200)])
def test_api_submission_detail(client, world, who, expected):
    response = client.get(f"/api/submissions/{world['submission'].pk}", **bearer(world, who))
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["archive_name"] == "pam-run.zip"


@pytest.mark.parametrize("who, count", [("author", 1), ("other", 0), ("staff", 1)])
def test_api_submission_list(client, world, who, count):
    response = client.get("/api/submissions", **bearer(world, who))
    assert response.status_code == 200 and len(response.json()) == count


def test_api_list_needs_credentials(client, world):
    assert client.get("/api/submissions").status_code == 401


def test_api_session_works_for_reading(client, world):
    client.force_login(world["users"]["staff"])
    assert client.get(f"/api/submissions/{world['submission'].pk}").status_code == 200


def test_api_upload_needs_a_valid_active_token(client, world, tmp_path):
    data = zip_bytes(good_entries(tmp_path / "again", ["writing-a001"]))
    form = {"archive": upload(data), "metadata": "{}"}
    assert client.post("/api/submissions", form).status_code == 401
    form = {"archive": upload(data), "metadata": "{}"}
    assert client.post("/api/submissions", form, HTTP_AUTHORIZATION="Bearer mpcb_not-a-real-token").status_code == 401
    client.force_login(world["users"]["author"])  # a browser session is not enough to upload by API
    form = {"archive": upload(data), "metadata": "{}"}
    assert client.post("/api/submissions", form).status_code == 401
    ApiToken.objects.filter(user=world["users"]["author"]).update(revoked_at="2026-01-01T00:00:00Z")
    form = {"archive": upload(data), "metadata": "{}"}
    assert client.post("/api/submissions", form, **bearer(world, "author")).status_code == 401
    assert Submission.objects.count() == 1
