"""Session-task files: a good file reads into sessions and task specs; every bad field is named; spec paths
and world records resolve or say what is missing."""

import json
import sqlite3

import pytest

from harness.tasks import (
    SessionFileError,
    load_sessions,
    read_session_data,
    session_tasks,
    spec_value,
    unresolved_evidence,
    world_record_count,
)


def _two_sessions() -> dict:
    first = {
        "id": "session_demo-s01",
        "sequence": "week",
        "position": 1,
        "category": "preference_inference",
        "app": "hangrydash",
        "apps_involved": ["HangryDash"],
        "difficulty": "easy",
        "request": "Order me lunch.",
        "intents": [
            {"id": "I1", "statement": "Chili's.", "evidence": [{"kind": "spec", "path": "meals.lunch"}]},
            {
                "id": "I2",
                "statement": "Dessert.",
                "evidence": [{"kind": "world", "app": "shop", "table": "items", "key": {"name": "Pie"}}],
            },
        ],
        "checklist": [{"id": "R1", "criterion": "Orders from Chili's", "weight": 3}, {"criterion": "Adds dessert"}],
    }
    second = {
        "id": "session_demo-s02",
        "sequence": "week",
        "position": 2,
        "category": "preference_inference",
        "request": "Lunch again.",
        "depends_on": ["session_demo-s01"],
        "intents": [
            {
                "id": "I1",
                "statement": "Same as before.",
                "evidence": [{"kind": "session", "session": "session_demo-s01", "intent": "I1"}],
            }
        ],
        "checklist": [{"criterion": "Orders the same"}],
    }
    return {
        "format": "mypcbench-sessions",
        "version": 1,
        "suite": "Demo sessions",
        "suite_version": "v1",
        "persona": "michael_scott",
        "sequences": [{"id": "week", "title": "A week"}],
        "sessions": [second, first],  # written out of order: read back in sequence order
    }


def _problems(data) -> list[tuple[str, str, str]]:
    with pytest.raises(SessionFileError) as caught:
        read_session_data(data, "s.json")
    return caught.value.problems


def test_a_good_file_reads_in_sequence_order_and_becomes_tasks(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_two_sessions()))
    sessions = load_sessions(path)
    assert [s.id for s in sessions.sessions] == ["session_demo-s01", "session_demo-s02"]
    assert sessions.sessions[1].intents[0].evidence[0].describe() == "earlier session session_demo-s01 (I1)"
    tasks = session_tasks(sessions).tasks
    assert [t.instruction for t in tasks] == ["Order me lunch.", "Lunch again."]
    assert [i.normalised_weight for i in tasks[0].rubric] == [0.75, 0.25]
    assert tasks[1].extra["session"] == {
        "sequence": "week",
        "position": 2,
        "depends_on": ["session_demo-s01"],
        "intents": [
            {
                "id": "I1",
                "statement": "Same as before.",
                "evidence": [{"kind": "session", "session": "session_demo-s01", "intent": "I1"}],
            }
        ],
    }


def test_every_bad_field_is_named_at_once():
    data = _two_sessions()
    first = data["sessions"][1]
    first["intents"][0]["evidence"][0] = {"kind": "rumour"}
    first["intents"][1]["evidence"][0]["key"] = {}
    first["category"] = "gossip"
    first["checklist"][1] = {"weight": 1}
    data["sessions"][0]["depends_on"] = ["session_demo-s09"]
    fields = [where for where, _, _ in _problems(data)]
    assert fields == [
        "sessions[1].category",
        "sessions[1].intents[0].evidence[0].kind",
        "sessions[1].intents[1].evidence[0].key",
        "sessions[1].checklist[1]",
        "sessions[0].depends_on[0]",
        "sessions[0].intents[0].evidence[0].session",  # cites s01, no longer a dependency
    ]


