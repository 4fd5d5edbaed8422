"""The player payload (steps, images, placeholders, cited steps per judge, detected apps), the
steps-since API a live player polls, and the player and compare pages as HTML."""

import json

import pytest
from django.urls import reverse

from harness.results import StepRecord
from leaderboard.models import JudgeConfig
from tests.factories import make_suite, write_task_dir
from trajectories.models import Judgment, Step, Trajectory
from trajectories.player import payloads
from trajectories.recording import ingest, media, selectors
from trajectories.recording.import_results import import_results

pytestmark = pytest.mark.django_db

ACTIONS = [
    (1, "pyautogui.click(640, 400)"),
    (2, "pyautogui.moveTo(100, 200)\npyautogui.dragTo(300, 220, duration=0.5)"),
    (3, "pyautogui.scroll(-5, x=600, y=300)"),
    (4, "pyautogui.typewrite('http://localhost:3016/inbox\\n')"),
    (5, "DONE"),
]


@pytest.fixture
def imported(tmp_path):
    make_suite(["retrieval-f016", "retrieval-f017"])
    results = tmp_path / "results"
    write_task_dir(results, "retrieval-f016", actions=ACTIONS, full_judge=[True, False, True])
    write_task_dir(results, "retrieval-f017", full_judge=[True, True, True])
    summary = import_results(results, "Player run", model_name="Claude Opus 4.6", publish=True)
    # Derivatives are requested on commit, which a test transaction never reaches: make them here.
    for t in summary.run.trajectories.all():
        media.make_trajectory_derivatives(t.pk)
    return summary.run


def payload_for(trajectory):
    from django.contrib.auth.models import AnonymousUser

    return payloads.player_payload(selectors.trajectory_detail(AnonymousUser(), trajectory.pk))


@pytest.fixture
def anonymous():
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser()


def first_trajectory(run, task_id="retrieval-f016"):
    return Trajectory.objects.get(run=run, task__task_id=task_id)


def test_payload_has_every_step_with_derivative_urls_and_parsed_actions(imported, anonymous):
    t = first_trajectory(imported)
    data = payloads.player_payload(selectors.trajectory_detail(anonymous, t.pk))
    steps = data["steps"]
    assert [s["index"] for s in steps] == [1, 2, 3, 4, 5]
    first = steps[0]
    # The display WebP, not the PNG, is what the stage loads; the original stays reachable.
    assert first["image"].endswith(".webp") and "/derivatives/" in first["image"]
    # ...offered first as AVIF, which the stage's <picture> takes where the browser has it.
    assert first["image_avif"].endswith(".avif") and "/derivatives/" in first["image_avif"]
    # (A 64x40 screenshot is below both widths: when both encodings come out byte-identical they
    # share one content-addressed file, fetched once.)
    assert first["thumb"].endswith(".webp") and "/derivatives/" in first["thumb"]
    assert first["original"].endswith(".png")
    assert first["action"] == {"type": "click", "x": 640, "y": 400}
    assert (first["width"], first["height"]) == (64, 40)
    assert first["problem"] == ""
    assert steps[1]["action"]["type"] == "drag" and steps[1]["action"]["from_x"] == 100
    assert steps[2]["action"]["dy"] == -5
    assert "click" in first["alt"].lower()
    assert data["trajectory"]["ended_by"] == "done"
    assert data["live"] is None
    # The whole payload survives json_script.
    json.dumps(data)


def test_cited_steps_map_to_rubric_items_per_judge(imported, anonymous):
    t = first_trajectory(imported)
    judge = JudgeConfig.objects.create(name="our-judge", origin="ours", model="m")
    items = {j.rubric_item.position: j.rubric_item for j in t.judgments.all()}
    Judgment.objects.create(trajectory=t, rubric_item=items[1], judge=judge, verdict="success", cited_steps=[4, 1, 99])
    Judgment.objects.create(trajectory=t, rubric_item=items[2], judge=judge, verdict="error", explanation="API 503")
    data = payloads.player_payload(selectors.trajectory_detail(anonymous, t.pk))
    judges = data["judges"]
    # Ours first, then the imported judge from the result folder.
    assert [j["origin"] for j in judges] == ["ours", "imported"]
    ours = judges[0]["items"]
    # Step 99 does not exist: it is dropped; the rest are sorted.
    assert ours[0]["cited_steps"] == [1, 4]
    assert ours[1]["verdict"] == "error" and ours[1]["verdict_label"].startswith("Error")
    imported_items = judges[1]["items"]
    assert [i["verdict"] for i in imported_items] == ["success", "failure", "success"]
    # "Seen in step 2." in the imported reasoning becomes a cited step.
    assert imported_items[0]["cited_steps"] == [2]


def test_stale_judgments_are_marked(imported, anonymous):
    t = first_trajectory(imported)
    item = t.judgments.first().rubric_item
    item.is_current = False
    item.save()
    data = payload_for(t)
    flags = {i["rubric_id"]: i["stale"] for i in data["judges"][0]["items"]}
    assert flags["R1"] is True and flags["R2"] is False


