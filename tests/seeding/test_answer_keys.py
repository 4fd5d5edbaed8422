"""Answer keys on a hand-made world: each task's verdict from what its lookups find, bad keys refused by name."""

import json
import sqlite3

import pytest

from seeding.world.answer_keys import AnswerKeyError, load_keys, resolve, validate


def _world(tmp_path, anchor="2026-04-13"):
    root = tmp_path / "world"
    (root / "apps").mkdir(parents=True)
    (root / "home/user/Documents").mkdir(parents=True)
    (root / "home/user/Documents/trip.txt").write_text("Sandals Montego Bay SM-88431\n")
    manifest = {"anchor": anchor, "files": {"home/user/Documents/trip.txt": "x"}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    con = sqlite3.connect(root / "apps/etaxi.sqlite")
    con.execute("CREATE TABLE rides (id INTEGER PRIMARY KEY, requested_at TEXT, dropoff TEXT, total REAL)")
    con.executemany(
        "INSERT INTO rides (requested_at, dropoff, total) VALUES (?, ?, ?)",
        [("2026-03-02 08:40:00", "Dunder Mifflin, 1725 Slough Ave", 18.1), ("2026-04-10 19:00:00", "Cooper's", 9.5)],
    )
    con.commit()
    con.close()
    return root


THIS_YEAR = (
    "SELECT id, total FROM rides WHERE dropoff LIKE 'Dunder Mifflin%' "
    "AND requested_at >= strftime('%Y', :anchor) || '-01-01' AND requested_at <= :anchor || ' 23:59:59'"
)


def _key(task, *facts, **extra):
    return {"task": task, "facts": list(facts), **extra}


def test_verdicts_follow_what_the_lookups_find(tmp_path):
    root = _world(tmp_path)
    commute = {"need": "this year's commutes", "app": "etaxi", "sql": THIS_YEAR}
    doc = {"need": "the itinerary", "file": "home/user/Documents/*.txt", "contains": ["SM-88431"]}
    absent = {"need": "a boarding pass", "file": "home/user/Downloads/*.pdf"}
    keys = {
        "a": _key("a", commute, doc),
        "b": _key("b", commute, absent),
        "c": _key("c", absent),
        "d": _key("d", exception="live market prices no seeded world holds"),
    }
    report = resolve(root, keys, ["a", "b", "c", "d", "e"])
    verdicts = {task: entry["verdict"] for task, entry in report["per_task"].items()}
    assert verdicts == {"a": "solvable", "b": "partial", "c": "not solvable", "d": "exception", "e": "no key"}
    assert report["solvable_rate"] == 0.2
    found = report["per_task"]["a"]["facts"][0]
    assert found["ids"] == [1] and found["rows"] == [[1, 18.1]] and found["table"] == "rides"
    assert report["per_task"]["b"]["facts"][1]["why"] == "no file matches home/user/Downloads/*.pdf"


def test_an_empty_window_counts_only_where_the_calendar_empties_it(tmp_path):
    fact = {
        "need": "this year's commutes",
        "app": "etaxi",
        "sql": THIS_YEAR,
        "empty_when": "strftime('%m-%d', :anchor) <= '01-04'",
    }
    on_new_year = resolve(_world(tmp_path / "a", "2027-01-01"), {"t": _key("t", fact)})["per_task"]["t"]
    assert on_new_year["verdict"] == "solvable" and "none is the answer" in on_new_year["facts"][0]["why"]
    late_in_year = dict(fact, sql=THIS_YEAR.replace("Dunder Mifflin%", "Nowhere%"))
    in_spring = resolve(_world(tmp_path / "b"), {"t": _key("t", late_in_year)})["per_task"]["t"]
    assert in_spring["verdict"] == "not solvable" and in_spring["facts"][0]["why"] == "0 row(s), needs at least 1"


@pytest.mark.parametrize(
    "fact, named",
    [
        ({"app": "etaxi", "sql": "SELECT 1"}, "'need'"),
        ({"need": "x", "app": "etaxi", "sql": "DELETE FROM rides"}, "one SELECT"),
        ({"need": "x", "app": "nowhere", "sql": "SELECT 1"}, "names app 'nowhere'"),
        ({"need": "x", "file": "/etc/passwd"}, "relative to the world folder"),
        ({"need": "x", "app": "etaxi", "sql": "SELECT 1", "file": "a"}, "exactly one of"),
        ({"need": "x", "app": "etaxi", "sql": "SELECT 1", "min_rows": -1}, "'min_rows'"),
        ({"need": "x", "app": "etaxi", "sql": "SELECT 1", "empty_when": "1; DROP TABLE rides"}, "'empty_when'"),
        ({"need": "x", "app": "etaxi", "sql": "SELECT 1", "colour": "red"}, "unknown field"),
    ],
)
def test_a_bad_fact_is_refused_naming_the_file_and_what_is_wrong(fact, named):
    with pytest.raises(AnswerKeyError, match=named) as caught:
        validate(_key("t", fact), "t.json")
    assert str(caught.value).startswith("t.json: fact 1")


def test_a_key_file_must_be_named_after_its_task(tmp_path):
    (tmp_path / "other.json").write_text(json.dumps(_key("t", {"need": "x", "file": "a.txt"})))
    with pytest.raises(AnswerKeyError, match="must be named after it"):
        load_keys(tmp_path)
    (tmp_path / "other.json").write_text("{not json")
    with pytest.raises(AnswerKeyError, match="other.json: not readable JSON"):
        load_keys(tmp_path)


def test_every_shipped_key_is_valid_and_the_184_tasks_each_have_one():
    from seeding.world.check import TASKS

    keys = load_keys()
    tasks = {task["id"] for task in json.loads(TASKS.read_text(encoding="utf-8"))}
    assert set(keys) == tasks
