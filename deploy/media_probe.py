"""The media path of the topology check (deploy/topology.py --check), run from a process of its own:

python deploy/media_probe.py store   # a published and a draft run, one screenshot each, into the
                                     # bucket; derivatives asked of the media queue; prints JSON
python deploy/media_probe.py wait ID # waits until the media worker made the trajectory's
                                     # derivatives; prints the display image's storage name
python deploy/media_probe.py clean   # deletes the probe's runs, their files, suite and model
"""

import io
import json
import os
import sys
import time
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")
django.setup()

from django.core.files.base import ContentFile  # noqa: E402 - after django.setup()
from django.utils.crypto import get_random_string  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from leaderboard.models import BehaviouralType, Model, Run, Suite, Task, TypeSource  # noqa: E402
from trajectories import queue  # noqa: E402
from trajectories.models import Step, Trajectory  # noqa: E402


def picture(seed: str) -> bytes:
    image = Image.new("RGB", (800, 500), (236, 238, 242))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 800, 40), fill=(40, 44, 52))
    draw.text((40, 80), f"topology probe {seed}", fill=(20, 20, 20))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def trajectory(publication: str, tag: str) -> Trajectory:
    suite, _ = Suite.objects.get_or_create(name="Topology probe", version="p1", defaults={"slug": "topology-probe"})
    task, _ = Task.objects.get_or_create(
        suite=suite,
        task_id="probe-t001",
        defaults={
            "category": "retrieval",
            "behavioural_type": BehaviouralType.PERSONAL_LOOKUP,
            "type_source": TypeSource.FILE,
            "instruction": "Nothing: a probe of the media path.",
            "content_hash": "0" * 64,
        },
    )
    model, _ = Model.objects.get_or_create(name="Topology probe agent", defaults={"slug": "topology-probe-agent"})
    slug = f"topology-probe-{publication}-{tag}"
    run = Run.objects.create(
        name=slug, slug=slug, suite=suite, model=model, provenance=Run.Provenance.IMPORTED, publication=publication
    )
    trajectory = Trajectory.objects.create(run=run, task=task, n_steps=1, n_turns=1)
    step = Step(trajectory=trajectory, index=1, turn=1, action_text="pyautogui.click(10, 10)")
    step.screenshot.save(f"probe-{tag}.png", ContentFile(picture(f"{publication} {tag}")), save=False)
    step.save()
    return trajectory


def clean() -> int:
    """Remove every "topology-probe" run the check made, with its files in the store, then the probe's
    suite and model; prints how many runs went."""
    runs = Run.objects.filter(slug__startswith="topology-probe-")
    for step in Step.objects.filter(trajectory__run__in=runs):
        for stored in (step.screenshot, step.display_image, step.thumbnail):
            if stored:
                stored.storage.delete(stored.name)
    count = runs.count()
    for run in runs:
        run.delete()
    Suite.objects.filter(slug="topology-probe", runs__isnull=True).delete()
    Model.objects.filter(slug="topology-probe-agent", runs__isnull=True).delete()
    print(f"removed {count} probe runs")
    return 0


def main() -> int:
    if sys.argv[1] == "clean":
        return clean()
    if sys.argv[1] == "store":
        tag = get_random_string(8).lower()
        published = trajectory(Run.Publication.PUBLISHED, tag)
        draft = trajectory(Run.Publication.DRAFT, tag)
        queue.enqueue("trajectories.tasks.make_derivatives", published.pk)
        print(
            json.dumps(
                {
                    "trajectory": published.pk,
                    "published_screenshot": published.steps.get().screenshot.name,
                    "draft_screenshot": draft.steps.get().screenshot.name,
                }
            )
        )
        return 0
    step = Step.objects.get(trajectory_id=int(sys.argv[2]), index=1)
    deadline = time.monotonic() + 90
    while not step.display_image and time.monotonic() < deadline:
        time.sleep(0.5)
        step.refresh_from_db()
    if not step.display_image:
        print(f"no derivatives after 90 s (media_error: {step.media_error!r})", file=sys.stderr)
        return 1
    print(step.display_image.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
