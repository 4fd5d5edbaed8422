"""Screenshot derivatives: a display-size WebP and a thumbnail per step, content-addressed under
derivatives/, so the player ships a fraction of the PNG bytes while originals stay for the judge."""

import hashlib
import io
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image, UnidentifiedImageError

from .models import Step, Trajectory

logger = logging.getLogger(__name__)

DISPLAY_MAX_WIDTH = 1280
THUMBNAIL_WIDTH = 240
DISPLAY_QUALITY = 80
THUMBNAIL_QUALITY = 70

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


def encode_webp(image: Image.Image, max_width: int, quality: int) -> bytes:
    """``image`` scaled down (never up) to at most ``max_width`` pixels wide, as WebP bytes."""
    if image.mode not in ("RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB")
    if image.width > max_width:
        height = max(1, round(image.height * max_width / image.width))
        image = image.resize((max_width, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="WEBP", quality=quality, method=4)
    return out.getvalue()


def store_content_addressed(data: bytes) -> str:
    """Save ``data`` as derivatives/<h[:2]>/<sha256>.webp unless already there; return the storage name.

    Identical bytes map to one file, so reruns and duplicate screenshots never add files."""
    digest = hashlib.sha256(data).hexdigest()
    name = f"derivatives/{digest[:2]}/{digest}.webp"
    if default_storage.exists(name):
        return name
    return default_storage.save(name, ContentFile(data))


def _has_derivatives(step: Step) -> bool:
    return bool(step.display_image and step.thumbnail)


def _load_original(step: Step) -> Image.Image:
    """The step's screenshot fully decoded; raises ValueError with a readable reason."""
    try:
        with step.screenshot.open("rb") as fh:
            data = fh.read()
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


def make_step_derivatives(step: Step, *, force: bool = False) -> str:
    """Make both derivatives for one step and save the row; returns MADE, SKIPPED, FAILED or
    NO_SCREENSHOT. A bad original is recorded in ``step.media_error``, never raised."""
    if not step.screenshot:
        return NO_SCREENSHOT
    if _has_derivatives(step) and not force:
        return SKIPPED
    try:
        image = _load_original(step)
        display = encode_webp(image, DISPLAY_MAX_WIDTH, DISPLAY_QUALITY)
        thumbnail = encode_webp(image, THUMBNAIL_WIDTH, THUMBNAIL_QUALITY)
    except ValueError as exc:
        step.media_error = str(exc)[:300]
        step.save(update_fields=["media_error"])
        logger.warning("derivatives for %s: %s", step, step.media_error)
        return FAILED
    # Files first, row second: a worker killed in between leaves at most a file that the next
    # pass reuses by name, never a row pointing at nothing.
    step.display_image.name = store_content_addressed(display)
    step.thumbnail.name = store_content_addressed(thumbnail)
    step.media_error = ""
    step.save(update_fields=["display_image", "thumbnail", "media_error"])
    return MADE


def make_steps_derivatives(
    steps: Iterable[Step], *, force: bool = False, progress: Callable[[Step, str], None] | None = None
) -> DerivativeSummary:
    """Derivatives for each step in turn; each step is saved on its own so work survives a crash."""
    summary = DerivativeSummary()
    for step in steps:
        outcome = make_step_derivatives(step, force=force)
        summary.add(outcome, step)
        if progress is not None:
            progress(step, outcome)
    return summary


def steps_needing_work(trajectories, *, force: bool = False):
    """Steps with a screenshot under ``trajectories`` (a queryset), minus finished ones unless forced."""
    steps = Step.objects.filter(trajectory__in=trajectories).exclude(screenshot="")
    if not force:
        steps = steps.filter(display_image="") | steps.filter(thumbnail="")
    return steps.select_related("trajectory__run", "trajectory__task").order_by("trajectory_id", "index")


def make_trajectory_derivatives(trajectory_id: int, *, force: bool = False) -> DerivativeSummary | None:
    """Derivatives for every step of one trajectory; None when the trajectory no longer exists."""
    trajectories = Trajectory.objects.filter(pk=trajectory_id)
    if not trajectories.exists():
        return None
    return make_steps_derivatives(steps_needing_work(trajectories, force=force).iterator(), force=force)
