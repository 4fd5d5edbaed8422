"""One screenshot named by many rows must not multiply cost: rows per step_num and
per screenshot file are bounded, each distinct image is decoded once per upload and stored once
under its content hash, an upload's decoded pixels are budgeted, and a shared file is never
deleted while a step still shows it. Every archive is built here from bytes."""

import hashlib
import io
import json

import numpy as np
import pytest
from PIL import Image

from harness.results import read_task_dir
from leaderboard.models import Model, Run
from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, files_under, folder_entries, stored_counts, upload, zip_bytes
from trajectories.models import Step
from trajectories.recording import ingest, live_ingest, media
from trajectories.recording.ingest import IngestError, all_or_nothing, ingest_bundle
from trajectories.submissions.uploads import submit_archive
from trajectories.submissions.validation import SubmissionRejected

pytestmark = pytest.mark.django_db

W, H = 64, 48  # 3,072 pixels per test image


def noise_png(seed: int) -> bytes:
    """A PNG of random pixels (incompressible, like the issue's attack image)."""
    pixels = np.random.default_rng(seed).integers(0, 256, (H, W, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def task_folder(root, task_id: str, rows, files: dict[str, bytes]):
    """``rows``: (step_num, screenshot file name) per traj.jsonl row; ``files``: name -> bytes."""
    folder = root / task_id
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    lines = [
        {
            "step_num": step_num,
            "action_timestamp": f"20260411@1200{i // 60:02d}{i % 60:02d}0000",
            "action": f"pyautogui.click({10 + i}, 20)",
            "response": f"turn {step_num}",
            "reward": 0,
            "done": False,
            "info": {},
            "screenshot_file": name,
        }
        for i, (step_num, name) in enumerate(rows)
    ]
    (folder / "traj.jsonl").write_text("".join(json.dumps(row) + "\n" for row in lines), encoding="utf-8")
    (folder / "result.txt").write_text("1.0\n")
    return folder


def archive(root) -> bytes:
    return zip_bytes(folder_entries(root))


META_100 = {**METADATA, "turn_budget": 100}


def refusal(author, data: bytes, metadata=META_100) -> str:
    with pytest.raises(SubmissionRejected) as caught:
        submit_archive(author, upload(data, "run.zip"), metadata)
    return "\n".join(f"{p.file}: {p.problem}" for p in caught.value.report if p.level == "error")


def screenshot_files(media) -> list:
    return files_under(media / "screenshots")


def test_one_png_named_by_100_rows_is_refused_naming_the_file_and_the_count(
    tmp_path, author, isolated_media, upload_tmp
):
    root = tmp_path / "up"
    task_folder(root, "retrieval-f016", [(n, "shot.png") for n in range(1, 101)], {"shot.png": noise_png(1)})
    before = stored_counts()
    message = refusal(author, archive(root))
    assert (
        "retrieval-f016/shot.png: named as the screenshot of 100 rows of traj.jsonl "
        "(rows 1, 2, 3, 4, 5 and 95 more; expected each screenshot file named by at most 5 rows)"
    ) in message, message
    assert stored_counts() == before
    assert files_under(isolated_media) == [] and files_under(upload_tmp) == []


def test_rows_sharing_one_step_num_beyond_the_bound_are_refused(tmp_path, author, isolated_media, upload_tmp):
    root = tmp_path / "up"
    files = {f"s{i}.png": noise_png(100 + i) for i in range(51)}
    task_folder(root, "retrieval-f016", [(1, f"s{i}.png") for i in range(51)], files)
    message = refusal(author, archive(root))
    assert "retrieval-f016/traj.jsonl: 51 rows have step_num 1 (rows 1, 2, 3, 4, 5 and 46 more; " in message
    assert "expected at most 50 rows, the actions of one model turn, per step number)" in message
    assert files_under(isolated_media) == []


def test_one_image_in_many_rows_and_files_is_decoded_once_and_stored_once(
    tmp_path, settings, author, isolated_media, upload_tmp
):
    """The budget is exactly one image's pixels: decoding it per row (5 + 3 rows) or per file (2
    names) would go over it and refuse the upload, so acceptance shows it was decoded once."""
    settings.MYPCBENCH_UPLOAD_MAX_PIXELS = W * H
    shot = noise_png(2)
    root = tmp_path / "up"
    task_folder(root, "retrieval-f016", [(n, "shot.png") for n in range(1, 6)], {"shot.png": shot})
    task_folder(root, "writing-a001", [(1, "copy.png"), (1, "copy.png"), (2, "copy.png")], {"copy.png": shot})
    submission = submit_archive(author, upload(archive(root)), META_100).submission

    digest = hashlib.sha256(shot).hexdigest()
    expected = isolated_media / "screenshots" / digest[:2] / f"{digest}.png"
    assert screenshot_files(isolated_media) == [expected]
    assert expected.read_bytes() == shot
    steps = Step.objects.filter(trajectory__run=submission.run)
    assert steps.count() == 8
    assert set(steps.values_list("screenshot", flat=True)) == {f"screenshots/{digest[:2]}/{digest}.png"}
    assert set(steps.values_list("screenshot_sha256", flat=True)) == {digest}


def test_pixel_budget_refusal_names_the_budget(tmp_path, settings, author, isolated_media, upload_tmp):
    settings.MYPCBENCH_UPLOAD_MAX_PIXELS = 5000  # one 64x48 image fits, two (6,144 pixels) do not
    root = tmp_path / "up"
    task_folder(root, "retrieval-f016", [(1, "a.png"), (2, "b.png")], {"a.png": noise_png(3), "b.png": noise_png(4)})
    before = stored_counts()
    message = refusal(author, archive(root))
    assert (
        "retrieval-f016/b.png: its 64x48 pixels would bring the screenshots of this upload to 6,144 decoded "
        "pixels, over the budget of 5,000 pixels per upload"
    ) in message, message
    assert stored_counts() == before and files_under(isolated_media) == []


def test_two_uploads_with_the_same_screenshot_share_one_file_and_a_refused_one_keeps_it(
    tmp_path, author, isolated_media, upload_tmp
):
    shot = noise_png(5)
    first = tmp_path / "first"
    task_folder(first, "retrieval-f016", [(1, "a.png"), (2, "b.png")], {"a.png": shot, "b.png": noise_png(6)})
    kept = submit_archive(author, upload(archive(first)), META_100).submission
    assert len(screenshot_files(isolated_media)) == 2

    second = tmp_path / "second"
    task_folder(second, "writing-a001", [(1, "same.png"), (2, "new.png")], {"same.png": shot, "new.png": noise_png(7)})
    other = submit_archive(author, upload(archive(second)), {**META_100, "model": "Other model"}).submission
    assert len(screenshot_files(isolated_media)) == 3  # the shared image is one file
    shared = Step.objects.get(trajectory__run=kept.run, index=1).screenshot.name
    assert Step.objects.get(trajectory__run=other.run, index=1).screenshot.name == shared

    # a third upload carrying the same image, refused for another screenshot, takes nothing away
    third = tmp_path / "third"
    task_folder(third, "retrieval-f016", [(1, "same.png"), (2, "bad.png")], {"same.png": shot, "bad.png": b"not a png"})
    assert "retrieval-f016/bad.png: not an image" in refusal(author, archive(third), {**META_100, "model": "Third"})
    assert len(screenshot_files(isolated_media)) == 3
    assert (isolated_media / shared).read_bytes() == shot


def _run(suite, slug: str) -> Run:
    model = Model.objects.create(name=slug, slug=slug)
    return Run.objects.create(name=slug, slug=slug, suite=suite, model=model, provenance="harness")


def test_a_failed_ingest_removes_only_files_no_step_shows(tmp_path, isolated_media):
    suite = make_suite(TASK_IDS)
    shot, fresh = noise_png(8), noise_png(9)
    folder = task_folder(tmp_path / "a", "retrieval-f016", [(1, "a.png")], {"a.png": shot})
    ingest_bundle(_run(suite, "kept-run"), read_task_dir(folder))
    shared = Step.objects.get().screenshot.name

    # another import writes the shared name (as a concurrent one might) and a new file, then fails
    failing = task_folder(
        tmp_path / "b", "retrieval-f016", [(1, "x.png"), (2, "y.png")], {"x.png": shot, "y.png": fresh}
    )
    with pytest.raises(IngestError), all_or_nothing() as written:
        ingest_bundle(_run(suite, "failed-run"), read_task_dir(failing), written=written)
        written.add(shared)
        raise IngestError("refused after the files were written")
    digest = hashlib.sha256(fresh).hexdigest()
    assert not (isolated_media / "screenshots" / digest[:2] / f"{digest}.png").exists()  # its own file went
    assert (isolated_media / shared).read_bytes() == shot  # the file the first run shows stayed
    assert len(screenshot_files(isolated_media)) == 1


def test_import_refuses_rows_over_the_bound_naming_the_file(tmp_path, isolated_media):
    suite = make_suite(TASK_IDS)
    folder = task_folder(tmp_path, "retrieval-f016", [(n, "s.png") for n in range(1, 7)], {"s.png": noise_png(10)})
    with pytest.raises(IngestError) as caught:
        ingest_bundle(_run(suite, "imported"), read_task_dir(folder))
    assert f"{folder}/s.png: named as the screenshot of 6 rows of traj.jsonl" in str(caught.value)
    assert files_under(isolated_media) == [] and not Step.objects.exists()


def test_a_resent_live_step_keeps_a_screenshot_another_step_shows(isolated_media, django_capture_on_commit_callbacks):
    suite = make_suite(TASK_IDS)
    trajectory = ingest.start_trajectory(_run(suite, "live"), suite.tasks.get(task_id="retrieval-f016"))
    shot, retake = noise_png(11), noise_png(12)
    row = {"step_num": 1, "action": "pyautogui.click(5, 5)", "response": "", "done": False, "info": {}}
    with django_capture_on_commit_callbacks(execute=True):
        live_ingest.write_step(trajectory, live_ingest.step_record(row, 1), shot, "step_1.png")
        live_ingest.write_step(trajectory, live_ingest.step_record(row, 2), shot, "step_1b.png")
    shared = Step.objects.get(index=1).screenshot.name
    assert Step.objects.get(index=2).screenshot.name == shared

    with django_capture_on_commit_callbacks(execute=True):  # step 2 re-sent with another screen
        live_ingest.write_step(trajectory, live_ingest.step_record(row, 2), retake, "step_2.png")
    assert (isolated_media / shared).read_bytes() == shot
    assert len(screenshot_files(isolated_media)) == 2

    with django_capture_on_commit_callbacks(execute=True):  # now nothing shows the first: it goes
        live_ingest.write_step(trajectory, live_ingest.step_record(row, 1), retake, "step_1.png")
    assert not (isolated_media / shared).exists()
    assert len(screenshot_files(isolated_media)) == 1


def test_derivatives_of_a_shared_original_are_made_once_and_reused(isolated_media):
    """A second trajectory showing the same stored original gets the derivatives already made for
    it without the original being read again: here it has become unreadable in between, and the
    step still gets its pictures instead of a media error."""
    suite = make_suite(TASK_IDS)
    shot = noise_png(13)
    row = {"step_num": 1, "action": "pyautogui.click(5, 5)", "response": "", "done": False, "info": {}}
    steps = []
    for slug in ("first", "second"):
        trajectory = ingest.start_trajectory(_run(suite, slug), suite.tasks.get(task_id="retrieval-f016"))
        steps.append(live_ingest.write_step(trajectory, live_ingest.step_record(row, 1), shot, "step_1.png"))
    assert media.make_trajectory_derivatives(steps[0].trajectory_id).made == 1
    (isolated_media / steps[0].screenshot.name).write_bytes(b"damaged since")

    assert media.make_trajectory_derivatives(steps[1].trajectory_id).as_dict() == {
        "made": 1, "skipped": 0, "failed": 0, "no_screenshot": 0, "errors": []
    }  # fmt: skip
    first, second = Step.objects.get(pk=steps[0].pk), Step.objects.get(pk=steps[1].pk)
    names = ("display_image", "thumbnail", "display_avif")
    assert [getattr(second, n).name for n in names] == [getattr(first, n).name for n in names]
    assert second.display_image.name.startswith("derivatives/") and second.media_error == ""
    assert len(files_under(isolated_media / "derivatives")) == 3  # display WebP, thumbnail, display AVIF


def test_a_file_cut_short_under_the_content_name_is_not_reused(tmp_path, isolated_media):
    suite = make_suite(TASK_IDS)
    shot = noise_png(14)
    digest = hashlib.sha256(shot).hexdigest()
    leftover = isolated_media / "screenshots" / digest[:2] / f"{digest}.png"
    leftover.parent.mkdir(parents=True)
    leftover.write_bytes(shot[:100])  # as a write killed half-way would leave it
    folder = task_folder(tmp_path, "retrieval-f016", [(1, "a.png")], {"a.png": shot})
    ingest_bundle(_run(suite, "after-crash"), read_task_dir(folder))
    step = Step.objects.get()
    assert (isolated_media / step.screenshot.name).read_bytes() == shot
    assert step.screenshot.name.startswith(f"screenshots/{digest[:2]}/{digest}")
