"""The demo shows the contamination scan: the hasty demo run's first turn of demo-d001 names the
benchmark's repository, so after ``load_demo`` its run page flags that step with a link into the player
and the leaderboard's download counts one hit for it (and for the run whose tries replay it) and none for the
careful run."""

import csv
import io

import pytest
from django.core.cache import cache
from django.core.management import call_command

from leaderboard.models import Run, Suite
from tests.html_text import visible_text
from trajectories.models import Trajectory


@pytest.mark.django_db
@pytest.mark.slow
def test_the_demo_run_page_flags_the_step_that_names_the_repository(client, monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)
    cache.clear()
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    careful, hasty = (Run.objects.get(name=n) for n in ("Scripted demo agent", "Scripted demo agent (hasty plan)"))
    flagged = Trajectory.objects.get(run=hasty, task__task_id="demo-d001")

    page = client.get(f"/runs/{hasty.slug}/")
    assert f'href="/trajectories/{flagged.pk}/play/?step=1"' in page.content.decode()
    text = visible_text(page)
    assert "Contamination flags 1 hit" in text
    assert "demo-d001, step 1 : model text reaches the benchmark's repository" in text
    assert "Contamination flags" not in visible_text(client.get(f"/runs/{careful.slug}/"))

    suite = Suite.objects.get(name="MyPCBench demo", version="demo-1")
    exported = csv.DictReader(io.StringIO(client.get(f"/leaderboard/?suite={suite.slug}&format=csv").content.decode()))
    hits = {row["run"]: row["contamination_hits"] for row in exported if row["kind"] == "graded"}
    # the four-tries run replays the hasty recording of demo-d001 among its tries, so it carries the hit too
    mixed = Run.objects.get(name="Scripted demo agent (four tries, mixed plans)")
    assert hits == {careful.slug: "0", hasty.slug: "1", mixed.slug: "1"}
