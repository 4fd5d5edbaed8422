"""``manage.py load_demo``: load what the demo site shows (reported figures, the demo suite, the scripted demo
run) and optionally a staff account; safe to run again, a second run changes nothing."""

import os
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from leaderboard.models import Model, Run, Suite

SEEDING = Path(settings.BASE_DIR) / "seeding"
DEMO_SUITE_FILE = SEEDING / "demo_suite.json"
DEMO_RESULTS_DIR = SEEDING / "demo_results"
DEMO_SUITE_NAME = "MyPCBench demo"
DEMO_SUITE_VERSION = "demo-1"
DEMO_RUN_NAME = "Scripted demo agent"
DEMO_MODEL_NAME = "Scripted demo agent"
DEMO_RUN_NOTES = (
    "Recorded by seeding/record_demo.py: a fixed script (no model) clicking through static demo pages served "
    "locally. Its rubric verdicts were written with the script, not by an LLM judge. For showing the site only."
)


def load_demo(stdout=None, verbosity=1):
    """Load the demo data; returns the demo run. Each step is itself idempotent, so this is too."""
    quiet = {"verbosity": verbosity, "stdout": stdout} if stdout is not None else {"verbosity": verbosity}
    for path in (DEMO_SUITE_FILE, DEMO_RESULTS_DIR):
        if not path.exists():
            raise CommandError(f"{path}: not found (expected the demo content shipped in seeding/)")

    call_command("load_reported", **quiet)
    call_command(
        "import_tasks",
        str(DEMO_SUITE_FILE),
        "--suite",
        DEMO_SUITE_NAME,
        "--suite-version",
        DEMO_SUITE_VERSION,
        "--demo",
        **quiet,
    )
    suite = Suite.objects.get(name=DEMO_SUITE_NAME, version=DEMO_SUITE_VERSION)
    if not suite.is_demo:
        suite.is_demo = True
        suite.save(update_fields=["is_demo", "updated_at"])

    # Created before the import so that import_results reuses it instead of guessing a provider from the name.
    model, _ = Model.objects.get_or_create(
        name=DEMO_MODEL_NAME,
        defaults={"slug": "scripted-demo-agent", "provider": Model.Provider.SCRIPTED, "family": "scripted demo"},
    )
    if model.provider != Model.Provider.SCRIPTED:
        model.provider = Model.Provider.SCRIPTED
        model.save(update_fields=["provider"])

    if not Run.objects.filter(name=DEMO_RUN_NAME).exists():
        call_command(
            "import_results",
            str(DEMO_RESULTS_DIR),
            "--run",
            DEMO_RUN_NAME,
            "--model",
            DEMO_MODEL_NAME,
            "--suite",
            suite.slug,
            "--publish",
            **quiet,
        )
    run = Run.objects.get(name=DEMO_RUN_NAME)
    wanted = {
        "agent_type": "scripted-demo",
        "tool_surface": Run.ToolSurface.SCRIPTED,
        "notes": DEMO_RUN_NOTES,
    }
    changed = [k for k, v in wanted.items() if getattr(run, k) != v]
    if changed:
        for k in changed:
            setattr(run, k, wanted[k])
        run.save(update_fields=changed)

    _ensure_staff_user(stdout)
    return run


def _ensure_staff_user(stdout):
    """Create a superuser from DJANGO_SUPERUSER_USERNAME / _PASSWORD when both are set and it does not exist yet.

    An existing account is left alone, so re-running never resets a password someone changed.
    """
    username = os.environ.get("DJANGO_SUPERUSER_USERNAME", "").strip()
    password = os.environ.get("DJANGO_SUPERUSER_PASSWORD", "")
    if not username or not password:
        return None
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        with transaction.atomic():
            user = User.objects.create_superuser(
                username=username, email=os.environ.get("DJANGO_SUPERUSER_EMAIL", ""), password=password
            )
        if stdout is not None:
            stdout.write(f"Created staff account {username!r}.")
    return user


class Command(BaseCommand):
    help = (
        "Load the demo: the reported MyPCBench figures, the demo suite (seeding/demo_suite.json) and the "
        "scripted demo run (seeding/demo_results), published. Creates a superuser from "
        "DJANGO_SUPERUSER_USERNAME / DJANGO_SUPERUSER_PASSWORD when both are set. Running it again changes nothing."
    )

    def handle(self, *args, **options):
        run = load_demo(stdout=self.stdout, verbosity=options["verbosity"])
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo ready: suite {run.suite.slug}, run {run.slug} with {run.trajectories.count()} trajectories."
            )
        )
