"""Author submissions (trajectories/submissions/uploads.py): every hostile archive is refused with a message
naming the entry and nothing is stored (rows, media, temporary files); a good archive becomes a
draft run of provenance "upload" with self-reported judgments kept apart; review decisions."""

import json
import stat
import tarfile
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from leaderboard.models import JudgeConfig, Run
from tests.factories import make_suite, png_bytes, write_task_dir
from tests.submission_data import (
    METADATA,
    TASK_IDS,
    files_under,
    folder_entries,
    good_entries,
    png_claiming,
    result_folder,
    stored_counts,
    tar_gz_bytes,
    upload,
    zip_bytes,
)
from trajectories.models import Judgment, Submission, Trajectory
from trajectories.submissions import review, validation
from trajectories.submissions.review import ReviewError
from trajectories.submissions.uploads import submit_archive
from trajectories.submissions.validation import SubmissionConflict, SubmissionRejected

pytestmark = pytest.mark.django_db


@pytest.fixture
def suite():
    return make_suite(TASK_IDS)


@pytest.fixture
def author(upload_tmp):
    return get_user_model().objects.create_user("pam", password="pw-beesly-2026")


def refused(author, data: bytes, name="run.zip", metadata=METADATA) -> SubmissionRejected:
    with pytest.raises(SubmissionRejected) as caught:
        submit_archive(author, upload(data, name), metadata)
    return caught.value


def assert_nothing_stored(before: dict, media, upload_tmp):
    assert stored_counts() == before
    assert files_under(media) == []
    assert files_under(upload_tmp) == [], "temporary files were left behind"
    assert list(upload_tmp.iterdir()) == [], "a temporary folder was left behind"


def messages(exc: SubmissionRejected) -> str:
    return "\n".join(f"{p.file}: {p.problem}" for p in exc.report if p.level == "error")


@pytest.fixture
def baseline(suite, author, upload_tmp, isolated_media):
    """Counts before the upload; each hostile test asserts they did not change."""
    return stored_counts()


def check_refused(baseline, author, data, expected: str, isolated_media, upload_tmp, name="run.zip"):
    exc = refused(author, data, name)
    assert expected in messages(exc), messages(exc)
    assert_nothing_stored(baseline, isolated_media, upload_tmp)
    return exc


# ---------------------------------------------------------------- hostile archives


def test_zip_slip(tmp_path, baseline, author, isolated_media, upload_tmp):
    data = zip_bytes([*good_entries(tmp_path), ("retrieval-f016/../../evil.txt", b"owned")])
    exc = check_refused(baseline, author, data, "escapes the archive root with '..'", isolated_media, upload_tmp)
    assert exc.report[0].file == "retrieval-f016/../../evil.txt"
    assert not (tmp_path / "evil.txt").exists()


def test_absolute_path(tmp_path, baseline, author, isolated_media, upload_tmp):
    data = zip_bytes([*good_entries(tmp_path), ("/tmp/evil.txt", b"owned")])
    check_refused(baseline, author, data, "/tmp/evil.txt: is an absolute path", isolated_media, upload_tmp)


def test_zip_symlink(tmp_path, baseline, author, isolated_media, upload_tmp):
    link = zipfile.ZipInfo("retrieval-f016/passwd")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    data = zip_bytes([*good_entries(tmp_path), (link, b"/etc/passwd")])
    check_refused(baseline, author, data, "retrieval-f016/passwd: is a symbolic link", isolated_media, upload_tmp)


def test_tar_symlink_hardlink_and_device(tmp_path, baseline, author, isolated_media, upload_tmp):
    good = [(tarfile.TarInfo(name), content) for name, content in good_entries(tmp_path)]
    for kind, expected in (
        (tarfile.SYMTYPE, "is a symbolic link to '/etc/passwd'"),
        (tarfile.LNKTYPE, "is a hard link to '/etc/passwd'"),
        (tarfile.CHRTYPE, "is a device, pipe or other special file"),
    ):
        odd = tarfile.TarInfo("retrieval-f016/odd")
        odd.type = kind
        odd.linkname = "/etc/passwd"
        data = tar_gz_bytes([*good, (odd, None)])
        check_refused(baseline, author, data, expected, isolated_media, upload_tmp, name="run.tar.gz")


