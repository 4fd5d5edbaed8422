"""Screenshot derivatives: a display-size AVIF and WebP and a WebP thumbnail per step, content-addressed
under derivatives/, so the player ships a fraction of the PNG bytes while originals stay for the judge."""

import hashlib
import io
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image, UnidentifiedImageError

from mypcbench_site.outages import STORAGE_UNAVAILABLE
from trajectories.models import Step, Trajectory

logger = logging.getLogger(__name__)

# Chosen with bench/bench_player.py on real rendered screens (bench/README.md): the stage shows
# about 1000 CSS px on a laptop, so 1024 wide is near 1:1 there; the original is one click away.
DISPLAY_MAX_WIDTH = 1024
# Per screenshot, the lowest quality whose picture still matches the original (SSIM at display
# size, greyscale, 7x7 windows) to DISPLAY_MIN_SSIM: flat UI passes at the first rung, photos and
# wallpapers climb; close rungs keep each picture near the floor rather than far above it. The
# floor is the 0.97 (libwebp decodes deterministically, so no margin is needed).
DISPLAY_QUALITIES = (40, 50, 60, 70, 78, 85, 90, 95)
DISPLAY_MIN_SSIM = 0.97
# Filmstrip slots are 120 CSS px wide; 160 px keeps them crisp up to 1.33x device pixels.
THUMBNAIL_WIDTH = 160
THUMBNAIL_QUALITY = 60
WEBP_METHOD = 4
# The AVIF display picture meets the same floor at the lowest of these qualities (found by bisection:
# about four encodes instead of fourteen). Close rungs low down, where UI screens land (q28-40 on
# bench/bench_player.py's sets); wide ones above, for photos. Speed 6 is libavif's default: speed 5
# saved 13% more bytes at four times the time, speed 7 cost 14% more bytes for 20% less time.
AVIF_QUALITIES = (20, 24, 28, 31, 34, 37, 40, 44, 48, 55, 62, 70, 80, 90)
AVIF_SPEED = 6

MADE = "made"
SKIPPED = "skipped"
FAILED = "failed"
NO_SCREENSHOT = "no_screenshot"


@dataclass
class DerivativeSummary:
    """What one pass over some steps did; counts are per step."""

    made: int = 0
    skipped: int = 0
    failed: int = 0
    no_screenshot: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, outcome: str, step: Step) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)
        if outcome == FAILED:
            self.errors.append(f"{step}: {step.media_error}")

    def as_dict(self) -> dict:
        return {
            "made": self.made,
            "skipped": self.skipped,
            "failed": self.failed,
            "no_screenshot": self.no_screenshot,
            "errors": self.errors,
        }


def _rgb_or_rgba(image: Image.Image) -> Image.Image:
    if image.mode in ("RGB", "RGBA"):
        return image
    return image.convert("RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB")


def scale_to_width(image: Image.Image, max_width: int) -> Image.Image:
    """``image`` scaled down (never up) to at most ``max_width`` pixels wide."""
    image = _rgb_or_rgba(image)
    if image.width > max_width:
        height = max(1, round(image.height * max_width / image.width))
        image = image.resize((max_width, height), Image.Resampling.LANCZOS)
    return image


