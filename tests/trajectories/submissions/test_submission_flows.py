"""A submission as its author and the maintainers meet it: one status in one vocabulary on the
submission page, its live updates, the submissions list, the admin and the API (an upload our judge
could not start on is "awaiting_judge" everywhere, saying what happens next), and the same archive
sent again with other metadata refused with what differs, never answered with the old submission
as if the new metadata were kept (page upload and API alike)."""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from tests.factories import make_suite
from tests.html_text import visible_text
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.models import Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def author_and_staff(settings, tmp_path, isolated_media):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()  # upload and API counters live in the cache; user ids repeat between tests
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    staff = get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True, is_superuser=True)
    return author, staff


@pytest.fixture
def no_judge_key(monkeypatch, settings):
    """A site whose judge has no API key: our judge cannot start on an upload."""
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    settings.MYPCBENCH_JUDGE = {**settings.MYPCBENCH_JUDGE, "provider": "google"}


def new_token(client, user) -> str:
    client.force_login(user)
    page = client.post(reverse("trajectories:token_list"), {"name": "cluster runner"}).content.decode()
    client.logout()
    return re.search(r'<code class="token-value">(mpcb_[^<]+)</code>', page).group(1)


def api_upload(client, token, data: bytes, metadata, name="opus.zip"):
    fields = {"archive": upload(data, name)}
    if metadata is not None:
        fields["metadata"] = json.dumps(metadata)
    return client.post("/api/submissions", fields, HTTP_AUTHORIZATION=f"Bearer {token}")


def form_fields(data: bytes, metadata: dict, name="opus.zip") -> dict:
    return {**metadata, "links": "\n".join(metadata["links"]), "archive": upload(data, name)}


# ---------------------------------------------------------------- one status


