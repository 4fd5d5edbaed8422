"""Upload validation's rules at their edges, word for word, as an author reads them in the report:
the metadata form (each field at exactly its limit and one past it, the defaults, every refusal),
the refusal's summary line, the checks of the unpacked tree (no task folders, an attempt twice,
task ids the suite lacks, step numbers going back or past the budget, turns over the budget, bad
screenshots, JSON files that do not parse) and the replay suspicions at their thresholds. The
expected texts are written out here, not taken from the code."""

import hashlib
import json
from pathlib import Path

import pytest

from harness.results import BundleError, read_task_dir
from tests.factories import make_run, make_suite, write_task_dir
from trajectories.submissions import validation
from trajectories.submissions.validation import Problem, parse_metadata

pytestmark = pytest.mark.django_db

SLUG = "mypcbench-eval-round0"
GOOD = {"suite": SLUG, "model": "Claude Opus 4.6"}
FIELDS = "suite, model, agent, tool_surface, turn_budget, harness_version, image_version, notes, links"


@pytest.fixture
def suite():
    return make_suite(["retrieval-f016", "writing-a001"])


def said(problems) -> list[tuple[str, str, str]]:
    return [(p.file, p.problem, p.level) for p in problems]


def refused(raw) -> list[str]:
    meta, problems = parse_metadata(raw)
    assert meta is None, "refused metadata gives no metadata"
    assert all(p.file == "metadata" and p.level == "error" for p in problems)
    return [p.problem for p in problems]


# ---------------------------------------------------------------- metadata


def test_the_least_metadata_takes_the_defaults(suite):
    meta, problems = parse_metadata(GOOD)
    assert problems == []
    assert meta.as_dict() == {
        "suite": SLUG,
        "model": "Claude Opus 4.6",
        "agent": "",
        "tool_surface": "computer+bash",
        "turn_budget": 100,
        "harness_version": "",
        "image_version": "",
        "notes": "",
        "links": [],
    }
    assert meta.suite == suite


def test_every_field_given_is_kept(suite):
    raw = {
        **GOOD,
        "agent": " claude-cua ",
        "tool_surface": "native",
        "turn_budget": 1000,
        "harness_version": "1.2.0",
        "image_version": "vm:2026-04",
        "notes": "On our cluster.",
        "links": ["https://example.org/a", "http://example.org/b"],
    }
    meta, problems = parse_metadata(json.dumps(raw))
    assert problems == []
    assert (meta.agent, meta.tool_surface, meta.turn_budget) == ("claude-cua", "native", 1000)
    assert (meta.harness_version, meta.image_version, meta.notes) == ("1.2.0", "vm:2026-04", "On our cluster.")
    assert meta.links == ["https://example.org/a", "http://example.org/b"]


@pytest.mark.parametrize(
    "name,limit", [("model", 100), ("agent", 50), ("harness_version", 50), ("image_version", 100), ("notes", 5000)]
)
def test_each_text_field_at_its_limit_and_one_past(suite, name, limit):
    meta, problems = parse_metadata({**GOOD, name: " " + "x" * limit + " "})  # counted once trimmed
    assert problems == [] and getattr(meta, name) == "x" * limit
    assert refused({**GOOD, name: "x" * (limit + 1)}) == [f"{name}: {limit + 1} characters (expected at most {limit})"]


def test_text_fields_that_are_not_text(suite):
    assert refused({**GOOD, "agent": 7, "notes": ["a"]}) == [
        "agent: is 7 (expected text)",
        "notes: is ['a'] (expected text)",
    ]
    meta, problems = parse_metadata({**GOOD, "agent": None, "notes": None})  # null is as left out
    assert problems == [] and (meta.agent, meta.notes) == ("", "")


@pytest.mark.parametrize("model", [None, "", "   "])
def test_the_model_is_required(suite, model):
    raw = {**GOOD, "model": model}
    assert refused(raw) == ["model: missing (expected the model's name, e.g. 'Claude Opus 4.6')"]
    assert refused({"suite": SLUG}) == ["model: missing (expected the model's name, e.g. 'Claude Opus 4.6')"]


def test_unknown_fields_are_named_with_the_known_ones(suite):
    assert refused({**GOOD, "colour": "red", "agentt": "x"}) == [
        f"unknown field(s) agentt, colour (expected: {FIELDS})"
    ]