def test_too_many_files(settings, tmp_path, baseline, author, isolated_media, upload_tmp):
    settings.MYPCBENCH_UPLOAD_LIMITS = {"max_files": 10}
    data = zip_bytes(good_entries(tmp_path))  # two task folders of 8 files each
    check_refused(
        baseline, author, data, "entries in the archive (expected at most 10 files)", isolated_media, upload_tmp
    )


def test_too_many_files_in_a_tar_stream(settings, tmp_path, baseline, author, isolated_media, upload_tmp):
    settings.MYPCBENCH_UPLOAD_LIMITS = {"max_files": 10}
    data = tar_gz_bytes([(tarfile.TarInfo(n), c) for n, c in good_entries(tmp_path)])
    check_refused(baseline, author, data, "more than 10 files in the archive", isolated_media, upload_tmp, "r.tgz")


def test_too_deep(tmp_path, baseline, author, isolated_media, upload_tmp):
    deep = "/".join(f"d{i}" for i in range(20)) + "/note.txt"
    data = zip_bytes([*good_entries(tmp_path), (deep, b"x")])
    check_refused(
        baseline, author, data, "nested 20 folders deep (expected at most 12 levels)", isolated_media, upload_tmp
    )


def test_file_too_big(settings, tmp_path, baseline, author, isolated_media, upload_tmp):
    settings.MYPCBENCH_UPLOAD_LIMITS = {"max_file_bytes": 50_000}
    noise = bytes(range(256)) * 400  # 102,400 bytes that barely compress
    data = zip_bytes([*good_entries(tmp_path), ("retrieval-f016/big.bin", noise)])
    check_refused(
        baseline,
        author,
        data,
        "retrieval-f016/big.bin: larger than the 50000-byte limit per file",
        isolated_media,
        upload_tmp,
    )


def test_archive_too_big(settings, tmp_path, baseline, author, isolated_media, upload_tmp):
    settings.MYPCBENCH_UPLOAD_LIMITS = {"max_archive_bytes": 2000}
    data = zip_bytes(good_entries(tmp_path))
    check_refused(
        baseline,
        author,
        data,
        "more than 2000 bytes (expected an archive of at most 2000 bytes",
        isolated_media,
        upload_tmp,
    )


def test_zip_bomb_by_ratio(tmp_path, baseline, author, isolated_media, upload_tmp):
    zeros = b"\0" * (8 * 1024 * 1024)  # 8 MiB that deflate to a few KiB
    data = zip_bytes([*good_entries(tmp_path), ("retrieval-f016/padding.bin", zeros)])
    assert len(data) < 100_000
    check_refused(baseline, author, data, "expands more than 100 times its compressed size", isolated_media, upload_tmp)


def test_duplicate_names(tmp_path, baseline, author, isolated_media, upload_tmp):
    entries = good_entries(tmp_path)
    with pytest.warns(UserWarning, match="Duplicate name"):
        data = zip_bytes([*entries, ("retrieval-f016/traj.jsonl", b"{}\n")])
    check_refused(
        baseline,
        author,
        data,
        "retrieval-f016/traj.jsonl: appears more than once in the archive",
        isolated_media,
        upload_tmp,
    )


def test_not_an_archive(baseline, author, isolated_media, upload_tmp):
    check_refused(
        baseline, author, b"just some text", "not a zip or gzip-compressed tar archive", isolated_media, upload_tmp
    )


# ---------------------------------------------------------------- hostile contents