def test_an_upload_our_judge_cannot_start_on_has_one_status_everywhere(
    client, author_and_staff, tmp_path, no_judge_key, django_capture_on_commit_callbacks
):
    author, staff = author_and_staff
    token = new_token(client, author)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_upload(client, token, zip_bytes(good_entries(tmp_path)), METADATA)
    assert response.status_code == 201, response.content
    sub = Submission.objects.get()
    # the API, read back as the author polls it
    body = client.get(f"/api/submissions/{sub.pk}", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert body["status"] == "awaiting_judge" and body["status_label"] == "Awaiting our judge"
    assert "nothing happens by itself" in body["status_next"] and "GEMINI_API_KEY" not in body["status_next"]

    # the page, its live updates and the list say the same, with what happens next in plain words
    client.force_login(author)
    page = visible_text(client.get(reverse("trajectories:submission_detail", args=[sub.pk])))
    assert "Awaiting our judge" in page and "Awaiting review" not in page and "Waiting for our judge" not in page
    assert "What happens next" in page and "A maintainer will queue them for our judge once it is available" in page
    assert "GEMINI_API_KEY" not in page
    live = client.get(reverse("trajectories:submission_live", args=[sub.pk])).json()
    assert (live["status"], live["status_label"]) == ("awaiting_judge", "Awaiting our judge")
    listing = visible_text(client.get(reverse("trajectories:submission_list")))
    assert "Awaiting our judge" in listing and "Awaiting review" not in listing

    # staff read the same status, with what is missing and what to do about it
    client.force_login(staff)
    page = visible_text(client.get(reverse("trajectories:submission_detail", args=[sub.pk])))
    assert "Awaiting our judge" in page and "GEMINI_API_KEY" in page and "Queue for our judge" in page
    assert "approving publishes it without scores" in page
    admin_list = visible_text(client.get(reverse("admin:trajectories_submission_changelist")))
    assert "Awaiting our judge" in admin_list.split("Filter")[0]
    filtered = client.get(reverse("admin:trajectories_submission_changelist"), {"status": "awaiting_judge"})
    assert "1 submission" in visible_text(filtered)
    filtered = client.get(reverse("admin:trajectories_submission_changelist"), {"status": "awaiting_review"})
    assert "0 submissions" in visible_text(filtered)
    admin_page = visible_text(client.get(reverse("admin:trajectories_submission_change", args=[sub.pk])))
    assert "Awaiting our judge" in admin_page and "Nothing happens by itself" in admin_page


def test_a_judged_upload_is_awaiting_review_on_the_page_and_in_the_api(client, author_and_staff, tmp_path):
    author, _staff = author_and_staff
    token = new_token(client, author)
    body = api_upload(client, token, zip_bytes(good_entries(tmp_path)), METADATA).json()
    assert body["status"] == "awaiting_review" and body["status_label"] == "Awaiting review"
    assert "A maintainer reviews it next" in body["status_next"]
    client.force_login(author)
    page = visible_text(client.get(reverse("trajectories:submission_detail", args=[body["id"]])))
    assert "Awaiting review" in page and "A maintainer reviews it next" in page


# ---------------------------------------------------------------- the same archive again


def test_the_same_archive_with_other_metadata_is_refused_through_the_api(client, author_and_staff, tmp_path):
    author, _staff = author_and_staff
    token = new_token(client, author)
    data = zip_bytes(good_entries(tmp_path))
    first = api_upload(client, token, data, METADATA).json()
    # sent again as it was, or with no metadata at all: its submission, unchanged
    for metadata in (METADATA, None):
        again = api_upload(client, token, data, metadata)
        assert again.status_code == 200 and again.json()["id"] == first["id"]
    # with other metadata: refused, naming what differs; nothing stored or changed
    other = {**METADATA, "model": "Claude Opus 4.7", "notes": "Rerun with a new prompt."}
    refused = api_upload(client, token, data, other)
    assert refused.status_code == 409
    problem = refused.json()["problems"][0]["problem"]
    assert f"already submitted, as submission {first['id']}" in problem
    assert "model is 'Claude Opus 4.6' there and 'Claude Opus 4.7' now" in problem
    assert "notes is 'Run on our own cluster.' there and 'Rerun with a new prompt.' now" in problem
    assert "turn_budget" not in problem and "Nothing was stored or changed" in problem
    assert Submission.objects.count() == 1
    assert Submission.objects.get().metadata["model"] == "Claude Opus 4.6"


def test_the_same_archive_with_other_metadata_is_refused_on_the_upload_page(client, author_and_staff, tmp_path):
    author, _staff = author_and_staff
    data = zip_bytes(good_entries(tmp_path))
    client.force_login(author)
    url = reverse("trajectories:submission_new")
    response = client.post(url, form_fields(data, METADATA))
    assert response.status_code == 302
    # the same again: back to that submission, said so
    response = client.post(url, form_fields(data, METADATA), follow=True)
    assert "This archive was already submitted; here is that submission." in visible_text(response)
    # another turn budget: refused on the form, naming it, and the upload's XHR answer says the same
    changed = {**METADATA, "turn_budget": 80}
    page = visible_text(client.post(url, form_fields(data, changed)))
    assert "turn_budget is 50 there and 80 now" in page and "Nothing was stored or changed" in page
    answer = client.post(url, form_fields(data, changed), HTTP_ACCEPT="application/json")
    assert answer.status_code == 409 and "turn_budget is 50 there and 80 now" in answer.json()["problems"][0]["problem"]
    assert Submission.objects.count() == 1 and Submission.objects.get().metadata["turn_budget"] == 50


def test_the_same_archive_with_other_metadata_is_refused_where_workers_check_uploads(
    client, author_and_staff, tmp_path, settings
):
    settings.MYPCBENCH_UPLOAD_VALIDATION = "worker"
    author, _staff = author_and_staff
    token = new_token(client, author)
    data = zip_bytes(good_entries(tmp_path))
    first = api_upload(client, token, data, METADATA)
    assert first.status_code == 202
    assert api_upload(client, token, data, METADATA).status_code == 200
    refused = api_upload(client, token, data, {**METADATA, "agent": "claude-cua-v2"})
    assert refused.status_code == 409
    assert "agent is 'claude-cua' there and 'claude-cua-v2' now" in refused.json()["problems"][0]["problem"]
    assert Submission.objects.get().metadata["agent"] == "claude-cua"
