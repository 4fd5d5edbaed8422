"""The persona world on the site: load_world on a small build (the seeding tests' persona plus one planted
contradiction), the World pages' search, filters and event chains, the task page's world block, and task
review (two distinct approvers, audit rows, who may see it)."""

import copy
import datetime as dt
import json
import shutil
import sqlite3

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import CommandError, call_command

from seeding.world.build import build
from seeding.world.check import check
from tests.factories import make_suite
from tests.seeding.test_seeding_world import SMALL
from world.models import ReviewAudit, TaskReview, World, WorldEvent, WorldRecord
from world.records.loading import WorldFolderError, load_world

pytestmark = pytest.mark.slow  # builds a persona world and loads it

PLANTED = {
    "id": "rent_claim",
    "type": "financial_discrepancy",
    "description": "Pat tells Robin the rent is paid, but Gringotts shows it bounced.",
    "apps": ["buzzchat"],
    "plant": [
        {
            "app": "buzzchat",
            "date": "2026-03-02",
            "time": "1:15pm",
            "contact": "Robin Friend",
            "text": "Rent is paid, no worries Robin.",
        }
    ],
}


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("world_site")
    spec = copy.deepcopy(SMALL)
    spec["planted_contradictions"] = [PLANTED]
    persona = base / "pat_tester.json"
    persona.write_text(json.dumps(spec))
    build(persona, base / "out", dt.date(2026, 4, 13))
    overlay = base / "overlay.json"
    overlay.write_text(
        json.dumps(
            {
                "entries": [
                    {"tasks": ["retrieval-w01"], "path": "trips.0.hotel", "op": "set", "why": "the hotel"},
                    {"tasks": ["retrieval-w01"], "path": "planted_contradictions.0.plant", "op": "set", "why": "x"},
                    {"tasks": ["other-w02"], "path": "trips.0.flight", "op": "set", "why": "the flight"},
                ]
            }
        )
    )
    return base / "out", overlay


@pytest.fixture
def loaded(db, build_dir):
    out, overlay = build_dir
    return load_world(out, overlay=overlay)["world"]


def _reviewer(name, *, staff=True, perm=True):
    user = User.objects.create_user(name, password="pw", is_staff=staff)
    if perm:
        user.user_permissions.add(Permission.objects.get(codename="review_tasks", content_type__app_label="world"))
    return User.objects.get(pk=user.pk)  # fresh instance: no cached permissions


# -- loading -------------------------------------------------------------------------------------------------


def test_load_world_indexes_every_row_with_its_event(loaded, build_dir, capsys):
    out, _ = build_dir
    assert loaded.persona == "Pat Tester"
    assert loaded.anchor == dt.date(2026, 4, 13)
    assert loaded.summary.startswith("# Pat Tester")
    # The small persona asks for 160 bank transactions.
    assert WorldRecord.objects.filter(world=loaded, app="vaultbank", kind="transactions").count() == 160
    con = sqlite3.connect(out / "apps" / "mail.sqlite")
    (n_mail,) = con.execute("SELECT COUNT(*) FROM messages").fetchone()
    assert WorldRecord.objects.filter(app="mail", kind="messages").count() == n_mail == 90
    hotel = WorldRecord.objects.get(app="vaultbank", kind="transactions", section="trips[0].hotel")
    assert hotel.title == "Harbor Inn HI-22222"
    assert str(hotel.amount) == "-300.00"
    assert hotel.date == dt.date(2026, 3, 19)
    assert hotel.event.event_id == "trips[0].hotel"
    assert WorldEvent.objects.get(event_id="trips[0].hotel").tasks == ["retrieval-w01"]
    assert WorldEvent.objects.get(event_id="planted_contradictions[0]").tasks == ["retrieval-w01"]


def test_load_world_command_prints_counts_and_reload_replaces_the_world(db, build_dir, capsys):
    out, overlay = build_dir
    call_command("load_world", str(out), "--overlay", str(overlay), "--no-progress")
    first = capsys.readouterr().out
    assert "Loaded the world of Pat Tester (anchor 2026-04-13)" in first
    assert "Gringotts" in first and "eTaxi" in first and "8 records" in first  # 8 rides asked for
    n = WorldRecord.objects.count()
    call_command("load_world", str(out), "--overlay", str(overlay), "--no-progress")
    assert World.objects.count() == 1
    assert WorldRecord.objects.count() == n


