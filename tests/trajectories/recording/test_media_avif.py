"""AVIF display derivatives: the quality search against the SSIM floor, AVIF beside the WebP for
each step, existing steps converted by make_derivatives (resumably), and identical screenshots
encoded, stored and sent once."""

import io
from itertools import pairwise

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from tests.services.factories import make_trajectory
from tests.trajectories.recording.test_media import photo_png, shown_ssim, ui_png
from trajectories.models import Step
from trajectories.player import payloads
from trajectories.recording import media


def read(name: str) -> bytes:
    with default_storage.open(name, "rb") as fh:
        return fh.read()


@pytest.mark.parametrize("count", [1, 2, 5, 14])
def test_the_search_finds_the_lowest_passing_rung_from_anywhere(count):
    # Every threshold (the first passing rung, or none), searched without a start and from each start,
    # gives what trying every rung in order gives.
    for first_passing in range(count + 1):
        expected = min(first_passing, count - 1)
        for start in [None, *range(count)]:
            tried = []

            def passes(rung, first_passing=first_passing, tried=tried):
                tried.append(rung)
                return rung >= first_passing

            assert media.lowest_passing_rung(passes, count, start) == expected, (first_passing, start)
            assert len(tried) == len(set(tried)), "no rung is encoded twice"


def test_from_the_right_start_the_search_takes_two_encodes():
    tried = []
    assert media.lowest_passing_rung(lambda r: tried.append(r) or r >= 4, 14, 4) == 4
    assert tried == [4, 3]


@pytest.mark.slow  # encodes two 1280x800 screenshots at several qualities
def test_avif_keeps_the_ssim_floor_with_fewer_bytes_than_the_webp():
    for png in (ui_png(), photo_png()):
        image = Image.open(io.BytesIO(png))
        avif, quality, score = media.encode_display_avif(image)
        webp, _, _ = media.encode_display(image)
        with Image.open(io.BytesIO(avif)) as decoded:
            assert decoded.format == "AVIF" and decoded.size == (1024, 640)
        # Measured again here, apart from the search's own check.
        assert shown_ssim(png, avif) >= media.DISPLAY_MIN_SSIM >= 0.97
        assert score == pytest.approx(shown_ssim(png, avif), abs=1e-9)
        assert len(avif) < len(webp)
        # The rung below would have fallen under the floor (the search stops at the lowest that holds).
        rung = media.AVIF_QUALITIES.index(quality)
        if rung:
            cheaper = media.encode_avif(image, media.DISPLAY_MAX_WIDTH, media.AVIF_QUALITIES[rung - 1])
            assert shown_ssim(png, cheaper) < media.DISPLAY_MIN_SSIM


def test_rungs_rise():
    assert all(a < b for a, b in pairwise(media.AVIF_QUALITIES))


@pytest.mark.slow  # a full set of derivatives, AVIF search included
@pytest.mark.django_db
def test_each_step_gets_an_avif_beside_its_webp_content_addressed(isolated_media):
    trajectory = make_trajectory(1, size=(640, 400))
    assert media.make_trajectory_derivatives(trajectory.id).made == 1
    step = trajectory.steps.get()
    name = step.display_avif.name
    assert name.startswith("derivatives/") and name.endswith(".avif")
    with Image.open(io.BytesIO(read(name))) as image:
        assert image.format == "AVIF" and image.size == (640, 400)
    assert step.display_image.name.endswith(".webp") and step.thumbnail.name.endswith(".webp")


@pytest.mark.slow  # three full sets of derivatives, then two AVIFs
@pytest.mark.django_db
def test_make_derivatives_converts_steps_made_before_avif_and_resumes(capsys):
    trajectory = make_trajectory(3, size=(640, 400))
    media.make_trajectory_derivatives(trajectory.id)
    webps = dict(trajectory.steps.values_list("index", "display_image"))
    thumbs = dict(trajectory.steps.values_list("index", "thumbnail"))
    # As the site had them before: WebP and thumbnail, no AVIF. One step was converted already
    # (an earlier run of the command, stopped part way).
    Step.objects.filter(trajectory=trajectory, index__gt=1).update(display_avif="")

    call_command("make_derivatives")
    assert "2 made, 1 already present, 0 failed (of 3 steps" in capsys.readouterr().out
    steps = list(trajectory.steps.order_by("index"))
    assert all(s.display_avif.name.endswith(".avif") for s in steps)
    # The WebP files stay as they were: only the AVIF was made.
    assert {s.index: s.display_image.name for s in steps} == webps
    assert {s.index: s.thumbnail.name for s in steps} == thumbs

    call_command("make_derivatives")
    assert "0 made, 3 already present" in capsys.readouterr().out


def png_variant(image: Image.Image, level: int, note: str) -> bytes:
    out = io.BytesIO()
    info = PngInfo()
    info.add_text("Comment", note)
    image.save(out, format="PNG", compress_level=level, pnginfo=info)
    return out.getvalue()


@pytest.mark.django_db
def test_identical_screenshots_are_encoded_stored_and_sent_once(isolated_media, monkeypatch):
    # An agent that waits sees the same screen again: steps 2 and 3 have step 1's pixels, in PNG files
    # whose bytes differ (another compression level, another note), step 4 is byte-identical to 1.
    picture = Image.new("RGB", (640, 400), (240, 240, 244))
    picture.paste((30, 90, 200), (40, 40, 300, 120))
    first = png_variant(picture, 6, "step 1")
    other = Image.new("RGB", (640, 400), (20, 20, 20))
    pngs = {1: first, 2: png_variant(picture, 1, "step 2"), 3: png_variant(picture, 9, "step 3"), 4: first}
    pngs[5] = png_variant(other, 6, "step 5")
    trajectory = make_trajectory(5, png=pngs, size=(640, 400))
    encoded = []
    real = media.encode_display_avif
    monkeypatch.setattr(media, "encode_display_avif", lambda *a, **k: encoded.append(1) or real(*a, **k))

    assert media.make_trajectory_derivatives(trajectory.id).made == 5
    assert len(encoded) == 2, "one AVIF encode per distinct picture"
    steps = list(trajectory.steps.order_by("index"))
    assert (
        len({s.display_avif.name for s in steps[:4]}) == 1 and steps[4].display_avif.name != steps[0].display_avif.name
    )
    assert len({s.display_image.name for s in steps[:4]}) == 1
    assert len(list((isolated_media / "derivatives").rglob("*.avif"))) == 2
    # The player gets one URL for the four steps: the browser fetches the picture once.
    shown = payloads.step_payloads(steps)
    assert len({s["image_avif"] for s in shown[:4]}) == 1 and len({s["image"] for s in shown[:4]}) == 1
