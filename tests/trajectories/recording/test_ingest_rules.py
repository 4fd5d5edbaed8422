"""The ingest path rule by rule, as whoever imports or uploads sees it: which media files a failed ingest
removes (only those no step names any more, in any of its three image fields; the rest kept and said
in the log), the exact limits on a screenshot's bytes, pixels and sides, the pixel budget of one
upload, row bounds, what each stored row keeps (attempt, layout, source, hash, done, explanation), the
name an error gives a screenshot, naive timestamps, rubric weights compared as numbers, imported
judges' names and settings, and what a bundle's report says. Written from the mutants of
``trajectories/recording/ingest.py`` that survived (bench/README.md, mutation testing)."""

import datetime as dt
import logging
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.db import DatabaseError
from django.utils import timezone
from PIL import Image

from harness.results import JudgeRecord, RubricVerdict, StepRecord, TrajectoryBundle
from harness.tasks import RubricSpec
from leaderboard.models import JudgeConfig, RubricItem
from tests.factories import RUBRIC, make_run, make_suite, png_bytes
from trajectories.models import Judgment, Step, Trajectory
from trajectories.recording import ingest, rubric_versions
from trajectories.recording.ingest import IngestError, IngestReport, ScreenshotCache

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(isolated_media):
    return make_run(make_suite(["retrieval-f016"]))


@pytest.fixture
def task(run):
    return run.suite.tasks.get()


def saved(name: str, data: bytes = b"x") -> str:
    return ingest.default_storage.save(name, ContentFile(data))


def record(index: int, **fields) -> StepRecord:
    return StepRecord(index=index, turn=index, tool="computer", action={"type": "click"}, action_text="click", **fields)


def specs(weights=(0.5, 0.3, 0.2), criteria=None) -> list[RubricSpec]:
    criteria = criteria or [item["criterion"] for item in RUBRIC]
    total = sum(weights)
    return [
        RubricSpec(i, f"R{i}", c, "", w, w / total, f"h{i}")
        for i, (c, w) in enumerate(zip(criteria, weights, strict=True), start=1)
    ]


# ---------------------------------------------------------------- media files a failed ingest removes


@pytest.mark.parametrize("field", ["screenshot", "display_image", "thumbnail"])
def test_a_file_any_step_still_shows_is_kept_the_rest_deleted(run, task, field):
    trajectory = Trajectory.objects.create(run=run, task=task)
    shown, unused = saved("screenshots/ab/shown.png"), saved("screenshots/cd/unused.png")
    Step.objects.create(trajectory=trajectory, index=1, turn=1, **{field: shown})
    assert ingest.delete_unused([shown, unused, unused]) == [unused]
    assert ingest.default_storage.exists(shown) and not ingest.default_storage.exists(unused)


def test_a_file_the_database_cannot_answer_about_is_kept_and_named_and_the_rest_go_on(run, task, monkeypatch, caplog):
    first, second = saved("screenshots/aa/first.png"), saved("screenshots/bb/second.png")
    real = ingest.Step.objects.filter

    def filter_failing_for_first(*args, **kwargs):
        if first in repr(args):
            raise DatabaseError("connection gone")
        return real(*args, **kwargs)

    monkeypatch.setattr(ingest.Step.objects, "filter", filter_failing_for_first)
    with caplog.at_level(logging.WARNING, logger=ingest.logger.name):
        assert ingest.delete_unused([first, second]) == [second]
    assert ingest.default_storage.exists(first) and not ingest.default_storage.exists(second)
    assert caplog.messages == [f"media file {first} kept: could not check whether a step still shows it"]


