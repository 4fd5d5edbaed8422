"""The pyautogui parser turns recorded snippets into structured actions without running them."""

import json

import pytest

from harness.actions import parse_action


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("pyautogui.click(640, 400)", {"type": "click", "x": 640, "y": 400}),
        ("pyautogui.click(x=5, y=6, clicks=2)", {"type": "double_click", "x": 5, "y": 6}),
        ("pyautogui.doubleClick(5, 6)", {"type": "double_click", "x": 5, "y": 6}),
        ("pyautogui.click(1, 2, button='right')", {"type": "right_click", "x": 1, "y": 2}),
        ("pyautogui.rightClick(1, 2)", {"type": "right_click", "x": 1, "y": 2}),
        ("pyautogui.moveTo(300, 200)", {"type": "move", "x": 300, "y": 200}),
        ("import pyautogui; pyautogui.typewrite('hello', interval=0.02)", {"type": "type", "text": "hello"}),
        ("pyautogui.write('x < y')", {"type": "type", "text": "x < y"}),
        ("pyautogui.press('enter')", {"type": "key", "keys": ["enter"]}),
        ("pyautogui.hotkey('ctrl', 'shift', 't')", {"type": "hotkey", "keys": ["ctrl", "shift", "t"]}),
        ("pyautogui.scroll(-3, x=100, y=200)", {"type": "scroll", "x": 100, "y": 200, "dy": -3}),
        ("pyautogui.hscroll(4)", {"type": "scroll", "dx": 4}),
        ("time.sleep(2)", {"type": "wait", "seconds": 2}),
        ("WAIT", {"type": "wait"}),
        ("DONE", {"type": "done"}),
        ("FAIL", {"type": "fail"}),
    ],
)
def test_common_actions(source, expected):
    assert parse_action(source) == expected


def test_move_then_drag_is_one_drag_with_its_start_point():
    action = parse_action("pyautogui.moveTo(10, 20)\npyautogui.dragTo(300, 400, duration=0.5)")
    assert action == {"type": "drag", "from_x": 10, "from_y": 20, "x": 300, "y": 400}


def test_clipboard_paste_reads_as_typing_the_text():
    action = parse_action("pyperclip.copy('Café Mañana'); pyautogui.hotkey('ctrl', 'v')")
    assert action == {"type": "type", "text": "Café Mañana", "via": "clipboard"}


def test_several_calls_keep_the_first_and_list_all():
    action = parse_action("pyautogui.click(5, 5); pyautogui.typewrite('abc')")
    assert action["type"] == "click"
    assert [a["type"] for a in action["actions"]] == ["click", "type"]


@pytest.mark.parametrize(
    "source",
    ["os.system('rm -rf ~')", "x = (", "for i in range(3): pass", "__import__('os').remove('f')", ""],
)
def test_unknown_or_broken_code_is_other_with_its_text(source):
    action = parse_action(source)
    assert action["type"] == "other"
    assert action["text"] == source or source in action["text"]


def test_code_is_never_executed(tmp_path):
    marker = tmp_path / "ran"
    parse_action(f"open({str(marker)!r}, 'w').write('x')")
    parse_action(f"pyautogui.click(__import__('pathlib').Path({str(marker)!r}).touch(), 3)")
    assert not marker.exists()


def test_non_literal_arguments_are_left_out_not_evaluated():
    assert parse_action("pyautogui.click(x_pos, 200)") == {"type": "click", "y": 200}


def test_non_string_actions_are_shown_as_text():
    assert parse_action(["click", 1]) == {"type": "other", "text": "['click', 1]"}
    assert parse_action({"kind": "click"}) == {"type": "other", "text": "{'kind': 'click'}"}


# OSWorld's computer_13 action space, as its trajectories record it (a dict, or that dict as text).
@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"action_type": "CLICK", "parameters": {"x": 10, "y": 20}}, {"type": "click", "x": 10, "y": 20}),
        ({"action_type": "CLICK", "parameters": {"button": "right", "x": 5, "y": 6}},
         {"type": "right_click", "x": 5, "y": 6}),
        ({"action_type": "CLICK", "parameters": {"x": 5, "y": 6, "num_clicks": 2}},
         {"type": "double_click", "x": 5, "y": 6}),
        ({"action_type": "CLICK", "parameters": {"x": 1, "y": 2, "num_clicks": 3}},
         {"type": "click", "x": 1, "y": 2, "clicks": 3}),
        ({"action_type": "CLICK", "parameters": {}}, {"type": "click"}),
        ({"action_type": "DOUBLE_CLICK", "parameters": {"x": 7, "y": 8}}, {"type": "double_click", "x": 7, "y": 8}),
        ({"action_type": "RIGHT_CLICK", "parameters": {}}, {"type": "right_click"}),
        ({"action_type": "MOVE_TO", "parameters": {"x": 300, "y": 400}}, {"type": "move", "x": 300, "y": 400}),
        ({"action_type": "DRAG_TO", "parameters": {"x": 30, "y": 40}}, {"type": "drag", "x": 30, "y": 40}),
        ({"action_type": "MOUSE_DOWN", "parameters": {"button": "left"}}, {"type": "other", "mouse": "down"}),
        ({"action_type": "SCROLL", "parameters": {"dx": 0, "dy": -5}}, {"type": "scroll", "dy": -5}),
        ({"action_type": "TYPING", "parameters": {"text": "Hi, Scranton"}}, {"type": "type", "text": "Hi, Scranton"}),
        ({"action_type": "PRESS", "parameters": {"key": "enter"}}, {"type": "key", "keys": ["enter"]}),
        ({"action_type": "KEY_DOWN", "parameters": {"key": "shift"}},
         {"type": "key", "keys": ["shift"], "state": "down"}),
        ({"action_type": "KEY_UP", "parameters": {"key": "shift"}}, {"type": "key", "keys": ["shift"], "state": "up"}),
        ({"action_type": "HOTKEY", "parameters": {"keys": ["ctrl", "s"]}}, {"type": "hotkey", "keys": ["ctrl", "s"]}),
        ({"action_type": "WAIT"}, {"type": "wait"}),
        ({"action_type": "DONE"}, {"type": "done"}),
        ({"action_type": "FAIL"}, {"type": "fail"}),
        ({"action_type": "ZOOM", "parameters": {"level": 2}},
         {"type": "other", "text": '{"action_type": "ZOOM", "parameters": {"level": 2}}'}),
    ],
)  # fmt: skip
def test_osworld_computer_13_dict_actions_become_our_action_kinds(action, expected):
    assert parse_action(action) == expected
    assert parse_action(json.dumps(action)) == expected  # as JSON text
    assert parse_action(str(action)) == expected  # str()'d by a runner (a Python literal), read not run


def test_a_computer_13_lookalike_string_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    text = f"{{'action_type': __import__('pathlib').Path({str(marker)!r}).touch()}}"
    assert parse_action(text)["type"] == "other" and not marker.exists()


@pytest.mark.parametrize("depth", [1_000, 20_000])
def test_a_deeply_nested_computer_13_text_is_other_not_a_crash(depth):
    # As an uploaded traj.jsonl can hold it: a string that reads as JSON 20,000 levels deep used to
    # take the standard parser to Python's recursion limit and out of the upload's validation.
    text = '{"action_type": "CLICK", "parameters": ' + "[" * depth + "]" * depth + "}"
    assert parse_action(text) == {"type": "other", "text": text}
