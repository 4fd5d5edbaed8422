"""The demo shows a real rubric erratum, stably: load_demo fixes demo-d004's weights (seeding/demo_errata.json)
after the demo runs were judged on the rubric as first written, records one erratum with its reason and
source, leaves the hasty run on the superseded rubric (the leaderboard flags its row, the other rows keep
their figures) and carries the other runs' verdicts over. Loading again, as every demo start does, changes
nothing and never swings the rubric back; the maintainers' one-click re-judge clears the flag."""

import io
import json
import re
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse

from leaderboard.management.commands import load_demo
from leaderboard.models import RubricErratum, RubricItem, Run, Suite
from trajectories.judging import rescoring
from trajectories.models import Judgment

ERRATA = json.loads((Path(__file__).resolve().parents[2] / "seeding" / "demo_errata.json").read_text())["errata"]

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def board_rows(client, suite) -> dict[str, str]:
    """{run slug: the text of its leaderboard row}."""
    cache.clear()
    html = client.get(f"/leaderboard/?suite={suite.slug}").content.decode()
    rows = re.findall(r'<tr data-run="([^"]+)"[^>]*>(.*?)</tr>', html, flags=re.S)
    return {slug: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)) for slug, body in rows}


def test_the_demo_erratum_is_recorded_once_flags_one_run_and_survives_restarts(client, django_user_model, monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    suite = Suite.objects.get(name=load_demo.DEMO_SUITE_NAME, version=load_demo.DEMO_SUITE_VERSION)
    careful, hasty, repeated = (
        Run.objects.get(name=n)
        for n in (load_demo.DEMO_RUN_NAME, load_demo.DEMO_HASTY_RUN_NAME, load_demo.DEMO_REPEATED_RUN_NAME)
    )
    before = board_rows(client, suite)

    call_command("load_demo", verbosity=0, stdout=io.StringIO())  # a restart of the demo
    (erratum,) = ERRATA
    rows = RubricErratum.objects.filter(task__suite=suite)
    assert sorted(rows.values_list("task__task_id", "version", "rubric_id", "change")) == [
        ("demo-d004", 2, "R4", "reweighted"),
        ("demo-d004", 2, "R5", "reweighted"),
    ]
    assert {(r.reason, r.source_url) for r in rows} == {(erratum["reason"], erratum["source"])}
    # the fix holds: version 2 is current with the fixed weights, nothing made a version 3
    current = RubricItem.objects.filter(task__suite=suite, task__task_id="demo-d004", is_current=True)
    assert {i.version for i in current} == {2}
    assert dict(current.values_list("rubric_id", "weight")) == {"R1": 0.2, "R2": 0.3, "R3": 0.15, "R4": 0.25, "R5": 0.1}
    assert board_rows(client, suite) == before

    # only the hasty run is judged on the superseded rubric, and its row says so
    on_superseded = Run.objects.filter(pk__in=rescoring.runs_on_superseded_rubrics())  # the admin's filter
    assert list(on_superseded.values_list("name", flat=True)) == [hasty.name]
    assert [bool(rescoring.superseded_plans(r)) for r in (careful, hasty, repeated)] == [False, True, False]
    assert "1 task judged on a superseded rubric" in before[hasty.slug]
    for run in (careful, repeated):
        assert "superseded" not in before[run.slug] and "current rubrics (revision 1)" in before[run.slug]
    # the other runs' verdicts were carried onto version 2, marked with the version they come from
    carried = Judgment.objects.filter(trajectory__run=careful, rubric_item__in=current)
    assert carried.count() == 5 and {j.signals["carried_from_version"] for j in carried} == {1}

    changelog = client.get(reverse("leaderboard:suite_changelog", args=[suite.slug])).content.decode()
    assert "demo-d004" in changelog and "2 reweighted" in changelog and "R5 (a total row of $404.90)" in changelog

    # the maintainers' one-click re-judge: the hasty run's five verdicts still hold and are carried
    staff = django_user_model.objects.create_user("pam", password="pw", is_staff=True, is_superuser=True)
    client.force_login(staff)
    response = client.post(
        reverse("admin:leaderboard_run_changelist"),
        {"action": "rejudge_changed_items", "_selected_action": [hasty.pk]},
        follow=True,
    )
    assert "5 verdict(s) carried to the current rubrics, 0 changed item(s)" in response.content.decode()
    client.logout()
    after = board_rows(client, suite)
    assert "superseded" not in after[hasty.slug] and "current rubrics (revision 1)" in after[hasty.slug]
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    assert not rescoring.superseded_plans(hasty)  # a restart leaves the re-judged run as it is
    assert not Run.objects.filter(pk__in=rescoring.runs_on_superseded_rubrics()).exists()
    assert RubricErratum.objects.filter(task__suite=suite).count() == 2
