"""Hostile JSON against the Django-free readers (harness.safejson, the bundle and task-file
readers): deep nesting, huge integers, NaN and Infinity, lone surrogates and oversized files end in
a clear error naming the file and the problem, never a RecursionError or a bare ValueError. Every
document is built here from bytes."""

import json
import tracemalloc

import pytest

from harness import safejson
from harness.results import BundleError, classify, printable, read_task_dir
from harness.tasks import TaskFileError, parse_json_text

DEEP = "[" * 50_000 + "]" * 50_000
HUGE_INT = "9" * 5_000


@pytest.mark.parametrize(
    "text, words",
    [
        (DEEP, "nested more than 64 levels deep"),
        ('{"a": ' + "[" * 80 + "]" * 80 + "}", "nested more than 64 levels deep"),
        ('{"step_num": ' + HUGE_INT + "}", "an integer of 5000 digits (at most 20"),
        ('{"step_num": -' + "1" * 21 + "}", "an integer of 21 digits"),
        ('{"score": NaN}', "NaN is not a JSON number"),
        ("[1, Infinity]", "Infinity is not a JSON number"),
        ("[-Infinity]", "-Infinity is not a JSON number"),
        ('{"weight": 1e400}', "the number 1e400 is too large for a 64-bit float"),
        ('{"id": "a\\ud800b"}', "a lone surrogate \\ud800"),
        ('{"a": 1,', "not valid JSON: Expecting property name"),
    ],
)
def test_refusals_say_what_is_wrong(text, words):
    with pytest.raises(safejson.JSONRefused) as caught:
        safejson.loads(text)
    assert words in str(caught.value)


def test_refusals_give_the_line_and_column_when_known():
    with pytest.raises(safejson.JSONRefused) as caught:
        safejson.loads('{\n  "note": "NaN is fine in a string",\n  "score":  NaN\n}')
    assert (caught.value.line, caught.value.column) == (3, 13)


@pytest.mark.parametrize("wraps", [1, 2, 62, 63, 64, 199])
def test_depth_is_counted_exactly(wraps):
    # Objects and arrays mixed, brackets in strings that must not count, and an empty container
    # beside each level, so the deepest point is one below the innermost wrap: depth = wraps + 1.
    text = "0"
    for level in range(wraps):
        text = f'[1, "]]", {text}, []]' if level % 2 else f'{{"a": {text}, "b": "{{[", "c": {{}}}}'
    if wraps + 1 <= 64:
        assert safejson.loads(text) == json.loads(text)
    else:
        with pytest.raises(safejson.JSONRefused, match="nested more than 64 levels deep"):
            safejson.loads(text)


def test_what_real_files_hold_is_accepted():
    text = json.dumps(
        {
            "brackets in text": "[[[[{{{{" * 100,
            "emoji escaped in pairs": "\U0001f600",
            "big but 64-bit": 2**63 - 1,
            "negative": -(2**63),
            "floats": [0.1, -2.5e-300, 1.7e308],
            "rows": [{"step_num": n, "info": {"a": [1, [2, [3]]]}} for n in range(500)],
        }
    )
    assert "\\ud83d\\ude00" in text  # json.dumps escapes the emoji as a surrogate pair
    assert safejson.loads(text) == json.loads(text)
    assert safejson.loads(("[" * 64 + "]" * 64).encode()) == json.loads("[" * 64 + "]" * 64)


def test_size_is_checked_before_parsing(tmp_path):
    with pytest.raises(safejson.JSONRefused, match="1001 bytes of JSON .at most 1000"):
        safejson.loads(b"[" + b" " * 999 + b"]", max_bytes=1000)
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b"0," * 600 + b"0]")
    with pytest.raises(safejson.JSONRefused, match="the file is 1203 bytes .at most 1000"):
        safejson.load_file(path, max_bytes=1000)


def test_a_large_document_nested_too_deep_is_measured():
    # 3 MB of brackets, 501 deep at the end: too shallow for the C parser to give up, so only the
    # depth count refuses it.
    text = ("[" * 60 + "]" * 60) * 3_000 + "[" * 500 + "]" * 500
    with pytest.raises(safejson.JSONRefused, match=r"nested more than 64 levels deep$"):
        safejson.loads("[" + text.replace("][", "],[") + "]")


def test_a_deep_document_is_refused_before_the_parser_recurses(monkeypatch):
    # The C parser recursing to Python's limit can take a finaliser down with it (CI saw one fail
    # while formatting its own traceback), so depth is refused before json.loads is called.
    called = []
    monkeypatch.setattr(safejson.json, "loads", lambda *a, **k: called.append(1))
    with pytest.raises(safejson.JSONRefused, match=r"nested more than 64 levels deep$"):
        safejson.loads(DEEP)
    assert called == []