def test_screenshot_that_is_not_an_image(tmp_path, baseline, author, isolated_media, upload_tmp):
    root = result_folder(tmp_path)
    shot = sorted((root / "retrieval-f016").glob("step_2_*.png"))[0]
    shot.write_bytes(b"this is not a PNG at all")
    exc = check_refused(baseline, author, zip_bytes(folder_entries(root)), "not an image", isolated_media, upload_tmp)
    assert exc.report[0].file == f"retrieval-f016/{shot.name}"


def test_decompression_bomb_png_header(tmp_path, baseline, author, isolated_media, upload_tmp):
    root = result_folder(tmp_path)
    shot = sorted((root / "writing-a001").glob("step_1_*.png"))[0]
    shot.write_bytes(png_claiming(60_000, 60_000))
    check_refused(
        baseline, author, zip_bytes(folder_entries(root)), "refused as a decompression bomb", isolated_media, upload_tmp
    )


def test_unknown_task_id(tmp_path, baseline, author, isolated_media, upload_tmp):
    data = zip_bytes(good_entries(tmp_path, ["retrieval-f016", "retrieval-zzz9"]))
    check_refused(
        baseline,
        author,
        data,
        "retrieval-zzz9: task id 'retrieval-zzz9' (the folder name) is not a task of suite 'mypcbench-eval-round0'",
        isolated_media,
        upload_tmp,
    )


def test_bad_json_line(tmp_path, baseline, author, isolated_media, upload_tmp):
    root = result_folder(tmp_path)
    traj = root / "retrieval-f016" / "traj.jsonl"
    traj.write_text(traj.read_text() + '{"step_num": 4, "action": \n')
    check_refused(
        baseline,
        author,
        zip_bytes(folder_entries(root)),
        "retrieval-f016/traj.jsonl: line 4: not valid JSON",
        isolated_media,
        upload_tmp,
    )


def test_bad_json_in_a_side_file(tmp_path, baseline, author, isolated_media, upload_tmp):
    root = result_folder(tmp_path)
    (root / "writing-a001" / "usage.json").write_text('{"input_tokens": 12,,}')
    check_refused(
        baseline,
        author,
        zip_bytes(folder_entries(root)),
        "writing-a001/usage.json: line 1: not valid JSON",
        isolated_media,
        upload_tmp,
    )


def test_step_numbers_that_go_back(tmp_path, baseline, author, isolated_media, upload_tmp):
    root = tmp_path / "results"
    write_task_dir(root, "retrieval-f016", actions=[(1, "pyautogui.click(1, 2)"), (3, "WAIT"), (2, "DONE")])
    check_refused(
        baseline,
        author,
        zip_bytes(folder_entries(root)),
        "step 3: step_num 2 comes after step_num 3",
        isolated_media,
        upload_tmp,
    )


def test_steps_beyond_the_declared_budget(tmp_path, baseline, author, isolated_media, upload_tmp):
    root = tmp_path / "results"
    write_task_dir(root, "retrieval-f016", actions=[(1, "WAIT"), (60, "DONE")])
    check_refused(
        baseline,
        author,
        zip_bytes(folder_entries(root)),
        "step 2: step_num 60 is beyond the declared turn budget of 50",
        isolated_media,
        upload_tmp,
    )


def test_bad_metadata_lists_every_field(tmp_path, baseline, author, isolated_media, upload_tmp):
    bad = {"suite": "nope", "model": "", "turn_budget": -3, "tool_surface": "telepathy", "links": ["ftp://x"]}
    exc = refused(author, zip_bytes(good_entries(tmp_path)), metadata=bad)
    text = messages(exc)
    for expected in (
        "model: missing",
        "turn_budget: -3",
        "tool_surface: 'telepathy'",
        "links: 'ftp://x'",
        "suite: no suite 'nope'",
    ):
        assert expected in text
    assert_nothing_stored(baseline, isolated_media, upload_tmp)