def test_a_file_the_store_cannot_delete_is_kept_and_named_with_why_and_the_rest_go_on(
    monkeypatch, caplog, isolated_media
):
    first, second = saved("screenshots/aa/first.png"), saved("screenshots/bb/second.png")
    real = ingest.default_storage.delete

    def delete(name):
        if name == first:
            raise ingest.STORAGE_UNAVAILABLE[0](error="the store timed out")
        real(name)

    monkeypatch.setattr(ingest.default_storage, "delete", delete)
    with caplog.at_level(logging.WARNING, logger=ingest.logger.name):
        assert ingest.delete_unused([first, second]) == [second]
    why = "An HTTP Client failed to establish a connection: the store timed out"
    assert caplog.messages == [f"media file {first} kept: the media store did not answer ({why})"]


def test_a_nested_failure_removes_only_what_was_written_inside_it(isolated_media):
    written = ingest.WrittenFiles()
    outer = saved("screenshots/aa/outer.png")
    written.add(outer)
    with pytest.raises(RuntimeError):
        with ingest.all_or_nothing(written):
            written.add(saved("screenshots/bb/inner.png"))
            raise RuntimeError("the inner ingest failed")
    assert written.names == [outer]
    assert sorted(p.name for p in Path(isolated_media).rglob("*.png")) == ["outer.png"]


def test_every_file_written_is_removed_when_asked_from_the_start(isolated_media):
    written = ingest.WrittenFiles()
    for name in ("screenshots/aa/one.png", "screenshots/bb/two.png"):
        written.add(saved(name))
    written.delete_since()
    assert written.names == [] and not list(Path(isolated_media).rglob("*.png"))


# ---------------------------------------------------------------- one screenshot


def test_a_screenshot_of_exactly_the_byte_limit_passes_one_byte_more_is_refused(monkeypatch):
    data = png_bytes()
    monkeypatch.setattr(ingest, "MAX_SCREENSHOT_BYTES", len(data))
    assert ingest.inspect_screenshot(data, "a.png").width == 64
    monkeypatch.setattr(ingest, "MAX_SCREENSHOT_BYTES", len(data) - 1)
    with pytest.raises(IngestError) as caught:
        ingest.inspect_screenshot(data, "a.png")
    assert str(caught.value) == f"a.png: {len(data)} bytes, larger than the {len(data) - 1}-byte screenshot limit"


def test_an_empty_screenshot_is_named():
    with pytest.raises(IngestError) as caught:
        ingest.inspect_screenshot(b"", "step_3.png")
    assert str(caught.value) == "step_3.png: empty file (expected a PNG, JPEG or WebP screenshot)"


def test_pixels_exactly_at_the_limit_pass_one_more_is_refused(monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 64 * 40)
    assert ingest.inspect_screenshot(png_bytes(64, 40), "a.png").height == 40
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 64 * 40 - 1)
    with pytest.raises(IngestError) as caught:  # Pillow's own check refuses first, as a bomb
        ingest.inspect_screenshot(png_bytes(64, 40), "a.png")
    assert str(caught.value).startswith("a.png: refused as a decompression bomb (Image size (2560 pixels) exceeds")


@pytest.mark.parametrize(
    "size, problem",
    [
        ((16, 16), None),
        ((8192, 16), None),
        ((16, 8192), None),
        ((15, 40), "width 15 px (expected 16 to 8192 px)"),
        ((40, 15), "height 15 px (expected 16 to 8192 px)"),
        ((8193, 16), "width 8193 px (expected 16 to 8192 px)"),
        ((16, 8193), "height 8193 px (expected 16 to 8192 px)"),
    ],
)
def test_each_side_between_16_and_8192_px_inclusive(size, problem):
    data = png_bytes(*size)
    if problem is None:
        assert (ingest.inspect_screenshot(data, "a.png").width, ingest.inspect_screenshot(data, "a.png").height) == size
    else:
        with pytest.raises(IngestError) as caught:
            ingest.inspect_screenshot(data, "a.png")
        assert str(caught.value) == f"a.png: {problem}"


# ---------------------------------------------------------------- the pixel budget of one upload


