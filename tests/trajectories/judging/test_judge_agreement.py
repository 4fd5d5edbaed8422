"""Judge agreement with human labels up front: kappa and accuracy against textbook and hand-computed
tables (neither scipy nor scikit-learn is installed, so the cases are worked out by hand), the bootstrap
interval of kappa, the judges' pages overall, per behavioural type and per app, their CSV/JSON/API
exports, the mark beside every leaderboard row, drafts' labels hidden from visitors, and the labelling
queue's most-informative-first order."""

import csv
import io
import re

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.board_data import build_board, judge
from tests.html_text import visible_text
from trajectories.judging.agreement import AgreementFigures, kappa_interval
from trajectories.models import HumanLabel, Judgment, StateCheckResult

pytestmark = pytest.mark.django_db

S, F = "success", "failure"


def figures(ss, sf, fs, ff) -> AgreementFigures:
    f = AgreementFigures("x")
    for judge_says, human_says, count in [(True, True, ss), (True, False, sf), (False, True, fs), (False, False, ff)]:
        for _ in range(count):
            f.table.add(judge_says, human_says)
    return f


@pytest.mark.parametrize(
    "table, kappa",
    [
        # the worked examples of Cohen's kappa (Wikipedia, "Cohen's kappa"): 50 and 100 items
        ((20, 5, 10, 15), 0.4),  # po 0.70, pe 0.50
        ((45, 15, 25, 15), 0.1304),  # po 0.60, pe 0.54
        ((25, 35, 5, 35), 0.2593),  # po 0.60, pe 0.46
        ((10, 0, 0, 5), 1.0),
    ],
)
def test_kappa_matches_the_textbook_tables(table, kappa):
    assert figures(*table).kappa == pytest.approx(kappa, abs=1e-4)


def test_accuracy_has_its_wilson_interval():
    f = figures(20, 5, 10, 15)  # 35 of 50 agree
    assert f.accuracy == pytest.approx(0.7)
    low, high = f.accuracy_interval
    assert (round(low, 3), round(high, 3)) == (0.562, 0.809)  # worked by hand, z = 1.96


def test_kappa_interval_is_a_reproducible_bootstrap_that_narrows_with_labels():
    small = kappa_interval(20, 5, 10, 15)
    assert small == kappa_interval(20, 5, 10, 15)  # the same seed: the same page on every load
    assert small[0] < 0.4 < small[1]
    large = kappa_interval(200, 50, 100, 150)  # ten times the labels, same proportions
    assert large[0] < 0.4 < large[1] and (large[1] - large[0]) < (small[1] - small[0]) / 2
    # the large-sample standard error of this table is 0.041 (Cohen 1960: sqrt(po(1-po)/n)/(1-pe)), so a
    # 95% interval is about 0.08 either side
    assert 0.06 < (large[1] - large[0]) / 2 < 0.10
    # no interval under 10 labels, nor when one side gave one answer throughout (every replicate would be 0)
    assert kappa_interval(3, 1, 1, 3) is None and kappa_interval(0, 0, 0, 0) is None
    assert kappa_interval(0, 0, 6, 6) is None and kappa_interval(12, 0, 0, 0) is None
    assert kappa_interval(5, 0, 0, 5) is not None


def labelled_board():
    """The hand-built board with our judge's verdicts labelled on the published runs A and B:

    A t1 S/S, A t2 S/S and F/S, A t3 S/F and F/F, B t1 F/F (first labelled S: the latest wins),
    A t4's error labelled (left out). Overall ss 2, sf 1, fs 1, ff 2: kappa 1/3, 4 of 6 agree.
    personal_lookup (t1, t2): ss 2, fs 1, ff 1 -> kappa 0.5; bounded_action (t3): sf 1, ff 1 -> 0.
    HooliMail (t1, t3): ss 1, sf 1, ff 2 -> 0.5; HooliCalendar (t2): ss 1, fs 1 -> 0.
    A draft run C gets one verdict labelled against the judge: only maintainers count it.
    The upstream judge has no label: "not yet checked"."""
    board = build_board()
    maintainer = User.objects.create_user("labeller", is_staff=True, is_superuser=True)

    def label(run, task_id, position, verdict):
        j = Judgment.objects.get(
            trajectory__run=run, trajectory__task=board.tasks[task_id], rubric_item=board.items[task_id][position],
            judge=board.ours,
        )  # fmt: skip
        HumanLabel.objects.create(judgment=j, verdict=verdict, labeller=maintainer)
        return j

    label(board.a, "t1", 0, S)
    label(board.a, "t2", 0, S)
    label(board.a, "t2", 1, S)
    label(board.a, "t3", 0, F)
    label(board.a, "t3", 1, F)
    label(board.b, "t1", 0, S)
    label(board.b, "t1", 0, F)
    label(board.a, "t4", 2, S)  # the judge's error: nothing to compare
    draft = board.c.trajectories.get()
    judge(draft, board.items["t1"], [S], board.ours)
    label(board.c, "t1", 0, F)
    return board, maintainer


