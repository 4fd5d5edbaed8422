"""Judge reliability per rubric item across every run of a suite (and of one task): flips, agreement with
state checks and human labels worked out by hand on a small fixture, the judge picker, sorting, who sees
draft runs, links from the run and task pages, and a query count that does not grow with the data."""

import pytest
from django.contrib.auth.models import User

from leaderboard.models import JudgeConfig, Model, Run, Suite
from tests.catalog_data import add_rubric, make_task
from trajectories.judging.reliability import items_reliability
from trajectories.models import HumanLabel, Judgment, JudgmentHistory, StateCheckResult, Trajectory

pytestmark = pytest.mark.django_db


def build(extra_attempts=0):
    """Suite S: task t1 (items i1 with a state check, i2), task t2 (item j1). Runs ra, rb published,
    rd a draft. Judges A and B share provider, model and prompt (one family); C is another model.
    ``extra_attempts`` adds that many more trajectories of t1 to ra, each judged, checked and labelled,
    to grow the data for the query count."""
    suite = Suite.objects.create(name="S", version="1", slug="s-1")
    t1 = make_task(suite, "retrieval-r001", "personal_lookup", [])
    t2 = make_task(suite, "retrieval-r002", "personal_lookup", [], position=2)
    i1, i2 = add_rubric(t1, [1.0, 1.0])
    i1.state_check = {"command": "cat /x", "expected": "x", "match": "exact"}
    i1.save()
    (j1,) = add_rubric(t2, [1.0])

    def config(name, model="gemini-x", temperature=0.0):
        return JudgeConfig.objects.create(name=name, origin="ours", provider="google", model=model,
                                          prompt_version="p1", temperature=temperature)  # fmt: skip

    a, b, c = config("A"), config("B", temperature=0.5), config("C", model="other")
    model = Model.objects.create(name="M", slug="m")

    def run(slug, publication="published"):
        return Run.objects.create(name=slug, slug=slug, suite=suite, model=model, provenance="harness",
                                  publication=publication, judge_config=a)  # fmt: skip

    ra, rb, rd = run("ra"), run("rb"), run("rd", "draft")
    traj = {
        key: Trajectory.objects.create(run=r, task=t, attempt=n)
        for key, r, t, n in [
            ("a1", ra, t1, 0),
            ("a1b", ra, t1, 1),
            ("a2", ra, t2, 0),
            ("b1", rb, t1, 0),
            ("b2", rb, t2, 0),
            ("d1", rd, t1, 0),
        ]  # fmt: skip
    }

    def judge(cfg, key, item, verdict):
        return Judgment.objects.create(trajectory=traj[key], rubric_item=item, judge=cfg, verdict=verdict)

    maintainer = User.objects.create_user("maintainer", is_staff=True, is_superuser=True)

    def label(judgment, verdict):
        HumanLabel.objects.create(judgment=judgment, verdict=verdict, labeller=maintainer)

    # i1: a1 failure then (re-judged) success: flip; a1b failure twice; b1 A success, B failure: flip;
    # d1 (draft) A success, B failure: a flip only staff see.
    a1 = judge(a, "a1", i1, "success")
    JudgmentHistory.objects.create(judgment=a1, verdict="failure", judged_at=a1.created_at)
    a1b = judge(a, "a1b", i1, "failure")
    judge(b, "a1b", i1, "failure")
    b1a, b1b = judge(a, "b1", i1, "success"), judge(b, "b1", i1, "failure")
    judge(a, "d1", i1, "success")
    judge(b, "d1", i1, "failure")
    for key, status in [("a1", "passed"), ("a1b", "failed"), ("b1", "passed"), ("d1", "error")]:
        StateCheckResult.objects.create(trajectory=traj[key], rubric_item=i1, status=status)
    label(a1, "failure")  # judge success, human failure
    label(a1b, "success")  # judge failure, human success
    label(b1a, "success")  # agree
    label(b1b, "failure")
    label(b1b, "success")  # the latest label wins: judge failure, human success
    # i2: one failure, one error (left out), and C's verdict (another judge: no flip with A's)
    judge(a, "a1", i2, "failure")
    judge(a, "a1b", i2, "error")
    judge(a, "b1", i2, "success")
    judge(c, "b1", i2, "failure")
    # j1: re-judged on b2 with the same answer
    judge(a, "a2", j1, "success")
    b2 = judge(a, "b2", j1, "success")
    JudgmentHistory.objects.create(judgment=b2, verdict="success", judged_at=b2.created_at)

    for n in range(extra_attempts):
        t = Trajectory.objects.create(run=ra, task=t1, attempt=10 + n)
        first = Judgment.objects.create(trajectory=t, rubric_item=i1, judge=a, verdict="success")
        Judgment.objects.create(trajectory=t, rubric_item=i1, judge=b, verdict="failure")
        JudgmentHistory.objects.create(judgment=first, verdict="failure", judged_at=first.created_at)
        StateCheckResult.objects.create(trajectory=t, rubric_item=i1, status="passed")
        label(first, "success")
    return suite, (t1, t2), (i1, i2, j1), (a, b, c), (ra, rb, rd), maintainer