def test_the_message_shows_the_first_problem_and_counts_the_rest():
    data = _two_sessions()
    data["sessions"][0]["request"] = " "
    data["sessions"][1]["intents"] = []
    with pytest.raises(SessionFileError) as caught:
        read_session_data(data, "s.json")
    assert str(caught.value) == (
        "s.json: sessions[0].request: empty (expected a non-empty string) [and 2 more problems in this file]"
    )
    assert [where for where, _, _ in caught.value.problems][1:] == [
        "sessions[1].intents",
        "sessions[0].intents[0].evidence[0].intent",  # s02 cites s01's I1, now gone
    ]


def test_dependencies_must_be_earlier_and_session_evidence_must_be_a_dependency():
    data = _two_sessions()
    data["sessions"][1]["depends_on"] = ["session_demo-s02"]  # s01 depending on s02: later, not earlier
    data["sessions"][0]["depends_on"] = []  # s02 cites s01 without depending on it
    problems = {where: problem for where, problem, _ in _problems(data)}
    assert problems == {
        "sessions[1].depends_on[0]": "'session_demo-s02' is not earlier in sequence 'week'",
        "sessions[0].intents[0].evidence[0].session": "'session_demo-s01' is not in this session's depends_on",
    }


def test_positions_and_ids_are_checked_across_the_file():
    data = _two_sessions()
    data["sessions"][0]["position"] = 1
    data["sessions"][0]["id"] = "session_demo-s01"
    data["sessions"][0]["depends_on"] = []
    data["sessions"][0]["intents"][0]["evidence"] = [{"kind": "spec", "path": "a"}]
    problems = [(where, problem) for where, problem, _ in _problems(data)]
    assert problems == [
        ("sessions[1].id", "duplicate session id 'session_demo-s01'"),
        ("sequences.week", "positions are [1, 1]"),
    ]


def test_an_unknown_sequence_and_format_are_named():
    data = _two_sessions()
    data["format"] = "mypcbench-tasks"
    data["sessions"][1]["sequence"] = "month"
    fields = [where for where, _, _ in _problems(data)]
    assert fields[:2] == ["format", "sessions[1].sequence"]


def test_spec_paths_walk_keys_indexes_and_selectors():
    spec = {"contacts": [{"name": "Jim", "birthday": "06-14"}, {"name": "Pam"}], "trips": [{"hotel": {"n": 3}}]}
    assert spec_value(spec, "contacts[name=Jim].birthday") == "06-14"
    assert spec_value(spec, "trips[0].hotel.n") == 3
    with pytest.raises(KeyError, match="contacts\\[name=Pam\\] has no field 'birthday'"):
        spec_value(spec, "contacts[name=Pam].birthday")
    with pytest.raises(KeyError, match="contacts has no item with name = 'Dwight'"):
        spec_value(spec, "contacts[name=Dwight]")
    with pytest.raises(KeyError, match="trips has no item \\[4\\]"):
        spec_value(spec, "trips[4]")


def test_world_records_are_found_by_their_columns_and_missing_ones_say_what(tmp_path):
    (tmp_path / "apps").mkdir()
    con = sqlite3.connect(tmp_path / "apps" / "shop.sqlite")
    con.execute("CREATE TABLE items (id INTEGER, name TEXT)")
    con.execute("INSERT INTO items VALUES (1, 'Pie'), (2, 'Pie'), (3, 'Cake')")
    con.commit()
    con.close()
    assert world_record_count(tmp_path, "shop", "items", {"name": "Pie"}) == 2
    assert world_record_count(tmp_path, "shop", "items", {"name": "Pie", "id": 2}) == 1
    with pytest.raises(LookupError, match="shop has no table 'orders'"):
        world_record_count(tmp_path, "shop", "orders", {"id": 1})
    with pytest.raises(LookupError, match="shop.items has no column 'price'"):
        world_record_count(tmp_path, "shop", "items", {"price": 1})
    sessions = read_session_data(_two_sessions(), "s.json")
    assert unresolved_evidence(sessions, {"meals": {"lunch": "Chili's"}}, tmp_path) == []
    assert unresolved_evidence(sessions, {"meals": {}}, tmp_path / "nowhere") == [
        "session_demo-s01 I1: spec path meals.lunch: meals has no field 'lunch'",
        "session_demo-s01 I2: the world has no app 'shop'",
    ]