def test_tool_surface(suite):
    meta, _ = parse_metadata({**GOOD, "tool_surface": ""})
    assert meta.tool_surface == "computer+bash"
    meta, _ = parse_metadata({**GOOD, "tool_surface": "computer"})
    assert meta.tool_surface == "computer"
    assert refused({**GOOD, "tool_surface": "mouse"}) == [
        "tool_surface: 'mouse' (expected one of computer, computer+bash, native, scripted)"
    ]


@pytest.mark.parametrize("budget,kept", [(1, 1), (1000, 1000), ("7", 7), (" 12 ", 12)])
def test_turn_budget_accepted(suite, budget, kept):
    meta, problems = parse_metadata({**GOOD, "turn_budget": budget})
    assert problems == [] and meta.turn_budget == kept


@pytest.mark.parametrize("budget", [0, 1001, -3, "-3", "abc", 2.5, True, None, "1001"])
def test_turn_budget_refused(suite, budget):
    shown = repr(int(budget)) if budget == "1001" else repr(budget)
    assert refused({**GOOD, "turn_budget": budget}) == [f"turn_budget: {shown} (expected a whole number 1 to 1000)"]


def test_links(suite):
    meta, problems = parse_metadata({**GOOD, "links": "https://a.example/x\n\n  http://b.example  \n"})
    assert problems == [] and meta.links == ["https://a.example/x", "http://b.example"]
    ten = [f"https://example.org/{i}" for i in range(10)]
    assert parse_metadata({**GOOD, "links": ten})[0].links == ten
    assert parse_metadata({**GOOD, "links": None})[0].links == []
    at_limit = "https://example.org/" + "a" * 480
    assert len(at_limit) == 500 and parse_metadata({**GOOD, "links": [at_limit]})[0].links == [at_limit]
    too_many = "links: expected a list of at most 10 http(s) addresses"
    assert refused({**GOOD, "links": [*ten, "https://example.org/10"]}) == [too_many]
    assert refused({**GOOD, "links": {"a": "https://example.org"}}) == [too_many]
    for bad in ["ftp://example.org/x", "https://", "example.org", 5, at_limit + "a"]:
        assert refused({**GOOD, "links": [bad]}) == [f"links: {bad!r} (expected an http:// or https:// address)"]


def test_the_suite_named_or_the_only_benchmark_suite(suite):
    make_suite(["demo-1"], slug="demo-tour", is_demo=True)
    meta, problems = parse_metadata({"model": "M"})  # one benchmark suite (and a demo one): that one
    assert problems == [] and meta.suite == suite
    assert parse_metadata({"model": "M", "suite": "demo-tour"})[0].suite.slug == "demo-tour"
    assert refused({"model": "M", "suite": "nope"}) == [
        "suite: no suite 'nope' (known suites: demo-tour, mypcbench-eval-round0)"
    ]
    assert refused({"model": "M", "suite": 5}) == ["suite: no suite 5 (known suites: demo-tour, mypcbench-eval-round0)"]
    make_suite(["other-1"], slug="another-round")
    assert refused({"model": "M"}) == [
        "suite: missing (expected one of: another-round, demo-tour, mypcbench-eval-round0)"
    ]


def test_no_suite_at_all():
    assert refused({"model": "M"}) == ["suite: missing (expected one of: none yet)"]
    assert refused({"model": "M", "suite": "x"}) == ["suite: no suite 'x' (known suites: none yet)"]


def test_every_bad_field_is_reported_together(suite):
    assert refused({"suite": "nope", "model": "", "turn_budget": 0, "links": ["x"]}) == [
        "model: missing (expected the model's name, e.g. 'Claude Opus 4.6')",
        "turn_budget: 0 (expected a whole number 1 to 1000)",
        "links: 'x' (expected an http:// or https:// address)",
        "suite: no suite 'nope' (known suites: mypcbench-eval-round0)",
    ]


def test_metadata_that_is_not_a_json_object(suite):
    assert refused('{"model": ') == ["not valid JSON: Expecting value at line 1 column 11"]
    assert refused("[1]") == ["is a JSON list (expected an object)"]
    assert refused(5) == ["is a JSON int (expected an object)"]
    assert refused("NaN") == ["NaN is not a JSON number at line 1 column 1"]
    assert refused(b"\xff{}") == ["not UTF-8 text (invalid start byte at byte 0)"]  # no position to give
    # an empty form is an empty object: the model is missing, the only suite is taken
    assert refused(b"") == ["model: missing (expected the model's name, e.g. 'Claude Opus 4.6')"]
    assert refused("") == ["model: missing (expected the model's name, e.g. 'Claude Opus 4.6')"]