def test_depth_is_measured_in_linear_time_on_text_that_is_not_json():
    # 65 brackets opened, then one string never closed: if it had to end in a quote, every quote
    # after an escape would start a scan to the end of the text, 10^11 steps for this megabyte.
    text = "[" * 65 + '"' + '\\"' * 400_000
    with pytest.raises(safejson.JSONRefused, match=r"nested more than 64 levels deep$"):
        safejson.loads(text)
    # The unclosed string holds the closing brackets, so they do not count.
    assert safejson.nests_deeper_than("[" * 3 + '"' + "]" * 3, 2)
    assert not safejson.nests_deeper_than("[" * 3 + '"]"' + "]" * 3, 3)


def test_the_number_of_values_is_bounded_before_parsing():
    # 1.5 MB of "[]," would be 500k list objects (about 30 MB); counted, not parsed.
    text = "[" + "[]," * 500_000 + "0]"
    tracemalloc.start()
    try:
        with pytest.raises(safejson.JSONRefused, match="about 1000001 values in one JSON document .at most 500000"):
            safejson.loads(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024
    assert len(safejson.loads("[" + "[]," * 200_000 + "0]")) == 200_001


# ---------------------------------------------------------------- the bundle reader


def task_dir(tmp_path, rows: list[str], **files) -> object:
    folder = tmp_path / "retrieval-f016"
    folder.mkdir(exist_ok=True)
    (folder / "traj.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for name, text in files.items():
        (folder / name.replace("_dot_", ".")).write_text(text, encoding="utf-8")
    return folder


ROW = '{"step_num": 1, "action": "pyautogui.click(10, 20)", "response": "clicking"}'


@pytest.mark.parametrize(
    "rows, files, where, words",
    [
        ([ROW, DEEP], {}, "traj.jsonl, line 2", "nested more than 64 levels deep"),
        ([ROW, '{"step_num": ' + HUGE_INT + "}"], {}, "traj.jsonl, line 2", "an integer of 5000 digits"),
        ([ROW, '{"step_num": 1, "action": NaN}'], {}, "traj.jsonl, line 2", "NaN is not a JSON number"),
        ([ROW], {"usage_dot_json": '{"total": ' + DEEP + "}"}, "usage.json", "nested more than 64 levels deep"),
        ([ROW], {"usage_dot_json": '{"input_tokens": Infinity}'}, "usage.json, line 1", "Infinity is not"),
        (
            [ROW],
            {"rubric_bundle_dot_json": '{"grading_manifest": {"rubrics": [{"weight": NaN}]}}'},
            "rubric_bundle.json",
            "NaN is not a JSON number",
        ),  # fmt: skip
        ([ROW], {"result_dot_txt": "NaN\n"}, "result.txt", "holds 'NaN' (expected a finite number"),
        ([ROW], {"result_dot_txt": "inf"}, "result.txt", "holds 'inf'"),
        (
            ['{"step_num": 4294967296, "action": "WAIT"}'],
            {},
            "traj.jsonl, line 1",
            "step_num: is 4294967296 (expected an integer from 0 to 1000000)",
        ),  # fmt: skip
    ],
)
def test_bundle_reader_names_the_file_and_the_problem(tmp_path, rows, files, where, words):
    folder = task_dir(tmp_path, rows, **files)
    with pytest.raises(BundleError) as caught:
        read_task_dir(folder)
    message = str(caught.value)
    assert message.startswith(str(folder / where)), message
    assert words in message


def test_an_osworld_nan_score_is_refused_not_clamped(tmp_path):
    root = tmp_path / "pyautogui" / "screenshot" / "some-model" / "chrome"
    root.mkdir(parents=True)
    folder = task_dir(root, [ROW], result_dot_txt="nan")
    with pytest.raises(BundleError, match="result.txt: holds 'nan'"):
        read_task_dir(folder)


def test_bundle_messages_escape_bidirectional_and_control_characters(tmp_path):
    folder = tmp_path / "task\u202egnp.exe\x1b[2J"
    folder.mkdir()
    (folder / "traj.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(BundleError) as caught:  # a folder that fits no layout: the refusal is escaped too
        read_task_dir(folder)
    assert "\u202e" not in str(caught.value) and "\x1b" not in str(caught.value)
    with pytest.raises(BundleError) as caught:
        read_task_dir(folder, folder=classify(folder.name, layout="mypcbench"))
    message = str(caught.value)
    assert "\u202e" not in message and "\x1b" not in message
    assert "task\\u202egnp.exe\\x1b[2J/traj.jsonl, line 1: not valid JSON" in message
    assert caught.value.path == str(folder / "traj.jsonl")  # the path itself stays usable


@pytest.mark.parametrize(
    "name, shown",
    [
        ("plain/name.png", "plain/name.png"),
        ("caf\u00e9/\u65e5\u672c.json", "caf\u00e9/\u65e5\u672c.json"),
        ("a\u202egnp.exe", "a\\u202egnp.exe"),
        ("\u2066x\u2069\u200e\u200f", "\\u2066x\\u2069\\u200e\\u200f"),
        ("line\nbreak\ttab\x7f\x85", "line\\x0abreak\\x09tab\\x7f\\x85"),
        ("undecodable \udcff byte", "undecodable \\xff byte"),
        ("zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"),
    ],
)
def test_printable_escapes_what_could_hide_or_reorder_a_name(name, shown):
    assert printable(name) == shown


# ---------------------------------------------------------------- the task-file reader


@pytest.mark.parametrize(
    "text, words",
    [
        (DEEP, "nested more than 64 levels deep"),
        ('[{"id": "retrieval-f901", "time_limit_seconds": ' + HUGE_INT + "}]", "an integer of 5000 digits"),
        ('[{"id": "retrieval-f901", "weight": Infinity}]', "Infinity is not a JSON number"),
    ],
)
def test_task_files_refuse_hostile_json_with_the_file_name(text, words):
    with pytest.raises(TaskFileError) as caught:
        parse_json_text(text.encode(), "tasks/hostile.json")
    assert str(caught.value).startswith("tasks/hostile.json: ")
    assert words in str(caught.value)


def test_bundle_warnings_escape_names_too(tmp_path):
    folder = task_dir(tmp_path, [json.dumps({"step_num": 1, "action": "pyautogui.click(1e999, 5)"})])
    folder = folder.rename(tmp_path / "retrieval-f016\u202e")
    bundle = read_task_dir(folder, folder=classify(folder.name, layout="mypcbench"))
    assert bundle.warnings and all("\u202e" not in w for w in bundle.warnings)
    assert any("retrieval-f016\\u202e/traj.jsonl" in w for w in bundle.warnings), bundle.warnings


@pytest.mark.parametrize(
    "action",
    ["pyautogui.click(1e999, 5)", "pyautogui.scroll(-1e999)", "pyautogui.click(" + "9" * 40 + ", 5)"],
)
def test_recorded_actions_with_unstorable_numbers_are_kept_as_text(tmp_path, action):
    folder = task_dir(tmp_path, [json.dumps({"step_num": 1, "action": action})])
    bundle = read_task_dir(folder)
    assert bundle.steps[0].action == {"type": "other", "text": action}
    assert safejson.unstorable(bundle.steps[0].action) == ""
    assert any("line 1: action " in w and "kept as text only" in w for w in bundle.warnings)


def test_unstorable_names_what_a_json_column_cannot_hold():
    assert safejson.unstorable({"a": [1, 2.5, {"b": (3, "x")}], "n": -(2**63)}) == ""
    assert safejson.unstorable({"a": [1, {"b": float("nan")}]}) == "the number nan (not finite)"
    assert safejson.unstorable([2**70]) == "an integer of 22 digits"


def test_an_oversized_task_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from harness.tasks import taskfile

    path = tmp_path / "tasks.json"
    path.write_bytes(b"[" + b" " * 2000 + b"]")
    monkeypatch.setattr(safejson, "MAX_BYTES", 1000)
    with pytest.raises(TaskFileError, match=r"tasks.json: the file is 2002 bytes \(at most 1000 are accepted\)"):
        taskfile.load_tasks(path)


def test_legacy_step_actions_with_unstorable_numbers_are_kept_as_text(tmp_path):
    context = tmp_path / "retrieval-f016" / "context"
    context.mkdir(parents=True)
    (context / "step_1_parsed_actions.json").write_text('["pyautogui.click(1e999, 5)"]')
    (context / "step_2_parsed_actions.json").write_text('["pyautogui.click(10, 20)"]')
    bundle = read_task_dir(context.parent)
    assert bundle.steps[0].action == {"type": "other", "text": "pyautogui.click(1e999, 5)"}
    assert bundle.steps[1].action == {"type": "click", "x": 10, "y": 20}