def published():
    return Run.objects.filter(publication="published")


def test_per_item_numbers_across_runs_worked_by_hand():
    suite, _, (i1, i2, j1), (a, b, c), *_ = build()
    report = items_reliability(suite, published())
    assert {cfg.name for cfg in report.family.configs} == {"A", "B"}
    by_id = {item.rubric_item_id: item for item in report.items}
    one = by_id[i1.pk]
    # flips: a1 [failure, success] yes, a1b [failure, failure] no, b1 [success, failure] yes
    assert (one.rejudged, one.flipped) == (3, 2)
    # every current success/failure of A and B: a1 A s, a1b A f + B f, b1 A s + B f
    assert one.judged == 5
    # state checks: a1 s/passed, a1b f/failed twice, b1 s/passed, b1 B f/passed -> 4 of 5
    # kappa: ss 2, sf 0, fs 1, ff 2; observed .8, chance .4*.6 + .6*.4 = .48; (.8-.48)/.52
    assert (one.state.agreed, one.state.n) == (4, 5)
    assert one.state.kappa == pytest.approx(0.32 / 0.52)
    # humans: a1 s/f, a1b f/s, b1 A s/s, b1 B f/s (latest label) -> 1 of 4;
    # observed .25, chance .5*.75 + .5*.25 = .5, kappa (.25-.5)/.5 = -.5
    assert (one.human.agreed, one.human.n) == (1, 4)
    assert one.human.kappa == pytest.approx(-0.5)
    two = by_id[i2.pk]
    assert (two.judged, two.rejudged, two.flipped) == (2, 0, 0)  # C is another judge; the error is left out
    three = by_id[j1.pk]
    assert (three.judged, three.rejudged, three.flipped) == (2, 1, 0)
    assert (report.total.judged, report.total.rejudged, report.total.flipped) == (9, 4, 2)
    flips = [f for f in one.flags if f.why.startswith("re-judging flipped")]
    assert [(f.label, f.why) for f in flips] == [
        ("ra #0", "re-judging flipped: failure → success"),
        ("rb #0", "re-judging flipped: success → failure"),
    ]


def test_draft_runs_count_only_for_staff():
    suite, _, (i1, *_), *_ = build()
    staff = items_reliability(suite, Run.objects.all())
    one = next(i for i in staff.items if i.rubric_item_id == i1.pk)
    assert (one.rejudged, one.flipped) == (4, 3)  # d1's flip is in; its check errored, so left out
    assert one.state.n == 5


def test_another_judge_and_one_task():
    suite, (t1, _), (i1, i2, j1), (a, b, c), *_ = build()
    other = items_reliability(suite, published(), judge_id=c.pk)
    assert [cfg.name for cfg in other.family.configs] == ["C"]
    assert [(i.rubric_item_id, i.judged) for i in other.items] == [(i2.pk, 1)]
    task_only = items_reliability(suite, published(), task=t1)
    assert [i.rubric_item_id for i in task_only.items] == [i1.pk, i2.pk]


