"""The one translation layer: every provider's computer-use actions become the pyautogui commands the
guest runs, with coordinates scaled to the real screen. Each output is also read back with
harness.actions.parse_action, so what we send is what the site will show."""

import pytest

from harness.actions import (
    PYAUTOGUI_X11_KEYS,
    KeyNameError,
    Scale,
    TranslationError,
    fit_within,
    from_anthropic,
    from_gemini,
    from_openai,
    from_qwen,
    key_names,
    parse_action,
    smart_resize,
    split_keys,
    translate,
)

SCREEN = (1280, 800)
CLAUDE = Scale.between((1280, 720), SCREEN)  # the declared display is 1280x720


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"action": "left_click", "coordinate": [640, 360]}, ["pyautogui.click(640, 400)"]),
        ({"action": "right_click", "coordinate": [100, 72]}, ["pyautogui.rightClick(100, 80)"]),
        ({"action": "middle_click", "coordinate": [10, 9]}, ["pyautogui.middleClick(10, 10)"]),
        ({"action": "double_click", "coordinate": [10, 9]}, ["pyautogui.doubleClick(10, 10)"]),
        ({"action": "triple_click", "coordinate": [10, 9]}, ["pyautogui.tripleClick(10, 10)"]),
        ({"action": "mouse_move", "coordinate": [1280, 720]}, ["pyautogui.moveTo(1280, 800)"]),
        ({"action": "type", "text": "hello"}, ["pyautogui.typewrite('hello', interval=0.02)"]),
        ({"action": "key", "text": "ctrl+shift+t"}, ["pyautogui.hotkey('ctrl', 'shift', 't')"]),
        ({"action": "key", "text": "Return"}, ["pyautogui.press('enter')"]),
        ({"action": "key", "text": "Page_Down"}, ["pyautogui.press('pagedown')"]),
        (
            {"action": "scroll", "coordinate": [640, 360], "scroll_direction": "down", "scroll_amount": 5},
            ["pyautogui.scroll(-5, x=640, y=400)"],
        ),  # fmt: skip
        ({"action": "scroll", "coordinate": [0, 0], "scroll_direction": "right"}, ["pyautogui.hscroll(3, x=0, y=0)"]),
        (
            {"action": "left_click_drag", "start_coordinate": [0, 0], "coordinate": [640, 360]},
            ["pyautogui.moveTo(0, 0); pyautogui.dragTo(640, 400, duration=0.5)"],
        ),  # fmt: skip
        ({"action": "wait", "duration": 2}, ["WAIT"]),
        ({"action": "screenshot"}, []),
        ({"action": "cursor_position"}, []),
    ],
)
def test_anthropic_actions(action, expected):
    assert from_anthropic(action, CLAUDE) == expected


