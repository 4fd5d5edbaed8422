"""Pages that explain rather than list: the methodology (what every number means) and the
submission guide (how to take part, with a sample archive built from the demo's own results). The
search page is the catalog's (leaderboard/catalog/search.py)."""

import io
import json
import zipfile
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.shortcuts import render

from leaderboard.catalog.badges import BADGE_HELP
from leaderboard.models import Suite
from trajectories.recording import contamination

DEMO_RESULTS_DIR = Path(settings.BASE_DIR) / "seeding" / "demo_results"  # what load_demo imports
SAMPLE_TASK = "demo-d002"  # the smallest demo task folder: a few screenshots and a traj.jsonl


def methodology(request):
    try:
        patterns = [(p.name, contamination.KINDS[p.kind]) for p in contamination.configured_patterns()]
        patterns_error = ""
    except ImproperlyConfigured as exc:  # also refused by manage.py check; the page still answers
        patterns, patterns_error = [], str(exc)
    return render(
        request,
        "leaderboard/methodology.html",
        {
            "badges": BADGE_HELP,
            "contamination_patterns": patterns,
            "contamination_patterns_error": patterns_error,
            "rubric_run_words": contamination.RUBRIC_RUN_WORDS,
        },
    )


def _sample_meta(suite: Suite | None) -> dict:
    return {
        "suite": suite.slug if suite else "mypcbench-demo-demo-1",
        "model": "My model",
        "agent": "my-agent",
        "tool_surface": "computer+bash",
        "turn_budget": 100,
        "harness_version": "",
        "image_version": "",
        "notes": "What you ran and how.",
        "links": ["https://example.org/my-model"],
    }


def _demo_suite() -> Suite | None:
    return Suite.objects.filter(is_demo=True).order_by("-version").first()


def submission_guide(request):
    meta = json.dumps(_sample_meta(_demo_suite()), indent=2)
    return render(request, "leaderboard/submission_guide.html", {"sample_meta": meta, "sample_task": SAMPLE_TASK})


def sample_archive(request):
    """A .zip a visitor can upload as is to the demo suite: one task folder of the demo results and
    the meta.json that goes with it, built on request (a few hundred kB)."""
    folder = DEMO_RESULTS_DIR / SAMPLE_TASK
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                z.write(path, f"{SAMPLE_TASK}/{path.name}")
        z.writestr("meta.json", json.dumps(_sample_meta(_demo_suite()), indent=2) + "\n")
    response = HttpResponse(buf.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="mypcbench-sample-submission.zip"'
    return response
