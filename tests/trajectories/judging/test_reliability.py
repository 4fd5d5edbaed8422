"""Judge reliability: flips on re-judging (same provider/model/prompt, and verdicts a forced re-judging
replaced), agreement with state checks and human labels (raw and Cohen's kappa, worked out by hand on
a small fixture), labels entered in the admin, the page, and its query count."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import JudgeConfig, Model, Run, Suite
from tests.catalog_data import add_rubric, make_task
from tests.factories import make_suite, write_task_dir
from tests.simulators import ProviderSimulator
from trajectories.judging import our_judge
from trajectories.judging.reliability import cohen_kappa, run_reliability
from trajectories.models import HumanLabel, Judgment, JudgmentHistory, StateCheckResult, Trajectory
from trajectories.recording.import_results import import_results

pytestmark = pytest.mark.django_db


def config(name, model="gemini-x", **extra):
    values = {"origin": "ours", "provider": "google", "model": model, "prompt_version": "p1", **extra}
    return JudgeConfig.objects.create(name=name, **values)


def build(n_trajectories=4, slug="run-a"):
    """A run of one task with two rubric items, judged by A (the run's judge), B (same provider, model
    and prompt at another temperature) and C (another model). See the test for the hand-worked numbers."""
    suite = Suite.objects.create(name=f"s-{slug}", version="1", slug=f"s-{slug}")
    task = make_task(suite, "retrieval-r001", "personal_lookup", [])
    r1, r2 = add_rubric(task, [1.0, 1.0])
    r1.state_check = {"command": "cat /x", "expected": "x", "match": "exact"}
    r1.save()
    a, b, c = (config(f"{n} {slug}", **kw) for n, kw in
               [("A", {"temperature": 0.0}), ("B", {"temperature": 0.5}), ("C", {"model": "other"})])  # fmt: skip
    model = Model.objects.get_or_create(name="M", slug="m")[0]
    run = Run.objects.create(name=slug, slug=slug, suite=suite, model=model, provenance="harness",
                             publication="published", judge_config=a)  # fmt: skip
    ts = [Trajectory.objects.create(run=run, task=task, attempt=i) for i in range(n_trajectories)]

    def judge(cfg, t, item, verdict):
        return Judgment.objects.create(trajectory=t, rubric_item=item, judge=cfg, verdict=verdict)

    a_r1 = [judge(a, t, r1, v) for t, v in zip(ts, ["success", "success", "failure", "success"] * 9, strict=False)]
    JudgmentHistory.objects.create(judgment=a_r1[0], verdict="failure", judged_at=a_r1[0].created_at)
    judge(b, ts[1], r1, "success")
    judge(b, ts[2], r1, "success")
    judge(c, ts[3], r1, "failure")  # another model: not a re-judging of A
    judge(a, ts[0], r2, "failure")
    errored = judge(a, ts[1], r2, "error")
    for t, status in zip(ts, ["passed", "failed", "failed", "error"], strict=False):
        StateCheckResult.objects.create(trajectory=t, rubric_item=r1, status=status)
    labeller = User.objects.get_or_create(username="maintainer", defaults={"is_staff": True, "is_superuser": True})[0]
    HumanLabel.objects.create(judgment=a_r1[0], verdict="failure", labeller=labeller)
    HumanLabel.objects.create(judgment=a_r1[0], verdict="success", labeller=labeller)  # the latest wins
    HumanLabel.objects.create(judgment=a_r1[2], verdict="success", labeller=labeller)
    HumanLabel.objects.create(judgment=a_r1[3], verdict="success", labeller=labeller)
    HumanLabel.objects.create(judgment=errored, verdict="failure", labeller=labeller)  # judge error: left out
    return run, ts, (r1, r2), (a, b, c)


def test_cohen_kappa_by_hand():
    # 20 items: both say success 10, both failure 5, judge success/other failure 3, the reverse 2.
    # observed 15/20 = .75; chance = .65*.60 + .35*.40 = .53; kappa = .22/.47
    assert cohen_kappa(10, 3, 2, 5) == pytest.approx(0.22 / 0.47)
    assert cohen_kappa(5, 0, 0, 5) == pytest.approx(1.0)
    assert cohen_kappa(0, 5, 5, 0) == pytest.approx(-1.0)
    assert cohen_kappa(4, 0, 0, 0) is None  # one answer throughout: undefined
    assert cohen_kappa(0, 0, 0, 0) is None


def test_flips_and_agreement_worked_by_hand():
    run, ts, (r1, r2), (a, b, c) = build()
    report = run_reliability(run)
    assert report.judge == a and sorted(report.family) == ["A run-a", "B run-a"]
    item = {i.rubric_id: i for i in report.items}
    one = item["R1"]
    # T0: failure (replaced) then success -> flip; T1: A success, B success; T2: A failure, B success -> flip
    assert (one.judged, one.rejudged, one.flipped) == (4, 3, 2)
    assert one.flip_rate == pytest.approx(2 / 3)
    # state: T0 s/passed, T1 s/failed, T2 f/failed (T3 error left out): 2 of 3, kappa (2/3-4/9)/(5/9) = 0.4
    assert (one.state.n, one.state.agreed) == (3, 2)
    assert one.state.kappa == pytest.approx(0.4)
    # humans: T0 s/s, T2 f/s, T3 s/s: 2 of 3; chance 2/3 * 1 = 2/3, kappa 0
    assert (one.human.n, one.human.agreed) == (3, 2)
    assert one.human.kappa == pytest.approx(0.0)
    two = item["R2"]
    assert (two.judged, two.rejudged, two.human.n) == (1, 0, 0)  # the error is neither judged nor compared
    assert report.total.judged == 5 and report.total.flip_rate == pytest.approx(2 / 3)
    why = {flag.label: flag.why for flag in one.flags}
    assert why["retrieval-r001#0"] == "re-judging flipped: failure → success"
    assert why["retrieval-r001#2"] == "judge says failure, human label success"

    # Choosing C shows C's (lone) verdicts and no flips from A and B.
    other = run_reliability(run, judge_id=c.pk)
    assert other.judge == c and other.total.judged == 1 and other.total.rejudged == 0


def test_the_page_shows_the_numbers_and_links(client):
    run, ts, *_ = build()
    response = client.get(f"/runs/{run.slug}/reliability/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "2 of 3 (66.7%)" in page  # flips
    assert "2 of 3 (67%) · κ 0.40" in page  # state checks
    assert "κ 0.00" in page  # human labels
    assert f"/trajectories/{ts[0].pk}/play/" in page
    assert "re-judging flipped: failure → success" in page


def test_unpublished_runs_are_hidden(client):
    run, *_ = build()
    Run.objects.filter(pk=run.pk).update(publication="draft")
    assert client.get(f"/runs/{run.slug}/reliability/").status_code == 404


def test_constant_queries_whatever_the_size(client):
    small, *_ = build(n_trajectories=4, slug="small")
    with CaptureQueriesContext(connection) as few:
        client.get(f"/runs/{small.slug}/reliability/")
    big, *_ = build(n_trajectories=16, slug="big")
    with CaptureQueriesContext(connection) as many:
        assert client.get(f"/runs/{big.slug}/reliability/").status_code == 200
    assert len(many) == len(few)


def test_human_labels_entered_in_the_admin(client):
    run, ts, (r1, _), (a, *_) = build()
    judgment = Judgment.objects.get(trajectory=ts[1], rubric_item=r1, judge=a)
    maintainer = User.objects.get(username="maintainer")
    client.force_login(maintainer)
    url = f"/admin/trajectories/judgment/{judgment.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {k: ("" if v is None else v) for k, v in form.initial.items() if k in form.fields}
    data.update(trajectory=ts[1].pk, rubric_item=r1.pk, judge=a.pk, cited_steps="[]", signals="{}")
    for prefix in ("human_labels", "history"):
        data.update({f"{prefix}-TOTAL_FORMS": "1" if prefix == "human_labels" else "0",
                     f"{prefix}-INITIAL_FORMS": "0", f"{prefix}-MIN_NUM_FORMS": "0",
                     f"{prefix}-MAX_NUM_FORMS": "1000"})  # fmt: skip
    data.update({"human_labels-0-verdict": "failure", "human_labels-0-note": "The total is wrong in step 4."})
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    label = HumanLabel.objects.get(judgment=judgment)
    assert label.labeller == maintainer and label.verdict == "failure"
    # the judge said success on T1; humans now disagree once more
    assert run_reliability(run).items[0].human.n == 4


GOOD = '{"reasoning": "Seen in step 2.", "cited_steps": [2], "verdict": "success"}'
BAD = '{"reasoning": "Not seen.", "cited_steps": [], "verdict": "failure"}'


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_forced_rejudging_keeps_the_replaced_verdicts(tmp_path, monkeypatch, settings, client):
    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    make_suite(["retrieval-f001"])
    write_task_dir(tmp_path / "results", "retrieval-f001")
    run = import_results(tmp_path / "results", "Opus upstream", publish=True).run
    spec = our_judge.JudgeSpec(provider="anthropic", model="", base_url="", attempts=1)
    with ProviderSimulator(lambda request: GOOD) as sim:
        spec.base_url = sim.url
        our_judge.judge_run_inline(run, our_judge.build_judge(spec))
    with ProviderSimulator(lambda request: BAD if "Replies to the sender" in request.last_text else GOOD) as sim:
        spec.base_url = sim.url
        our_judge.judge_run_inline(run, our_judge.build_judge(spec), force=True)
    ours = Judgment.objects.filter(judge__origin="ours")
    assert ours.count() == 3  # still one judgment per key
    assert JudgmentHistory.objects.filter(judgment__in=ours).count() == 3
    assert sorted(JudgmentHistory.objects.values_list("verdict", flat=True)) == ["success"] * 3
    report = run_reliability(run)
    assert report.total.rejudged == 3 and report.total.flipped == 1
    assert "1 of 3 (33.3%)" in client.get(f"/runs/{run.slug}/reliability/").content.decode()


def test_the_run_page_links_to_it(client):
    run, *_ = build()
    assert f'href="/runs/{run.slug}/reliability/"' in client.get(f"/runs/{run.slug}/").content.decode()