def test_metadata_that_is_not_json(tmp_path, baseline, author, isolated_media, upload_tmp):
    exc = refused(author, zip_bytes(good_entries(tmp_path)), metadata="{model: opus}")
    assert "metadata: not valid JSON" in messages(exc)
    assert_nothing_stored(baseline, isolated_media, upload_tmp)


def test_rate_limit(clock_mid_hour, settings, tmp_path, baseline, author, isolated_media, upload_tmp):
    settings.MYPCBENCH_UPLOADS_PER_WINDOW = 1
    submit_archive(author, upload(zip_bytes(good_entries(tmp_path / "a", ["retrieval-f016"]))), METADATA)
    with pytest.raises(validation.SubmissionLimited, match="rate limit: at most 1 upload per hour per author") as e:
        submit_archive(author, upload(zip_bytes(good_entries(tmp_path / "b", ["writing-a001"]))), METADATA)
    assert e.value.status_code == 429 and e.value.retry_after == 3600  # the clock is stopped: a full hour


def test_refused_uploads_count_as_attempts(
    clock_mid_hour, settings, tmp_path, baseline, author, isolated_media, upload_tmp
):
    settings.MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW = 2
    hostile = zip_bytes([*good_entries(tmp_path), ("/tmp/evil.txt", b"owned")])
    for _ in range(2):
        assert "/tmp/evil.txt: is an absolute path" in messages(refused(author, hostile))
    with pytest.raises(validation.SubmissionLimited) as e:
        submit_archive(author, upload(hostile), METADATA)
    assert e.value.status_code == 429 and 0 < e.value.retry_after <= 3600
    text = messages(e.value)
    assert "rate limit: at most 2 upload attempts per hour per author (accepted or refused" in text
    assert "you have made 3. The limit resets at " in text and "evil.txt" not in text
    assert_nothing_stored(baseline, isolated_media, upload_tmp)
    # the limit is the author's own: someone else still has every attempt
    other = get_user_model().objects.create_user("angela")
    assert submit_archive(other, upload(zip_bytes(good_entries(tmp_path / "angela"))), METADATA).created


def test_attempts_limit_defaults_to_three_times_the_accepted_uploads(clock_mid_hour, settings, tmp_path, suite, author):
    del settings.MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW
    settings.MYPCBENCH_UPLOADS_PER_WINDOW = 1
    hostile = zip_bytes([*good_entries(tmp_path), ("/tmp/evil.txt", b"owned")])
    for _ in range(3):
        refused(author, hostile)
    with pytest.raises(validation.SubmissionLimited, match="at most 3 upload attempts per hour per author"):
        submit_archive(author, upload(hostile), METADATA)


# ---------------------------------------------------------------- accepted uploads


def test_accepted_upload_is_a_draft_upload_run(tmp_path, suite, author, isolated_media, upload_tmp):
    data = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    result = submit_archive(author, upload(data, "opus-run.zip"), METADATA)
    assert result.created
    sub = result.submission
    assert sub.status == Submission.Status.AWAITING_REVIEW
    assert sub.author == author and sub.archive_name == "opus-run.zip"
    run = sub.run
    assert run.provenance == Run.Provenance.UPLOAD and run.publication == Run.Publication.DRAFT
    assert run.model.name == "Claude Opus 4.6" and run.turn_budget == 50 and run.tool_surface == "computer+bash"
    assert run.harness_version == "1.2.0" and run.image_tag == "mypcbench-vm:2026-04"
    assert run.judge_config is None, "an upload is never scored by the author's own judge"
    assert run.trajectories.count() == 2 and run.trajectories.first().n_steps == 3
    # six screenshots, the two tasks' three identical pairs stored once each under their content
    # hash, and the original archive kept under its content hash for maintainers
    kept = isolated_media / "submissions" / sub.archive_sha256[:2] / f"{sub.archive_sha256}.zip"
    assert kept.read_bytes() == data and sub.metadata["archive_file"] == f"submissions/{kept.parent.name}/{kept.name}"
    assert len(files_under(isolated_media)) == 3 + 1
    assert files_under(upload_tmp) == []
    # the author's judgments are kept, labelled self-reported, and not the run's judge
    own = Judgment.objects.filter(trajectory__run=run)
    assert own.count() == 6
    assert set(own.values_list("judge__origin", flat=True)) == {JudgeConfig.Origin.SELF_REPORTED}
    assert not Trajectory.objects.filter(run=run, imported_score__isnull=False).exists()
    assert run.metadata["self_reported_scores"] == {"retrieval-f016": 0.7, "writing-a001": 0.7}
    notes = [p["problem"] for p in sub.validation_report if p["level"] == "note"]
    assert any("accepted: 2 trajectories, 6 steps, 6 screenshots, 6 self-reported judgments" in n for n in notes)
    assert Trajectory.objects.filter(run=run).first().source_path == "opus-run.zip:retrieval-f016"