@pytest.fixture
def labelled_judges():
    return labelled_board()


def row_html(response, run, judge_name):
    html = response.content.decode()
    return re.search(rf'<tr data-run="{run}" data-judge="{re.escape(judge_name)}".*?</tr>', html, flags=re.S).group(0)


def test_the_judges_page_lists_each_judge_with_its_figures(client, labelled_judges):
    board, _ = labelled_judges
    page = client.get("/judges/")
    assert page.status_code == 200
    text = visible_text(page)
    ours = visible_text(re.search(rf'<tr data-judge="{board.ours.pk}">.*?</tr>', page.content.decode(), re.S).group(0))
    # 23 success/failure verdicts of ours on published runs (superseded items too); 6 labelled, 4 agree
    assert ours.startswith("our judge (test) Our judge 23 6 0.33 (no interval: too few labels)")
    assert "4 of 6 (67%) [30%, 90%]" in ours  # Wilson 4/6: [0.300, 0.903]
    upstream = re.search(rf'<tr data-judge="{board.upstream.pk}">.*?</tr>', page.content.decode(), re.S).group(0)
    assert "not yet checked" in visible_text(upstream)
    assert "What these numbers mean" in text


def test_one_judges_page_splits_by_behavioural_type_and_app(client, labelled_judges):
    board, _ = labelled_judges
    page = client.get(f"/judges/{board.ours.pk}/")
    assert page.status_code == 200
    html = page.content.decode()

    def slice_text(key):
        return visible_text(re.search(rf'<tr data-slice="{key}">.*?</tr>', html, re.S).group(0))

    assert slice_text("all").startswith("all labelled items 6 0.33")
    assert slice_text("personal_lookup").startswith("Personal lookup 4 0.50")
    assert slice_text("bounded_action").startswith("Bounded action 2 0.00")
    assert slice_text("HooliMail").startswith("HooliMail 4 0.50")
    assert slice_text("HooliCalendar").startswith("HooliCalendar 2 0.00")
    assert "6 human labels, kappa 0.33" in visible_text(page)
    assert client.get(f"/judges/{board.upstream.pk}/").status_code == 200
    assert "Not yet checked" in visible_text(client.get(f"/judges/{board.upstream.pk}/"))
    assert client.get("/judges/999999/").status_code == 404


def test_labels_on_draft_runs_count_only_for_maintainers(client, labelled_judges):
    board, maintainer = labelled_judges
    anonymous = client.get(f"/judges/{board.ours.pk}/?format=json").json()["judges"][0]
    assert (anonymous["labels"], anonymous["agreed"]) == (6, 4)
    client.force_login(maintainer)
    staff = client.get(f"/judges/{board.ours.pk}/?format=json").json()["judges"][0]
    assert (staff["labels"], staff["agreed"], staff["judge_success_human_failure"]) == (7, 4, 2)