# ---------------------------------------------------------------- the report and the refusal


def test_the_refusal_counts_errors_and_lists_the_first_twenty():
    report = [
        Problem("a.json", "bad"),
        Problem("", "no task folders"),
        Problem("w", "only a warning", "warning"),
        *[Problem(f"f{i}", "x") for i in range(25)],
    ]
    exc = validation.SubmissionRejected(report, retry_after=30)
    shown = ["a.json: bad", "no task folders"] + [f"f{i}: x" for i in range(18)]
    assert str(exc) == "upload refused, 27 problem(s): " + "; ".join(shown)
    assert exc.retry_after == 30 and exc.report is report and exc.status_code == 422
    assert exc.report_dicts[2] == {"file": "w", "problem": "only a warning", "level": "warning"}
    assert validation.SubmissionRejected([]).retry_after is None
    assert (validation.SubmissionLimited([]).status_code, validation.SubmissionConflict([]).status_code) == (429, 409)


def test_a_problem_shows_hidden_characters_escaped():
    p = Problem("evil\u202egnp.exe", "bell\x07 here")
    assert p.file == "evil\\u202egnp.exe" and p.problem == "bell\\x07 here" and p.level == "error"
    assert p.as_dict() == {"file": "evil\\u202egnp.exe", "problem": "bell\\x07 here", "level": "error"}


def test_only_errors_make_a_validation_fail():
    assert validation.Validation().ok
    assert validation.Validation(report=[Problem("a", "b", "warning"), Problem("a", "c", "note")]).ok
    assert not validation.Validation(report=[Problem("a", "b", "warning"), Problem("a", "c")]).ok


def test_pixel_budget(settings):
    del settings.MYPCBENCH_UPLOAD_MAX_PIXELS
    assert validation.upload_pixel_budget() == 8 * 1024**3
    settings.MYPCBENCH_UPLOAD_MAX_PIXELS = "5000"
    assert validation.upload_pixel_budget() == 5000
    assert validation.Validation().screenshots.max_pixels == 5000


def test_file_names_are_relative_to_the_archive(tmp_path):
    root = tmp_path / "unpacked"
    (root / "a").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(root)
    assert validation.relative_text(f"{root}/a/b.json and {root}", root) == "a/b.json and ."
    assert validation.relative_text(f"{root}/a/b.json", link) == "a/b.json"  # the resolved path too
    assert validation.relative_text(f"{link}/a/b.json and {link}", link) == "a/b.json and ."  # and as given
    assert validation.relative_path(root / "a" / "b.json", root) == "a/b.json"
    assert validation.relative_path(link / "a", root) == "a"
    assert validation.relative_path(tmp_path / "elsewhere", root) == str(tmp_path / "elsewhere")
    full = BundleError(root / "a/traj.jsonl", f"see {root}/a/x.png", line=3, field="step_num", expected="a number")
    assert validation._bundle_problem(full, root) == "line 3: step_num: see a/x.png (expected a number)"
    assert validation._bundle_problem(BundleError(root / "a", "unreadable"), root) == "unreadable"
    assert validation._bundle_problem(BundleError(root, "bad", line=0), root) == "line 0: bad"


# ---------------------------------------------------------------- the unpacked tree


def meta_for(suite, turn_budget=100):
    return validation.SubmissionMetadata(suite=suite, model="M", turn_budget=turn_budget)


def attempt_folder(root: Path, task_id: str, name: str, **kwargs) -> Path:
    """<task_id>/<name>/ holding one attempt, its rubric bundle naming the task (not the folder)."""
    folder = write_task_dir(root / task_id, name, **kwargs)
    bundle = json.loads((folder / "rubric_bundle.json").read_text())
    bundle["task"]["id"] = bundle["grading_manifest"]["task_id"] = task_id
    (folder / "rubric_bundle.json").write_text(json.dumps(bundle))
    return folder


def errors(result) -> list[tuple[str, str]]:
    return [(p.file, p.problem) for p in result.report if p.level == "error"]


