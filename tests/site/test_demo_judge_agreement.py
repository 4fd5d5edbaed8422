"""The demo's judge has labels, so the judge pages and the leaderboard's mark show something: half the
recorded runs' verdicts labelled, every fifth label against the judge, written once however often
``load_demo`` runs."""

import io
import math
import re

import pytest
from django.core.cache import cache
from django.core.management import call_command

from leaderboard.models import Run
from tests.html_text import visible_text
from trajectories.models import HumanLabel, Judgment

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_the_demo_judge_is_checked_by_demo_labels(client, monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)
    cache.clear()
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    recorded = Run.objects.filter(name__in=["Scripted demo agent", "Scripted demo agent (hasty plan)"])
    verdicts = Judgment.objects.filter(trajectory__run__in=recorded, verdict__in=["success", "failure"]).count()
    labels = HumanLabel.objects.all()
    expected = math.ceil(verdicts / 2)  # every other verdict
    assert labels.count() == expected and expected > 10
    against = expected // 5  # every fifth label says the opposite
    assert sum(label.verdict != label.judgment.verdict for label in labels.select_related("judgment")) == against
    assert all(label.labeller is None and label.note.startswith("Demo label") for label in labels)

    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    assert HumanLabel.objects.count() == expected  # once only

    careful = recorded.get(name="Scripted demo agent")
    board = client.get(f"/leaderboard/?suite={careful.suite.slug}")
    row = re.search(rf'<tr data-run="{careful.slug}".*?</tr>', board.content.decode(), re.S).group(0)
    assert f"checked: {expected} human labels, kappa 0." in visible_text(row)
    judge = careful.judge_config
    page = visible_text(client.get(f"/judges/{judge.pk}/"))
    assert f"{expected} human labels" in page and f"{expected - against} of {expected}" in page
