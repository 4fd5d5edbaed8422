"""The methodology page explains the session figures in plain words, with the paper's definitions."""

import pytest
from django.urls import reverse

from tests.html_text import visible_text

pytestmark = pytest.mark.django_db


def test_the_methodology_page_defines_proactivity_completeness_and_turns(client):
    text = visible_text(client.get(reverse("leaderboard:methodology")))
    assert "Proactivity is the share of a session's intents completed or inferred." in text
    assert "Completeness is the share of the session's checklist items satisfied over the whole conversation" in text
    assert "Turns is how many times the user spoke" in text
    assert "pi-Bench (arXiv 2605.14678, App. C)" in text
