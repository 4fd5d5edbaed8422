"""The text checks on the real spec's world: the messages read as varied as people write, every contact the
tasks name writes to Michael, his replies are his own words, times follow New York's daylight saving, and
the leak scan finds a planted author remark where a user would see it."""

import email
import sqlite3

import pytest

from seeding.world.persona import author_phrases
from seeding.world.text_checks import leaks, text_variety

pytestmark = pytest.mark.slow


def test_messages_are_as_varied_as_people_write(real_spec, real_world):
    spec, out = real_spec, real_world
    figures = text_variety(out, spec)["apps"]
    assert figures["mail"]["person_to_person"]["distinct_share"] >= 0.90
    assert figures["mail"]["distinct_share"] >= 0.60
    for app in ("buzzchat", "workbuzz"):
        assert figures[app]["distinct_share"] >= 0.80, figures[app]["top_repeated"]
        assert figures[app]["top10_share"] <= 0.05, figures[app]["top_repeated"]
    assert figures["mail"]["silent_contacts"] == []


def test_jan_and_david_wallace_write_and_michael_answers_in_his_own_words(real_spec, real_world):
    out = real_world
    con = sqlite3.connect(out / "apps/mail.sqlite")
    senders = {row[0] for row in con.execute("SELECT from_name FROM messages")}
    assert {"Jan Levinson", "David Wallace", "Emma Scott", "Arnav Singh", "Todd Packer"} <= senders
    rejection = con.execute(
        "SELECT body FROM messages WHERE from_name = 'Jan Levinson' AND subject = 'Re: Your Expense Report - REJECTED'"
    ).fetchall()
    assert rejection and "Best Buy - Flatscreen TV" in rejection[0][0]
    replies = [row[0] for row in con.execute("SELECT body FROM messages WHERE folder = 'Sent'")]
    multi = [body for body in replies if body.split("\n--\n")[0].count(".") >= 2]
    assert len(multi) > len(replies) / 2
    chats = sqlite3.connect(out / "apps/buzzchat.sqlite")
    mine = [r[0] for r in chats.execute("SELECT body FROM messages WHERE sender_id = 1")]
    assert not [body for body in mine if body.startswith("Michael ") or body.startswith("Has NOT")]


def test_mail_dates_follow_daylight_saving(real_spec, real_world):
    out = real_world
    offsets = set()
    for path in (out / "home/user/Maildir/cur").iterdir():
        message = email.message_from_bytes(path.read_bytes())
        offsets.add(message["Date"][-5:])
    assert offsets == {"-0400", "-0500"}
    assert "TZID=America/New_York" in (out / "home/user/Calendar/personal.ics").read_text()


def test_leak_scan_names_where_a_planted_remark_sits(real_spec, real_world, tmp_path):
    spec, out = real_spec, real_world
    phrases = author_phrases(spec)
    assert "forgot he signed up" in phrases
    planted = tmp_path / "home/user/Documents"
    planted.mkdir(parents=True)
    (planted / "note.txt").write_text(f"Paramount+ ({phrases[0]})\n")
    hits = leaks(tmp_path, spec)
    assert hits == [{"file": "home/user/Documents/note.txt", "line": 1, "phrase": phrases[0]}]
    text_apps = ("apps/mail", "apps/buzzchat", "apps/workbuzz", "home/user/Maildir")
    assert [h for h in leaks(out, spec) if h["file"].startswith(text_apps)] == []