def test_the_budget_counts_every_distinct_image_once_and_says_when_it_is_spent():
    cache = ScreenshotCache(max_pixels=3 * 64 * 40)
    for colour in ((1, 2, 3), (4, 5, 6)):
        cache.inspect(png_bytes(colour=colour), "a.png")
    cache.inspect(png_bytes(colour=(1, 2, 3)), "again.png")  # seen: not decoded or charged again
    assert (cache.pixels, cache.decoded, cache.over_budget) == (2 * 64 * 40, 2, False)
    cache.inspect(png_bytes(colour=(7, 8, 9)), "c.png")
    assert (cache.pixels, cache.decoded, cache.over_budget) == (3 * 64 * 40, 3, False)
    with pytest.raises(ingest.PixelBudgetExceeded):
        cache.inspect(png_bytes(colour=(9, 9, 9)), "d.png")
    assert (cache.pixels, cache.decoded, cache.over_budget) == (3 * 64 * 40, 3, True)


def test_a_bad_image_seen_again_is_refused_under_its_new_name_with_the_same_problem(monkeypatch):
    decoded = []
    real = ingest.inspect_screenshot
    monkeypatch.setattr(ingest, "inspect_screenshot", lambda *a, **k: decoded.append(a[1]) or real(*a, **k))
    cache = ScreenshotCache()
    with pytest.raises(IngestError) as first:
        cache.inspect(b"not an image", "traj/step_1.png")
    with pytest.raises(IngestError) as again:
        cache.inspect(b"not an image", "traj/step_9.png")
    assert str(first.value) == "traj/step_1.png: not an image (expected a PNG, JPEG or WebP screenshot)"
    assert str(again.value) == "traj/step_9.png: not an image (expected a PNG, JPEG or WebP screenshot)"
    assert decoded == ["traj/step_1.png"]  # read once


# ---------------------------------------------------------------- rows


def test_fifty_rows_may_share_a_step_number_fifty_one_may_not(tmp_path):
    rows = [StepRecord(index=i, turn=7, tool="computer", action={}, action_text="") for i in range(1, 51)]
    bundle = TrajectoryBundle(task_id="retrieval-f016", layout="mypcbench", path=tmp_path, steps=rows)
    assert ingest.row_bound_problems(bundle) == []
    bundle.steps.append(StepRecord(index=51, turn=7, tool="computer", action={}, action_text=""))
    ((path, problem),) = ingest.row_bound_problems(bundle)
    assert path == tmp_path / "traj.jsonl"
    assert problem.startswith("51 rows have step_num 7 (rows 1, 2, 3, 4, 5 and 46 more; expected at most 50 rows")


@pytest.mark.parametrize(
    "numbers, text",
    [
        ([1, 2, 3, 4], "1, 2, 3, 4"),
        ([1, 2, 3, 4, 5], "1, 2, 3, 4, 5"),
        ([1, 2, 3, 4, 5, 6], "1, 2, 3, 4, 5 and 1 more"),
    ],
)
def test_row_numbers_are_listed_five_then_counted(numbers, text):
    assert ingest._some(numbers) == text


# ---------------------------------------------------------------- what each row keeps


def test_a_trajectory_started_with_defaults_is_attempt_0_with_nothing_of_a_source(run, task):
    trajectory = Trajectory.objects.get(pk=ingest.start_trajectory(run, task).pk)
    assert (trajectory.attempt, trajectory.source_layout, trajectory.source_path, trajectory.content_hash) == (
        0,
        "",
        "",
        "",
    )
    assert trajectory.status == Trajectory.Status.RUNNING
    other = ingest.start_trajectory(
        run, task, 1, layout="osworld", source_path="t/1", content_hash="c" * 64, status=Trajectory.Status.FINISHED
    )
    other = Trajectory.objects.get(pk=other.pk)
    assert (other.attempt, other.source_layout, other.source_path, other.content_hash, other.status) == (
        1, "osworld", "t/1", "c" * 64, Trajectory.Status.FINISHED)  # fmt: skip
    with pytest.raises(IngestError) as caught:
        ingest.start_trajectory(run, task, 1)
    assert str(caught.value) == (
        f"run {run.slug!r} already has attempt 1 of task 'retrieval-f016' (expected a new attempt number or a new run)"
    )


