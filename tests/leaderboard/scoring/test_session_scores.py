"""Session scores against hand-computed cases: Proactivity, Completeness, turns and the status
distribution per session and per run, and the run intervals from the board's stratified bootstrap."""

import math

import pytest

from leaderboard.scoring.sessions import (
    SessionRecordError,
    read_session_record,
    run_summary,
    session_scores,
    status_distribution,
)


def record(task_id="s1", turns=1, intents=None, checklist=None, **more):
    return read_session_record(
        {"task_id": task_id, "turns": turns, "intents": intents or {"I1": "completed"}, "checklist": checklist or {}}
        | more
    )


def test_one_session_by_hand():
    # Completed and inferred count for Proc, provided does not: 2 of 4. Comp: 2 of the 3 judged items.
    scores = session_scores(
        record(
            turns=3,
            intents={"I1": "completed", "I2": "inferred", "I3": "provided", "I4": "provided"},
            checklist={"R1": True, "R2": True, "R3": False, "R4": None},
        )
    )
    assert scores.proactivity == 0.5
    assert scores.completeness == pytest.approx(2 / 3)
    assert scores.turns == 3
    assert dict(scores.statuses) == {"completed": 1, "inferred": 1, "provided": 2}


def test_a_reactive_agent_recovers_completeness_but_not_proactivity():
    checklist = {"R1": True, "R2": True}
    proactive = session_scores(record(turns=1, intents={"I1": "completed", "I2": "inferred"}, checklist=checklist))
    reactive = session_scores(record(turns=3, intents={"I1": "provided", "I2": "provided"}, checklist=checklist))
    assert (proactive.completeness, reactive.completeness) == (1.0, 1.0)
    assert (proactive.proactivity, reactive.proactivity) == (1.0, 0.0)
    assert (proactive.turns, reactive.turns) == (1, 3)


def test_an_intent_left_open_at_the_turn_limit_counts_against_proactivity():
    scores = session_scores(record(turns=10, ended_by="turn_limit", intents={"I1": "completed", "I2": "open"}))
    assert scores.proactivity == 0.5
    assert math.isnan(scores.completeness)  # nothing judged


def test_recorded_turns_and_intent_details_are_read_as_counts_and_statuses():
    scores = session_scores(
        record(
            turns=[{"user": "Order lunch"}, {"user": "Dessert too"}], intents={"I1": {"status": "provided", "turn": 2}}
        )
    )
    assert (scores.turns, scores.proactivity) == (2, 0.0)


def test_every_bad_field_of_a_record_is_named():
    with pytest.raises(SessionRecordError) as caught:
        read_session_record(
            {"task_id": "", "turns": -1, "intents": {"I1": "open", "I2": "guessed"}, "checklist": {"R1": "yes"}}
        )
    assert caught.value.problems == [
        "task_id: missing or empty (expected the session's task id)",
        "turns: -1 is not a turn count (expected a whole number >= 0 or a list of turns)",
        "intents.I1: 'open' is not a status here (expected completed, inferred, provided; "
        "open only when the session ended at its turn limit)",
        "intents.I2: 'guessed' is not a status here (expected completed, inferred, provided)",
        "checklist.R1: 'yes' is not a verdict (expected true, false or null)",
    ]
    assert str(caught.value).endswith("[and 4 more]")


def test_a_run_is_the_mean_over_sessions_with_the_status_distribution():
    records = [
        record("s1", turns=1, intents={"I1": "completed", "I2": "inferred"}, checklist={"R1": True}),
        record("s2", turns=3, intents={"I1": "completed", "I2": "provided"}, checklist={"R1": True, "R2": False}),
        record(
            "s3",
            turns=5,
            intents={"I1": "provided", "I2": "open"},
            ended_by="turn_limit",
            checklist={"R1": False, "R2": False, "R3": False, "R4": True},
        ),
    ]
    summary = run_summary(records, B=200)
    assert (summary.sessions, summary.attempts, summary.turn_limit_sessions) == (3, 1, 1)
    assert summary.proactivity.value == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert summary.completeness.value == pytest.approx((1.0 + 0.5 + 0.25) / 3)
    assert summary.turns.value == 3.0
    assert summary.statuses == {"completed": 2, "inferred": 1, "provided": 2, "open": 1}
    assert summary.status_shares["provided"] == pytest.approx(2 / 6)
    for figure in (summary.proactivity, summary.completeness, summary.turns):
        assert figure.low <= figure.value <= figure.high
    # Resampling three sessions whose Proc is 1, 0.5 and 0: the interval spans most of the range.
    assert summary.proactivity.low <= 0.2 and summary.proactivity.high >= 0.8


def test_intervals_resample_within_strata():
    # Two categories, constant within each: every stratified replicate keeps one of each half, so the
    # interval collapses onto the mean; without strata the draws can pick four of one kind.
    records = [
        record("a1", intents={"I1": "completed"}),
        record("a2", intents={"I1": "completed"}),
        record("b1", intents={"I1": "provided"}),
        record("b2", intents={"I1": "provided"}),
    ]
    stratified = run_summary(records, strata={"a1": "A", "a2": "A", "b1": "B", "b2": "B"}, B=200)
    assert (stratified.proactivity.low, stratified.proactivity.value, stratified.proactivity.high) == (0.5, 0.5, 0.5)
    pooled = run_summary(records, B=200)
    assert pooled.proactivity.low < 0.5 < pooled.proactivity.high


def test_attempts_are_averaged_within_a_session_first():
    records = [
        record("s1", attempt=1, intents={"I1": "completed"}),
        record("s1", attempt=2, intents={"I1": "provided"}),
        record("s2", attempt=1, intents={"I1": "completed", "I2": "provided"}),
        record("s2", attempt=2, intents={"I1": "inferred", "I2": "provided"}),
    ]
    summary = run_summary(records, B=100)
    assert summary.attempts == 2 and summary.proactivity.value == 0.5
    with pytest.raises(ValueError, match=r"different numbers of attempts \(s1 2, s2 1\)"):
        run_summary(records[:3])


def test_the_status_distribution_per_category_counts_every_intent_once():
    records = [
        record("r1", intents={"I1": "completed", "I2": "provided"}),
        record("r2", intents={"I1": "provided"}),
        record("p1", intents={"I1": "inferred", "I2": "open"}, ended_by="turn_limit"),
    ]
    assert status_distribution(records, {"r1": "retrieval", "r2": "retrieval", "p1": "preference_inference"}) == {
        "preference_inference": {"completed": 0, "inferred": 1, "provided": 0, "open": 1},
        "retrieval": {"completed": 1, "inferred": 0, "provided": 2, "open": 0},
    }