def test_anthropic_click_with_held_modifier_presses_and_releases_it():
    (command,) = from_anthropic({"action": "left_click", "coordinate": [10, 9], "text": "shift"}, CLAUDE)
    parsed = parse_action(command)
    assert [a["type"] for a in parsed["actions"]] == ["key", "click", "key"]
    assert parsed["actions"][0]["state"] == "down" and parsed["actions"][2]["state"] == "up"


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"type": "click", "button": "left", "x": 5, "y": 6}, ["pyautogui.click(5, 6)"]),
        ({"type": "click", "button": "right", "x": 5, "y": 6}, ["pyautogui.rightClick(5, 6)"]),
        ({"type": "click", "button": "wheel", "x": 5, "y": 6}, ["pyautogui.middleClick(5, 6)"]),
        ({"type": "double_click", "x": 5, "y": 6}, ["pyautogui.doubleClick(5, 6)"]),
        ({"type": "move", "x": 5, "y": 6}, ["pyautogui.moveTo(5, 6)"]),
        ({"type": "keypress", "keys": ["CTRL", "L"]}, ["pyautogui.hotkey('ctrl', 'l')"]),
        ({"type": "keypress", "keys": ["ENTER"]}, ["pyautogui.press('enter')"]),
        # OpenAI scroll_y > 0 is down; pyautogui's positive is up. 50 px per wheel click, as Firefox scrolls.
        ({"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": 300}, ["pyautogui.scroll(-6, x=5, y=6)"]),
        ({"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": -20}, ["pyautogui.scroll(1, x=5, y=6)"]),
        ({"type": "scroll", "x": 5, "y": 6, "scroll_x": 200, "scroll_y": 0}, ["pyautogui.hscroll(4, x=5, y=6)"]),
        # the mouse's back / forward buttons do nothing through pyautogui on X11: Alt+Left / Alt+Right
        ({"type": "click", "button": "back", "x": 5, "y": 6}, ["pyautogui.hotkey('alt', 'left')"]),
        ({"type": "click", "button": "forward", "x": 5, "y": 6}, ["pyautogui.hotkey('alt', 'right')"]),
        ({"type": "keypress", "keys": ["CMD", "SPACE"]}, ["pyautogui.hotkey('win', 'space')"]),
        ({"type": "keypress", "keys": ["META", "L"]}, ["pyautogui.hotkey('win', 'l')"]),
        (
            {"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": -100, "keys": ["CTRL"]},
            ["pyautogui.keyDown('ctrl'); pyautogui.scroll(2, x=5, y=6); pyautogui.keyUp('ctrl')"],
        ),
        (
            {"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]},
            ["pyautogui.moveTo(1, 2); pyautogui.dragTo(3, 4, duration=0.2)"],
        ),  # fmt: skip
        ({"type": "wait"}, ["WAIT"]),
        ({"type": "screenshot"}, []),
    ],
)
def test_openai_actions(action, expected):
    assert from_openai(action) == expected


def test_non_ascii_text_goes_through_the_clipboard_and_reads_back_as_typing():
    (command,) = from_openai({"type": "type", "text": "Café €5"})
    assert "pyperclip.copy('Café €5')" in command
    assert parse_action(command) == {"type": "type", "text": "Café €5", "via": "clipboard"}


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("click_at", {"x": 500, "y": 500}, ["pyautogui.click(640, 400)"]),
        ("click_at", {"x": 999, "y": 0}, ["pyautogui.click(1278, 0)"]),
        ("hover_at", {"x": 100, "y": 250}, ["pyautogui.moveTo(128, 200)"]),
        ("key_combination", {"keys": "Control+A"}, ["pyautogui.hotkey('ctrl', 'a')"]),
        # magnitude 800 of the 0-999 grid = 640 of 800 px = 13 wheel clicks of 50 px
        ("scroll_document", {"direction": "down"}, ["pyautogui.scroll(-13, x=640, y=400)"]),
        (
            "scroll_at",
            {"x": 500, "y": 500, "direction": "right", "magnitude": 100},
            ["pyautogui.hscroll(3, x=640, y=400)"],
        ),
        (
            "drag_and_drop",
            {"x": 0, "y": 0, "destination_x": 500, "destination_y": 500},
            ["pyautogui.moveTo(0, 0); pyautogui.dragTo(640, 400, duration=0.5)"],
        ),  # fmt: skip
        ("wait_5_seconds", {}, ["WAIT"]),
        ("go_back", {}, ["pyautogui.hotkey('alt', 'left')"]),
    ],
)
def test_gemini_actions_on_the_0_999_grid(name, args, expected):
    assert from_gemini(name, args, SCREEN) == expected


