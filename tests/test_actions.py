"""The pyautogui parser turns recorded snippets into structured actions without running them."""

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
    assert parse_action({"action_type": "CLICK"}) == {"type": "other", "text": "{'action_type': 'CLICK'}"}