def _webp(image: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    image.save(out, format="WEBP", quality=quality, method=WEBP_METHOD)
    return out.getvalue()


def encode_webp(image: Image.Image, max_width: int, quality: int) -> bytes:
    """``image`` scaled down (never up) to at most ``max_width`` pixels wide, as WebP bytes."""
    return _webp(scale_to_width(image, max_width), quality)


def _avif(image: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    image.save(out, format="AVIF", quality=quality, speed=AVIF_SPEED)
    return out.getvalue()


def encode_avif(image: Image.Image, max_width: int, quality: int) -> bytes:
    """``image`` scaled down (never up) to at most ``max_width`` pixels wide, as AVIF bytes."""
    return _avif(scale_to_width(image, max_width), quality)


def _box_mean(a: np.ndarray, k: int = 7) -> np.ndarray:
    c = np.cumsum(np.cumsum(np.pad(a, ((1, 0), (1, 0))), axis=0), axis=1)
    return (c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]) / (k * k)


def ssim(x: np.ndarray, y: np.ndarray) -> float:
    """Mean structural similarity of two same-size greyscale pictures (0..255): 7x7 uniform
    windows, sample covariance, the usual constants (Wang et al. 2004)."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    n = 49
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = _box_mean(x), _box_mean(y)
    cov = n / (n - 1)
    vx = cov * (_box_mean(x * x) - mx * mx)
    vy = cov * (_box_mean(y * y) - my * my)
    vxy = cov * (_box_mean(x * y) - mx * my)
    s = ((2 * mx * my + c1) * (2 * vxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
    return float(s.mean())


def grey(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("L"))


def encode_display(image: Image.Image) -> tuple[bytes, int, float]:
    """The display derivative: ``image`` at display width as WebP at the lowest quality in
    DISPLAY_QUALITIES that keeps SSIM >= DISPLAY_MIN_SSIM against the original scaled to the same
    size (the highest rung when none does). Returns (bytes, quality, ssim)."""
    scaled = scale_to_width(image, DISPLAY_MAX_WIDTH)
    reference = grey(scaled)
    if min(reference.shape) < 7:  # too small for a window: keep it near-lossless
        return _webp(scaled, DISPLAY_QUALITIES[-1]), DISPLAY_QUALITIES[-1], 1.0
    for quality in DISPLAY_QUALITIES:
        data = _webp(scaled, quality)
        with Image.open(io.BytesIO(data)) as decoded:
            score = ssim(reference, grey(decoded))
        if score >= DISPLAY_MIN_SSIM:
            break
    return data, quality, score


def lowest_passing_rung(passes: Callable[[int], bool], count: int, start: int | None) -> int:
    """The lowest of ``count`` rungs that ``passes`` (the top one when none does), assuming a rung
    that passes has only passing rungs above it. Without ``start``, by bisection; from ``start`` (the
    rung the previous screenshot needed: screens of one trajectory look alike), by walking down
    while it passes or up until it does, usually two encodes."""
    if start is None:
        low, high, best = 0, count - 1, count - 1
        while low <= high:
            middle = (low + high) // 2
            if passes(middle):
                best, high = middle, middle - 1
            else:
                low = middle + 1
        return best
    start = max(0, min(start, count - 1))
    if passes(start):
        while start > 0 and passes(start - 1):
            start -= 1
        return start
    while start < count - 1:
        start += 1
        if passes(start):
            break
    return start


def encode_display_avif(image: Image.Image, start: int | None = None) -> tuple[bytes, int, float]:
    """The AVIF display derivative: ``image`` at display width at the lowest quality in
    AVIF_QUALITIES that keeps SSIM >= DISPLAY_MIN_SSIM against the original scaled to the same size
    (the highest rung when none does); ``start`` is the rung to try first (lowest_passing_rung). AV1
    decoding is exactly specified, so the score measured on Pillow's decode is the browser's.
    Returns (bytes, quality, ssim)."""
    scaled = scale_to_width(image, DISPLAY_MAX_WIDTH)
    reference = grey(scaled)
    if min(reference.shape) < 7:  # too small for a window: keep it near-lossless
        return _avif(scaled, AVIF_QUALITIES[-1]), AVIF_QUALITIES[-1], 1.0
    tried: dict[int, tuple[bytes, float]] = {}

    def attempt(position: int) -> bool:
        data = _avif(scaled, AVIF_QUALITIES[position])
        with Image.open(io.BytesIO(data)) as decoded:
            tried[position] = (data, ssim(reference, grey(decoded)))
        return tried[position][1] >= DISPLAY_MIN_SSIM

    best = lowest_passing_rung(attempt, len(AVIF_QUALITIES), start)
    if best not in tried:  # the top rung, reached without an encode when all below failed
        attempt(best)
    data, score = tried[best]
    return data, AVIF_QUALITIES[best], score


def store_content_addressed(data: bytes, extension: str = ".webp") -> str:
    """Save ``data`` as derivatives/<h[:2]>/<sha256><extension> unless already there; return the
    storage name.

    Identical bytes map to one file, so reruns and duplicate screenshots never add files."""
    digest = hashlib.sha256(data).hexdigest()
    name = f"derivatives/{digest[:2]}/{digest}{extension}"
    if default_storage.exists(name):
        return name
    return default_storage.save(name, ContentFile(data))


# The derivative fields, in the order a pass records them (PassMemory, twins).
DERIVATIVE_FIELDS = ("display_image", "thumbnail", "display_avif")
Derivatives = tuple[str, str, str]


@dataclass
class PassMemory:
    """What one pass over steps has learnt so far, for the steps after: derivative names by original
    name or by the decoded pixels' key, and the AVIF rung the last screenshot needed."""

    names: dict[str, Derivatives] = field(default_factory=dict)
    avif_rung: int | None = None


def _has_derivatives(step: Step) -> bool:
    return all(getattr(step, name) for name in DERIVATIVE_FIELDS)


def _load_original(step: Step) -> Image.Image:
    """The step's screenshot fully decoded; raises ValueError with a readable reason."""
    try:
        with step.screenshot.open("rb") as fh:
            data = fh.read()
    except STORAGE_UNAVAILABLE:
        raise  # the store is not answering: nothing wrong with the file, the task retries later
    except FileNotFoundError:
        raise ValueError(f"screenshot file is missing: {step.screenshot.name}")
    except OSError as exc:
        raise ValueError(f"screenshot file cannot be read: {step.screenshot.name} ({exc})")
    try:
        # verify() catches truncation/corruption that a lazy open would not; it consumes the
        # image, so the pixels are decoded from a second open.
        with Image.open(io.BytesIO(data)) as probe:
            probe.verify()
        image = Image.open(io.BytesIO(data))
        image.load()
    except Image.DecompressionBombError as exc:
        raise ValueError(f"screenshot is too large to decode safely: {step.screenshot.name} ({exc})")
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ValueError(f"screenshot is not a readable image: {step.screenshot.name} ({exc})")
    return image


def _twin_derivatives(step: Step, memory: PassMemory | None, force: bool) -> Derivatives | None:
    """Derivatives already made for the same stored original (screenshots are stored by content
    hash, so steps of any trajectory may share one): from this pass, or unless forced, any step."""
    if memory is not None and step.screenshot.name in memory.names:
        return memory.names[step.screenshot.name]
    if force:
        return None
    twins = Step.objects.filter(screenshot=step.screenshot.name, media_error="").exclude(pk=step.pk)
    for name in DERIVATIVE_FIELDS:
        twins = twins.exclude(**{name: ""})
    return cast(Derivatives | None, twins.values_list(*DERIVATIVE_FIELDS).first())


def _pixels_key(image: Image.Image) -> str:
    """A key for the decoded picture: originals whose bytes differ but whose pixels do not (another
    encoder, a timestamp in the metadata) get the same derivatives without encoding them again."""
    digest = hashlib.sha256(image.tobytes())
    digest.update(f"{image.mode} {image.size}".encode())
    return "pixels:" + digest.hexdigest()


def _save_derivatives(step: Step, names: Derivatives, memory: PassMemory | None) -> None:
    for field_name, name in zip(DERIVATIVE_FIELDS, names, strict=True):
        getattr(step, field_name).name = name
    step.media_error = ""
    step.save(update_fields=[*DERIVATIVE_FIELDS, "media_error"])
    if memory is not None:
        memory.names[cast(str, step.screenshot.name)] = names  # it has a screenshot


def _encode_missing(step: Step, image: Image.Image, force: bool, memory: PassMemory | None) -> Derivatives:
    """Encode and store the derivatives the step lacks (all when forced): a step made before AVIF
    existed keeps its WebP files and only gains the AVIF. Files first, row second: a worker killed in
    between leaves at most a file that the next pass reuses by name, never a row pointing at nothing."""
    display = step.display_image.name if step.display_image and not force else ""
    thumbnail = step.thumbnail.name if step.thumbnail and not force else ""
    avif = step.display_avif.name if step.display_avif and not force else ""
    if not display:
        display = store_content_addressed(encode_display(image)[0])
    if not thumbnail:
        thumbnail = store_content_addressed(encode_webp(image, THUMBNAIL_WIDTH, THUMBNAIL_QUALITY))
    if not avif:
        data, quality, _ = encode_display_avif(image, memory.avif_rung if memory is not None else None)
        if memory is not None:
            memory.avif_rung = AVIF_QUALITIES.index(quality)
        avif = store_content_addressed(data, ".avif")
    return display, thumbnail, avif


def make_step_derivatives(step: Step, *, force: bool = False, memory: PassMemory | None = None) -> str:
    """Make the step's derivatives and save the row; returns MADE, SKIPPED, FAILED or NO_SCREENSHOT.
    A bad original is recorded in ``step.media_error``, never raised. An original whose derivatives
    another step already has is not encoded again; ``memory`` collects what this call made, for the
    next steps of one pass."""
    if not step.screenshot:
        return NO_SCREENSHOT
    if _has_derivatives(step) and not force:
        return SKIPPED
    twin = _twin_derivatives(step, memory, force)
    if twin is not None:
        _save_derivatives(step, twin, memory)
        return MADE
    try:
        image = _load_original(step)
        pixels = _pixels_key(image)
        names = memory.names.get(pixels) if memory is not None else None
        if names is None:
            names = _encode_missing(step, image, force, memory)
    except ValueError as exc:
        step.media_error = str(exc)[:300]
        step.save(update_fields=["media_error"])
        logger.warning("derivatives for %s: %s", step, step.media_error)
        return FAILED
    _save_derivatives(step, names, memory)
    if memory is not None:
        memory.names[pixels] = names
    return MADE


def make_steps_derivatives(
    steps: Iterable[Step], *, force: bool = False, progress: Callable[[Step, str], None] | None = None
) -> DerivativeSummary:
    """Derivatives for each step in turn; each step is saved on its own so work survives a crash."""
    summary = DerivativeSummary()
    memory = PassMemory()
    for step in steps:
        outcome = make_step_derivatives(step, force=force, memory=memory)
        summary.add(outcome, step)
        if progress is not None:
            progress(step, outcome)
    return summary


def steps_needing_work(trajectories, *, force: bool = False):
    """Steps with a screenshot under ``trajectories`` (a queryset), minus finished ones unless forced."""
    steps = Step.objects.filter(trajectory__in=trajectories).exclude(screenshot="")
    if not force:
        steps = steps.filter(display_image="") | steps.filter(thumbnail="") | steps.filter(display_avif="")
    return steps.select_related("trajectory__run", "trajectory__task").order_by("trajectory_id", "index")


def make_trajectory_derivatives(trajectory_id: int, *, force: bool = False) -> DerivativeSummary | None:
    """Derivatives for every step of one trajectory; None when the trajectory no longer exists."""
    trajectories = Trajectory.objects.filter(pk=trajectory_id)
    if not trajectories.exists():
        return None
    return make_steps_derivatives(steps_needing_work(trajectories, force=force).iterator(), force=force)
