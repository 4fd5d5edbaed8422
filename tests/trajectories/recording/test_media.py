"""Screenshot derivatives: sizes, formats, content-hashed names, idempotency, bad originals, the
request modes and the backfill command."""

import hashlib
import io

import numpy as np
import pytest
from botocore.exceptions import ConnectTimeoutError, EndpointConnectionError
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db.models.fields.files import FieldFile
from PIL import Image, ImageDraw, ImageFilter

from tests.services.factories import make_trajectory, screenshot_png
from trajectories.models import Step
from trajectories.recording import media
from trajectories.recording.after_finish import request_derivatives
from trajectories.tasks import make_derivatives

pytestmark = pytest.mark.django_db


def read(field) -> bytes:
    with default_storage.open(field.name, "rb") as fh:
        return fh.read()


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_display_and_thumbnail_are_webp_scaled_and_smaller(isolated_media):
    trajectory = make_trajectory(2)
    summary = media.make_trajectory_derivatives(trajectory.id)
    assert summary.made == 2 and summary.failed == 0

    for step in Step.objects.filter(trajectory=trajectory):
        original = read(step.screenshot)
        display, thumb = read(step.display_image), read(step.thumbnail)
        with Image.open(io.BytesIO(display)) as image:
            assert image.format == "WEBP" and image.size == (media.DISPLAY_MAX_WIDTH, 576) == (1024, 576)
        with Image.open(io.BytesIO(thumb)) as image:
            assert image.format == "WEBP" and image.size == (media.THUMBNAIL_WIDTH, 90) == (160, 90)
        assert len(display) < len(original) / 3
        assert len(thumb) < len(display)
        # Names are the sha256 of the bytes, under derivatives/.
        for name, data in ((step.display_image.name, display), (step.thumbnail.name, thumb)):
            assert name.startswith("derivatives/")
            assert hashlib.sha256(data).hexdigest() in name and name.endswith(".webp")
        assert step.media_error == ""
        # The original is kept untouched for the judge.
        assert (isolated_media / step.screenshot.name).exists()


def shown_ssim(original_png: bytes, webp: bytes) -> float:
    with Image.open(io.BytesIO(webp)) as shown, Image.open(io.BytesIO(original_png)) as original:
        reference = original.convert("RGB").resize(shown.size, Image.Resampling.LANCZOS)
        return media.ssim(media.grey(reference), media.grey(shown))


def test_ssim_is_one_for_the_same_picture_and_falls_with_damage():
    picture = Image.open(io.BytesIO(screenshot_png(640, 400, seed=3))).convert("L")
    same = np.asarray(picture)
    assert media.ssim(same, same) == pytest.approx(1.0)
    blurred = np.asarray(picture.filter(ImageFilter.GaussianBlur(2)))
    assert media.ssim(same, blurred) < 0.9


def photo_png(width=1280, height=800) -> bytes:
    """Fine-grained photographic texture (a wallpaper): the hard case for lossy encoding."""
    rng = np.random.default_rng(5)
    small = rng.normal(128, 50, (height // 2, width // 2, 3)).clip(0, 255).astype("uint8")
    image = Image.fromarray(small).resize((width, height), Image.Resampling.BICUBIC)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def ui_png(width=1280, height=800) -> bytes:
    """A flat app screen with lines of text."""
    image = Image.new("RGB", (width, height), (250, 250, 252))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 48), fill=(197, 54, 43))
    for row in range(70, height - 20, 24):
        draw.text((30, row), f"Dunder Mifflin invoice {row} Scranton paper order reply", fill=(30, 30, 30))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@pytest.mark.slow
def test_display_quality_is_chosen_per_screenshot_to_keep_ssim_at_display_size():
    ui, photo = ui_png(), photo_png()
    ui_bytes, ui_quality, ui_score = media.encode_display(Image.open(io.BytesIO(ui)))
    photo_bytes, photo_quality, photo_score = media.encode_display(Image.open(io.BytesIO(photo)))
    # Both meet the floor, measured independently of the encoder's own check.
    assert shown_ssim(ui, ui_bytes) >= media.DISPLAY_MIN_SSIM >= 0.97
    assert shown_ssim(photo, photo_bytes) >= media.DISPLAY_MIN_SSIM
    assert ui_score == pytest.approx(shown_ssim(ui, ui_bytes), abs=1e-9)
    # The flat screen passes at the lowest rung; the photo needs a higher quality than that.
    assert ui_quality == media.DISPLAY_QUALITIES[0]
    assert photo_quality > ui_quality
    # At the lowest rung the photo would have fallen below the floor.
    cheap = media.encode_webp(Image.open(io.BytesIO(photo)), media.DISPLAY_MAX_WIDTH, media.DISPLAY_QUALITIES[0])
    assert shown_ssim(photo, cheap) < media.DISPLAY_MIN_SSIM
    assert len(ui_bytes) < len(ui) / 2


def test_small_screenshots_are_not_upscaled():
    trajectory = make_trajectory(1, size=(120, 60))
    media.make_trajectory_derivatives(trajectory.id)
    step = trajectory.steps.get()
    with Image.open(io.BytesIO(read(step.display_image))) as image:
        assert image.size == (120, 60)
    with Image.open(io.BytesIO(read(step.thumbnail))) as image:
        assert image.size == (120, 60)


