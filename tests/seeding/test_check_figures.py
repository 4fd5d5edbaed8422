"""The check's figures on small hand-made worlds (no build): the released world's facts (matched, differs
with its reason, not applicable), the price and time-zone invariants, and the command line's errors."""

import datetime as dt
import json
import sqlite3

from seeding.__main__ import main
from seeding.world.check import failed_text_goals, text_figures
from seeding.world.check.invariants import new_york_offset, records, unstable_items
from seeding.world.check.released import released_facts
from seeding.world.text_checks import leaks


def _world(tmp_path, anchor="2026-04-13"):
    root = tmp_path / "world"
    (root / "apps").mkdir(parents=True)
    (root / "manifest.json").write_text(json.dumps({"anchor": anchor, "files": {}}))
    con = sqlite3.connect(root / "apps/vaultbank.sqlite")
    con.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, kind TEXT, balance REAL, credit_limit REAL)")
    con.execute("CREATE TABLE transactions (id INTEGER PRIMARY KEY, posted_date TEXT, description TEXT)")
    con.executemany(
        "INSERT INTO accounts (kind, balance, credit_limit) VALUES (?, ?, ?)",
        [("checking", 3210.0, None), ("credit_card", -7340.004, 8000.0)],
    )
    con.executemany(
        "INSERT INTO transactions (posted_date, description) VALUES (?, ?)",
        [("2026-01-17", "BatBucks - Buy GME"), ("2026-04-10", "Netflix")],
    )
    con.commit()
    con.close()
    (root / "home/user/Documents").mkdir(parents=True)
    (root / "home/user/Documents/notes.txt").write_text("venue: Chili's")
    return root


def _facts(tmp_path, variables, entries, anchor="2026-04-13"):
    root = _world(tmp_path, anchor)
    variables_path, keys_path = tmp_path / "variables.json", tmp_path / "keys.json"
    variables_path.write_text(json.dumps(variables))
    keys_path.write_text(json.dumps({"entries": entries}))
    return released_facts(root, variables_path, keys_path)


def test_each_variable_is_matched_differs_with_its_reason_or_not_applicable(tmp_path):
    variables = {
        "LIMIT": 8000.0,
        "CARD": -7340.0,
        "KINDS": ["credit_card", "checking"],
        "GME_DATE": "${TODAY-86}",
        "COUNT": 1081,
        "CHECKING": 3135.33,
        "TASK_START": "RUNTIME",
        "NOTES_PATH": "/home/user/Documents/notes.txt",
        "VENUE": "Chili's",
        "MISSING_TABLE": 0,
        "LAST_CHARGE": "Netflix",
    }
    sql = "SELECT {} FROM accounts WHERE kind = 'credit_card'"
    entries = [
        {"var": "LIMIT", "app": "vaultbank", "sql": sql.format("credit_limit"), "rule": "money"},
        {"var": "CARD", "app": "vaultbank", "sql": sql.format("balance"), "rule": "money"},
        {"var": "KINDS", "app": "vaultbank", "sql": "SELECT kind FROM accounts", "rule": "set"},
        {
            "var": "GME_DATE",
            "app": "vaultbank",
            "sql": "SELECT posted_date FROM transactions WHERE description LIKE '%GME%'",
            "rule": "date",
        },
        {
            "var": "COUNT",
            "app": "vaultbank",
            "sql": "SELECT COUNT(*) FROM transactions",
            "rule": "equal",
            "kept_different": "Figure 1 count kept",
        },
        {
            "var": "CHECKING",
            "app": "vaultbank",
            "sql": "SELECT balance FROM accounts WHERE kind = 'checking'",
            "rule": "money",
            "spec_departs": "the spec says 3210",
        },
        {"var": "TASK_START", "not_applicable": "injected at run time"},
        {"var": "NOTES_PATH", "rule": "file"},
        {"var": "VENUE", "rule": "file_contains", "file": "home/user/Documents/notes.txt"},
        {"var": "MISSING_TABLE", "app": "vaultbank", "sql": "SELECT COUNT(*) FROM carts", "rule": "equal"},
        {
            "var": "LAST_CHARGE",
            "app": "vaultbank",
            "sql": "SELECT description FROM transactions ORDER BY posted_date DESC LIMIT 1",
            "rule": "equal",
            "spec_silent": "generated filler",
        },
    ]
    report = _facts(tmp_path, variables, entries)
    status = {name: item["status"] for name, item in report["per_variable"].items()}
    assert status == {
        "LIMIT": "matched",
        "CARD": "matched",  # within a cent
        "KINDS": "matched",  # in any order
        "GME_DATE": "matched",  # 2026-01-17 is 86 days before the anchor
        "COUNT": "kept different",
        "CHECKING": "not applicable",
        "TASK_START": "not applicable",
        "NOTES_PATH": "matched",
        "VENUE": "matched",
        "MISSING_TABLE": "differs",
        "LAST_CHARGE": "not applicable",  # it matches, but the spec does not fix it: no credit for luck
    }
    per = report["per_variable"]
    assert per["COUNT"]["why"] == "Figure 1 count kept" and per["COUNT"]["found"] == 2
    assert "departs from the spec: the spec says 3210" in per["CHECKING"]["why"]
    assert "no such table: carts" in per["MISSING_TABLE"]["found"]
    assert report["counts"] == {"matched": 6, "differs": 1, "kept different": 1, "not applicable": 3}
    assert report["matched_rate"] == round(6 / 7, 4)  # what is kept different on purpose is not in the figure


