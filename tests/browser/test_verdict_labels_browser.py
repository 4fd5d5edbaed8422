"""The player and the compare page as an author sees them in Chromium: the rubric of their own upload
names the judge and labels every one of their own verdicts "self-reported, not scored", drawn grey
(never our green "Success"); picking our judge instead names ours and draws its verdicts in colour."""

import pytest
from django.contrib.auth import get_user_model

from leaderboard.models import JudgeConfig
from tests.factories import make_suite
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.models import Judgment
from trajectories.submissions.uploads import submit_archive

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LABEL = "self-reported, not scored"


def test_an_authors_own_verdicts_are_labelled_and_named_in_the_player(page, live_server, settings, tmp_path, shot):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    make_suite(TASK_IDS)
    author = get_user_model().objects.create_user("pam", password="pw-beesly-2026")
    data = zip_bytes(good_entries(tmp_path, full_judge=[True, False, True]))
    run = submit_archive(author, upload(data, "opus-run.zip"), METADATA).submission.run
    trajectory = run.trajectories.get(task__task_id=TASK_IDS[0])

    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", "pam")
    page.fill("#id_password", "pw-beesly-2026")
    page.click("button[type=submit]")
    page.wait_for_url("**/submissions/")
    page.goto(f"{live_server.url}/trajectories/{trajectory.pk}/play/")
    page.wait_for_function("() => window.__playerPainted !== undefined")
    own = JudgeConfig.objects.get(origin=JudgeConfig.Origin.SELF_REPORTED)
    assert page.locator("#verdicts-by").inner_text().startswith(f"Verdicts by {own.name}")
    assert LABEL in page.locator("#verdicts-by").inner_text()
    items = page.locator("#rubric-list .rubric-item")
    assert items.count() == 3
    for i in range(3):
        assert LABEL in items.nth(i).inner_text()
    assert page.locator("#rubric-list .verdict-success").count() == 0, "an author's verdict drawn in our green"
    assert page.locator("#rubric-list .verdict-self-reported").count() == 3
    shot(page, "player-self-reported")
    # the compare page names each side's judge and labels the author's verdicts the same way
    page.goto(f"{live_server.url}/trajectories/compare/?a={trajectory.pk}&b={trajectory.pk}")
    page.wait_for_selector("#compare:not([hidden])")
    assert f"verdicts by {own.name} ({LABEL})" in page.locator("#cmp-col-a").text_content()
    assert page.locator("table.compare-rubric .verdict-success").count() == 0
    assert page.locator("table.compare-rubric .badge-self-reported").count() == 6

    # our judge judges it too: ours comes first, named; the author's stay one pick away, labelled
    ours = JudgeConfig.objects.create(name="our judge (gemini-3.1-flash-lite, v3)", origin="ours", model="m")
    for judgment in trajectory.judgments.all():
        Judgment.objects.create(trajectory=trajectory, rubric_item=judgment.rubric_item, judge=ours, verdict="success")
    page.goto(f"{live_server.url}/trajectories/{trajectory.pk}/play/")
    page.wait_for_function("() => window.__playerPainted !== undefined")
    assert page.locator("#verdicts-by").inner_text().startswith(f"Verdicts by {ours.name} (Our judge)")
    assert page.locator("#rubric-list .verdict-success").count() == 3
    assert LABEL not in page.locator("#rubric-list").inner_text()
    options = page.locator("#judge-select option").all_inner_texts()
    assert options == [f"{ours.name} (Our judge)", f"{own.name} (Self-reported by the author; {LABEL})"]
    page.select_option("#judge-select", "1")
    assert page.locator("#verdicts-by").inner_text().startswith(f"Verdicts by {own.name}")
    assert page.locator("#rubric-list .verdict-self-reported").count() == 3
