"""A small hand-built leaderboard fixture (ORM): one suite of 6 tasks, three graded runs and a
reported one, with an error verdict, a missing task, an errored trajectory, a stale rubric version
and a second judge (expected figures worked out by hand in tests/leaderboard/scoring/test_scoring.py); and a large
synthetic suite written with bulk_create for browser screenshots and bench/bench_leaderboard.py."""

from types import SimpleNamespace

from leaderboard.models import App, JudgeConfig, Model, ReportedFigure, Run, Suite
from tests.catalog_data import add_rubric, make_task
from trajectories.models import Judgment, Trajectory

S, F, E = "success", "failure", "error"


def judge(trajectory, items, verdicts, by):
    for item, verdict in zip(items, verdicts, strict=True):
        Judgment.objects.create(trajectory=trajectory, rubric_item=item, judge=by, verdict=verdict)


def traj(run, task, steps, status="finished", attempt=0, **extra):
    return Trajectory.objects.create(run=run, task=task, attempt=attempt, status=status, n_steps=steps, **extra)


def build_board(suite_slug="board-suite", prefix=""):
    """Tasks (type, apps, rubric weights):
    t1 personal_lookup   1 app   [1]        t2 personal_lookup   1 app   [1, 1]
    t3 bounded_action    2 apps  [3, 1]     t4 bounded_action    2 apps  [1, 1, 2]
    t5 pattern_inference 4 apps  [1, 1]     t6 pattern_inference 4 apps  [2, 2]  (v1 stale, v2 current)
    """
    suite = Suite.objects.create(name="Board", version=f"{prefix}v1", slug=suite_slug)
    mail, _ = App.objects.get_or_create(slug="hoolimail", defaults={"name": "HooliMail", "kind": "web"})
    cal, _ = App.objects.get_or_create(slug="hoolicalendar", defaults={"name": "HooliCalendar", "kind": "web"})
    docs, _ = App.objects.get_or_create(slug="hoolidocs", defaults={"name": "HooliDocs", "kind": "web"})
    chat, _ = App.objects.get_or_create(slug="hoolichat", defaults={"name": "HooliChat", "kind": "web"})
    spec = [
        ("t1", "personal_lookup", [mail], [1]),
        ("t2", "personal_lookup", [cal], [1, 1]),
        ("t3", "bounded_action", [mail, cal], [3, 1]),
        ("t4", "bounded_action", [mail, docs], [1, 1, 2]),
        ("t5", "pattern_inference", [mail, cal, docs, chat], [1, 1]),
        ("t6", "pattern_inference", [mail, cal, docs, chat], [2, 2]),
    ]
    tasks, items = {}, {}
    for pos, (tid, btype, apps, weights) in enumerate(spec, start=1):
        task = make_task(suite, f"{prefix}{tid}", btype, apps, position=pos)
        tasks[tid] = task
        if tid == "t6":
            items["t6-old"] = add_rubric(task, [1, 1, 1], version=1, current=False)
            items[tid] = add_rubric(task, weights, version=2)
        else:
            items[tid] = add_rubric(task, weights)

    ours, _ = JudgeConfig.objects.get_or_create(name="our judge (test)", defaults={"origin": "ours"})
    upstream, _ = JudgeConfig.objects.get_or_create(name="upstream judge (test)", defaults={"origin": "imported"})
    alpha_model, _ = Model.objects.get_or_create(slug="alpha", defaults={"name": "Alpha"})
    beta_model, _ = Model.objects.get_or_create(slug="beta", defaults={"name": "Beta"})

    def run(name, model, **kw):
        kw.setdefault("provenance", "harness")
        kw.setdefault("publication", "published")
        kw.setdefault("tool_surface", "computer+bash")
        return Run.objects.create(
            name=f"{prefix}{name}", slug=f"{prefix}{name}".lower(), suite=suite, model=model, **kw
        )

    # Run A (our judge, authored weights):
    #   t1 [S] 10 steps -> 1, perfect           t2 [S, F] 20 -> 0.5
    #   t3 [S, F] 5 -> 0.75                      t4 [S, S, E] 8 -> incomplete (error verdict)
    #   t5 no trajectory -> missing (0)          t6 v2 [S, S] 40 -> 1, perfect; also stale v1 judgments
    a = run("Run-A", alpha_model, judge_config=ours)
    ta = {
        "t1": traj(a, tasks["t1"], 10, input_tokens=1000, output_tokens=100, cost_usd="0.50"),
        "t2": traj(a, tasks["t2"], 20, input_tokens=2000, output_tokens=200, cost_usd="1.25"),
        "t3": traj(a, tasks["t3"], 5),
        "t4": traj(a, tasks["t4"], 8),
        "t6": traj(a, tasks["t6"], 40),
    }
    judge(ta["t1"], items["t1"], [S], ours)
    judge(ta["t2"], items["t2"], [S, F], ours)
    judge(ta["t3"], items["t3"], [S, F], ours)
    judge(ta["t4"], items["t4"], [S, S, E], ours)
    judge(ta["t6"], items["t6"], [S, S], ours)
    judge(ta["t6"], items["t6-old"], [F, F, F], ours)

    # Run B (our judge): t1 [F] 4; t2 [S, S] 6 perfect; t3 errored trajectory (0, 30 steps);
    #   t4 [S, F, S] 12 -> 0.75 (equal 2/3); t5 [S, S] 10 perfect; t6 judged only on v1 -> stale
    # also judged by the upstream judge on t1 and t2 (a second, separately labelled row)
    b = run("Run-B", beta_model, judge_config=ours)
    tb = {
        "t1": traj(b, tasks["t1"], 4),
        "t2": traj(b, tasks["t2"], 6),
        "t3": traj(b, tasks["t3"], 30, status="error"),
        "t4": traj(b, tasks["t4"], 12),
        "t5": traj(b, tasks["t5"], 10),
        "t6": traj(b, tasks["t6"], 15),
    }
    judge(tb["t1"], items["t1"], [F], ours)
    judge(tb["t2"], items["t2"], [S, S], ours)
    judge(tb["t4"], items["t4"], [S, F, S], ours)
    judge(tb["t5"], items["t5"], [S, S], ours)
    judge(tb["t6"], items["t6-old"], [S, S, S], ours)
    judge(tb["t1"], items["t1"], [S], upstream)
    judge(tb["t2"], items["t2"], [S, F], upstream)

    # Run C (computer only, draft): t1 running (unfinished, 0); nothing else
    c = run("Run-C", alpha_model, tool_surface="computer", publication="draft", judge_config=ours)
    traj(c, tasks["t1"], 3, status="running")

    reported = run("Reported-Alpha", alpha_model, provenance="reported", source="paper table 1")
    ReportedFigure.objects.create(run=reported, metric="perfect", value=40.0, source="paper table 1")
    ReportedFigure.objects.create(run=reported, metric="rubric", value=70.0, source="paper table 1")

    return SimpleNamespace(
        suite=suite, tasks=tasks, items=items, ours=ours, upstream=upstream, a=a, b=b, c=c, reported=reported
    )


