"""import_results on a .zip or .tar.gz: read as a stream one task folder at a
time, through the same layout and bundle readers as a folder, all-or-nothing, every problem reported.
The archives are built here from generated result folders (formats.md 2; OSWorld's run.py tree)."""

import json
import tarfile
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

from harness.results import archive_stream
from leaderboard.models import Run
from tests.factories import make_suite, write_task_dir
from tests.trajectories.recording.test_import_real_results import UUID_A, UUID_B, osworld_task_dir
from trajectories.models import Step, Trajectory
from trajectories.recording.import_notes import ImportResultsError
from trajectories.recording.import_results import import_results

pytestmark = pytest.mark.django_db


def zip_folder(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder.parent).as_posix())
    return target


def tar_folder(folder: Path, target: Path) -> Path:
    with tarfile.open(target, "w:gz") as archive:
        archive.add(folder, arcname=folder.name)
    return target


def test_a_zip_of_an_osworld_tree_imports_like_the_folder(tmp_path, isolated_media):
    make_suite([UUID_A, UUID_B], slug="osworld")
    base = tmp_path / "results" / "pyautogui" / "screenshot" / "ByteDance-Seed" / "UI-TARS-1.5-7B"
    osworld_task_dir(base / "chrome", UUID_A, score="0")
    osworld_task_dir(base / "os", UUID_B, score="1.0", n_steps=3)
    archive = zip_folder(tmp_path / "results", tmp_path / "uitars.zip")
    calls = []

    summary = import_results(archive, "zip run", progress=lambda done, total, task_id: calls.append((done, total)))

    assert summary.model.name == "ByteDance-Seed/UI-TARS-1.5-7B" and summary.run.source == "uitars.zip"
    assert summary.report.trajectories == 2 and summary.report.steps == 5 and summary.report.screenshots == 5
    assert Trajectory.objects.get(task__task_id=UUID_A).imported_score == 0.0
    assert calls[0] == (0, 2) and calls[-1] == (2, 2)
    step = Step.objects.filter(trajectory__task__task_id=UUID_B).order_by("index").first()
    original = sorted((base / "os" / UUID_B).glob("step_1_*.png"))[0].read_bytes()
    assert step.screenshot.read() == original  # byte for byte
    assert not list(Path(archive.parent).glob("mypcbench-archive-*"))  # no scratch folder left behind


def test_a_tar_gz_of_mypcbench_folders_with_attempts(tmp_path):
    make_suite(["retrieval-f016", "aggregation-f002"])
    for g in ("G0", "G1"):
        write_task_dir(tmp_path / "opus" / g, "retrieval-f016", full_judge=[True, False, True])
        write_task_dir(tmp_path / "opus" / g, "aggregation-f002")
    archive = tar_folder(tmp_path / "opus", tmp_path / "opus.tar.gz")
    summary = import_results(archive, "tar run", model_name="Claude Opus 4.6")
    run = summary.run
    assert sorted(run.trajectories.values_list("task__task_id", "attempt")) == [
        ("aggregation-f002", 0), ("aggregation-f002", 1), ("retrieval-f016", 0), ("retrieval-f016", 1)]  # fmt: skip
    assert summary.report.judgments == 6 and summary.report.attempts == 2
    assert all(t.source_path.startswith("opus/opus/G") for t in run.trajectories.all())


def test_every_problem_in_an_archive_is_reported_and_nothing_kept(tmp_path, isolated_media):
    make_suite(["retrieval-f016", "aggregation-f002", "counterfactual-f008"])
    write_task_dir(tmp_path / "r", "retrieval-f016")
    broken = write_task_dir(tmp_path / "r", "aggregation-f002")
    (broken / "traj.jsonl").write_text((broken / "traj.jsonl").read_text() + "{oops\n")
    gappy = write_task_dir(tmp_path / "r", "counterfactual-f008")
    sorted(gappy.glob("step_2_*.png"))[0].unlink()
    archive = zip_folder(tmp_path / "r", tmp_path / "r.zip")
    with pytest.raises(ImportResultsError) as caught:
        import_results(archive, "bad archive")
    message = str(caught.value)
    assert "r/aggregation-f002/traj.jsonl, line 4" in message and "not valid JSON" in message
    assert "missing screenshot (1)" in message and "--allow-missing-screenshots" in message
    assert "mypcbench-archive-" not in message and str(tmp_path) not in message
    assert Run.objects.count() == 0 and Step.objects.count() == 0
    assert not [p for p in isolated_media.rglob("*") if p.is_file()]