def test_no_task_folders(tmp_path, suite):
    (tmp_path / "empty").mkdir()
    result = validation.validate_tree(tmp_path / "empty", meta_for(suite))
    assert said(result.report) == [
        (
            "",
            "no task folders found (expected folders holding traj.jsonl and step screenshots, e.g. "
            "retrieval-f016/traj.jsonl, or an OSWorld results tree)",
            "error",
        )
    ]
    assert result.bundles == [] and not result.ok


def test_a_good_tree_reports_nothing(tmp_path, suite):
    for task_id in ["retrieval-f016", "writing-a001"]:
        write_task_dir(tmp_path, task_id)
    result = validation.validate_tree(tmp_path, meta_for(suite))
    assert result.report == [] and result.ok
    assert sorted(b.task_id for b in result.bundles) == ["retrieval-f016", "writing-a001"]
    assert set(result.tasks) == {"retrieval-f016", "writing-a001"}
    assert result.tasks["writing-a001"].suite == suite


def test_attempt_folders(tmp_path, suite):
    attempt_folder(tmp_path, "retrieval-f016", "attempt_0")
    attempt_folder(tmp_path, "retrieval-f016", "attempt-12")
    attempt_folder(tmp_path, "retrieval-f016", "attempt3")
    result = validation.validate_tree(tmp_path, meta_for(suite))
    assert result.report == [], "a task folder named by its parent, not its own name, is no warning"
    assert sorted((b.task_id, b.attempt) for b in result.bundles) == [
        ("retrieval-f016", 0),
        ("retrieval-f016", 3),
        ("retrieval-f016", 12),
    ]


def test_a_folder_only_like_an_attempt_is_a_task_id(tmp_path, suite):
    attempt_folder(tmp_path, "retrieval-f016", "my_attempt_1")
    result = validation.validate_tree(tmp_path, meta_for(suite))
    assert [b.task_id for b in result.bundles] == ["my_attempt_1"]
    assert any("'my_attempt_1' (the folder name) is not a task" in text for _f, text in errors(result))


def test_an_attempt_twice(tmp_path, suite):
    attempt_folder(tmp_path, "retrieval-f016", "attempt-1")
    attempt_folder(tmp_path, "retrieval-f016", "attempt_1")
    result = validation.validate_tree(tmp_path, meta_for(suite))
    assert errors(result) == [
        (
            "retrieval-f016/attempt_1",
            "task 'retrieval-f016' attempt 1 appears twice: in retrieval-f016/attempt-1 and in "
            "retrieval-f016/attempt_1 (expected each attempt once; put repeated attempts in "
            "retrieval-f016/attempt_<n>/ folders)",
        )
    ]
    assert len(result.bundles) == 1


def test_task_ids_the_suite_lacks(tmp_path, suite):
    write_task_dir(tmp_path, "no-such-task")
    write_task_dir(tmp_path, "retrieval-f016")
    result = validation.validate_tree(tmp_path, meta_for(suite))
    assert errors(result) == [
        (
            "no-such-task",
            "task id 'no-such-task' (the folder name) is not a task of suite 'mypcbench-eval-round0' "
            "(expected one of its 2 task ids, e.g. retrieval-f016, writing-a001)",
        )
    ]
    assert set(result.tasks) == {"retrieval-f016"}
    big = make_suite(["t1", "t2", "t3", "t4"], slug="bigger")
    assert errors(validation.validate_tree(tmp_path / "no-such-task", meta_for(big)))[0][1].endswith(
        "(expected one of its 4 task ids, e.g. t1, t2, t3)"
    )
    empty = make_suite([], slug="empty")
    assert errors(validation.validate_tree(tmp_path / "retrieval-f016", meta_for(empty)))[0][1].endswith(
        "(expected one of its 0 task ids, e.g. none)"
    )


def test_step_numbers_that_go_back_are_reported_once(tmp_path, suite):
    write_task_dir(tmp_path, "retrieval-f016", actions=[(3, "pyautogui.click(1, 1)"), (2, "pyautogui.click(2, 2)"),
                                                        (1, "DONE")])  # fmt: skip
    assert errors(validation.validate_tree(tmp_path, meta_for(suite))) == [
        (
            "retrieval-f016/traj.jsonl",
            "step 2: step_num 2 comes after step_num 3 (expected step numbers that never go back)",
        )
    ]


def test_steps_of_one_turn_share_its_number(tmp_path, suite):
    actions = [(1, "pyautogui.click(1, 1)"), (1, "pyautogui.click(2, 2)"), (2, "DONE")]
    write_task_dir(tmp_path, "retrieval-f016", actions=actions)
    assert validation.validate_tree(tmp_path, meta_for(suite, turn_budget=2)).report == []


