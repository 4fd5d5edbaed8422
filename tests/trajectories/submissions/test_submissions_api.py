"""Submissions end to end: a token made on the tokens page, an upstream result folder zipped and
uploaded through the API, validated and ingested, approved by staff in the admin, and shown as a
published run with the upload badge; the web form's answers; rate limits on API calls, accepted
uploads and upload attempts."""

import json
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from leaderboard.models import Run
from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, files_under, good_entries, upload, zip_bytes
from trajectories.models import ApiToken, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(settings, tmp_path):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()  # API call counters live in the cache; user ids repeat between tests
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    staff = get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True, is_superuser=True)
    return author, staff


def new_token(client, user) -> str:
    client.force_login(user)
    page = client.post(reverse("trajectories:token_list"), {"name": "cluster runner"}).content.decode()
    raw = re.search(r'<code class="token-value">(mpcb_[^<]+)</code>', page).group(1)
    client.logout()
    return raw


@pytest.mark.slow
def test_round_trip_upload_approve_publish(client, setup, tmp_path, isolated_media):
    author, staff = setup
    raw = new_token(client, author)
    token = ApiToken.objects.get(user=author)
    assert token.key_hash != raw and raw not in token.key_hash and raw.startswith(token.prefix)

    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, True, False]))
    response = client.post(
        "/api/submissions",
        {"archive": upload(archive, "opus.zip"), "metadata": json.dumps(METADATA)},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "awaiting_review" and body["provenance"] == "upload" and body["publication"] == "draft"
    assert body["url"].endswith(f"/submissions/{body['id']}/")
    assert any("accepted: 2 trajectories, 6 steps" in p["problem"] for p in body["validation_report"])
    token.refresh_from_db()
    assert token.last_used_at is not None

    # the same archive again: the existing submission, nothing new
    again = client.post("/api/submissions", {"archive": upload(archive)}, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert again.status_code == 200 and again.json()["id"] == body["id"]

    sub = Submission.objects.get(pk=body["id"])
    run = sub.run
    assert client.get(reverse("leaderboard:run_detail", args=[run.slug])).status_code == 404

    client.force_login(staff)
    approve = {"action": "approve", "_selected_action": [sub.pk], "reason": ""}
    # our judge has not judged it (no judge ran here): the admin asks first, saying it shows without scores
    response = client.post(reverse("admin:trajectories_submission_changelist"), approve)
    assert "without scores" in response.content.decode() and Submission.objects.get(pk=sub.pk).status != "published"
    response = client.post(
        reverse("admin:trajectories_submission_changelist"), {**approve, "publish_unjudged": "yes"}, follow=True
    )
    assert "1 submission(s) approved and published." in response.content.decode()
    client.logout()

    sub.refresh_from_db()
    run.refresh_from_db()
    assert sub.status == Submission.Status.PUBLISHED and run.publication == Run.Publication.PUBLISHED
    assert sub.review_log[-1]["by"] == "michael" and sub.review_log[-1]["action"] == "approve"
    page = client.get(reverse("leaderboard:run_detail", args=[run.slug])).content.decode()
    # approved before our judge ran (no judge configured here): published, but not claimed re-judged
    assert 'class="badge badge-awaiting-judge"' in page and ">awaiting our judge<" in page
    assert "badge-rejudged" not in page
    assert "retrieval-f016" in page
    listing = client.get(reverse("leaderboard:run_list")).content.decode()
    assert run.name in listing
    # 6 screenshots (the two tasks repeat 3 images, each stored once by content hash) and the archive
    assert len(files_under(isolated_media)) == 3 + 1


def test_api_refusal_lists_every_problem_and_stores_nothing(client, setup, tmp_path, isolated_media):
    author, _staff = setup
    raw = new_token(client, author)
    root_entries = good_entries(tmp_path, ["retrieval-f016", "retrieval-zzz9"])
    response = client.post(
        "/api/submissions",
        {"archive": upload(zip_bytes(root_entries)), "metadata": json.dumps({**METADATA, "turn_budget": "many"})},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 422
    problems = response.json()["problems"]
    assert problems == [
        {"file": "metadata", "problem": "turn_budget: 'many' (expected a whole number 1 to 1000)", "level": "error"}
    ]
    response = client.post(
        "/api/submissions",
        {"archive": upload(zip_bytes(root_entries)), "metadata": json.dumps(METADATA)},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 422
    assert [p["file"] for p in response.json()["problems"] if p["level"] == "error"] == ["retrieval-zzz9"]
    assert Submission.objects.count() == 0 and Run.objects.count() == 0
    assert files_under(isolated_media) == []


def test_api_calls_are_rate_limited_per_author(clock_mid_hour, client, setup, settings):
    author, staff = setup
    settings.MYPCBENCH_API_CALLS_PER_WINDOW = 3
    raw = new_token(client, author)
    codes = [client.get("/api/submissions", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]

    def next_hour():
        now = timezone.now()
        return (now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")

    before = next_hour()
    refused = client.get("/api/submissions", HTTP_AUTHORIZATION=f"Bearer {raw}")
    detail = refused.json()["detail"]
    # the limit, and the end of the current clock hour when it resets (either side of an hour's turn)
    assert detail.startswith("rate limit: at most 3 API calls per hour per author (counted per clock window); ")
    assert any(f"you have made 6. The limit resets at {at} UTC (in " in detail for at in (before, next_hour()))
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert refused.json()["problems"] == [{"file": "", "problem": detail, "level": "error"}]
    # per author: another account's calls are counted apart
    client.force_login(staff)
    assert client.get("/api/submissions").status_code == 200


def test_uploads_are_rate_limited_per_author(client, setup, settings, tmp_path, clock_mid_hour):
    author, _staff = setup
    settings.MYPCBENCH_UPLOADS_PER_WINDOW = 2
    raw = new_token(client, author)

    def post(name):
        # a note of its own in each archive, so no two are the same upload
        archive = zip_bytes([*good_entries(tmp_path / name, ["retrieval-f016"]), ("README.txt", name.encode())])
        form = {"archive": upload(archive, f"{name}.zip"), "metadata": json.dumps(METADATA)}
        return client.post("/api/submissions", form, HTTP_AUTHORIZATION=f"Bearer {raw}")

    assert [post("a").status_code, post("b").status_code] == [201, 201]
    first = Submission.objects.order_by("created_at").first()
    Submission.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(minutes=45))
    refused = post("c")
    assert refused.status_code == 429
    detail = refused.json()["detail"]
    frees = (Submission.objects.get(pk=first.pk).created_at + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")
    assert (
        "rate limit: at most 2 uploads per hour per author (accepted uploads in the last hour count); you have "
        f"made 2. The limit resets at {frees} UTC (in 15 minutes); try again then." in detail
    )
    assert int(refused["Retry-After"]) == 15 * 60  # the clock is stopped: exactly 15 minutes
    assert Submission.objects.count() == 2, "nothing stored"

    # the web form says the same, with the same status
    client.force_login(author)
    form = {**METADATA, "links": "", "archive": upload(zip_bytes(good_entries(tmp_path / "d", ["writing-a001"])))}
    page = client.post(reverse("trajectories:submission_new"), form)
    assert page.status_code == 429 and "Retry-After" in page
    assert "at most 2 uploads per hour per author" in page.content.decode()

    # once the oldest upload leaves the window, the next is accepted
    Submission.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(minutes=61))
    assert post("e").status_code == 201


def test_upload_attempts_are_limited_accepted_or_refused(
    clock_mid_hour, client, setup, settings, tmp_path, isolated_media
):
    """Refused uploads store nothing, so only a counter of attempts stops an author from having the
    server check hostile archives without end; a repeat of an earlier archive counts too."""
    author, staff = setup
    settings.MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW = 3
    settings.MYPCBENCH_UPLOADS_PER_WINDOW = 20  # far from the accepted-upload limit
    raw = new_token(client, author)

    def post(data: bytes, name="run.zip"):
        form = {"archive": upload(data, name), "metadata": json.dumps(METADATA)}
        return client.post("/api/submissions", form, HTTP_AUTHORIZATION=f"Bearer {raw}")

    good = zip_bytes(good_entries(tmp_path / "a", ["retrieval-f016"]))
    hostile = zip_bytes([*good_entries(tmp_path / "b", ["writing-a001"]), ("../../evil.txt", b"owned")])
    assert post(good).status_code == 201
    assert post(good).status_code == 200, "the same archive again returns the existing submission"
    assert post(hostile).status_code == 422
    stored = (Submission.objects.count(), Run.objects.count(), files_under(isolated_media))

    def next_hour():
        now = timezone.now()
        return (now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")

    before = next_hour()
    refused = post(hostile)
    assert refused.status_code == 429, "refused before the archive is received (no 422 naming evil.txt)"
    [problem] = refused.json()["problems"]
    message = problem["problem"]
    assert message.startswith(
        "rate limit: at most 3 upload attempts per hour per author (accepted or refused, counted per clock "
        "window); you have made 3. The limit resets at "
    )
    assert any(f"The limit resets at {at} UTC (in " in message for at in (before, next_hour()))
    assert message.endswith("; try again then.") and problem["level"] == "error"
    assert message in refused.json()["detail"]
    assert 0 < int(refused["Retry-After"]) <= 3600
    # a good archive is refused too while over the limit, and nothing is written
    fresh = zip_bytes(good_entries(tmp_path / "c", ["writing-a001"]))
    assert post(fresh).status_code == 429
    assert (Submission.objects.count(), Run.objects.count(), files_under(isolated_media)) == stored
    assert files_under(settings.MYPCBENCH_UPLOAD_TMP_DIR) == []

    # the web form says the same with the same status, before the archive is received (so what was
    # typed is not sent back: the page leads back to the form, which the browser still holds)
    client.force_login(author)
    form = {**METADATA, "model": "Opus typed by hand", "notes": "second try, fixed the paths", "links": ""}
    page = client.post(reverse("trajectories:submission_new"), {**form, "archive": upload(fresh)})
    text = page.content.decode()
    assert page.status_code == 429 and 0 < int(page["Retry-After"]) <= 3600
    assert "at most 3 upload attempts per hour per author (accepted or refused" in text
    assert f'href="{reverse("trajectories:submission_new")}"' in text
    as_json = client.post(
        reverse("trajectories:submission_new"), {**form, "archive": upload(fresh)}, HTTP_ACCEPT="application/json"
    )
    assert as_json.status_code == 429
    assert "at most 3 upload attempts per hour" in as_json.json()["problems"][0]["problem"]
    assert Submission.objects.count() == stored[0]

    # per author: another account's attempts are counted apart
    client.force_login(staff)
    page = client.post(reverse("trajectories:submission_new"), {**form, "archive": upload(fresh)})
    assert page.status_code == 302 and Submission.objects.count() == stored[0] + 1


# ---------------------------------------------------------------- the web form


def form_data(archive: bytes, **overrides) -> dict:
    data = {**METADATA, "links": "\n".join(METADATA["links"]), "archive": upload(archive)}
    data.update(overrides)
    return data


def test_web_form_upload_redirects_to_the_submission(client, setup, tmp_path):
    author, _staff = setup
    client.force_login(author)
    response = client.post(reverse("trajectories:submission_new"), form_data(zip_bytes(good_entries(tmp_path))))
    sub = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "trajectories:submission_detail", args=[sub.pk]
    )
    page = client.get(response["Location"]).content.decode()
    assert "Awaiting review" in page and "0 of 2 trajectories judged by our judge" in page
    assert "accepted: 2 trajectories, 6 steps, 6 screenshots" in page


def test_web_form_xhr_gets_json_problems(client, setup, tmp_path):
    author, _staff = setup
    client.force_login(author)
    bad = zip_bytes([*good_entries(tmp_path), ("../escape.txt", b"x")])
    response = client.post(reverse("trajectories:submission_new"), form_data(bad), HTTP_ACCEPT="application/json")
    assert response.status_code == 422
    assert response.json()["problems"][0] == {
        "file": "../escape.txt",
        "problem": "escapes the archive root with '..' (expected a path inside the archive)",
        "level": "error",
    }
    page = client.post(reverse("trajectories:submission_new"), form_data(bad)).content.decode()
    assert "Not accepted" in page and "escapes the archive root" in page
    assert Submission.objects.count() == 0


def test_self_reported_judgments_are_labelled_on_the_submission_page(client, setup, tmp_path):
    author, _staff = setup
    client.force_login(author)
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    response = client.post(reverse("trajectories:submission_new"), form_data(archive), follow=True)
    page = response.content.decode()
    assert page.count('class="badge badge-self-reported">self-reported</span> 2/3 items') == 2
    assert "score 70%" in page


def test_signup_login_and_logout(client, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    response = client.post(
        reverse("signup"),
        {"username": "jim", "password1": "Halpert-pranks-2026", "password2": "Halpert-pranks-2026"},
    )
    assert response.status_code == 302 and response["Location"] == reverse("trajectories:submission_list")
    assert "Log out jim" in client.get(reverse("trajectories:submission_list")).content.decode()
    client.post(reverse("logout"))
    assert client.get(reverse("trajectories:submission_list")).status_code == 302
    response = client.post(reverse("login"), {"username": "jim", "password": "Halpert-pranks-2026"})
    assert response.status_code == 302
    assert "Log out jim" in client.get(reverse("leaderboard:home")).content.decode()


def test_openapi_documents_the_submission_endpoints(client):
    schema = client.get("/api/openapi.json").json()
    upload_op = schema["paths"]["/api/submissions"]["post"]
    assert upload_op["security"] == [{"TokenAuth": []}]
    form = upload_op["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert {"archive", "metadata"} <= set(form["properties"])
    assert "/api/submissions/{submission_id}" in schema["paths"]


def test_admin_change_page_shows_report_and_reject_reason_is_logged(client, setup, tmp_path):
    from trajectories.submissions.uploads import submit_archive

    author, staff = setup
    sub = submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    client.force_login(staff)
    url = reverse("admin:trajectories_submission_changelist")
    response = client.post(url, {"action": "reject", "_selected_action": [sub.pk], "reason": ""}, follow=True)
    assert "reject: a reason is required" in response.content.decode()
    response = client.post(
        url, {"action": "reject", "_selected_action": [sub.pk], "reason": "Not our VM image."}, follow=True
    )
    assert "1 submission(s) rejected." in response.content.decode()
    page = client.get(reverse("admin:trajectories_submission_change", args=[sub.pk])).content.decode()
    assert "accepted: 2 trajectories, 6 steps" in page
    assert "michael rejected (awaiting_review → rejected) Not our VM image." in page
    client.force_login(author)
    page = client.get(reverse("trajectories:submission_detail", args=[sub.pk])).content.decode()
    assert "Rejected" in page and "Not our VM image." in page


def test_submission_page_shows_our_judges_scores_apart_from_self_reported(client, setup, tmp_path):
    from leaderboard.models import JudgeConfig
    from trajectories.models import Judgment
    from trajectories.submissions.uploads import submit_archive

    author, _staff = setup
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, True, True]))
    sub = submit_archive(author, upload(archive), METADATA).submission
    ours = JudgeConfig.objects.create(name="mypc-judge-1 (gemini)", origin=JudgeConfig.Origin.OURS)
    trajectory = sub.run.trajectories.get(task__task_id="retrieval-f016")
    for item, verdict in zip(trajectory.task.current_rubric(), ["success", "failure", "success"], strict=True):
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=ours, verdict=verdict)
    client.force_login(author)
    page = client.get(reverse("trajectories:submission_detail", args=[sub.pk])).content.decode()
    assert "1 of 2 trajectories judged by our judge." in page
    assert ">70%<" in page.replace(" ", ""), "our score: 0.5 + 0.2 of the rubric weight"
    assert page.count("3/3 items") == 2, "the author's own verdicts are shown, labelled self-reported"


def test_an_upload_while_the_cache_is_down_is_a_503_with_retry_after(client, setup, settings, tmp_path):
    """The rate counters' Redis restarting: a real Redis client pointed at a port nothing listens on,
    so the gate meets redis's own ConnectionError. The API and the web form both answer 503 with
    Retry-After and plain words, never a crash page, and nothing is received."""
    import socket

    author, _staff = setup
    raw = new_token(client, author)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": f"redis://127.0.0.1:{port}/0"}
    }
    archive = zip_bytes(good_entries(tmp_path / "a", ["retrieval-f016"]))
    form = {"archive": upload(archive, "run.zip"), "metadata": json.dumps(METADATA)}
    refused = client.post("/api/submissions", form, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert refused.status_code == 503 and refused["Retry-After"] == "30"
    assert "not answering" in refused.json()["detail"] and "try again in a minute" in refused.json()["detail"]

    client.force_login(author)
    form = {**METADATA, "links": "", "archive": upload(zip_bytes(good_entries(tmp_path / "b", ["writing-a001"])))}
    page = client.post(reverse("trajectories:submission_new"), form)
    assert page.status_code == 503 and page["Retry-After"] == "30"
    text = page.content.decode()
    assert "not answering" in text and "Traceback" not in text and "ConnectionError" not in text
    assert Submission.objects.count() == 0, "nothing received"