def test_a_step_keeps_done_and_a_damaged_screenshot_is_named_by_its_file_or_its_step(run, task, tmp_path):
    trajectory = ingest.start_trajectory(run, task)
    step = ingest.add_step(trajectory, record(1, done=True), png_bytes())
    assert Step.objects.get(pk=step.pk).done is True and Step.objects.get(pk=step.pk).screenshot_width == 64
    assert Step.objects.get(pk=ingest.add_step(trajectory, record(2)).pk).done is False
    with pytest.raises(IngestError, match=r"^step 3: not an image"):
        ingest.add_step(trajectory, record(3), b"junk")
    with pytest.raises(IngestError, match=r"^shots/step_4\.png: not an image"):
        ingest.add_step(trajectory, record(4, screenshot=Path("shots/step_4.png")), b"junk")
    with pytest.raises(IngestError, match=r"^given\.png: not an image"):
        ingest.add_step(
            trajectory, record(5, screenshot=Path("shots/step_5.png")), b"junk", screenshot_name="given.png"
        )


def test_a_naive_timestamp_is_read_in_the_sites_time_zone_whatever_zone_is_active(run, task, settings):
    settings.TIME_ZONE = "America/New_York"
    trajectory = ingest.start_trajectory(run, task)
    with timezone.override("Asia/Tokyo"):
        step = ingest.add_step(trajectory, record(1, timestamp=dt.datetime(2026, 3, 1, 9, 0)))
    expected = dt.datetime(2026, 3, 1, 14, 0, tzinfo=dt.UTC)  # 9:00 in New York is 14:00 UTC
    assert Step.objects.get(pk=step.pk).timestamp == expected


def test_judgments_keep_the_explanation_and_an_unknown_position_is_named(run, task):
    trajectory = ingest.start_trajectory(run, task)
    trajectory.n_steps = 3
    judge = JudgeConfig.objects.create(name="a judge")
    items = {item.position: item for item in task.current_rubric()}
    (row,) = ingest.record_judgments(
        trajectory, judge, items, [RubricVerdict(1, "success", "found it", cited_steps=[0, 2, 4])]
    )
    row = Judgment.objects.get(pk=row.pk)
    assert (row.explanation, row.cited_steps) == ("found it", [2])
    with pytest.raises(IngestError) as caught:
        ingest.record_judgments(trajectory, judge, items, [RubricVerdict(9, "success")])
    assert str(caught.value) == f"{trajectory}: a verdict for rubric position 9, which has no item"


def test_a_finished_trajectory_without_answer_or_error_has_neither_and_asks_for_its_derivatives(
    run, task, monkeypatch, django_capture_on_commit_callbacks
):
    asked = []
    monkeypatch.setattr(ingest, "request_derivatives", asked.append)
    trajectory = ingest.start_trajectory(run, task)
    with django_capture_on_commit_callbacks(execute=True):
        ingest.finish_trajectory(trajectory, ended_by="done")
    trajectory = Trajectory.objects.get(pk=trajectory.pk)
    assert (trajectory.final_answer, trajectory.error, trajectory.ended_by) == ("", "", "done")
    assert asked == [trajectory.pk]


# ---------------------------------------------------------------- rubric weights, imported judges


def test_weights_are_compared_as_numbers_relative_and_absolute(task):
    stored = [1_000_000.0, 0.0, 1.0]
    criteria = ["a", "b", "c"]
    RubricItem.objects.filter(task=task).delete()
    for i, (c, w) in enumerate(zip(criteria, stored, strict=True), start=1):
        RubricItem.objects.create(
            task=task, version=1, position=i, criterion=c, weight=w, normalised_weight=w, is_current=True
        )
    items = list(task.rubric_items.order_by("position"))
    noise = specs(weights=(1_000_000.0 + 1e-4, 1e-13, 1.0), criteria=criteria)
    assert rubric_versions._same_rubric(items, noise)  # float noise is no new rubric version
    assert not rubric_versions._same_rubric(items, specs(weights=(1_000_000.0, 1e-6, 1.0), criteria=criteria))