def test_steps_past_the_turn_budget(tmp_path, suite):
    actions = [(1, "pyautogui.click(1, 1)"), (2, "pyautogui.click(2, 2)"), (3, "pyautogui.click(3, 3)"), (4, "DONE")]
    write_task_dir(tmp_path, "retrieval-f016", actions=actions)
    assert errors(validation.validate_tree(tmp_path, meta_for(suite, turn_budget=2))) == [
        (
            "retrieval-f016/traj.jsonl",
            "step 3: step_num 3 is beyond the declared turn budget of 2 (2 step(s) over; expected step "
            "numbers up to 2)",
        ),
        ("retrieval-f016/traj.jsonl", "4 model turns, more than the declared turn budget of 2"),
    ]
    assert validation.validate_tree(tmp_path, meta_for(suite, turn_budget=4)).report == []


def test_more_turns_than_the_budget_though_no_number_is_past_it(tmp_path, suite):
    actions = [(0, "pyautogui.click(1, 1)"), (1, "pyautogui.click(2, 2)"), (2, "DONE")]
    write_task_dir(tmp_path, "retrieval-f016", actions=actions)
    assert errors(validation.validate_tree(tmp_path, meta_for(suite, turn_budget=2))) == [
        ("retrieval-f016/traj.jsonl", "3 model turns, more than the declared turn budget of 2")
    ]


def test_a_task_without_steps(tmp_path, suite):
    folder = write_task_dir(tmp_path, "retrieval-f016")
    (folder / "traj.jsonl").write_text("")
    for png in folder.glob("*.png"):
        png.unlink()
    problems = errors(validation.validate_tree(tmp_path, meta_for(suite)))
    assert ("retrieval-f016/traj.jsonl", "holds no steps (expected one JSON line per action)") in problems


def test_a_screenshot_that_is_not_an_image_is_named_once(tmp_path, suite):
    folder = write_task_dir(tmp_path, "retrieval-f016")
    shot = sorted(folder.glob("*.png"))[0]
    shot.write_bytes(b"not an image at all")
    result = validation.validate_tree(tmp_path, meta_for(suite))
    problems = errors(result)
    assert [f for f, _t in problems] == [f"retrieval-f016/{shot.name}"], problems
    assert not problems[0][1].startswith(shot.name) and not problems[0][1].startswith("retrieval-f016")


def test_the_first_screenshot_over_the_pixel_budget_is_the_only_one_decoded(tmp_path, suite, settings):
    settings.MYPCBENCH_UPLOAD_MAX_PIXELS = 64 * 40 + 10  # one 64x40 screenshot, not two
    write_task_dir(tmp_path, "retrieval-f016")
    write_task_dir(tmp_path, "writing-a001")
    result = validation.validate_tree(tmp_path, meta_for(suite))
    problems = errors(result)
    assert len(problems) == 1 and problems[0][0].startswith("retrieval-f016/step_2_"), problems
    assert result.screenshots.over_budget


def test_json_files_must_parse(tmp_path, suite):
    folder = write_task_dir(tmp_path, "retrieval-f016")
    (folder / "notes.json").write_text('{"a": }')
    (folder / "empty.json").write_text("")
    (folder / "bom.json").write_bytes(b"\xef\xbb\xbf{}")
    (folder / "latin.json").write_bytes(b'\xff{"a": 1}')
    (folder / "extra.jsonl").write_text('{"a": 1}\n\n{bad\n{worse\n')
    (folder / "nan.json").write_text("NaN")
    (folder / "huge.json").write_text("[" + "0," * 500_000 + "0]")  # refused before parsing: no position
    (folder / "kept.json.bak").write_text("not json")
    (folder / "folder.json").mkdir()
    assert errors(validation.validate_tree(tmp_path, meta_for(suite))) == [
        ("retrieval-f016/empty.json", "line 1: not valid JSON: Expecting value at column 1"),
        (
            "retrieval-f016/extra.jsonl",
            "line 3: not valid JSON: Expecting property name enclosed in double quotes at column 2",
        ),
        ("retrieval-f016/huge.json", "about 500001 values in one JSON document (at most 500000 are accepted)"),
        ("retrieval-f016/latin.json", "not UTF-8 text (invalid start byte at byte 0)"),
        ("retrieval-f016/nan.json", "line 1: NaN is not a JSON number at column 1"),
        ("retrieval-f016/notes.json", "line 1: not valid JSON: Expecting value at column 7"),
    ]  # fmt: skip