def test_gemini_type_text_at_clicks_clears_types_and_submits():
    commands = from_gemini("type_text_at", {"x": 500, "y": 100, "text": "Scranton"}, SCREEN)
    assert [parse_action(c)["type"] for c in commands] == ["click", "hotkey", "key", "type", "key"]
    assert parse_action(commands[0]) == {"type": "click", "x": 640, "y": 80}
    no_enter = from_gemini("type_text_at", {"x": 1, "y": 1, "text": "x", "press_enter": False,
                                            "clear_before_typing": False}, SCREEN)  # fmt: skip
    assert len(no_enter) == 2


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"action": "left_click", "coordinate": [999, 999]}, ["pyautogui.click(1280, 800)"]),
        ({"action": "left_click", "coordinate": [499.5, 0]}, ["pyautogui.click(640, 0)"]),
        ({"action": "triple_click", "coordinate": [0, 0]}, ["pyautogui.doubleClick(0, 0)"]),
        ({"action": "key", "keys": ["ctrl", "c"]}, ["pyautogui.hotkey('ctrl', 'c')"]),
        ({"action": "key", "keys": ["ctrl+shift", "Page_Down"]}, ["pyautogui.hotkey('ctrl', 'shift', 'pagedown')"]),
        # pixels (positive up / right) as wheel clicks of 50 px, never rounded to nothing, clamped to 1500 px
        ({"action": "scroll", "pixels": -250}, ["pyautogui.scroll(-5)"]),
        ({"action": "scroll", "pixels": -5}, ["pyautogui.scroll(-1)"]),
        ({"action": "scroll", "pixels": -500000}, ["pyautogui.scroll(-30)"]),
        ({"action": "hscroll", "pixels": 100}, ["pyautogui.hscroll(2)"]),
        # keys held during a click
        (
            {"action": "left_click", "coordinate": [0, 0], "text": "ctrl"},
            ["pyautogui.keyDown('ctrl'); pyautogui.click(0, 0); pyautogui.keyUp('ctrl')"],
        ),
        (
            {"action": "left_click", "coordinate": [0, 0], "text": "ctrl+shift"},
            [
                "pyautogui.keyDown('ctrl'); pyautogui.keyDown('shift'); pyautogui.click(0, 0); "
                "pyautogui.keyUp('shift'); pyautogui.keyUp('ctrl')"
            ],
        ),  # fmt: skip
        ({"action": "wait", "time": 3}, ["WAIT"]),
        ({"action": "terminate", "status": "success"}, ["DONE"]),
        ({"action": "terminate", "status": "failure"}, ["FAIL"]),
        ({"action": "answer", "text": "42"}, ["DONE"]),
    ],
)
def test_qwen_tool_calls_on_the_relative_grid(args, expected):
    assert from_qwen(args, SCREEN) == expected


@pytest.mark.parametrize(
    ("screen", "resized"),
    [
        ((1280, 800), (1260, 784)),  # provider-apis.md section 5
        ((1920, 1080), (1316, 728)),
        ((1008, 700), (1008, 700)),  # multiples of 28 within the pixel budget stay as they are
        ((1000, 700), (1008, 700)),  # sides go to the nearest multiple of 28
        ((20, 30), (56, 84)),  # below 3136 pixels: grown, sides rounded up
    ],
)
def test_smart_resize_gives_the_size_a_qwen25_vl_processor_sees(screen, resized):
    assert smart_resize(screen) == resized
    width, height = resized
    assert width % 28 == 0 and height % 28 == 0 and 3136 <= width * height <= 1_003_520


def test_smart_resize_refuses_what_the_processor_refuses():
    with pytest.raises(ValueError, match="aspect ratio above 200"):
        smart_resize((20100, 100))
    with pytest.raises(ValueError, match="0x800: both sides must be at least 1 pixel"):
        smart_resize((0, 800))


@pytest.mark.parametrize(
    ("screen", "args", "expected"),
    [
        # pixels of the 1260x784 image the model saw, scaled back by 1280/1260 and 800/784
        ((1280, 800), {"action": "left_click", "coordinate": [630, 392]}, ["pyautogui.click(640, 400)"]),
        ((1280, 800), {"action": "left_click", "coordinate": [1260, 784]}, ["pyautogui.click(1280, 800)"]),
        ((1280, 800), {"action": "right_click", "coordinate": [100, 100]}, ["pyautogui.rightClick(102, 102)"]),
        # 1920x1080 was sent as 1316x728
        ((1920, 1080), {"action": "double_click", "coordinate": [658, 364]}, ["pyautogui.doubleClick(960, 540)"]),
        ((1920, 1080), {"action": "mouse_move", "coordinate": [1316, 728]}, ["pyautogui.moveTo(1920, 1080)"]),
        (
            (1920, 1080),
            {"action": "scroll", "coordinate": [0, 728], "pixels": -150},
            ["pyautogui.scroll(-3, x=0, y=1080)"],
        ),
    ],
)
def test_qwen25_absolute_pixels_are_scaled_back_from_the_resized_screenshot(screen, args, expected):
    assert from_qwen(args, screen, "absolute") == expected


