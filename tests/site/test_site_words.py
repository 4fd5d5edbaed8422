"""What a visitor reads around the numbers: the site's own error pages even with DEBUG on (the demo),
the CSP that lets only Plotly's one fixed style in, the score at the top of a run page and of the
player, the methodology page every number's header links to, and the submission guide's sample
archive (which the upload checks accept as it is)."""

import io
import json
import re
import zipfile

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from leaderboard.models import Run
from mypcbench_site.middleware import POLICY
from tests.factories import make_suite, write_task_dir

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(tmp_path):
    make_suite(["retrieval-f016", "retrieval-f017"])
    results = tmp_path / "results"
    write_task_dir(results, "retrieval-f016", full_judge=[True, False, True])
    write_task_dir(results, "retrieval-f017", full_judge=[True, True, True])
    # Through the command, as a maintainer imports (it classifies imported failed verdicts).
    call_command(
        "import_results", str(results), "--run", "Words run", "--model", "Claude Opus 4.6", "--publish",
        stdout=io.StringIO(),
    )  # fmt: skip
    return Run.objects.get(name="Words run")


@override_settings(DEBUG=True, MYPCBENCH_FRIENDLY_ERRORS=True)
def test_error_pages_are_the_sites_own_even_with_debug_on(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Page not found" in html and "Traceback" not in html and "URLconf" not in html
    assert f'href="{reverse("leaderboard:board")}"' in html
    # the API keeps its own JSON answers
    assert client.get("/api/runs/no-such-run").headers["Content-Type"].startswith("application/json")


@override_settings(DEBUG=True, MYPCBENCH_FRIENDLY_ERRORS=False)
def test_without_the_setting_debug_pages_stay_for_developers(client):
    assert "URLconf" in client.get("/no-such-page/").content.decode()


def test_the_csp_allows_plotlys_fixed_style_by_hash_and_nothing_inline():
    style_src = next(d for d in POLICY.split(";") if d.strip().startswith("style-src")).split()
    assert style_src[:2] == ["style-src", "'self'"]
    assert "'unsafe-inline'" not in style_src
    assert all(s.startswith("'sha256-") for s in style_src[2:]) and len(style_src) == 3


def test_run_page_and_player_lead_with_the_score(client, run):
    page = client.get(reverse("leaderboard:run_detail", args=[run.slug])).content.decode()
    headline = page[page.index('class="headline-scores"') : page.index("</dl>", page.index("headline-scores"))]
    # one of two tasks has every item passed: 50.0%; the rubric % is the leaderboard's own figure
    board_row = next(r for r in client.get(reverse("leaderboard:board")).context["rows"] if r.run_slug == run.slug)
    assert "50.0" in headline and "1 of 2 tasks" in headline
    assert f'<span class="iv-point">{board_row.rubric.value:.1f}</span>' in headline
    assert f'href="{reverse("leaderboard:methodology")}#perfect"' in headline
    perfect = run.trajectories.get(task__task_id="retrieval-f017")
    partly = run.trajectories.get(task__task_id="retrieval-f016")
    player = client.get(reverse("trajectories:trajectory_player", args=[perfect.pk])).content.decode()
    assert "Score 100%" in player and '<details class="player-instruction" open>' in player
    partly_page = client.get(reverse("trajectories:trajectory_player", args=[partly.pk])).content.decode()
    shown = int(re.search(r"Score (\d+)%", partly_page).group(1))
    assert 0 < shown < 100  # partly done: neither the green nor the red label
    assert "Score 100%" not in partly_page


def test_methodology_explains_every_header_anchor(client):
    html = client.get(reverse("leaderboard:methodology")).content.decode()
    for anchor in ("perfect", "rubric", "efficiency", "steps", "cost", "tasks", "rank", "intervals", "judge", "badges"):
        assert f'id="{anchor}"' in html, anchor
    for badge in ("verified", "test run", "demo run", "reported", "re-judged"):
        assert f">{badge}</span>" in html, badge


@pytest.mark.slow
def test_the_guide_describes_meta_json_and_its_sample_archive_passes_the_upload_checks(client, settings, tmp_path):
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile

    from trajectories.submissions.uploads import submit_archive

    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    guide = client.get(reverse("leaderboard:submission_guide")).content.decode()
    assert "meta.json" in guide and "turn_budget" in guide and reverse("leaderboard:sample_archive") in guide
    assert "Sign up to submit" in guide  # anonymous visitors are shown the way in
    response = client.get(reverse("leaderboard:sample_archive"))
    data = response.content
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        meta = json.loads(z.read("meta.json"))
        assert any(name.endswith("/traj.jsonl") for name in z.namelist())
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    author = get_user_model().objects.create_user("guide-reader", password="pw-guide-2026")
    result = submit_archive(author, SimpleUploadedFile("sample.zip", data), meta)
    assert result.submission.run.trajectories.count() == 1


def test_imported_failed_verdicts_get_a_failure_mode_from_signals_without_an_llm(run):
    from trajectories.models import Judgment

    failed = list(Judgment.objects.filter(trajectory__run=run, verdict="failure"))
    assert failed, "the fixture has a failed item"
    for judgment in failed:
        # the agent ended the task itself after a few turns: "ended early by its own done"
        assert judgment.signals["ended_by_done_before_budget"] is True
        assert judgment.failure_mode == "premature_done", judgment.explanation