def test_missing_derivatives_fall_back_to_the_original_and_media_errors_give_a_placeholder(imported):
    t = first_trajectory(imported)
    Step.objects.filter(trajectory=t, index=1).update(display_image="", thumbnail="")
    Step.objects.filter(trajectory=t, index=2).update(
        display_image="", thumbnail="", media_error="screenshot is not a readable image: x.png (truncated)"
    )
    Step.objects.filter(trajectory=t, index=3).update(screenshot="", display_image="", thumbnail="")
    steps = {s["index"]: s for s in payload_for(t)["steps"]}
    assert steps[1]["image"].endswith(".png") and steps[1]["problem"] == ""
    assert steps[2]["image"] == "" and "truncated" in steps[2]["problem"]
    assert steps[2]["original"].endswith(".png")  # still downloadable
    assert steps[3]["image"] == "" and steps[3]["problem"] == payloads.NO_SCREENSHOT


def test_app_is_read_from_ports_then_names():
    def step(**kw):
        return Step(action_text=kw.get("action", ""), model_text=kw.get("text", ""), tool_output=kw.get("out", ""))

    assert payloads.step_app(step(action="pyautogui.typewrite('localhost:3016/inbox')")) == "HooliMail"
    assert payloads.step_app(step(out="curl http://127.0.0.1:3001/api")) == "Gringotts"
    # The model's prose never labels a step: only what the agent touched.
    assert payloads.step_app(step(text="Now I open hoolicalendar to check")) == ""
    assert payloads.step_app(step(action="pyautogui.click(5, 5)", text="Back in HooliMail"), "HooliWork") == "HooliWork"
    assert payloads.step_app(step(action="pyautogui.click(1, 2)", text="Thinking")) == ""
    # An unknown port names no app.
    assert payloads.step_app(step(action="localhost:8080")) == ""