def test_a_file_the_reader_refused_is_not_reported_twice(tmp_path, suite):
    folder = write_task_dir(tmp_path, "retrieval-f016")
    (folder / "usage.json").write_text("{nope")
    problems = errors(validation.validate_tree(tmp_path, meta_for(suite)))
    assert [f for f, _t in problems] == ["retrieval-f016/usage.json"], problems


# ---------------------------------------------------------------- replay suspicions


def test_action_signatures():
    sig = validation.action_signature
    assert sig({"type": "click", "x": 641, "y": 399}) == "click:32:20"
    assert sig({"type": "click", "x": 641.0, "y": True}) == "click:32"
    assert sig({"type": "type", "text": "  Hello \n  World "}) == "type:hello world"
    assert sig({"type": "type", "text": "a" * 100}) == "type:" + "a" * 80
    assert sig({"type": "hotkey", "keys": ["ctrl", "c"], "key": "Enter"}) == "hotkey:['ctrl', 'c']:enter"
    assert sig({"x": 40}) == "other:2"
    assert sig("click") == "other" and sig(None) == "other"
    assert sig({"type": "type", "text": ""}) == "type"


def steps_folder(root: Path, task_id: str, xs: list[int]) -> Path:
    actions = [(i, f"pyautogui.click({x}, 300)") for i, x in enumerate(xs, start=1)] + [(len(xs) + 1, "DONE")]
    return write_task_dir(root, task_id, actions=actions)


def clicks(xs) -> list[dict]:
    return [{"type": "click", "x": x, "y": 300} for x in xs]


@pytest.fixture
def stored_run(suite):
    return make_run(suite, provenance="harness")


def store(run, task_id: str, actions: list[dict], attempt: int = 0):
    from trajectories.models import Step, Trajectory

    trajectory = Trajectory.objects.create(run=run, task=run.suite.tasks.get(task_id=task_id), attempt=attempt)
    Step.objects.bulk_create(
        Step(trajectory=trajectory, index=i, turn=i, action=a, action_text=f"row {i}")
        for i, a in enumerate(actions, start=1)
    )
    return trajectory


def sent(task_id: str, actions: list[dict]):
    """What replay_suspicions reads of an uploaded attempt: its task id and its steps' actions."""
    from types import SimpleNamespace

    return SimpleNamespace(task_id=task_id, steps=[SimpleNamespace(action=a) for a in actions])


STORED = [100 * i for i in range(1, 11)]  # ten clicks


def test_replay_suspicion_is_a_warning_with_its_evidence(suite, stored_run, django_assert_max_num_queries):
    store(stored_run, "retrieval-f016", clicks(STORED))
    tasks = {t.task_id: t for t in suite.tasks.all()}
    nudged = clicks([x + 3 for x in STORED])  # a replay moves clicks by a pixel or two
    with django_assert_max_num_queries(2):  # the trajectories with their runs and tasks, then the steps
        found = validation.replay_suspicions([sent("retrieval-f016", nudged)], tasks)
    assert said(found) == [
        (
            "retrieval-f016",
            "replay suspicion: its 10 actions are 100% identical (rounded to 20 px) to run 'alpha-run' attempt 0 "
            "(10 actions, run by our harness)",
            "warning",
        )
    ]


def test_replay_suspicion_at_its_thresholds(suite, stored_run):
    store(stored_run, "retrieval-f016", clicks(STORED))
    tasks = {t.task_id: t for t in suite.tasks.all()}

    def similarity(actions) -> list[str]:
        return [
            p.problem.split(" identical")[0]
            for p in validation.replay_suspicions([sent("retrieval-f016", actions)], tasks)
        ]

    assert similarity(clicks([*STORED[:9], 5000])) == ["replay suspicion: its 10 actions are 90%"]  # 9 of 10
    assert similarity(clicks([*STORED[:8], 5000, 6000])) == []  # 8 of 10
    # 9 actions against 10: at most 18/19 alike, and 9 found in order is 94.7%
    assert similarity(clicks(STORED[:9])) == ["replay suspicion: its 9 actions are 95%"]
    # lengths 9 and 11 can at best be 90% alike (18/20): that bound is reached, not ruled out
    store(stored_run, "writing-a001", clicks(STORED + [1100]))
    found = validation.replay_suspicions([sent("writing-a001", clicks(STORED[:9]))], tasks)
    assert [p.problem.split(" identical")[0] for p in found] == ["replay suspicion: its 9 actions are 90%"]