def test_a_judges_rubric_is_compared_with_rubric_bundle_json_by_numbers_too():
    ours = specs(weights=(1_000_000.0, 0.0, 1.0))
    assert rubric_versions.same_entries(ours, specs(weights=(1_000_000.0 + 1e-4, 1e-13, 1.0)))
    assert not rubric_versions.same_entries(ours, specs(weights=(1_000_000.0, 1e-6, 1.0)))


def test_a_stored_version_matches_whatever_order_its_items_were_written_in(task):
    entries = specs(weights=(0.6, 0.3, 0.1))
    for entry in reversed(entries):  # written last position first
        RubricItem.objects.create(task=task, version=2, is_current=False, **RubricItem.spec_fields(entry))
    report = IngestReport()
    found = rubric_versions.rubric_version_for(task, entries, report)
    assert {item.version for item in found.values()} == {2} and report.new_rubric_versions == []


@pytest.mark.parametrize(
    "source, model, name",
    [
        ("osworld_full_traj_result.json", "gemini-3.1", "upstream full-trajectory judge (gemini-3.1)"),
        ("rubric_result.json", "", "upstream per-step judge"),
        ("result.txt", "OSWorld evaluator", "OSWorld evaluator score"),
        ("judge_results.json", "gpt-5", "upstream judge_results.py score (gpt-5)"),
    ],
)
def test_imported_judges_are_named_by_their_source_and_keep_their_settings(source, model, name):
    judge = rubric_versions.imported_judge(
        JudgeRecord(source_file=source, model=model, settings={"max_images": 12, "mode": "x"})
    )
    assert judge.name == name and judge.origin == JudgeConfig.Origin.IMPORTED
    assert judge.max_images == 12 and judge.settings == {"source_file": source, "max_images": 12, "mode": "x"}


def test_an_imported_judge_whose_image_count_is_not_a_number_has_none():
    judge = rubric_versions.imported_judge(
        JudgeRecord(source_file="judge_results.json", model="m", settings={"max_images": "all"})
    )
    assert judge.max_images is None


# ---------------------------------------------------------------- a whole bundle


def bundle_of(tmp_path, task_id="retrieval-f016", **fields) -> TrajectoryBundle:
    folder = tmp_path / "pam-run" / task_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "step_1.png").write_bytes(png_bytes())
    steps = fields.pop("steps", [record(1, screenshot=folder / "step_1.png")])
    return TrajectoryBundle(task_id=task_id, layout="mypcbench", path=folder, steps=steps, **fields)


def test_a_bundle_is_stored_with_its_source_hash_and_error_and_reported(run, tmp_path):
    report = IngestReport()
    trajectory = ingest.ingest_bundle(
        run, bundle_of(tmp_path, traj_sha256="d" * 64, error="the VM froze"), report=report
    )
    trajectory = Trajectory.objects.get(pk=trajectory.pk)
    assert (trajectory.source_path, trajectory.content_hash, trajectory.error) == (
        "retrieval-f016",
        "d" * 64,
        "the VM froze",
    )
    assert (report.trajectories, report.steps, report.screenshots, report.tasks) == (1, 1, 1, {"retrieval-f016"})
    again = ingest.ingest_bundle(run, bundle_of(tmp_path, attempt=1), report=report, source_path="shown/here")
    assert Trajectory.objects.get(pk=again.pk).source_path == "shown/here"
    assert report.screenshot_cache.decoded == 1  # the same image in both bundles, decoded once


