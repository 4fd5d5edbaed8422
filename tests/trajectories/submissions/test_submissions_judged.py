"""Submissions judged by OUR judge: an upstream result folder zipped and uploaded through the API
with a token, judged against the provider simulator (real SDK, Celery eager), moved to "awaiting
review" when judged, approved in the admin, and shown on /leaderboard/ with the "re-judged" badge
and our judge's scores, never the author's. Judging progress on the submission page; repeated
attempts per task; the original archive kept for maintainers."""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from leaderboard.models import JudgeConfig, Run
from tests.factories import make_suite, write_task_dir
from tests.simulators import ProviderSimulator
from tests.submission_data import METADATA, TASK_IDS, files_under, folder_entries, good_entries, upload, zip_bytes
from trajectories.judging import our_judge
from trajectories.models import Judgment, Submission
from trajectories.submissions import review, uploads, validation
from trajectories.tasks import judge_trajectory_task

pytestmark = pytest.mark.django_db

# Our judge passes every item; the author's own judge passed 2 of 3 (self-reported score 70%).
SUCCESS = '{"reasoning": "Seen in the steps.", "cited_steps": [1], "verdict": "success"}'


@pytest.fixture
def people(settings, tmp_path, monkeypatch):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    cache.clear()
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    staff = get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True, is_superuser=True)
    return author, staff


@pytest.fixture
def simulator(settings):
    with ProviderSimulator(lambda request: SUCCESS) as sim:
        settings.MYPCBENCH_JUDGE = {"provider": "anthropic", "base_url": sim.url, "attempts": 1, "concurrency": 4}
        yield sim


@pytest.fixture
def celery_eager(settings):
    from mypcbench_site.celery import app

    # Celery runs the judging group in this process, on the test's database connection.
    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def new_token(client, user) -> str:
    client.force_login(user)
    page = client.post(reverse("trajectories:token_list"), {"name": "cluster runner"}).content.decode()
    client.logout()
    return re.search(r'<code class="token-value">(mpcb_[^<]+)</code>', page).group(1)


def board_row(html: str, slug: str) -> str:
    match = re.search(rf'<tr data-run="{re.escape(slug)}".*?</tr>', html, re.S)
    assert match, f"no board row for {slug}"
    return match.group(0)