def test_replay_needs_five_actions(suite, stored_run):
    tasks = {t.task_id: t for t in suite.tasks.all()}
    store(stored_run, "retrieval-f016", clicks(STORED[:5]))
    store(stored_run, "writing-a001", clicks(STORED[:4]))
    assert len(validation.replay_suspicions([sent("retrieval-f016", clicks(STORED[:5]))], tasks)) == 1
    assert validation.replay_suspicions([sent("writing-a001", clicks(STORED[:4]))], tasks) == []


def test_replay_is_looked_for_in_the_same_task_only_and_in_every_stored_attempt(suite, stored_run):
    tasks = {t.task_id: t for t in suite.tasks.all()}
    store(stored_run, "retrieval-f016", clicks(STORED))  # listed first (the suite's first task)
    store(stored_run, "writing-a001", clicks([7000 + 40 * i for i in range(10)]), attempt=0)  # unlike
    store(stored_run, "writing-a001", clicks(STORED), attempt=1)
    unlike = clicks([3000 + 40 * i for i in range(10)])
    # two tasks sent at once: each is compared with its own task's stored attempts, never the other's
    found = validation.replay_suspicions([sent("retrieval-f016", unlike), sent("writing-a001", clicks(STORED))], tasks)
    assert [(p.file, p.problem.split("'alpha-run' ")[1].split(" (")[0]) for p in found] == [
        ("writing-a001", "attempt 1")
    ]
    store(stored_run, "writing-a001", [], attempt=2)  # a stored attempt with no steps is no evidence
    assert len(validation.replay_suspicions([sent("writing-a001", clicks(STORED))], tasks)) == 1
    assert validation.replay_suspicions([sent("writing-a001", clicks(STORED))], {}) == []  # a task the suite lacks


def test_long_repetitive_attempts_are_compared_in_full(suite, stored_run):
    # 300 actions cycling through three: difflib's automatic junk heuristic treats actions this
    # common as noise and would find one changed action leaving these only 50% alike
    cycle = [{"type": "scroll", "y": 400}, {"type": "click", "x": 600, "y": 20}, {"type": "type", "text": "next"}]
    actions = cycle * 100
    store(stored_run, "retrieval-f016", actions)
    replayed = [*actions[:150], {"type": "key", "key": "Escape"}, *actions[151:]]
    tasks = {t.task_id: t for t in suite.tasks.all()}
    found = validation.replay_suspicions([sent("retrieval-f016", replayed)], tasks)
    assert [p.problem.split(" identical")[0] for p in found] == ["replay suspicion: its 300 actions are 100%"]


def test_identical_attempts(tmp_path):
    def bundle(name, attempt, xs, task_id="retrieval-f016"):
        b = read_task_dir(steps_folder(tmp_path / name, task_id, xs))
        b.attempt = attempt
        return b

    five = [10, 20, 30, 40]  # and DONE: five actions
    found = validation.identical_attempts(
        [
            bundle("short", 0, five[:3]),  # too short to tell, and first in order
            bundle("unique", 1, [11, 20, 30, 40]),  # a group of one, before the pair
            bundle("a", 3, five),
            bundle("b", 2, five),
        ]
    )
    text = "\n".join(s.action_text for s in bundle("e", 0, five).steps)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    assert said(found) == [
        (
            "retrieval-f016",
            f"replay suspicion: attempts 2, 3 of retrieval-f016 have byte-identical action sequences (5 actions "
            f"each, sha256 {digest}); independent attempts are expected to differ",
            "warning",
        )
    ]
    assert validation.identical_attempts([bundle("f", 0, five), bundle("g", 0, five, task_id="writing-a001")]) == []


def test_a_broken_task_folder_is_named_and_the_rest_still_checked(tmp_path, suite):
    broken = write_task_dir(tmp_path, "retrieval-f016")
    with (broken / "traj.jsonl").open("a") as rows:
        rows.write('{"step_num": "three", "action": "DONE"}\n')
    write_task_dir(tmp_path, "writing-a001")
    result = validation.validate_tree(tmp_path, meta_for(suite))
    assert errors(result) == [
        ("retrieval-f016/traj.jsonl", "line 4: step_num: is 'three' (expected an integer from 0 to 1000000)")
    ]
    assert [b.task_id for b in result.bundles] == ["writing-a001"]