def test_player_page_embeds_the_payload_as_json_without_inline_script(client, imported):
    t = first_trajectory(imported)
    response = client.get(reverse("trajectories:trajectory_player", args=[t.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<script id="player-data" type="application/json">' in html
    assert "js/player.js" in html and "css/player.css" in html
    assert "script-src 'self'" in response["Content-Security-Policy"]
    # the plain step list stays one click away, and the trajectory page links to the player
    assert reverse("trajectories:trajectory_detail", args=[t.pk]) in html
    detail = client.get(reverse("trajectories:trajectory_detail", args=[t.pk])).content.decode()
    assert reverse("trajectories:trajectory_player", args=[t.pk]) in detail


def test_hostile_text_stays_inert_in_the_embedded_payload(client, imported):
    t = first_trajectory(imported)
    Step.objects.filter(trajectory=t, index=1).update(model_text="</script><script>alert(1)</script>")
    html = client.get(reverse("trajectories:trajectory_player", args=[t.pk])).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "\\u003C/script\\u003E" in html


def test_draft_runs_are_not_playable_by_visitors(client, imported):
    imported.publication = "draft"
    imported.save()
    t = first_trajectory(imported)
    assert client.get(reverse("trajectories:trajectory_player", args=[t.pk])).status_code == 404
    assert client.get(f"/api/trajectories/{t.pk}/steps").status_code == 404


def test_steps_since_returns_only_newer_steps_and_the_state(client, imported):
    t = first_trajectory(imported)
    body = client.get(f"/api/trajectories/{t.pk}/steps?since=3").json()
    assert [s["index"] for s in body["steps"]] == [4, 5]
    assert body["running"] is False and body["ended_by"] == "done"
    assert body["steps"][0]["app"] == "HooliMail"


def test_a_running_trajectory_polls_and_sees_steps_added_by_ingest(client, imported):
    run = imported
    task = first_trajectory(run).task
    live = ingest.start_trajectory(run, task, attempt=1)
    data = payload_for(live)
    assert data["live"]["url"] == f"/api/trajectories/{live.pk}/steps"
    assert data["steps"] == []
    ingest.add_step(live, StepRecord(index=1, turn=1, tool="bash", action={"type": "bash"}, action_text="ls ~"))
    body = client.get(f"/api/trajectories/{live.pk}/steps?since=0").json()
    assert body["running"] is True
    assert [s["index"] for s in body["steps"]] == [1]
    assert body["steps"][0]["problem"] == payloads.NO_SCREENSHOT


def test_compare_two_trajectories_of_one_task(client, imported, tmp_path, anonymous):
    make_results = tmp_path / "second"
    write_task_dir(make_results, "retrieval-f016", full_judge=[True, True, False])
    second = import_results(make_results, "Second run", model_name="GPT-5.4", publish=True).run
    a, b = first_trajectory(imported), first_trajectory(second)
    data = payloads.compare_payload(anonymous, a.pk, b.pk)
    assert data["differing"] == ["R2", "R3"]
    response = client.get(reverse("trajectories:trajectory_compare") + f"?a={a.pk}&b={b.pk}")
    assert response.status_code == 200
    assert '<script id="compare-data" type="application/json">' in response.content.decode()


def test_compare_refuses_different_tasks_and_bad_ids(client, imported):
    a = first_trajectory(imported)
    other = first_trajectory(imported, "retrieval-f017")
    url = reverse("trajectories:trajectory_compare")
    response = client.get(url + f"?a={a.pk}&b={other.pk}")
    assert response.status_code == 400
    assert b"retrieval-f016" in response.content and b"same task" in response.content
    response = client.get(url + "?a=<script>&b=2")
    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")
    assert b"whole numbers" in response.content and b"<script>&" not in response.content
    # without any ids: a page that says how to pick two trajectories, not an error
    response = client.get(url)
    assert response.status_code == 200 and b"Compare two trajectories" in response.content
    assert reverse("leaderboard:task_list").encode() in response.content


def test_leaderboard_compare_links_each_task_to_the_side_by_side_player(client):
    from django.core.cache import cache

    from tests.board_data import build_board

    cache.clear()  # the board caches scored outcomes per data version
    build_board()
    response = client.get("/compare/?a=run-a&b=run-b")
    c = response.context["c"]
    html = response.content.decode()
    both = [t for t in c.tasks if t.a_trajectory and t.b_trajectory]
    assert both
    for t in both:
        link = f"{reverse('trajectories:trajectory_compare')}?a={t.a_trajectory}&amp;b={t.b_trajectory}"
        assert link in html
        # ...and the link opens: both are trajectories of the same task.
        assert client.get(link.replace("&amp;", "&")).status_code == 200
    # Rows missing a trajectory on one side get no link.
    assert html.count('class="side-by-side"') == len(both)


def test_a_visitors_cached_player_follows_steps_and_never_outlives_a_withdrawal(client, imported, settings):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 60  # production-like: the last page may be served a while
    t = first_trajectory(imported)
    url = reverse("trajectories:trajectory_player", args=[t.pk])
    assert "the words of step one" not in client.get(url).content.decode()
    step = Step.objects.get(trajectory=t, index=1)
    step.model_text = "the words of step one"
    step.save()
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0
    assert "the words of step one" in client.get(url).content.decode()
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 60
    imported.publication = "draft"
    imported.save()
    assert client.get(url).status_code == 404  # within the window, but a run changed: not served


def test_a_visitors_cached_player_is_rebuilt_for_its_own_changes_only(client, imported, settings, monkeypatch):
    # Every change shows at once (no refresh window): the page is rebuilt when its trajectory, its
    # steps, its judgments, its model or its task change, and not when another trajectory is judged
    # (a run being judged used to rebuild every player page it touched).
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0
    builds = []
    real = payloads.player_payload
    monkeypatch.setattr(payloads, "player_payload", lambda t: builds.append(t.pk) or real(t))
    t, other = first_trajectory(imported), first_trajectory(imported, "retrieval-f017")
    url = reverse("trajectories:trajectory_player", args=[t.pk])
    judge = JudgeConfig.objects.filter(judgments__trajectory=t).distinct().first()
    client.get(url)
    assert len(builds) == 1

    theirs = Judgment.objects.filter(trajectory=other, judge=judge).first()
    theirs.explanation = "another trajectory's verdict, re-judged"
    theirs.save()
    Judgment.objects.filter(trajectory=other).update(explanation="bulk re-judged elsewhere")
    assert client.get(url).status_code == 200 and len(builds) == 1, "served from the cache"

    mine = Judgment.objects.filter(trajectory=t, judge=judge).first()
    mine.explanation = "Seen on the sixth screen."
    mine.save(update_fields=["explanation"])
    assert "Seen on the sixth screen." in client.get(url).content.decode() and len(builds) == 2

    Judgment.objects.filter(trajectory=t).update(explanation="Re-judged in bulk.")
    assert "Re-judged in bulk." in client.get(url).content.decode() and len(builds) == 3

    step = Step.objects.get(trajectory=t, index=1)
    step.media_error = "derivative failed: a broken image"
    step.save(update_fields=["media_error"])
    client.get(url)
    assert len(builds) == 4, "a step saved with some fields only moves the page's key"

    imported.model.name = "Claude Opus 4.6 (renamed)"
    imported.model.save()
    assert "Claude Opus 4.6 (renamed)" in client.get(url).content.decode() and len(builds) == 5
    client.get(url)
    assert len(builds) == 5


def test_a_cached_player_costs_no_query_while_nothing_is_saved(client, imported, settings, monkeypatch):
    # Production-like window: the page's own version is read at most once a second per process while
    # no save moves the signal counter, so a hit reads no SQL; a save elsewhere costs one small query
    # for this page's own rows, and the page is still served from the cache.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from mypcbench_site import page_cache

    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    clock = [2_000_000.0]
    monkeypatch.setattr(page_cache.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(page_cache, "_page_memos", {})
    t, other = first_trajectory(imported), first_trajectory(imported, "retrieval-f017")
    url = reverse("trajectories:trajectory_player", args=[t.pk])
    first = client.get(url).content
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).content == first
    assert len(ctx.captured_queries) == 0, [q["sql"] for q in ctx.captured_queries]
    judgment = Judgment.objects.filter(trajectory=other).first()
    judgment.save()
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).content == first
    assert len(ctx.captured_queries) == 1, [q["sql"] for q in ctx.captured_queries]