def test_the_same_qwen_point_lands_differently_in_each_convention():
    click = {"action": "left_click", "coordinate": [500, 500]}
    assert from_qwen(click, SCREEN, "relative") == ["pyautogui.click(641, 400)"]  # 500 / 999 of the screen
    assert from_qwen(click, SCREEN, "absolute") == ["pyautogui.click(508, 510)"]  # 500 px of 1260x784
    with pytest.raises(ValueError, match=r"Qwen coordinate type 'normalized' \(expected one of: relative, absolute\)"):
        from_qwen(click, SCREEN, "normalized")


def test_every_generated_command_reads_back_as_the_intended_action():
    samples = [
        ("anthropic", {"action": "left_click", "coordinate": [640, 360]}, "click"),
        ("openai", {"type": "double_click", "x": 1, "y": 1}, "double_click"),
        ("gemini", {"name": "click_at", "args": {"x": 1, "y": 1}}, "click"),
        ("qwen", {"action": "right_click", "coordinate": [1, 1]}, "right_click"),
        ("anthropic", {"action": "left_click_drag", "start_coordinate": [1, 1], "coordinate": [9, 9]}, "drag"),
        ("openai", {"type": "scroll", "x": 1, "y": 1, "scroll_y": 100}, "scroll"),
    ]
    for vocabulary, action, kind in samples:
        (command,) = translate(vocabulary, action, SCREEN, (1280, 720))
        assert parse_action(command)["type"] == kind, (vocabulary, command)


def test_unknown_actions_are_refused_with_what_is_accepted():
    with pytest.raises(TranslationError, match=r"Anthropic action 'teleport' is not supported \(expected one of: "):
        from_anthropic({"action": "teleport"})
    with pytest.raises(TranslationError, match="OpenAI action 'fly'"):
        from_openai({"type": "fly"})
    with pytest.raises(TranslationError, match="Qwen action 'dance'"):
        from_qwen({"action": "dance"}, SCREEN)
    with pytest.raises(TranslationError, match="translation action 'klingon'"):
        translate("klingon", {}, SCREEN)


def test_keys_and_sizes():
    assert split_keys("ctrl++") == ["ctrl", "+"]
    assert split_keys("super") == ["win"]
    assert split_keys("F5") == ["f5"]
    assert fit_within((1280, 800), (1280, 720)) == (1152, 720)
    assert fit_within((1024, 768), (1280, 720)) == (960, 720)
    assert fit_within((800, 600), (1280, 800)) == (800, 600)


# ---------------------------------------------------------------- keys (xdotool syntax, X keysyms)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a space separates successive presses, as in xdotool
        ("ctrl+a BackSpace", "pyautogui.hotkey('ctrl', 'a'); pyautogui.press('backspace')"),
        ("Down Down Down", "pyautogui.press('down'); pyautogui.press('down'); pyautogui.press('down')"),
        ("ctrl+backslash", "pyautogui.hotkey('ctrl', '\\\\')"),
        ("ctrl+bracketleft", "pyautogui.hotkey('ctrl', '[')"),
        ("ISO_Left_Tab", "pyautogui.hotkey('shift', 'tab')"),
        ("alt+ISO_Left_Tab", "pyautogui.hotkey('alt', 'shift', 'tab')"),
        ("KP_Enter", "pyautogui.press('enter')"),
        ("KP_5", "pyautogui.press('num5')"),
        ("Menu", "pyautogui.press('apps')"),
        ("F24", "pyautogui.press('f24')"),
        ("Prior", "pyautogui.press('pageup')"),
        ("super+l", "pyautogui.hotkey('win', 'l')"),
        ("Meta_L", "pyautogui.press('win')"),
        ("XF86Back", "pyautogui.hotkey('alt', 'left')"),
    ],
)
def test_claude_key_uses_xdotool_syntax(text, expected):
    (command,) = from_anthropic({"action": "key", "text": text})
    assert command == expected