def test_a_relative_date_moves_with_the_anchor(tmp_path):
    entry = {
        "var": "GME_DATE",
        "app": "vaultbank",
        "sql": "SELECT posted_date FROM transactions WHERE description LIKE '%GME%'",
        "rule": "date",
    }
    later = _facts(tmp_path, {"GME_DATE": "${TODAY-86}"}, [entry], anchor="2026-04-14")
    assert later["per_variable"]["GME_DATE"]["status"] == "differs"  # the row did not move, the anchor did


def test_a_price_that_changes_back_and_forth_is_unstable_a_dated_change_is_not():
    rows = [(("Chili's", "Ribs"), 18.99), (("Chili's", "Ribs"), 19.49), (("Chili's", "Ribs"), 19.49)]
    assert unstable_items(rows) == []
    rows += [(("Chili's", "Ribs"), 18.99)]
    assert unstable_items(rows) == ["Chili's / Ribs: [18.99, 19.49, 18.99]"]


def test_a_finding_counts_the_records_it_names():
    assert records("1432 email Date header(s) not in America/New_York time") == 1432
    assert records("SM-88431: no document names this booking") == 1


def test_a_summer_time_stamped_at_winter_offset_is_not_new_york_time():
    est = dt.timezone(dt.timedelta(hours=-5))
    edt = dt.timezone(dt.timedelta(hours=-4))
    assert new_york_offset(dt.datetime(2025, 1, 7, 12, 0, tzinfo=est))
    assert not new_york_offset(dt.datetime(2025, 6, 7, 12, 0, tzinfo=est))
    assert new_york_offset(dt.datetime(2025, 6, 7, 12, 0, tzinfo=edt))


def test_check_command_names_a_missing_tasks_file_or_a_folder_that_is_no_build(tmp_path, capsys):
    assert main(["check", str(tmp_path), "--tasks", str(tmp_path / "nope.json")]) == 2
    assert "--tasks" in capsys.readouterr().err
    assert main(["check", str(tmp_path)]) == 1
    assert "has no manifest.json: not a built world" in capsys.readouterr().out


def test_each_text_goal_the_variety_figures_mark_failed_is_a_missed_goal():
    variety = {
        "apps": {
            "mail": {"passes": {"person_mail_distinct": True, "every_contact_writes": False}},
            "buzzchat": {"passes": {"chat_distinct": False, "top10_share": True}},
        }
    }
    assert failed_text_goals(variety) == ["mail: every_contact_writes", "buzzchat: chat_distinct"]


def test_text_figures_find_a_spec_remark_written_into_a_chat(tmp_path):
    root = _world(tmp_path)
    con = sqlite3.connect(root / "apps/buzzchat.sqlite")
    con.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, body TEXT)")
    con.executemany(
        "INSERT INTO messages (body) VALUES (?)",
        [("Lunch at noon?",), ("Paramount+ (forgot he signed up) renews Friday",), ("Sure, see you there",)],
    )
    con.commit()
    con.close()
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"identity": {"name": "Pat"}, "subscriptions": ["Paramount+ (forgot he signed up)"]}))
    figures = text_figures(root, str(spec))
    assert figures["measured"] and "buzzchat" in figures["variety"]["apps"]
    assert any("forgot he signed up" in json.dumps(leak) for leak in figures["leaks"])


def test_a_remark_the_persona_wrote_himself_is_no_leak_where_his_own_text_is_reproduced(tmp_path):
    root = _world(tmp_path)
    con = sqlite3.connect(root / "apps/cheskepdia.sqlite")
    con.execute("CREATE TABLE bookings (id INTEGER PRIMARY KEY, purpose TEXT)")
    con.execute("INSERT INTO bookings (purpose) VALUES ('vacation with Holly (if she says yes)')")
    con.commit()
    con.close()
    (root / "home/user/Documents/sequel.txt").write_text("CAST:\nJasmine Windsong: Holly (if she says yes)\n")
    spec = {
        "trips": [{"purpose": "vacation with Holly (if she says yes)"}],
        "documents": [{"content": "CAST:\nJasmine Windsong: Holly (if she says yes)\nSam: Dwight"}],
    }
    found = leaks(root, spec)
    # the booking's purpose carries the spec author's aside; the sequel notes are Michael's own words
    assert [(hit["file"], hit.get("column")) for hit in found] == [("apps/cheskepdia.sqlite", "purpose")]