def test_tar_gz_and_nested_folders(tmp_path, suite, author, upload_tmp):
    entries = good_entries(tmp_path)
    data = tar_gz_bytes([(tarfile.TarInfo(f"vm0/{n}"), c) for n, c in entries])
    result = submit_archive(author, upload(data, "run.tar.gz"), METADATA)
    assert result.submission.run.trajectories.count() == 2


def test_osworld_tree_and_legacy_layout(tmp_path, suite, author, upload_tmp):
    from tests.factories import write_legacy_task_dir

    osworld = tmp_path / "results" / "pyautogui" / "screenshot" / "gpt-5.4" / "personal"
    write_task_dir(osworld, "retrieval-f016")
    write_legacy_task_dir(tmp_path / "results", "writing-a001")
    data = zip_bytes(folder_entries(tmp_path / "results"))
    run = submit_archive(author, upload(data), METADATA).submission.run
    layouts = dict(run.trajectories.values_list("task__task_id", "source_layout"))
    assert layouts == {"retrieval-f016": "osworld", "writing-a001": "legacy-context"}


def test_same_archive_twice_returns_the_existing_submission(tmp_path, suite, author, upload_tmp):
    data = zip_bytes(good_entries(tmp_path))
    first = submit_archive(author, upload(data), METADATA)
    counts = stored_counts()
    again = submit_archive(author, upload(data, "renamed.zip"), METADATA)
    assert not again.created and again.submission.pk == first.submission.pk
    assert stored_counts() == counts
    other = get_user_model().objects.create_user("dwight", password="pw-schrute-2026")
    with pytest.raises(SubmissionConflict, match="already submitted from another account"):
        submit_archive(other, upload(data), METADATA)


def test_judging_is_requested_for_the_uploaded_run(
    tmp_path, suite, author, upload_tmp, monkeypatch, django_capture_on_commit_callbacks
):
    asked = []
    # Stands in for queueing the Celery group (a real worker runs in tests/services; the judge
    # itself is tested against provider simulators in tests/harness/judge/test_judge*.py).
    monkeypatch.setattr(review, "request_run_judging", asked.append)
    with django_capture_on_commit_callbacks(execute=True):
        sub = submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    sub.refresh_from_db()
    assert asked == [sub.run_id]
    assert sub.status == Submission.Status.JUDGING


def test_a_judge_that_cannot_start_leaves_a_note_and_keeps_the_upload(
    tmp_path, suite, author, upload_tmp, monkeypatch, settings, django_capture_on_commit_callbacks
):
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    settings.MYPCBENCH_JUDGE = {**settings.MYPCBENCH_JUDGE, "provider": "google"}
    with django_capture_on_commit_callbacks(execute=True):
        sub = submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    sub.refresh_from_db()
    assert sub.status == Submission.Status.AWAITING_REVIEW and sub.run.trajectories.count() == 2
    assert sub.metadata["judging"]["state"] == "awaiting_judge"
    note = sub.metadata["judging"]["note"]
    assert "our judge could not start" in note and "GEMINI_API_KEY" in note