def test_exports_and_api_give_the_same_figures(client, labelled_judges):
    board, _ = labelled_judges
    response = client.get("/judges/?format=csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    overall = next(r for r in rows if r["judge"] == "our judge (test)" and r["slice_kind"] == "overall")
    assert (overall["labels"], overall["agreed"], overall["kappa"]) == ("6", "4", "0.33")
    assert (overall["accuracy"], overall["accuracy_low"], overall["accuracy_high"]) == ("0.667", "0.3", "0.903")
    assert overall["kappa_low"] == overall["kappa_high"] == ""  # under 10 labels: no kappa interval
    by_app = {r["slice"]: r["kappa"] for r in rows if r["judge"] == "our judge (test)" and r["slice_kind"] == "app"}
    assert by_app == {"HooliMail": "0.5", "HooliCalendar": "0.0"}
    upstream = [r for r in rows if r["judge"] == "upstream judge (test)"]
    assert [(r["slice_kind"], r["labels"], r["kappa"]) for r in upstream] == [("overall", "0", "")]

    api = client.get("/api/judges").json()
    assert {(r["judge"], r["slice_kind"], r["slice"], r["kappa"]) for r in api} == {
        (r["judge"], r["slice_kind"], r["slice"], float(r["kappa"]) if r["kappa"] else None) for r in rows
    }
    one = client.get(f"/api/judges/{board.ours.pk}").json()
    assert one[0]["slice_kind"] == "overall" and one[0]["labels"] == 6
    assert client.get("/api/judges/999999").status_code == 404
    bad = client.get("/judges/?format=xlsx")
    assert bad.status_code == 400 and "unknown format 'xlsx'" in bad.content.decode()


def test_every_leaderboard_row_says_how_far_its_judge_is_checked(client, labelled_judges):
    page = client.get("/leaderboard/")
    ours = visible_text(row_html(page, "run-a", "our judge (test)"))
    assert "checked: 6 human labels, kappa 0.33" in ours
    assert "not yet checked" in visible_text(row_html(page, "run-b", "upstream judge (test)"))
    mark = re.search(r'<a class="judge-check[^"]*"[^>]*>', row_html(page, "run-a", "our judge (test)")).group(0)
    assert 'aria-label="How far people checked this judge: 6 human labels, kappa 0.33"' in mark

    exported = list(csv.DictReader(io.StringIO(client.get("/leaderboard/?format=csv").content.decode())))
    marks = {(r["run"], r["judge"]): (r["judge_human_labels"], r["judge_kappa"]) for r in exported if r["judge"]}
    assert marks[("run-a", "our judge (test)")] == ("6", "0.33")
    assert marks[("run-b", "upstream judge (test)")] == ("0", "")
    api = {
        (r["run"], r["judge"]): (r["judge_human_labels"], r["judge_kappa"])
        for r in client.get("/api/leaderboard").json()["rows"]
    }
    assert api[("run-a", "our judge (test)")] == (6, 0.33)


def test_the_mark_costs_the_same_queries_however_many_labels(client, labelled_judges):
    board, maintainer = labelled_judges

    def count():
        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get("/leaderboard/").status_code == 200
        return len(ctx.captured_queries)

    before = count()
    for t in board.b.trajectories.filter(task__task_id__in=["t2", "t4", "t5"]):
        for j in t.judgments.all():
            HumanLabel.objects.create(judgment=j, verdict=j.verdict, labeller=maintainer)
    assert count() == before
    assert "checked: 13 human labels" in visible_text(
        row_html(client.get("/leaderboard/"), "run-a", "our judge (test)")
    )


def test_the_queue_offers_the_most_informative_verdicts_first(client, labelled_judges):
    board, maintainer = labelled_judges
    client.force_login(maintainer)
    # B's t4 second item: the judge says failure, the state check passed -> first in the queue
    disputed = Judgment.objects.get(trajectory__run=board.b, rubric_item=board.items["t4"][1], judge=board.ours)
    StateCheckResult.objects.create(trajectory=disputed.trajectory, rubric_item=disputed.rubric_item, status="passed")
    page = client.get("/admin/trajectories/judgment/label/", {"verdict": "any", "batch": 100})
    cards = [c.judgment for c in page.context["queue"].cards]
    assert cards[0] == disputed
    first_card = page.content.decode().split(f'data-judgment="{disputed.pk}"', 1)[1].split("</fieldset>", 1)[0]
    assert "disagrees with its state check" in first_card

    def cell(j):
        return (j.judge.name, j.rubric_item.task.behavioural_type)

    order = [cell(j) for j in cards[1:]]
    # cells nobody labelled (ours on pattern_inference, upstream on personal_lookup) come first; then ours on
    # bounded_action (2 labels, Wilson width 0.81), then ours on personal_lookup (4 labels, width 0.65)
    unlabelled = {("our judge (test)", "pattern_inference"), ("upstream judge (test)", "personal_lookup")}
    first = [c for c in order if c in unlabelled]
    assert order[: len(first)] == first and len(first) == 13
    rest = order[len(first) :]
    assert rest == [("our judge (test)", "bounded_action")] * 4 + [("our judge (test)", "personal_lookup")] * 2
    text = visible_text(page)
    assert "Most informative first" in text and "s success, f failure, k skip" in text
    assert 'src="/static/js/label_keys.js"' in page.content.decode()
    # run by run on request
    by_run = client.get("/admin/trajectories/judgment/label/", {"verdict": "any", "batch": 100, "order": "run"})
    assert by_run.context["queue"].cards[0].judgment.trajectory.run == board.a


def test_the_methodology_and_reliability_pages_lead_to_the_judges(client, labelled_judges):
    board, _ = labelled_judges
    methodology = client.get("/methodology/")
    text = visible_text(methodology)
    assert "How far the judge is checked" in text and "not yet checked" in text
    assert "percentile bootstrap" in text and "Wilson interval" in text
    assert 'href="/judges/"' in methodology.content.decode()
    run_page = client.get("/runs/run-a/reliability/").content.decode()
    assert f'href="/judges/{board.ours.pk}/"' in run_page
    suite_page = client.get(f"/suites/{board.suite.slug}/reliability/").content.decode()
    assert 'href="/judges/"' in suite_page