def test_after_an_attempt_twice_the_next_folders_are_read(tmp_path, suite):
    attempt_folder(tmp_path, "retrieval-f016", "attempt-1")
    attempt_folder(tmp_path, "retrieval-f016", "attempt_1")
    attempt_folder(tmp_path, "retrieval-f016", "attempt_2")
    result = validation.validate_tree(tmp_path, meta_for(suite))
    assert sorted(b.attempt for b in result.bundles) == [1, 2] and len(errors(result)) == 1


def test_a_missing_screenshot_and_a_reader_warning(tmp_path, suite):
    folder = write_task_dir(tmp_path, "retrieval-f016")
    sorted(folder.glob("*.png"))[1].unlink()
    bundle = json.loads((folder / "rubric_bundle.json").read_text())
    bundle["task"]["id"] = "writing-a001"
    (folder / "rubric_bundle.json").write_text(json.dumps(bundle))
    shot = "step_2_20260411@123402000001.png"  # the second row's, removed above
    assert said(validation.validate_tree(tmp_path, meta_for(suite)).report) == [
        (
            "retrieval-f016/traj.jsonl",
            f"retrieval-f016/traj.jsonl, line 2: {shot} is missing from the task folder",
            "error",
        ),
        (
            "retrieval-f016",
            "retrieval-f016/rubric_bundle.json: task.id is 'writing-a001' but the folder is named 'retrieval-f016'",
            "warning",
        ),
    ]


def test_rows_over_the_bounds_are_named_and_not_decoded(tmp_path, suite):
    folder = write_task_dir(tmp_path, "retrieval-f016")
    rows = [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]
    first = rows[0]["screenshot_file"]
    rows = [{**rows[0], "step_num": i, "screenshot_file": first} for i in range(1, 7)] + [{**rows[-1], "step_num": 7}]
    (folder / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / first).write_bytes(b"not an image")  # not decoded: the rows already refuse the folder
    assert said(validation.validate_tree(tmp_path, meta_for(suite)).report) == [
        (
            f"retrieval-f016/{first}",
            "named as the screenshot of 6 rows of traj.jsonl (rows 1, 2, 3, 4, 5 and 1 more; expected each "
            "screenshot file named by at most 5 rows)",
            "error",
        )
    ]


def test_the_turn_budget_decides_whether_an_unfinished_attempt_ran_out(tmp_path, suite):
    write_task_dir(tmp_path, "retrieval-f016", actions=[(1, "pyautogui.click(1, 1)"), (2, "pyautogui.click(2, 2)")])
    assert [b.ended_by for b in validation.validate_tree(tmp_path, meta_for(suite, turn_budget=2)).bundles] == [
        "budget"
    ]
    assert [b.ended_by for b in validation.validate_tree(tmp_path, meta_for(suite, turn_budget=3)).bundles] != [
        "budget"
    ]


def test_going_back_and_past_the_budget_are_both_reported(tmp_path, suite):
    actions = [(3, "pyautogui.click(1, 1)"), (2, "pyautogui.click(2, 2)"), (4, "DONE")]
    write_task_dir(tmp_path, "retrieval-f016", actions=actions)
    assert [
        text.split(":")[0] for _f, text in errors(validation.validate_tree(tmp_path, meta_for(suite, turn_budget=3)))
    ] == [
        "step 2",  # step_num 2 after 3
        "step 3",  # step_num 4 past the budget of 3
    ]


def test_a_bad_screenshot_named_by_two_rows_is_reported_once_and_the_next_one_too(tmp_path, suite):
    folder = write_task_dir(tmp_path, "retrieval-f016")
    rows = [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]
    first, last = rows[0]["screenshot_file"], rows[2]["screenshot_file"]
    rows[1]["screenshot_file"] = first  # named twice: decoded and reported once
    (folder / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / first).write_bytes(b"not an image at all")
    (folder / last).write_bytes(b"nor this")
    assert errors(validation.validate_tree(tmp_path, meta_for(suite))) == [
        (f"retrieval-f016/{first}", "not an image (expected a PNG, JPEG or WebP screenshot)"),
        (f"retrieval-f016/{last}", "not an image (expected a PNG, JPEG or WebP screenshot)"),
    ]