def test_the_author_reads_one_state_in_plain_words_and_can_play_back_each_task(
    client, tmp_path, suite, author, upload_tmp, monkeypatch, settings, django_capture_on_commit_callbacks
):
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    settings.MYPCBENCH_JUDGE = {**settings.MYPCBENCH_JUDGE, "provider": "google"}
    with django_capture_on_commit_callbacks(execute=True):
        sub = submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    client.force_login(author)
    url = reverse("trajectories:submission_detail", args=[sub.pk])
    page = client.get(url).content.decode()
    # one state, no operator message for the author
    assert "Awaiting our judge" in page and "Awaiting review" not in page
    assert "GEMINI_API_KEY" not in page and "--api-key" not in page and "There is nothing you need to do" in page
    live = client.get(reverse("trajectories:submission_live", args=[sub.pk])).json()
    assert live["status_label"] == "Awaiting our judge" and "GEMINI_API_KEY" not in live["judging"]["note"]
    # every task id opens the author's own trajectory in the player, before any review
    for trajectory in sub.run.trajectories.all():
        player = reverse("trajectories:trajectory_player", args=[trajectory.pk])
        assert f'href="{player}"' in page
        assert client.get(player).status_code == 200
    # staff keep the details of what to fix
    client.force_login(get_user_model().objects.create_user("staff", password="pw", is_staff=True))
    assert "GEMINI_API_KEY" in client.get(url).content.decode()


def test_replay_suspicion_is_flagged_with_evidence(tmp_path, suite, author, upload_tmp):
    actions = [(i, f"pyautogui.click({100 + 7 * i}, {300 + i})") for i in range(1, 8)] + [(8, "DONE")]
    first = zip_bytes(good_entries(tmp_path / "a", ["retrieval-f016"], actions=actions))
    submit_archive(author, upload(first), METADATA)
    nudged = [(i, f"pyautogui.click({100 + 7 * i}, {302 + i})") for i in range(1, 8)] + [(8, "DONE")]  # 2 px off
    again = zip_bytes(good_entries(tmp_path / "b", ["retrieval-f016"], actions=nudged))
    sub = submit_archive(author, upload(again), METADATA).submission
    flags = [p["problem"] for p in sub.validation_report if "replay suspicion" in p["problem"]]
    assert len(flags) == 1
    assert "its 8 actions are 100% identical" in flags[0] and "attempt 0" in flags[0]


# ---------------------------------------------------------------- review


def test_review_decisions_are_logged_and_change_publication(tmp_path, suite, author, upload_tmp):
    staff = get_user_model().objects.create_user("michael", password="pw", is_staff=True)
    sub = submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), METADATA).submission
    with pytest.raises(ReviewError, match="a reason is required"):
        review.decide(sub, staff, "reject")
    sub = review.decide(sub, staff, "request_changes", "Screenshots of task 2 look cropped.")
    assert sub.status == Submission.Status.CHANGES_REQUESTED
    sub = review.decide(sub, staff, "approve")
    assert sub.status == Submission.Status.PUBLISHED
    assert Run.objects.get(pk=sub.run_id).publication == Run.Publication.PUBLISHED
    sub = review.decide(sub, author, "withdraw")
    assert Run.objects.get(pk=sub.run_id).publication == Run.Publication.WITHDRAWN
    with pytest.raises(ReviewError, match="is withdrawn; cannot approve it"):
        review.decide(sub, staff, "approve")
    log = Submission.objects.get(pk=sub.pk).review_log
    assert [(e["by"], e["action"], e["to"]) for e in log] == [
        ("michael", "request_changes", "changes_requested"),
        ("michael", "approve", "published"),
        ("pam", "withdraw", "withdrawn"),
    ]
    assert log[0]["reason"] == "Screenshots of task 2 look cropped." and log[0]["at"]


