"""The demo's session runs: load_demo imports the proactive and the reactive scripted agents' recordings
of Michael's sessions (seeding/demo_sessions) as published runs of the session suite, once; their run
pages show the Proactivity/Completeness gap, and a session's player shows the intents panel."""

import io

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse

from leaderboard.management.commands import load_demo
from leaderboard.models import Model, Run
from leaderboard.scoring.session_runs import run_sessions
from tests.html_text import visible_text
from trajectories.models import IntentStatus, Trajectory, UserTurn


@pytest.mark.slow
@pytest.mark.django_db
def test_load_demo_adds_the_two_session_runs_once_with_their_gap(client, monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)
    cache.clear()
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    counts = (Trajectory.objects.count(), UserTurn.objects.count(), IntentStatus.objects.count())
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    assert (Trajectory.objects.count(), UserTurn.objects.count(), IntentStatus.objects.count()) == counts

    proactive, reactive = (Run.objects.get(name=d.run_name) for d in load_demo.DEMO_SESSION_RUNS)
    for run in (proactive, reactive):
        assert run.publication == Run.Publication.PUBLISHED and run.model.provider == Model.Provider.SCRIPTED
        assert run.suite.version == "michael-v1" and run.trajectories.count() == 33
        assert "not by a judge" in run.notes
    p, r = run_sessions(proactive).summary, run_sessions(reactive).summary
    assert p.proactivity.value > 0.9 and r.proactivity.value == 0
    assert p.completeness.value == r.completeness.value == 1.0

    text = visible_text(client.get(reverse("leaderboard:run_detail", args=[reactive.slug])))
    assert "Proactivity % 0.0" in text and "Completeness % 100.0" in text
    assert "User played by rules (prompt mypc-user-rules-1)" in text
    ride = reactive.trajectories.get(task__task_id="session_dundies-s01")
    player = visible_text(client.get(reverse("trajectories:trajectory_player", args=[ride.pk])))
    assert "Hidden intents" in player and "Provided" in player