def test_a_folder_that_is_not_a_build_is_refused_by_name_and_keeps_the_world(loaded, tmp_path, build_dir):
    kept = WorldRecord.objects.filter(app="etaxi").count()
    assert kept > 0
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(CommandError, match="is not a seeding build: it has no manifest.json"):
        call_command("load_world", str(tmp_path), "--no-progress")
    with pytest.raises(CommandError, match="is not a folder"):
        call_command("load_world", str(tmp_path / "missing"), "--no-progress")
    broken = tmp_path / "broken"
    shutil.copytree(build_dir[0], broken)
    (broken / "apps" / "etaxi.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(WorldFolderError, match="etaxi.sqlite is not a readable SQLite database"):
        load_world(broken)
    (broken / "apps" / "etaxi.sqlite").unlink()
    with pytest.raises(CommandError, match=r"incomplete seeding build: missing apps/etaxi.sqlite"):
        call_command("load_world", str(broken), "--no-progress")
    assert list(World.objects.values_list("pk", flat=True)) == [loaded.pk]
    assert WorldRecord.objects.filter(app="etaxi").count() == kept


# -- World pages ----------------------------------------------------------------------------------------------


def test_world_pages_say_when_nothing_is_loaded(client, db):
    response = client.get("/world/")
    assert response.status_code == 200
    assert b"No world is loaded yet" in response.content


def test_overview_shows_summary_contacts_and_finances(client, loaded):
    page = client.get("/world/").content.decode()
    assert "<h1>Pat Tester</h1>" in page  # the summary's Markdown heading, rendered
    assert "Robin Friend" in page and "Sam Sister" in page
    assert "Everyday Checking" in page and "$1200.00" in page
    assert "Streamflix" in page


def test_summary_markdown_is_rendered_without_raw_html(client, loaded):
    loaded.summary = "# Pat\n\n<script>alert(1)</script>\n\n[x](javascript:alert(2))"
    loaded.save()
    page = client.get("/world/").content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="javascript:' not in page


def test_app_search_and_filters(client, loaded):
    page = client.get("/world/vaultbank/", {"q": "harbor HI-22222"}).content.decode()
    assert "1 record." in page and "Harbor Inn HI-22222" in page and "-300.00" in page
    page = client.get("/world/vaultbank/", {"q": "streamflix", "kind": "recurring_payments"}).content.decode()
    assert "1 record." in page
    # The ride to the airport is booked for May: its card charge comes when it happens, so no trip row in
    # Gringotts is dated after March yet; eTaxi lists the booked ride.
    page = client.get("/world/vaultbank/", {"section": "trips[0]", "from": "2026-04-01"}).content.decode()
    assert "No record matches." in page and "ET-152641" not in page
    page = client.get("/world/etaxi/", {"section": "trips[0]", "from": "2026-04-01"}).content.decode()
    assert "1 record." in page and "ET-152641" in page
    page = client.get("/world/vaultbank/", {"section": "trips[0]", "to": "2026-03-31"}).content.decode()
    assert "2 records." in page and "Dinoco Airlines DN1001 DN-11111" in page


def test_app_records_are_paginated_and_bad_filters_say_what_was_wrong(client, loaded):
    page = client.get("/world/vaultbank/", {"kind": "transactions"}).content.decode()
    assert "160 records." in page and "Page 1 of 4" in page
    response = client.get("/world/vaultbank/", {"from": "13/04/2026"})
    assert response.status_code == 400
    assert "From must be a date written YYYY-MM-DD, not &#x27;13/04/2026&#x27;." in response.content.decode()
    assert client.get("/world/not-an-app/").status_code == 404


def test_record_page_shows_every_field(client, loaded):
    page = client.get("/world/cheskepdia/bookings/1/").content.decode()
    assert "HI-22222" in page and "2026-04-25" in page and "Harbor Inn (Boston)" in page
    assert client.get("/world/cheskepdia/bookings/99/").status_code == 404


def test_event_page_shows_its_chain_across_apps(client, loaded):
    response = client.get("/world/events/trips%5B0%5D.hotel/")
    page = response.content.decode()
    assert response.status_code == 200
    chain = page[page.index("The chain of records") :]
    # The hotel lands in Cheskepdia, Gringotts and HooliMail, in the order the event names them.
    assert chain.index("Cheskepdia") < chain.index("Gringotts") < chain.index("HooliMail")
    assert "Harbor Inn HI-22222" in chain and "/world/cheskepdia/bookings/1/" in chain
    assert client.get("/world/events/trips%5B9%5D/").status_code == 404
    listing = client.get("/world/events/", {"q": "harbor"}).content.decode()
    assert "Harbor Inn (Boston)" in listing and "Dinoco DN1001" not in listing


# -- task page ------------------------------------------------------------------------------------------------


def test_task_page_shows_the_world_behind_the_task(client, loaded):
    suite = make_suite(["retrieval-w01", "other-w02"])
    suite.tasks.filter(task_id="retrieval-w01").update(
        instruction="When must I cancel my stay at the Harbor Inn (HI-22222) to get my money back?"
    )
    page = client.get(f"/tasks/{suite.slug}/retrieval-w01/").content.decode()
    block = page[page.index("The world behind this task") :]
    assert "Contradictions it plants" in block
    assert "Pat tells Robin the rent is paid" in block
    assert "/world/events/planted_contradictions%5B0%5D/" in block
    assert "Events it relies on" in block and "Harbor Inn (Boston)" in block
    assert "/world/cheskepdia/bookings/1/" in block  # HI-22222 found in Cheskepdia
    other = client.get(f"/tasks/{suite.slug}/other-w02/").content.decode()
    assert "Dinoco DN1001 AVP-BOS" in other and "Contradictions it plants" not in other


def test_task_page_has_no_world_block_without_a_world(client, db):
    suite = make_suite(["retrieval-w01"])
    page = client.get(f"/tasks/{suite.slug}/retrieval-w01/").content.decode()
    assert "The world behind this task" not in page


# -- review ---------------------------------------------------------------------------------------------------


def _post(client, suite, task_id, verdict, note=""):
    return client.post(f"/world/review/{suite.slug}/{task_id}/", {"verdict": verdict, "note": note})


def test_approval_needs_two_different_reviewers_and_every_change_is_audited(client, db):
    suite = make_suite(["retrieval-w01"])
    task = suite.tasks.get()
    alice, bob = _reviewer("alice"), _reviewer("bob")
    client.force_login(alice)
    assert _post(client, suite, "retrieval-w01", "approved").status_code == 302
    assert _post(client, suite, "retrieval-w01", "approved", "looks right").status_code == 302
    page = client.get(f"/world/review/{suite.slug}/retrieval-w01/").content.decode()
    assert 'State: <strong class="review-state review-unreviewed">Unreviewed' in page
    client.force_login(bob)
    _post(client, suite, "retrieval-w01", "approved")
    page = client.get(f"/world/review/{suite.slug}/retrieval-w01/").content.decode()
    assert 'review-approved">Approved' in page
    queue = client.get("/world/review/").content.decode()
    assert "1 of 1 approved" in queue
    recent = queue[queue.index("Recent changes") :]
    assert recent.index("bob") < recent.index("alice")  # newest first
    _post(client, suite, "retrieval-w01", "needs_changes", "rubric item 2 is vague")
    assert TaskReview.objects.filter(task=task).count() == 2
    rows = list(
        ReviewAudit.objects.filter(task=task)
        .order_by("id")
        .values_list("user__username", "after", "task_state_after", "note")
    )
    assert rows == [
        ("alice", "approved", "unreviewed", ""),
        ("alice", "approved", "unreviewed", "looks right"),
        ("bob", "approved", "approved", ""),
        ("bob", "needs_changes", "needs_changes", "rubric item 2 is vague"),
    ]
    page = client.get(f"/world/review/{suite.slug}/retrieval-w01/").content.decode()
    assert "rubric item 2 is vague" in page and "Needs changes" in page


def test_review_page_puts_rubric_beside_instruction_and_has_key_shortcuts(client, db):
    suite = make_suite(["retrieval-w01", "retrieval-w02"])
    client.force_login(_reviewer("carol"))
    page = client.get(f"/world/review/{suite.slug}/retrieval-w01/").content.decode()
    assert "Find the invoice." in page
    criterion = suite.tasks.get(task_id="retrieval-w01").current_rubric().first().criterion
    assert criterion in page
    assert 'data-key="a"' in page and 'data-key="c"' in page and "js/review_keys.js" in page
    assert f"/world/review/{suite.slug}/retrieval-w02/" in page
    response = client.post(
        f"/world/review/{suite.slug}/retrieval-w01/", {"verdict": "approved", "next_task": "retrieval-w02"}
    )
    assert response["Location"] == f"/world/review/{suite.slug}/retrieval-w02/"
    bad = _post(client, suite, "retrieval-w01", "maybe")
    assert bad.status_code == 400 and b"Unknown verdict 'maybe'" in bad.content


def test_only_staff_with_the_review_permission_see_review(client, db):
    suite = make_suite(["retrieval-w01"])
    response = client.get("/world/review/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    for user in (_reviewer("author", staff=False, perm=False), _reviewer("staffer", perm=False)):
        client.force_login(user)
        assert client.get("/world/review/").status_code == 403
        assert client.get(f"/world/review/{suite.slug}/retrieval-w01/").status_code == 403
        assert _post(client, suite, "retrieval-w01", "approved").status_code == 403
    assert not TaskReview.objects.exists() and not ReviewAudit.objects.exists()
    client.force_login(_reviewer("dora"))
    assert client.get("/world/review/").status_code == 200
    make_suite(["retrieval-w09"], slug="second-suite")
    only_second = client.get("/world/review/", {"suite": "second-suite"}).content.decode()
    assert "retrieval-w09" in only_second and "retrieval-w01" not in only_second
    missing = client.get("/world/review/", {"suite": "no-such-suite"})
    assert missing.status_code == 400 and b"No suite 'no-such-suite'" in missing.content
    assert missing["Content-Type"].startswith("text/plain")


def test_task_pages_and_review_show_each_tasks_answer_key_and_verdict(client, db, build_dir, tmp_path):
    out, overlay = build_dir
    world_dir = tmp_path / "world"
    shutil.copytree(out, world_dir)
    keys = tmp_path / "keys"
    keys.mkdir()
    accounts = {"need": "Pat's bank accounts", "app": "vaultbank", "sql": "SELECT id, name, balance FROM accounts"}
    lagoon = {"need": "The Blue Lagoon booking", "app": "cheskepdia", "sql": "SELECT id FROM bookings WHERE 0"}
    (keys / "retrieval-w01.json").write_text(json.dumps({"task": "retrieval-w01", "facts": [accounts, lagoon]}))
    (keys / "other-w02.json").write_text(json.dumps({"task": "other-w02", "facts": [accounts]}))
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"id": "retrieval-w01"}, {"id": "other-w02"}, {"id": "unlisted-w03"}]))
    check(world_dir, tasks, keys)
    load_world(world_dir, overlay=overlay)
    suite = make_suite(["retrieval-w01", "other-w02", "unlisted-w03", "later-w04"])
    client.force_login(_reviewer("erin"))
    queue = client.get("/world/review/").content.decode()
    assert "1 of 3 tasks solvable" in queue and "1 partial" in queue and "1 no key" in queue
    page = client.get(f"/world/review/{suite.slug}/retrieval-w01/").content.decode()
    assert "Answer key: <span" in page and ">partial</span>" in page
    assert "Pat&#x27;s bank accounts" in page and "The Blue Lagoon booking" in page
    assert "0 row(s), needs at least 1" in page  # why the booking is missing
    account = WorldRecord.objects.filter(app="vaultbank", kind="accounts").order_by("row_id").first()
    assert f"/world/vaultbank/accounts/{account.row_id}/" in page  # the fact links the records it found
    assert "Contradictions it plants" in page  # the world block, as on the task page
    assert ">solvable</span>" in client.get(f"/world/review/{suite.slug}/other-w02/").content.decode()
    assert ">no key</span>" in client.get(f"/world/review/{suite.slug}/unlisted-w03/").content.decode()
    later = client.get(f"/world/review/{suite.slug}/later-w04/").content.decode()
    assert "The check report has no entry for this task." in later
    task_page = client.get(f"/tasks/{suite.slug}/retrieval-w01/").content.decode()
    assert ">partial</span>" in task_page and "Missing</strong>: The Blue Lagoon booking" in task_page
    overview = client.get("/world/").content.decode()
    assert "1 of 3 tasks solvable" in overview and "Facts of the released world image" in overview
    # what is kept different on purpose is listed with its reason, apart from what differs
    assert "kept different on purpose" in overview
    assert "<code>GRINGOTTS_TOTAL_TRANSACTIONS</code>: Figure 1 count kept: 1,812 bank transactions" in overview
    # the text figures: how varied each message app is, and author notes that leak (none)
    assert "HooliMail, " in overview and "% of messages worded differently" in overview
    assert "Author notes leaking into user data: 0." in overview


def test_a_world_loaded_without_a_check_report_says_how_to_add_one(client, loaded):
    suite = make_suite(["retrieval-w01"])
    page = client.get(f"/tasks/{suite.slug}/retrieval-w01/").content.decode()
    assert "The loaded world has no check report" in page


def test_task_page_shows_planted_records_its_names_point_to(client, loaded):
    suite = make_suite(["uncited-w04", "unrelated-w05"])
    # Not cited by the overlay, but names two things the planted contradiction's description names.
    suite.tasks.filter(task_id="uncited-w04").update(
        instruction="So the rent is paid, says Pat. Did Robin believe Pat?"
    )
    suite.tasks.filter(task_id="unrelated-w05").update(instruction="How many rides did I take to the Office?")
    page = client.get(f"/tasks/{suite.slug}/uncited-w04/").content.decode()
    block = page[page.index("The world behind this task") :]
    assert "Planted records its names point to" in block and "Contradictions it plants" not in block
    assert "Pat tells Robin the rent is paid" in block
    other = client.get(f"/tasks/{suite.slug}/unrelated-w05/").content.decode()
    assert "Pat tells Robin the rent is paid" not in other