@pytest.mark.slow
def test_second_pass_skips_finished_steps_and_force_remakes(isolated_media):
    trajectory = make_trajectory(2)
    media.make_trajectory_derivatives(trajectory.id)
    names = list(trajectory.steps.values_list("display_image", "thumbnail"))
    files_before = sorted(p.name for p in (isolated_media / "derivatives").rglob("*.webp"))

    again = media.make_trajectory_derivatives(trajectory.id)
    assert again.made == 0 and again.failed == 0
    assert list(trajectory.steps.values_list("display_image", "thumbnail")) == names

    forced = media.make_trajectory_derivatives(trajectory.id, force=True)
    assert forced.made == 2
    # Same bytes, same names: forcing does not litter storage with copies.
    assert list(trajectory.steps.values_list("display_image", "thumbnail")) == names
    assert sorted(p.name for p in (isolated_media / "derivatives").rglob("*.webp")) == files_before


def test_corrupt_and_missing_originals_are_recorded_and_the_rest_is_made(isolated_media):
    good = screenshot_png(seed=7)
    trajectory = make_trajectory(3, png={2: good[: len(good) // 2]}, size=(160, 100))
    step3 = trajectory.steps.get(index=3)
    (isolated_media / step3.screenshot.name).unlink()

    result = make_derivatives(trajectory.id)  # the Celery task body, run directly

    assert result["made"] == 1 and result["failed"] == 2
    step1, step2, step3 = trajectory.steps.order_by("index")
    assert step1.display_image and step1.thumbnail and not step1.media_error
    assert not step2.display_image and "not a readable image" in step2.media_error
    assert step2.screenshot.name in step2.media_error
    assert not step3.display_image and "missing" in step3.media_error


@pytest.mark.parametrize(
    "outage", [EndpointConnectionError(endpoint_url="http://s3"), ConnectTimeoutError(endpoint_url="http://s3")]
)
def test_a_store_not_answering_is_retried_later_not_recorded_as_a_bad_original(isolated_media, monkeypatch, outage):
    trajectory = make_trajectory(1, size=(160, 100))

    def unreachable(self, mode="rb"):
        raise outage

    with monkeypatch.context() as patched:
        patched.setattr(FieldFile, "open", unreachable)
        with pytest.raises(type(outage)):
            make_derivatives.run(trajectory.id)  # a worker retries it; called directly the error comes out
    step = Step.objects.get(trajectory=trajectory)
    assert step.media_error == "" and not step.display_image, "nothing wrong is recorded about the screenshot"
    assert make_derivatives.run(trajectory.id)["made"] == 1, "made once the store answers"


def test_a_text_file_named_png_is_refused_with_a_reason():
    trajectory = make_trajectory(1, png={1: b"this is not an image"})
    media.make_trajectory_derivatives(trajectory.id)
    step = trajectory.steps.get()
    assert "not a readable image" in step.media_error
    assert not step.display_image and not step.thumbnail


def test_task_for_a_deleted_trajectory_does_nothing():
    trajectory = make_trajectory(1)
    trajectory_id = trajectory.id
    trajectory.delete()
    assert make_derivatives(trajectory_id) is None


def test_request_inline_makes_derivatives_now(settings):
    settings.MYPCBENCH_DERIVATIVES = "inline"
    trajectory = make_trajectory(1, size=(160, 100))
    request_derivatives(trajectory.id)
    assert trajectory.steps.get().display_image


def test_request_off_makes_nothing(settings):
    settings.MYPCBENCH_DERIVATIVES = "off"
    trajectory = make_trajectory(1)
    request_derivatives(trajectory.id)
    assert not trajectory.steps.get().display_image


def test_request_with_an_unknown_mode_names_the_setting(settings):
    settings.MYPCBENCH_DERIVATIVES = "later"
    with pytest.raises(ValueError, match="MYPCBENCH_DERIVATIVES"):
        request_derivatives(1)


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_command_backfills_one_run_and_reports(capsys):
    wanted = make_trajectory(2, slug="wanted")
    other = make_trajectory(1, slug="other")

    call_command("make_derivatives", "--run", "wanted")
    out = capsys.readouterr().out
    assert "2 made, 0 already present, 0 failed (of 2 steps" in out
    assert all(s.display_image and s.thumbnail for s in wanted.steps.all())
    assert not other.steps.get().display_image

    call_command("make_derivatives")
    assert "1 made, 2 already present" in capsys.readouterr().out

    call_command("make_derivatives", "--run", "wanted", "--force")
    assert "2 made, 0 already present" in capsys.readouterr().out


def test_command_reports_failures_on_stderr(capsys):
    make_trajectory(2, png={1: b"garbage"}, size=(160, 100))
    call_command("make_derivatives")
    captured = capsys.readouterr()
    assert "1 made, 0 already present, 1 failed" in captured.out
    assert "step 1" in captured.err and "not a readable image" in captured.err


def test_command_unknown_run_is_an_error():
    make_trajectory(1, slug="known-run")
    with pytest.raises(CommandError, match="no run with that slug.*known-run"):
        call_command("make_derivatives", "--run", "nope")
