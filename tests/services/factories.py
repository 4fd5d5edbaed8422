"""Builders for trajectories with real PNG screenshots, shared by the media and worker tests."""

import io
import random

from django.core.files.base import ContentFile
from PIL import Image, ImageDraw

from leaderboard.models import BehaviouralType, Model, Run, Suite, Task, TypeSource
from trajectories.models import Step, Trajectory


def screenshot_png(width: int = 1920, height: int = 1080, seed: int = 0) -> bytes:
    """A desktop-like PNG: window chrome, text-ish bars and a photo-like noisy panel, so the
    compression ratios resemble real screenshots rather than flat colour."""
    rng = random.Random(seed)
    image = Image.new("RGB", (width, height), (236, 238, 242))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 40), fill=(40, 44, 52))
    for row in range(60, height - 40, 22):
        left = rng.randint(20, 80)
        draw.rectangle((left, row, left + rng.randint(200, width // 2), row + 10), fill=(90, 90, 110))
        draw.text((width // 2 + 40, row), f"Dunder Mifflin row {row} {rng.random():.6f}", fill=(20, 20, 20))
    panel = Image.effect_noise((width // 4, height // 3), 40).convert("RGB")
    image.paste(panel, (width - width // 4 - 20, 60))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def make_trajectory(n_steps: int = 3, *, slug: str = "demo-run", png=None, size=(1920, 1080)) -> Trajectory:
    """A run with one task and one trajectory whose steps carry real PNG screenshots.

    ``png`` maps a step index to the bytes to store instead (e.g. a corrupt file)."""
    png = png or {}
    suite, _ = Suite.objects.get_or_create(name="Media test suite", version="t1", defaults={"slug": "media-test-t1"})
    task, _ = Task.objects.get_or_create(
        suite=suite,
        task_id="media-t001",
        defaults={
            "category": "retrieval",
            "behavioural_type": BehaviouralType.PERSONAL_LOOKUP,
            "type_source": TypeSource.FILE,
            "instruction": "Find Michael's dentist appointment.",
            "content_hash": "0" * 64,
        },
    )
    model, _ = Model.objects.get_or_create(name="Scripted demo agent", defaults={"slug": "scripted-demo-agent"})
    run = Run.objects.create(name=slug, slug=slug, suite=suite, model=model, provenance=Run.Provenance.IMPORTED)
    trajectory = Trajectory.objects.create(run=run, task=task, n_steps=n_steps, n_turns=n_steps)
    for index in range(1, n_steps + 1):
        step = Step(trajectory=trajectory, index=index, turn=index, action_text="pyautogui.click(10, 10)")
        data = png.get(index)
        if data is None:
            data = screenshot_png(*size, seed=index)
        step.screenshot.save(f"step_{index}.png", ContentFile(data), save=False)
        step.save()
    return trajectory
