"""The desktop guest's demo apps filled from a seeded world (`python -m seeding demo-apps`): on a build
of the small test persona, each page holds that world's records around the anchor day (the trip's
booking mail, the recurring card charge, the chat messages), in the shapes the page scripts read,
deterministically; a folder that is not a build is refused by name."""

import datetime as dt
import json
import re

import pytest

from seeding import demo_world_apps
from seeding.__main__ import main
from seeding.world.build import build
from tests.seeding.test_seeding_world import SMALL

pytestmark = pytest.mark.slow  # builds a persona world and renders the demo apps

ANCHOR = dt.date(2026, 4, 13)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = tmp_path_factory.mktemp("demo-apps-world")
    persona = base / "pat_tester.json"
    persona.write_text(json.dumps(SMALL))
    build(persona, base / "out", ANCHOR)
    return base / "out"


def _data(page_text: str, name: str):
    found = re.search(rf"const {name} = (.*?);\n", page_text, re.S)
    assert found, f"no {name} block"
    return json.loads(found.group(1))


def test_each_page_holds_the_worlds_records_around_the_anchor(world, tmp_path):
    counts = demo_world_apps.render(world, tmp_path / "pages")
    assert all(counts[k] > 0 for k in ("mails", "events", "transactions", "chats")), counts
    mail = (tmp_path / "pages" / "hoolimail.html").read_text()
    mails = _data(mail, "MAILS")
    assert mails == demo_world_apps.mails(world, ANCHOR) and len(mails) == counts["mails"]
    assert any("DN-11111" in m["subject"] + m["body"] for m in mails), "the Boston trip's booking mail"
    bank = (tmp_path / "pages" / "gringotts.html").read_text()
    tx = _data(bank, "TX")
    assert [t[0] for t in tx] == sorted((t[0] for t in tx), reverse=True), "newest first"
    assert all(
        ANCHOR - dt.timedelta(days=demo_world_apps.DEFAULT_DAYS) <= dt.date.fromisoformat(t[0]) <= ANCHOR for t in tx
    )
    assert any("Streamflix" in t[1] and t[3] == 12.99 for t in tx), "the recurring charge, as a charge"
    assert "limit $5,000.00" in bank and "Checking" in bank
    cal = (tmp_path / "pages" / "hoolicalendar.html").read_text()
    assert "const TODAY = new Date(2026, 3, 13);" in cal and "let weekStart = new Date(2026, 3, 12);" in cal
    events = _data(cal, "EVENTS")
    assert all({"t", "d", "s", "e", "k"} <= set(e) for e in events)
    chats = _data((tmp_path / "pages" / "hoolichat.html").read_text(), "CHANNELS")
    assert {"Robin Friend", "Sam Sister"} & {c["name"] for c in chats}
    assert all(c["messages"] for c in chats)
    assert "filled from the seeded world of 2026-04-13" in mail
    assert mail.count('<a href="hoolichat.html">HooliChat</a>') == 1, "the app switcher leads to the chat too"


def test_the_same_build_gives_the_same_pages(world, tmp_path):
    demo_world_apps.render(world, tmp_path / "one")
    demo_world_apps.render(world, tmp_path / "two")
    for name in demo_world_apps.PAGES:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_a_folder_that_is_not_a_build_is_refused_by_name(tmp_path, capsys):
    with pytest.raises(demo_world_apps.DemoAppsError, match="manifest.json"):
        demo_world_apps.render(tmp_path, tmp_path / "out")
    assert main(["demo-apps", str(tmp_path), str(tmp_path / "out")]) == 2
    assert "demo-apps failed" in capsys.readouterr().err


def _without_data(page: str) -> str:
    """A page with its data blocks, day constants, account cards, app links and footer stamp taken out."""
    for pattern in (r"const (MAILS|EVENTS|TX|CHANNELS) = \[.*?\];", r"const TODAY = new Date\([^)]*\);",
                    r"let weekStart = new Date\([^)]*\);", r'<div class="cards">.*?\n    </div>\n',
                    r'<nav class="demo-apps">.*?</nav>', r'<footer class="demo-footer">.*?</footer>'):  # fmt: skip
        page = re.sub(pattern, "", page, flags=re.S)
    return page


def test_variant_0_renders_the_hand_written_interface(world, tmp_path):
    demo_world_apps.render(world, tmp_path / "default")
    demo_world_apps.render(world, tmp_path / "zero", interface=0)
    for name in demo_world_apps.PAGES:
        page = (tmp_path / "zero" / name).read_text()
        assert page == (tmp_path / "default" / name).read_text(), name
        template = (demo_world_apps.TEMPLATES / name).read_text()
        assert _without_data(page) == _without_data(template), f"{name}: variant 0 changed more than the data"
        assert "interface of world variant" not in page


def test_a_variant_interface_moves_things_but_keeps_ids_and_records(world, tmp_path):
    demo_world_apps.render(world, tmp_path / "zero", interface=0)
    demo_world_apps.render(world, tmp_path / "three", interface=3)
    demo_world_apps.render(world, tmp_path / "again", interface=3)
    demo_world_apps.render(world, tmp_path / "five", interface=5)
    face = demo_world_apps.interface_of(3)
    for name in demo_world_apps.PAGES:
        zero, three = (tmp_path / "zero" / name).read_text(), (tmp_path / "three" / name).read_text()
        assert three == (tmp_path / "again" / name).read_text(), f"{name}: not deterministic"
        assert three != zero and three != (tmp_path / "five" / name).read_text(), name
        assert "/* interface of world variant 3 */" in three
        assert set(re.findall(r'id="([a-z]+)"', three)) == set(re.findall(r'id="([a-z]+)"', zero)), name
    bank = (tmp_path / "three" / "gringotts.html").read_text()
    assert f"const PAGE_SIZE = {face.page_size};" in bank and face.page_size != 10
    heads = re.search(r"<thead><tr>(.*?)</tr></thead>", bank).group(1)
    assert re.findall(r">(\w+)</th>", heads) == list(face.columns) != ["Date", "Description", "Category", "Amount"]
    zero_tx = _data((tmp_path / "zero" / "gringotts.html").read_text(), "TX")
    assert _data(bank, "TX") == (zero_tx[::-1] if face.oldest_first else zero_tx), "the same records"
    assert _data((tmp_path / "three" / "hoolimail.html").read_text(), "MAILS") == _data(
        (tmp_path / "zero" / "hoolimail.html").read_text(), "MAILS"
    )
    links = re.findall(r'<a href="(\w+)\.html">', re.search(r'<nav class="demo-apps">.*?</nav>', bank).group(0))
    assert links == [app.lower() for app in face.switcher] != ["hoolimail", "hoolicalendar", "gringotts", "hoolichat"]


def test_the_command_line_renders_a_chosen_interface(world, tmp_path, capsys):
    assert main(["demo-apps", str(world), str(tmp_path / "pages"), "--interface", "4"]) == 0
    assert "/* interface of world variant 4 */" in (tmp_path / "pages" / "hoolimail.html").read_text()