def test_unsafe_member_names_are_refused(tmp_path):
    make_suite(["retrieval-f016"])
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("r/retrieval-f016/traj.jsonl", json.dumps({"step_num": 1, "action": "DONE"}) + "\n")
        z.writestr("../outside.txt", "x")
    with pytest.raises(ImportResultsError, match="escapes the archive root"):
        import_results(archive, "evil")


def test_listing_finds_task_folders_and_scores(tmp_path):
    write_task_dir(tmp_path / "par" / "vm0", "retrieval-f016")
    (tmp_path / "par" / "scores.json").write_text(json.dumps({"rows": []}))
    listing = archive_stream.list_archive(zip_folder(tmp_path / "par", tmp_path / "par.zip"))
    assert [str(d) for d in listing.task_dirs] == ["par/vm0/retrieval-f016"]
    assert [str(e) for e in listing.extra] == ["par/scores.json"]


def test_the_command_takes_an_archive(tmp_path, capsys):
    make_suite(["retrieval-f016"])
    write_task_dir(tmp_path / "r", "retrieval-f016")
    call_command("import_results", str(tar_folder(tmp_path / "r", tmp_path / "r.tgz")), "--run", "cli archive")
    assert "trajectories: 1" in capsys.readouterr().out


# ------------------------------------------------------------------ uploads share the reader


@pytest.fixture
def uploader(settings, tmp_path):
    from django.contrib.auth import get_user_model
    from django.core.cache import cache

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    cache.clear()
    return get_user_model().objects.create_user("pam", password="pw-beesly-2026")


def upload_meta(suite: str) -> dict:
    return {"suite": suite, "model": "UI-TARS-1.5-7B", "agent": "uitars", "tool_surface": "computer",
            "turn_budget": 50, "harness_version": "osworld", "image_version": "ubuntu"}  # fmt: skip


def test_an_osworld_upload_is_read_by_the_same_reader(tmp_path, uploader):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from trajectories.submissions.uploads import submit_archive

    make_suite([UUID_A, UUID_B], slug="osworld").__class__.objects.filter(slug="osworld").update(kind="osworld")
    osworld_task_dir(tmp_path / "rollouts" / "chrome", UUID_A, score="0")
    osworld_task_dir(tmp_path / "rollouts" / "os", UUID_B, score="1")
    data = zip_folder(tmp_path / "rollouts", tmp_path / "up.zip").read_bytes()
    result = submit_archive(uploader, SimpleUploadedFile("up.zip", data), upload_meta("osworld"))
    trajectories = result.submission.run.trajectories.all()
    assert {t.source_layout for t in trajectories} == {"osworld"} and {t.ended_by for t in trajectories} == {"done"}
    # result.txt "0" is the evaluator's score, kept as the author's own (self-reported) score
    assert sorted(result.submission.run.metadata["self_reported_scores"].values()) == [0.0, 1.0]


def test_an_upload_with_an_lfs_pointer_says_so(tmp_path, uploader):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from trajectories.submissions.uploads import submit_archive
    from trajectories.submissions.validation import SubmissionRejected

    make_suite(["retrieval-f016"])
    task_dir = write_task_dir(tmp_path / "r", "retrieval-f016")
    sorted(task_dir.glob("step_2_*.png"))[0].write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 10\n"
    )
    data = zip_folder(tmp_path / "r", tmp_path / "up.zip").read_bytes()
    with pytest.raises(SubmissionRejected) as caught:
        submit_archive(uploader, SimpleUploadedFile("up.zip", data), upload_meta("mypcbench-eval-round0"))
    text = "\n".join(f"{p.file}: {p.problem}" for p in caught.value.report)
    assert "Git LFS pointer, not the image: run `git lfs pull`" in text and "line 2" in text