def test_every_common_x_keysym_maps_to_a_key_pyautogui_presses_on_x11():
    keysyms = (
        "backslash semicolon apostrophe bracketleft bracketright grave minus equal comma period slash "
        "quoteright quoteleft quotedbl less greater question exclam at numbersign dollar percent asciicircum "
        "ampersand asterisk parenleft parenright underscore plus bar braceleft braceright colon asciitilde "
        "KP_0 KP_1 KP_2 KP_3 KP_4 KP_5 KP_6 KP_7 KP_8 KP_9 KP_Add KP_Subtract KP_Multiply KP_Divide KP_Decimal "
        "KP_Enter KP_Home KP_End KP_Up KP_Down KP_Left KP_Right KP_Page_Up KP_Page_Down KP_Insert KP_Delete "
        "Menu ISO_Left_Tab Page_Up Page_Down Prior Next Return Escape BackSpace Delete Tab space Home End "
        "Insert Up Down Left Right Control_L Control_R Shift_L Shift_R Alt_L Alt_R Super_L Super_R Meta_L "
        "Caps_Lock Num_Lock Scroll_Lock Print Pause super meta cmd command win"
    ).split() + [f"F{i}" for i in range(1, 25)]
    for keysym in keysyms:
        for key in key_names(keysym):
            assert len(key) == 1 or key in PYAUTOGUI_X11_KEYS, (keysym, key)


@pytest.mark.parametrize("name", ["Hyper_R", "XF86Calculator", "F25", "dead_acute", "Multi_key"])
def test_a_key_pyautogui_would_ignore_is_refused_with_a_message(name):
    with pytest.raises(KeyNameError, match=f"key {name!r} has no equivalent"):
        from_anthropic({"action": "key", "text": f"ctrl+{name}"})


def test_anthropic_scroll_holds_the_keys_in_text():
    (command,) = from_anthropic(
        {"action": "scroll", "coordinate": [640, 360], "scroll_direction": "up", "scroll_amount": 2, "text": "ctrl"},
        CLAUDE,
    )
    assert command == "pyautogui.keyDown('ctrl'); pyautogui.scroll(2, x=640, y=400); pyautogui.keyUp('ctrl')"
    parsed = parse_action(command)
    assert [a["type"] for a in parsed["actions"]] == ["key", "scroll", "key"]


def test_gemini_mouse_and_key_down_and_up_and_booleans_as_strings():
    screen = (1000, 500)
    assert from_gemini("mouse_down", {"x": 500, "y": 500}, screen) == ["pyautogui.mouseDown(500, 250, button='left')"]
    assert from_gemini("mouse_up", {}, screen) == ["pyautogui.mouseUp(button='left')"]
    assert from_gemini("key_down", {"keys": ["Control", "Shift"]}, screen) == [
        "pyautogui.keyDown('ctrl'); pyautogui.keyDown('shift')"
    ]
    assert from_gemini("key_up", {"keys": ["Control", "Shift"]}, screen) == [
        "pyautogui.keyUp('shift'); pyautogui.keyUp('ctrl')"
    ]
    typed = from_gemini("type_text_at", {"x": 0, "y": 0, "text": "hi", "press_enter": "false"}, screen)
    assert "pyautogui.press('enter')" not in typed
    typed = from_gemini("type", {"text": "hi", "press_enter": True}, screen)
    assert typed == ["pyautogui.typewrite('hi', interval=0.02)", "pyautogui.press('enter')"]