def test_sorting_puts_items_without_a_value_last():
    suite, _, (i1, i2, j1), *_ = build()
    order = [i.rubric_item_id for i in items_reliability(suite, published(), sort="flip").items]
    assert order == [i1.pk, j1.pk, i2.pk]  # 2/3, 0/1, nothing re-judged
    order = [i.rubric_item_id for i in items_reliability(suite, published(), sort="flip", direction="asc").items]
    assert order == [j1.pk, i1.pk, i2.pk]
    order = [i.rubric_item_id for i in items_reliability(suite, published(), sort="nonsense").items]
    assert order == [i1.pk, i2.pk, j1.pk]  # rubric order


def test_the_suite_page(client):
    suite, *_ = build()
    page = client.get(f"/suites/{suite.slug}/reliability/").content.decode()
    assert "2 of 4 (50.0%)" in page  # flips in total
    assert "4 of 5 (80%)" in page and "0.62" in page  # i1 against state checks
    assert "1 of 4 (25%)" in page and "-0.50" in page  # i1 against human labels
    assert "re-judging flipped: failure → success" in page
    assert 'href="/tasks/s-1/retrieval-r001/reliability/"' in page
    assert "/admin/trajectories/judgment/label/" not in page  # visitors get no labelling links
    sorted_page = client.get(f"/suites/{suite.slug}/reliability/?sort=flip&dir=desc").content.decode()
    assert 'aria-sort="descending"' in sorted_page
    assert sorted_page.index('data-item="retrieval-r001/R1"') < sorted_page.index('data-item="retrieval-r002/R1"')


def test_staff_get_links_to_label_and_to_each_flipped_judgment(client):
    suite, _, (i1, *_), _, _, maintainer = build()
    client.force_login(maintainer)
    page = client.get(f"/suites/{suite.slug}/reliability/").content.decode()
    assert f"/admin/trajectories/judgment/label/?verdict=any&amp;rubric_item={i1.pk}" in page
    flipped = Judgment.objects.get(trajectory__run__slug="rb", rubric_item=i1, judge__name="A")
    assert f"/admin/trajectories/judgment/{flipped.pk}/change/" in page


def test_the_task_page_and_its_links(client):
    suite, (t1, _), _, _, (ra, *_), _ = build()
    page = client.get(f"/tasks/{suite.slug}/{t1.task_id}/reliability/").content.decode()
    assert 'data-item="retrieval-r001/R1"' in page and "retrieval-r002" not in page.split("<table", 1)[1]
    assert client.get(f"/tasks/{suite.slug}/nope/reliability/").status_code == 404
    task_page = client.get(f"/tasks/{suite.slug}/{t1.task_id}/").content.decode()
    assert f'href="/tasks/{suite.slug}/{t1.task_id}/reliability/"' in task_page
    run_page = client.get(f"/runs/{ra.slug}/reliability/").content.decode()
    assert f'href="/suites/{suite.slug}/reliability/"' in run_page


def test_an_empty_suite_says_so(client):
    Suite.objects.create(name="Empty", version="1", slug="empty")
    assert "No judgments on this suite yet" in client.get("/suites/empty/reliability/").content.decode()
    assert client.get("/suites/missing/reliability/").status_code == 404


@pytest.mark.parametrize("extra_attempts", [0, 30])
def test_query_count_does_not_grow_with_the_data(client, django_assert_max_num_queries, extra_attempts):
    # suite, judges, judgments, replaced verdicts, state checks, human labels, whether the suite holds sessions
    # (whose checklist wording visitors may not read); staff add session and user, and skip the sessions check
    suite, *_, maintainer = build(extra_attempts)
    with django_assert_max_num_queries(7):
        response = client.get(f"/suites/{suite.slug}/reliability/?sort=human")
    assert sum(i.judged for i in response.context["report"].items) == 9 + 2 * extra_attempts
    client.force_login(maintainer)
    with django_assert_max_num_queries(8):
        response = client.get(f"/tasks/{suite.slug}/retrieval-r001/reliability/?sort=flip")
    assert response.context["report"].total.rejudged == 4 + extra_attempts
