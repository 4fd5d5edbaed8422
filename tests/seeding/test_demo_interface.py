"""Interface variants of the demo apps, on the hand-written pages (no world): a variant's theme and layout
are drawn from the variant alone, change what sits where and what the buttons say, and keep every element
id the pages' scripts and a page-reading agent use; variant 0 leaves a page as it is."""

import re

from seeding.demo_world_apps import COLUMNS, PAGES, TEMPLATES, Interface, dress, interface_of


def test_variant_0_is_the_hand_written_interface_and_changes_nothing():
    assert interface_of(0) == Interface()
    for name in PAGES:
        text = (TEMPLATES / name).read_text()
        assert dress(name, text, interface_of(0)) == text


def test_each_variant_draws_its_own_interface_deterministically():
    faces = [interface_of(k) for k in range(1, 10)]
    assert faces == [interface_of(k) for k in range(1, 10)]
    assert all(face.columns != COLUMNS and face.page_size != 10 for face in faces)
    assert len({(f.columns, f.switcher, f.page_size, f.font_px, f.mail_panels) for f in faces}) == 9


def test_a_variant_relabels_and_moves_buttons_but_keeps_their_ids():
    face = interface_of(2)
    calendar = (TEMPLATES / "hoolicalendar.html").read_text()
    dressed = dress("hoolicalendar.html", calendar, face)
    assert re.findall(r'id="(\w+)"', dressed) == re.findall(r'id="(\w+)"', calendar)
    assert "&lsaquo; Prev<" not in dressed and face.labels["hoolicalendar.html"]["&lsaquo; Prev"] in dressed
    order = " ".join(f"#{b} {{ order: {i}; }}" for i, b in enumerate(face.calendar_buttons))
    assert order in dressed and face.calendar_buttons != ("today", "prev", "next")
    assert f"HOUR_PX = {face.hour_px};" in dressed