def test_a_damaged_screenshot_in_a_bundle_is_named_by_its_file(run, tmp_path):
    bundle = bundle_of(tmp_path)
    bundle.steps[0].screenshot.write_bytes(b"junk")
    with pytest.raises(IngestError) as caught:
        ingest.ingest_bundle(run, bundle)
    assert str(caught.value).startswith(f"{bundle.steps[0].screenshot}: not an image")
    assert not Trajectory.objects.exists()


def test_a_task_of_another_suite_with_the_same_id_is_not_used(run, tmp_path):
    other = make_suite(["retrieval-x001"], slug="another-suite")
    with pytest.raises(IngestError) as caught:
        ingest.ingest_bundle(run, bundle_of(tmp_path, task_id="retrieval-x001"))
    assert str(caught.value) == (
        f"{tmp_path / 'pam-run' / 'retrieval-x001'}: task id 'retrieval-x001' is not a task of suite "
        f"{run.suite.slug!r} (expected one of its task ids)"
    )
    assert other.tasks.exists() and not Trajectory.objects.exists()


def test_every_row_bound_a_bundle_breaks_is_said_at_once(run, tmp_path):
    shot = tmp_path / "one.png"
    shot.write_bytes(png_bytes())
    rows = [record(i, screenshot=shot) for i in range(1, 7)]
    for row in rows:
        row.turn = 1
    rows += [StepRecord(index=i, turn=2, tool="computer", action={}, action_text="") for i in range(7, 58)]
    with pytest.raises(IngestError) as caught:
        ingest.ingest_bundle(run, bundle_of(tmp_path, steps=rows))
    first, second = str(caught.value).split(f"; {shot}: ")  # each problem after its file, "; " between
    assert first.startswith(f"{tmp_path / 'pam-run' / 'retrieval-f016' / 'traj.jsonl'}: 51 rows have step_num 2")
    assert second.startswith("named as the screenshot of 6 rows")


def judged(rubric, verdicts, **fields) -> JudgeRecord:
    return JudgeRecord(source_file="judge_results.json", model="gpt-5", rubric=rubric, verdicts=verdicts, **fields)


def test_a_failed_judge_is_reported_and_the_next_one_still_recorded(run, tmp_path):
    report = IngestReport()
    verdicts = [RubricVerdict(p, "success") for p in (1, 2, 3)]
    bundle = bundle_of(tmp_path, judges=[judged([], [], error="quota"), judged(specs(), verdicts, score=1.0)])
    trajectory = ingest.ingest_bundle(run, bundle, report=report)
    assert report.judge_errors == [f"{bundle.path / 'judge_results.json'}: quota"]
    assert report.judgments == 3 and Judgment.objects.filter(trajectory=trajectory).count() == 3
    trajectory = Trajectory.objects.get(pk=trajectory.pk)
    assert (
        trajectory.imported_score == 1.0
        and trajectory.imported_score_judge.name == "upstream judge_results.py score (gpt-5)"
    )


def test_a_judge_stating_another_rubric_is_warned_about_and_kept_as_this_runs_version(run, task, tmp_path):
    report = IngestReport()
    theirs = specs(weights=(0.6, 0.2, 0.2))
    bundle = bundle_of(tmp_path, rubric=specs(), judges=[judged(theirs, [RubricVerdict(1, "success")])])
    ingest.ingest_bundle(run, bundle, report=report)
    assert report.warnings == [
        f"{bundle.path / 'judge_results.json'}: its rubric differs from rubric_bundle.json; "
        "judgments point at the rubric the judge states"
    ]
    assert report.new_rubric_versions == [
        "retrieval-f016: the judged rubric matches no stored version; kept as historical version 2"
    ]
    assert set(RubricItem.objects.filter(task=task, version=2).values_list("source_run", flat=True)) == {run.pk}
    report = IngestReport()
    ingest.ingest_bundle(
        run, bundle_of(tmp_path, attempt=1, judges=[judged(theirs, [RubricVerdict(1, "success")])]), report=report
    )
    assert report.warnings == []  # no rubric_bundle.json: nothing to differ from
