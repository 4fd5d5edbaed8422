"""The replay experiment (seeding/replay_experiment.py, bench/bench_replay.py): its state checks find the
record a task needs as the demo pages show it and fail when another is on screen; its table counts each
agent's runs with Wilson intervals; and, in the local desktop guest on two world variants and three demo
tasks, the blind replay matches the source on variant 0 and fails on variant 3, where the agent that
reads the page still succeeds."""

import datetime as dt

import pytest

from harness.guest.desktop import missing_tools
from seeding.replay_experiment import (
    NEEDS,
    TASKS,
    Outcome,
    ReplayError,
    Sight,
    WorldFacts,
    passed,
    run_experiment,
    state_check,
    table,
    wilson,
)

ANCHOR = dt.date(2026, 4, 13)  # a Monday; its week view starts on Sunday April 12

FACTS = WorldFacts(
    anchor=ANCHOR,
    mails=[
        {
            "from": "Dinoco",
            "addr": "a@b",
            "date": "Apr 9",
            "year": 2026,
            "subject": "Flight DN6769 booked",
            "body": "x",
        },
        {
            "from": "Dinoco",
            "addr": "a@b",
            "date": "Mar 17",
            "year": 2026,
            "subject": "Flight DN1562 booked",
            "body": "Montego Bay",
        },
    ],  # fmt: skip
    events=[
        {"t": "Team Standup", "d": "2026-04-06", "s": "09:30", "e": "09:45", "weekly": [1, 2, 3, 4, 5]},
        {"t": "Dentist Appointment", "d": "2026-04-14", "s": "08:00", "e": "09:00"},
        {"t": "Dentist Appointment", "d": "2026-04-13", "s": "19:00", "e": "19:30"},
    ],
    tx=[["2026-04-12", "Netflix Premium", "Recurring", 22.99], ["2026-03-12", "Netflix Premium", "Recurring", 22.99]],
    chats=[
        {
            "name": "Jim Halpert",
            "messages": [
                {"from": "Jim Halpert", "text": "160K? really", "when": "Apr 1"},
                {"from": "Michael Scott", "text": "yes", "when": "Apr 1"},
            ],
        }
    ],  # fmt: skip
)


def test_a_state_check_names_the_record_as_its_page_shows_it():
    (mail,) = state_check(FACTS, "demo-d001")
    assert (mail.pane, mail.texts) == ("#reader", ("Flight DN1562 booked", "Mar 17, 2026"))
    (event,) = state_check(FACTS, "demo-d002")  # the week view draws Monday's 7pm one before Tuesday's
    assert event.texts == ("Dentist Appointment", "April 13, 2026", "7:00pm \u2013 7:30pm")
    with pytest.raises(ReplayError, match="no card transaction matches 'hulu'"):
        state_check(FACTS, "demo-d003")  # Netflix is there, Hulu is not
    (chat,) = state_check(FACTS, "demo-d005")
    assert chat.texts == ("Jim Halpert", "160K? really")
    assert set(NEEDS) == set(TASKS)


def test_a_state_check_passes_only_when_its_record_was_on_screen():
    sights = [Sight("mail", "#reader", ("Flight DN1562 booked", "Mar 17, 2026")), Sight("row", "#rows", ("$22.99",))]
    both = [{"#reader": "Flight DN1562 booked\nDinoco <a@b> · Mar 17, 2026"}, {"#rows": "Netflix\t\u2212$22.99"}]
    assert passed(sights, both)
    assert not passed(sights, both[:1]), "the charge never showed"
    other_mail = [{"#reader": "Flight DN6769\nDinoco <a@b> · Apr 9, 2026"}, both[1]]
    assert not passed(sights, other_mail)
    split = [{"#reader": "Flight DN1562 booked"}, {"#reader": "Mar 17, 2026"}, both[1]]
    assert not passed(sights, split), "a sight's texts must show together, at one step"


def test_the_table_counts_runs_with_wilson_intervals():
    outcome = Outcome([0, 1, 2], ["demo-d001", "demo-d002"])
    for task in outcome.tasks:
        outcome.results[("source", task, 0)] = True
        outcome.results[("replay", task, 0)] = True
        outcome.results[("reader", task, 0)] = True
        for variant in (1, 2):
            outcome.results[("replay", task, variant)] = task == "demo-d002" and variant == 2
            outcome.results[("reader", task, variant)] = True
    text = table(outcome)
    low, high = wilson(1, 4)
    overall = text.splitlines()[-1]
    assert overall.split()[0] == "overall"
    assert f"1/4 [{low:.2f}, {high:.2f}]" in overall and "4/4 [" in overall and "2/2 [" in overall
    assert "replay K=1..2" in text.splitlines()[0]
    assert wilson(0, 9)[0] == 0.0 and 0.29 < wilson(0, 9)[1] < 0.31


@pytest.mark.slow
@pytest.mark.vm
@pytest.mark.skipif(bool(missing_tools()), reason="the local desktop guest needs Xvfb, xdotool and Chromium")
def test_blind_replay_fails_on_another_variant_where_reading_the_page_succeeds(tmp_path):
    tasks = ["demo-d001", "demo-d002", "demo-d003"]
    outcome = run_experiment([0, 3], tasks, tmp_path / "worlds", log=None)
    runs = outcome.results
    assert all(runs[("source", task, 0)] for task in tasks), "the source solves its tasks on variant 0"
    assert [runs[("replay", t, 0)] for t in tasks] == [True, True, True], "replay equals the source on variant 0"
    assert [runs[("reader", t, 3)] for t in tasks] == [True, True, True], "reading the page still works"
    assert [runs[("replay", t, 3)] for t in tasks] == [False, False, False], "the recorded clicks miss on variant 3"
    lines = [step.line for step in outcome.recorded["demo-d001"]]
    assert lines[-1] == "DONE" and all(line.startswith("pyautogui.") for line in lines[:-1])
    assert "overall" in table(outcome)
