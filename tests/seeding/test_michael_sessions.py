"""Our session set for Michael (seeding/sessions/michael.json): big enough, every hidden intent cites
evidence, and every citation resolves in the persona spec and in a built world."""

from collections import Counter
from pathlib import Path

import pytest

from harness.tasks import load_sessions, spec_value, unresolved_evidence

MICHAEL_SESSIONS = Path(__file__).resolve().parents[2] / "seeding" / "sessions" / "michael.json"


@pytest.fixture(scope="module")
def michael_sessions():
    """The shipped session file, read and validated."""
    return load_sessions(MICHAEL_SESSIONS)


def test_at_least_thirty_sessions_in_at_least_three_sequences(michael_sessions):
    per_sequence = Counter(s.sequence for s in michael_sessions.sessions)
    assert len(michael_sessions.sessions) >= 30
    assert len(per_sequence) >= 3 and min(per_sequence.values()) >= 5, per_sequence


def test_every_intent_cites_evidence_and_every_sequence_carries_one_over(michael_sessions):
    for s in michael_sessions.sessions:
        assert s.intents and s.checklist, s.id
        for intent in s.intents:
            assert intent.evidence, f"{s.id} {intent.id} cites nothing"
    # In each sequence, some later session holds an intent learnt in an earlier one (applied unasked).
    carried = {
        s.sequence for s in michael_sessions.sessions for i in s.intents for e in i.evidence if e.kind == "session"
    }
    assert carried == {q.id for q in michael_sessions.sequences}


def test_every_spec_citation_resolves_in_the_persona_spec(michael_sessions, real_spec):
    cited = [e for s in michael_sessions.sessions for i in s.intents for e in i.evidence if e.kind == "spec"]
    assert len(cited) >= 40
    assert unresolved_evidence(michael_sessions, spec=real_spec) == []
    # A citation that points nowhere is caught, so the check above can fail.
    assert spec_value(real_spec, "app_overrides.etaxi.preferred_car_type") == "XL"
    with pytest.raises(KeyError):
        spec_value(real_spec, "app_overrides.etaxi.preferred_colour")


@pytest.mark.slow
def test_every_world_citation_resolves_in_the_built_world(michael_sessions, real_world):
    cited = {
        (e.app, e.table) for s in michael_sessions.sessions for i in s.intents for e in i.evidence if e.kind == "world"
    }
    assert len({app for app, _ in cited}) >= 10  # the evidence spans the apps, not one table
    assert unresolved_evidence(michael_sessions, world_dir=real_world) == []