@pytest.mark.slow
def test_round_trip_judged_by_our_judge_then_published_with_the_rejudged_badge(
    client, people, simulator, celery_eager, tmp_path, isolated_media, django_capture_on_commit_callbacks
):
    author, staff = people
    raw = new_token(client, author)
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/submissions",
            {"archive": upload(archive, "opus.zip"), "metadata": json.dumps(METADATA)},
            HTTP_AUTHORIZATION=f"Bearer {raw}",
        )
    assert response.status_code == 201, response.content
    sub = Submission.objects.get(pk=response.json()["id"])

    # our judge answered every item (2 trajectories x 3 items) through the real Anthropic SDK
    assert len(simulator.requests) == 6
    ours = Judgment.objects.filter(trajectory__run=sub.run, judge__origin=JudgeConfig.Origin.OURS)
    assert ours.count() == 6 and set(ours.values_list("verdict", flat=True)) == {"success"}
    assert sub.status == Submission.Status.AWAITING_REVIEW, "judged, so waiting for a maintainer"
    assert sub.metadata["judging"]["state"] == "judged"
    assert sub.metadata["judging"]["judge"].startswith("ours: anthropic")

    body = client.get(f"/api/submissions/{sub.pk}", HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    assert body["status"] == "awaiting_review"
    assert body["judging"]["progress"]["judged_items"] == 6 and body["judging"]["progress"]["done"] == 2
    assert "archive_file" not in body["metadata"]

    assert sub.run.slug not in client.get("/leaderboard/").content.decode(), "not published yet"

    client.force_login(staff)
    response = client.post(
        reverse("admin:trajectories_submission_changelist"),
        {"action": "approve", "_selected_action": [sub.pk], "reason": ""},
        follow=True,
    )
    assert "1 submission(s) approved and published." in response.content.decode()
    client.logout()

    cache.clear()
    row = board_row(client.get("/leaderboard/").content.decode(), sub.run.slug)
    assert 'class="badge badge-rejudged"' in row and ">re-judged<" in row
    assert "judged by ours: anthropic" in row
    assert 'data-col="rubric" data-value="100.0"' in row, "our judge's rubric score"
    assert "70" not in re.sub(r"<[^>]+>", " ", row).split(), "never the self-reported score"
    api = client.get("/api/leaderboard").json()
    mine = [r for r in api["rows"] if r["run"] == sub.run.slug]
    assert [r["judge_origin"] for r in mine] == ["ours"]


def test_judging_progress_on_the_submission_page_and_status_after_the_last_item(
    client, people, simulator, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    author, _staff = people
    # Queueing is recorded, not run, so judging can be done step by step in the test.
    monkeypatch.setattr(review, "request_run_judging", lambda run_id: None)
    archive = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    with django_capture_on_commit_callbacks(execute=True):
        sub = uploads.submit_archive(author, upload(archive), METADATA).submission
    sub.refresh_from_db()
    assert sub.status == Submission.Status.JUDGING

    client.force_login(author)
    url = reverse("trajectories:submission_detail", args=[sub.pk])
    judge = our_judge.build_judge(our_judge.JudgeSpec.from_settings())
    first, second = our_judge.run_trajectories(sub.run)
    our_judge.judge_trajectory(first, judge)
    page = client.get(url).content.decode()
    assert "1 of 2 trajectories fully judged · 3 of 6 rubric items judged · 0 in error" in page
    assert 'value="50"' in page and "Judging" in page
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.JUDGING

    # the worker's task: once the last trajectory is judged the submission moves on by itself
    judge_trajectory_task(second.pk, our_judge.JudgeSpec.from_settings().as_dict())
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.AWAITING_REVIEW
    page = client.get(url).content.decode()
    assert "2 of 2 trajectories fully judged · 6 of 6 rubric items judged" in page
    assert "Awaiting review" in page and "Judged by ours: anthropic" in page


def test_progress_json_follows_judging_then_says_stop(
    client, people, simulator, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    author, _staff = people
    monkeypatch.setattr(review, "request_run_judging", lambda run_id: None)  # the test judges, not a worker
    with django_capture_on_commit_callbacks(execute=True):
        sub = uploads.submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    client.force_login(author)
    page_url = reverse("trajectories:submission_detail", args=[sub.pk])
    url = reverse("trajectories:submission_live", args=[sub.pk])

    page = client.get(page_url).content.decode()
    assert f'data-live-url="{url}" data-live="on"' in page, "the page polls while judging"
    assert '<noscript><p class="muted small">Reload this page to see the latest state.</p></noscript>' in page
    body = client.get(url).json()
    assert (body["status"], body["status_label"], body["live"]) == ("judging", "Judging", True)
    assert body["badge"]["key"] == "judging" and body["badge"]["label"] == "being judged"
    assert [(r["task"], r["score_text"]) for r in body["rows"]] == [("retrieval-f016", ""), ("writing-a001", "")]

    first, second = our_judge.run_trajectories(sub.run)
    judge_trajectory_task(first.pk, our_judge.JudgeSpec.from_settings().as_dict())
    body = client.get(url).json()
    assert body["live"] and body["judged_trajectories"] == 1
    assert {k: body["judge_progress"][k] for k in ("done", "judged_items", "items", "percent")} == {
        "done": 1,
        "judged_items": 3,
        "items": 6,
        "percent": 50,
    }
    assert [r["score_text"] for r in body["rows"]] == ["100%", ""]
    assert body["judging"]["note"].startswith("Being judged by ours: anthropic")

    judge_trajectory_task(second.pk, our_judge.JudgeSpec.from_settings().as_dict())
    body = client.get(url).json()
    assert (body["status"], body["status_label"], body["live"]) == ("awaiting_review", "Awaiting review", False)
    assert body["badge"]["key"] == "rejudged" and "6 of 6 rubric items" in body["badge"]["title"]
    assert body["judging"]["note"].startswith("Judged by ours: anthropic")
    assert [r["score_text"] for r in body["rows"]] == ["100%", "100%"]
    assert 'data-live="off"' in client.get(page_url).content.decode(), "a final status is not polled"


def test_items_in_error_still_end_judging_and_are_named(client, people, settings, tmp_path, monkeypatch):
    author, _staff = people
    monkeypatch.setattr(review, "request_run_judging", lambda run_id: None)
    sub = uploads.submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    with ProviderSimulator(lambda request: "no verdict here") as sim:
        settings.MYPCBENCH_JUDGE = {"provider": "anthropic", "base_url": sim.url, "attempts": 1}
        Submission.objects.filter(pk=sub.pk).update(status=Submission.Status.JUDGING)
        our_judge.judge_run_inline(sub.run, our_judge.build_judge(our_judge.JudgeSpec.from_settings()))
    sub = review.sync_judging_status(Submission.objects.get(pk=sub.pk))
    assert sub.status == Submission.Status.AWAITING_REVIEW
    assert "6 ended in error (an API error, never a failure" in sub.metadata["judging"]["note"]


# ---------------------------------------------------------------- attempts and replays


def attempts_archive(tmp_path, sequences: dict[int, list]) -> bytes:
    root = tmp_path / "results"
    for attempt, actions in sequences.items():
        write_task_dir(root / "retrieval-f016", f"attempt_{attempt}", actions=actions)
    write_task_dir(root, "writing-a001")
    return zip_bytes(folder_entries(root))


CLICKS = [(i, f"pyautogui.click({100 + 9 * i}, {200 + 5 * i})") for i in range(1, 7)] + [(7, "DONE")]


def test_several_attempts_per_task_from_attempt_folders(people, tmp_path):
    author, _staff = people
    other = [(i, f"pyautogui.click({400 - 9 * i}, {200 + 5 * i})") for i in range(1, 7)] + [(7, "DONE")]
    sub = uploads.submit_archive(
        author, upload(attempts_archive(tmp_path, {0: CLICKS, 1: other, 2: CLICKS[:3]})), METADATA
    ).submission
    rows = sorted(sub.run.trajectories.values_list("task__task_id", "attempt"))
    assert rows == [("retrieval-f016", 0), ("retrieval-f016", 1), ("retrieval-f016", 2), ("writing-a001", 0)]
    assert not [p for p in sub.validation_report if "replay suspicion" in p["problem"]]


def test_byte_identical_attempts_are_flagged_with_evidence(client, people, tmp_path):
    author, staff = people
    sub = uploads.submit_archive(
        author, upload(attempts_archive(tmp_path, {0: CLICKS, 1: CLICKS, 3: CLICKS})), METADATA
    ).submission
    flags = [p for p in sub.validation_report if "replay suspicion" in p["problem"]]
    assert len(flags) == 1 and flags[0]["level"] == "warning" and flags[0]["file"] == "retrieval-f016"
    assert (
        "attempts 0, 1, 3 of retrieval-f016 have byte-identical action sequences (7 actions each, sha256"
        in (flags[0]["problem"])
    )
    client.force_login(staff)
    page = client.get(reverse("admin:trajectories_submission_change", args=[sub.pk])).content.decode()
    assert "byte-identical action sequences" in page


def test_the_same_attempt_twice_is_refused(people, tmp_path, isolated_media):
    author, _staff = people
    root = tmp_path / "results"
    write_task_dir(root / "retrieval-f016", "attempt_1")
    write_task_dir(root / "vm2" / "retrieval-f016", "attempt-1")
    with pytest.raises(validation.SubmissionRejected) as caught:
        uploads.submit_archive(author, upload(zip_bytes(folder_entries(root))), METADATA)
    assert "task 'retrieval-f016' attempt 1 appears twice" in str(caught.value)
    assert files_under(isolated_media) == [] and Run.objects.count() == 0


def test_the_upload_page_documents_attempt_folders(client, people):
    author, _staff = people
    client.force_login(author)
    page = client.get(reverse("trajectories:submission_new")).content.decode()
    assert "<code>retrieval-f016/attempt_1/traj.jsonl</code>" in page and "replay suspicion" in page


# ---------------------------------------------------------------- the original archive


def test_the_original_archive_is_kept_and_only_staff_download_it(client, people, tmp_path, isolated_media):
    author, staff = people
    data = zip_bytes(good_entries(tmp_path))
    sub = uploads.submit_archive(author, upload(data, "opus.zip"), METADATA).submission
    url = reverse("trajectories:submission_archive", args=[sub.pk])
    client.force_login(author)
    assert client.get(url).status_code == 302, "authors are sent to the admin login"
    client.force_login(staff)
    admin_page = client.get(reverse("admin:trajectories_submission_change", args=[sub.pk])).content.decode()
    assert f'href="{url}">Download opus.zip</a>' in admin_page
    response = client.get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == data
    assert 'filename="opus.zip"' in response["Content-Disposition"]


def test_the_archive_is_removed_when_ingest_fails(people, tmp_path, isolated_media, monkeypatch):
    author, _staff = people
    from trajectories.recording.ingest import IngestError

    def broken(*args, **kwargs):
        raise IngestError("disk full while storing a step")

    monkeypatch.setattr(uploads, "ingest_bundle", broken)
    with pytest.raises(validation.SubmissionRejected, match="disk full while storing a step"):
        uploads.submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA)
    assert files_under(isolated_media) == [] and Submission.objects.count() == 0