def test_metadata_as_json_text_round_trips(tmp_path, suite, author, upload_tmp):
    sub = submit_archive(author, upload(zip_bytes(good_entries(tmp_path))), json.dumps(METADATA)).submission
    assert sub.metadata["links"] == ["https://example.org/report"] and sub.metadata["suite"] == suite.slug
    assert png_bytes()  # factories' PNGs are what the screenshots hold


def test_the_upload_form_preselects_a_suite_with_tasks(client, suite, author):
    from leaderboard.models import Suite

    Suite.objects.create(name="AAA empty", version="v0", slug="aaa-empty")  # first by name, no tasks
    client.force_login(author)
    html = client.get(reverse("trajectories:submission_new")).content.decode()
    assert f'<option value="{suite.slug}" selected>' in html
    assert "AAA empty v0 (no tasks on this site yet)" in html


def test_the_public_judge_filter_names_a_self_reported_judge_only_once_its_run_is_published(
    tmp_path, suite, author, upload_tmp, client
):
    data = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    run = submit_archive(author, upload(data, "opus-run.zip"), METADATA).submission.run
    judge = JudgeConfig.objects.get(origin=JudgeConfig.Origin.SELF_REPORTED)
    assert judge.name.startswith("self-reported by pam")
    for url in ("/leaderboard/", "/analysis/"):
        assert "self-reported by pam" not in client.get(url).content.decode(), url
    run.publication = Run.Publication.PUBLISHED
    run.save()
    assert "self-reported by pam" in client.get("/leaderboard/").content.decode()


def test_a_model_only_an_unreviewed_upload_names_has_no_public_page(tmp_path, suite, author, upload_tmp, client):
    data = zip_bytes(good_entries(tmp_path))
    run = submit_archive(author, upload(data, "opus-run.zip"), METADATA).submission.run
    url = reverse("leaderboard:model_detail", args=[run.model.slug])
    assert Run.objects.filter(model=run.model).count() == 1
    assert client.get(url).status_code == 404
    client.force_login(author)
    assert client.get(url).status_code == 404  # the author follows their upload on its submission page
    run.publication = Run.Publication.PUBLISHED
    run.save()
    client.logout()
    assert client.get(url).status_code == 200


def test_an_unreviewed_uploads_own_rubric_stays_off_the_shared_task_page(tmp_path, suite, author, upload_tmp, client):
    root = result_folder(tmp_path, full_judge=[True, False, True])
    bundle_path = root / TASK_IDS[0] / "rubric_bundle.json"
    bundle = json.loads(bundle_path.read_text())
    bundle["grading_manifest"]["rubrics"][0]["criterion"] = "The author's own wording of the first item"
    bundle_path.write_text(json.dumps(bundle))
    run = submit_archive(author, upload(zip_bytes(folder_entries(root)), "drift.zip"), METADATA).submission.run
    task = run.trajectories.get(task__task_id=TASK_IDS[0]).task
    assert task.rubric_items.filter(source_run=run).exists(), "the upload's rubric is kept as its own version"
    url = reverse("leaderboard:task_detail", args=[task.suite.slug, task.task_id])
    assert "earlier version" not in client.get(url).content.decode()
    run.publication = Run.Publication.PUBLISHED
    run.save()
    assert "1 earlier version kept" in client.get(url).content.decode()


def test_an_uploads_failed_verdicts_get_failure_modes_as_imports_do(tmp_path, suite, author, upload_tmp):
    data = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    run = submit_archive(author, upload(data, "opus-run.zip"), METADATA).submission.run
    failed = Judgment.objects.filter(trajectory__run=run, verdict="failure")
    assert failed.exists()
    assert all(j.signals for j in failed), "the deterministic signals are recorded on every failed verdict"
    assert set(failed.values_list("failure_mode", flat=True)) - {""}, "and classify them"