TYPE_SIZES = {  # tasks per behavioural type in the 184-task suite
    "bounded_action": 64,
    "multi_step_orchestration": 48,
    "cross_source_reconciliation": 25,
    "aggregation_reporting": 23,
    "personal_lookup": 13,
    "pattern_inference": 11,
}


def build_synthetic(runs=30, tasks=184, attempts=3, steps=60, seed=0, slug="synthetic", with_steps=True):
    """A large synthetic suite written with bulk_create: ``tasks`` tasks spread over the behavioural
    types in the 184-task proportions, 4-8 rubric items each, ``runs`` published runs of models of
    different skill, ``attempts`` trajectories per task with ``steps`` Step rows on average, and one
    judgment per rubric item (about 1 in 200 an error verdict). Returns the suite."""
    import numpy as np

    from harness.actions import count_action_kinds
    from leaderboard.models import RubricItem, Task, apps_touched_bin
    from trajectories.models import Step

    rng = np.random.default_rng(seed)
    suite = Suite.objects.create(name="Synthetic", version=slug, slug=slug)
    app_objs = [
        App.objects.get_or_create(slug=f"app{i}", defaults={"name": f"App {i}", "kind": "web"})[0] for i in range(17)
    ]
    total = sum(TYPE_SIZES.values())
    types = [t for t, n in TYPE_SIZES.items() for _ in range(max(1, round(n * tasks / total)))][:tasks]
    types += ["bounded_action"] * (tasks - len(types))
    task_rows = []
    for i, btype in enumerate(types):
        n_apps = int(rng.integers(1, 9))
        task_rows.append(
            Task(
                suite=suite,
                task_id=f"syn-{i:03d}",
                position=i,
                category="synthetic",
                behavioural_type=btype,
                type_source="shipped",
                instruction=f"Synthetic task {i}",
                apps_touched=n_apps,
                apps_touched_bin=apps_touched_bin(n_apps),
                content_hash=f"syn-{i}",
            )
        )
    task_objs = Task.objects.bulk_create(task_rows)
    Task.apps.through.objects.bulk_create(
        [
            Task.apps.through(task_id=t.pk, app_id=app_objs[j].pk)
            for t in task_objs
            for j in rng.choice(17, size=min(t.apps_touched, 17), replace=False)
        ]
    )
    items = []
    for t in task_objs:
        weights = rng.integers(1, 4, size=int(rng.integers(4, 9))).astype(float)
        for pos, w in enumerate(weights, start=1):
            items.append(
                RubricItem(
                    task=t,
                    version=1,
                    position=pos,
                    rubric_id=f"R{pos}",
                    criterion=f"criterion {pos}",
                    weight=w,
                    normalised_weight=w / weights.sum(),
                    content_hash=f"{t.task_id}-{pos}",
                )
            )
    items = RubricItem.objects.bulk_create(items)
    items_by_task = {}
    for item in items:
        items_by_task.setdefault(item.task_id, []).append(item)
    ours, _ = JudgeConfig.objects.get_or_create(name="synthetic judge", defaults={"origin": "ours"})
    difficulty = rng.uniform(0, 1, size=len(task_objs))
    for r in range(runs):
        model, _ = Model.objects.get_or_create(slug=f"{slug}-model-{r}", defaults={"name": f"{slug} model {r:02d}"})
        run = Run.objects.create(
            name=f"{slug} run {r:02d}",
            slug=f"{slug}-run-{r:02d}",
            suite=suite,
            model=model,
            provenance="harness",
            publication="published",
            judge_config=ours,
        )
        skill = 0.25 + 0.6 * r / max(runs - 1, 1)
        trajs = [
            Trajectory(
                run=run,
                task=t,
                attempt=a,
                status="error" if rng.random() < 0.01 else "finished",
                n_steps=int(rng.integers(steps // 2, steps * 3 // 2 + 1)) if steps else 0,
                input_tokens=int(rng.integers(10_000, 90_000)),
                output_tokens=int(rng.integers(500, 5_000)),
            )
            for t in task_objs
            for a in range(attempts)
        ]
        if with_steps:
            # the counts ingest would store for the steps below (computer tool, no structured action)
            for tr in trajs:
                tr.action_counts = count_action_kinds([("computer", None, tr.n_steps)])
        trajs = Trajectory.objects.bulk_create(trajs)
        if with_steps and steps:
            Step.objects.bulk_create(
                [Step(trajectory=tr, index=i, turn=i) for tr in trajs for i in range(1, tr.n_steps + 1)],
                batch_size=5000,
            )
        judgments = []
        for tr, (ti, _a) in zip(trajs, [(ti, a) for ti in range(len(task_objs)) for a in range(attempts)], strict=True):
            if tr.status == "error":
                continue
            p = min(0.98, max(0.02, skill + 0.5 - difficulty[ti]))
            for item in items_by_task[tr.task_id]:
                u = rng.random()
                verdict = "error" if u < 0.005 else ("success" if rng.random() < p else "failure")
                judgments.append(Judgment(trajectory=tr, rubric_item=item, judge=ours, verdict=verdict))
        Judgment.objects.bulk_create(judgments, batch_size=5000)
    return suite


def build_variant_runs():
    """Two tasks of one item. Spread run, attempt 0 on variant 0 and attempt 1 on variant 3:
    t1 S / S, t2 S / F -> variant 0: 2 of 2 perfect (100.0), variant 3: 1 of 2 (50.0); robust: t1 only, 1 of 2.
    Flat run: both attempts on variant 0."""
    suite = Suite.objects.create(name="Variants", version="v1", slug="variants")
    tasks = [make_task(suite, f"v-t{i}", "personal_lookup", [], position=i) for i in (1, 2)]
    items = [add_rubric(t, [1]) for t in tasks]
    ours, _ = JudgeConfig.objects.get_or_create(name="our judge (variants)", defaults={"origin": "ours"})
    model = Model.objects.create(slug="gamma", name="Gamma")
    runs = {}
    for slug, variants in (("spread", (0, 3)), ("flat", (0, 0))):
        runs[slug] = Run.objects.create(name=slug, slug=slug, suite=suite, model=model, provenance="harness",
                                        publication="published", judge_config=ours, attempts_per_task=2)  # fmt: skip
        for task, task_items, verdicts in zip(tasks, items, ((S, S), (S, F)), strict=True):
            for attempt, (variant, verdict) in enumerate(zip(variants, verdicts, strict=True)):
                t = traj(runs[slug], task, 5, attempt=attempt, world_variant=variant)
                judge(t, task_items, [verdict], ours)
    return runs
