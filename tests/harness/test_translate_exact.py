"""The exact commands each provider's calls and each size rule give, worked out by hand: a wrong key, button,
direction or size in the translation reaches the desktop as a different action, so every branch is pinned
to its command string (found by mutation testing, README: Testing)."""

import pytest

from harness.actions import (
    KeyNameError,
    TranslationError,
    fit_within,
    from_anthropic,
    from_gemini,
    from_openai,
    from_qwen,
    key_name,
    key_names,
    qwen_model_size,
    smart_resize,
    split_keys,
    translate,
    wheel_clicks,
)

SCREEN = (1280, 800)  # x = grid / 1000 * 1280, y = grid / 1000 * 800, truncated
CLEAR = ["pyautogui.hotkey('ctrl', 'a')", "pyautogui.press('backspace')"]
HI = "pyautogui.typewrite('hi', interval=0.02)"
AT_320_600 = {"x": 250, "y": 750}  # 320, 600 in pixels


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("click", {"x": 250, "y": 750}, ["pyautogui.click(320, 600)"]),
        ("double_click", {"x": 250, "y": 750}, ["pyautogui.doubleClick(320, 600)"]),
        ("triple_click", {"x": 250, "y": 750}, ["pyautogui.tripleClick(320, 600)"]),
        ("right_click", {"x": 250, "y": 750}, ["pyautogui.rightClick(320, 600)"]),
        ("middle_click", {"x": 250, "y": 750}, ["pyautogui.middleClick(320, 600)"]),
        ("move", {"x": 250, "y": 750}, ["pyautogui.moveTo(320, 600)"]),
        (
            "type_text_at",
            {"x": 500, "y": 100, "text": "Scranton"},
            ["pyautogui.click(640, 80)", *CLEAR, "pyautogui.typewrite('Scranton', interval=0.02)",
             "pyautogui.press('enter')"],
        ),  # fmt: skip
        # `type` defaults the other way round: no clearing, no Enter
        ("type", {"text": "hi"}, [HI]),
        ("type", {"x": 500, "y": 500, "text": "hi"}, ["pyautogui.click(640, 400)", HI]),
        (
            "type",
            {"x": 500, "y": 500, "text": "hi", "clear_before_typing": True, "press_enter": "true"},
            ["pyautogui.click(640, 400)", *CLEAR, HI, "pyautogui.press('enter')"],
        ),
        # clearing needs a field to click first; without a point nothing is cleared
        ("type", {"text": "hi", "clear_before_typing": True}, [HI]),
        ("press_key", {"key": "Enter"}, ["pyautogui.press('enter')"]),
        ("hotkey", {"keys": ["Control", "c"]}, ["pyautogui.hotkey('ctrl', 'c')"]),
        ("key_combination", {"keys": "Control+Shift+T"}, ["pyautogui.hotkey('ctrl', 'shift', 't')"]),
        ("mouse_down", {"x": 500, "y": 500, "button": "right"}, ["pyautogui.mouseDown(640, 400, button='right')"]),
        ("mouse_up", {"button": "Wheel"}, ["pyautogui.mouseUp(button='middle')"]),
        ("key_down", {"key": "Shift"}, ["pyautogui.keyDown('shift')"]),
        # magnitude 800 (the default) of 800 px = 640 px = 12.8 -> 13 wheel clicks of 50 px
        ("scroll_document", {"direction": "up"}, ["pyautogui.scroll(13, x=640, y=400)"]),
        ("scroll", {}, ["pyautogui.scroll(-13, x=640, y=400)"]),
        # horizontal magnitudes are shares of the width: 500 of 1280 px = 640 px
        ("scroll", {"direction": "left", "magnitude": 500}, ["pyautogui.hscroll(-13, x=640, y=400)"]),
        ("scroll_at", {**AT_320_600, "direction": "right", "magnitude": 500}, ["pyautogui.hscroll(13, x=320, y=600)"]),
        # 10 of 800 px = 8 px: less than a wheel click still scrolls one; so does a magnitude of 0
        ("scroll_at", {**AT_320_600, "direction": "down", "magnitude": 10}, ["pyautogui.scroll(-1, x=320, y=600)"]),
        ("scroll_document", {"direction": "down", "magnitude": 0}, ["pyautogui.scroll(-1, x=640, y=400)"]),
        ("wait", {}, ["WAIT"]),
        ("take_screenshot", {}, []),
        ("go_forward", {}, ["pyautogui.hotkey('alt', 'right')"]),
        (
            "navigate",
            {"url": "https://hoolimail.test/inbox"},
            ["pyautogui.hotkey('ctrl', 'l')", "pyautogui.typewrite('https://hoolimail.test/inbox', interval=0.02)",
             "pyautogui.press('enter')"],
        ),  # fmt: skip
        (
            "search",
            {},
            ["pyautogui.hotkey('ctrl', 'l')", "pyautogui.typewrite('https://www.google.com', interval=0.02)",
             "pyautogui.press('enter')"],
        ),  # fmt: skip
        ("open_web_browser", {}, []),
    ],
)  # fmt: skip
def test_each_gemini_call_gives_exactly_its_command(name, args, expected):
    assert from_gemini(name, args, SCREEN) == expected


def test_key_up_releases_keys_in_reverse_order_of_pressing():
    assert from_gemini("key_up", {"keys": "Control+Alt+Delete"}, SCREEN) == [
        "pyautogui.keyUp('delete'); pyautogui.keyUp('alt'); pyautogui.keyUp('ctrl')"
    ]


GEMINI_KNOWN = (
    "click, click_at, double_click, drag_and_drop, go_back, go_forward, hotkey, hover_at, key_combination, "
    "key_down, key_up, middle_click, mouse_down, mouse_up, move, navigate, open_web_browser, press_key, "
    "right_click, scroll, scroll_at, scroll_document, search, take_screenshot, triple_click, type, "
    "type_text_at, wait, wait_5_seconds"
)


@pytest.mark.parametrize(
    ("name", "args", "error", "message"),
    [
        ("click_at", {"x": 500}, ValueError, "Gemini action 'click_at' needs both x and y (on the 0-999 grid)"),
        (
            "drag_and_drop",
            {"destination_x": 1, "destination_y": 1},
            ValueError,
            "Gemini action 'drag_and_drop' needs both x and y (on the 0-999 grid)",
        ),
        ("key_combination", {"keys": []}, KeyNameError, "no keys given"),
        ("key_combination", {}, KeyNameError, "an empty key name"),
        (
            "mouse_down",
            {"button": "back"},
            TranslationError,
            "Gemini action 'mouse_down button back' is not supported (expected one of: left, middle, right)",
        ),
        (
            "scroll",
            {"direction": "sideways"},
            TranslationError,
            "Gemini action 'scroll direction sideways' is not supported (expected one of: down, left, right, up)",
        ),
        ("fly_to", {}, TranslationError, f"Gemini action 'fly_to' is not supported (expected one of: {GEMINI_KNOWN})"),
    ],
)
def test_gemini_calls_that_cannot_be_played_are_refused_with_what_was_wrong(name, args, error, message):
    with pytest.raises(error) as refused:
        from_gemini(name, args, SCREEN)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("value", "enter"),
    [("false", False), (" No ", False), ("0", False), ("", False), (0, False), ("yes", True), (1, True), (None, True)],
)
def test_gemini_booleans_as_models_send_them(value, enter):
    typed = from_gemini("type_text_at", {"x": 0, "y": 0, "text": "x", "press_enter": value}, SCREEN)
    assert (typed[-1] == "pyautogui.press('enter')") is enter


# ---------------------------------------------------------------- OpenAI: keys held, buttons, paths
CTRL_DOWN, CTRL_UP = "pyautogui.keyDown('ctrl'); ", "; pyautogui.keyUp('ctrl')"


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"type": "click", "x": 10, "y": 20, "keys": ["CTRL"]}, CTRL_DOWN + "pyautogui.click(10, 20)" + CTRL_UP),
        ({"type": "click", "button": "wheel", "x": 10, "y": 20}, "pyautogui.middleClick(10, 20)"),
        (
            {"type": "click", "button": "back", "x": 10, "y": 20, "keys": ["CTRL"]},
            CTRL_DOWN + "pyautogui.hotkey('alt', 'left')" + CTRL_UP,
        ),
        ({"type": "click", "button": "forward", "x": 10, "y": 20}, "pyautogui.hotkey('alt', 'right')"),
        (
            {"type": "double_click", "x": 10, "y": 20, "keys": ["CTRL"]},
            CTRL_DOWN + "pyautogui.doubleClick(10, 20)" + CTRL_UP,
        ),
        ({"type": "move", "x": 10, "y": 20, "keys": ["CTRL"]}, CTRL_DOWN + "pyautogui.moveTo(10, 20)" + CTRL_UP),
        (
            {"type": "drag", "path": [{"x": 0, "y": 0}, {"x": 5, "y": 5}, {"x": 10, "y": 20}], "keys": ["CTRL"]},
            CTRL_DOWN + "pyautogui.moveTo(0, 0); pyautogui.dragTo(5, 5, duration=0.2); "
            "pyautogui.dragTo(10, 20, duration=0.2)" + CTRL_UP,
        ),
        # scroll_x / scroll_y are pixels, 50 to a wheel click; OpenAI's positive y is down, pyautogui's up
        ({"type": "scroll", "x": 10, "y": 20, "scroll_x": 100}, "pyautogui.hscroll(2, x=10, y=20)"),
        ({"type": "scroll", "x": 10, "y": 20, "scroll_y": -150}, "pyautogui.scroll(3, x=10, y=20)"),
        ({"type": "scroll", "x": 10, "y": 20, "scroll_y": 0}, "pyautogui.scroll(0, x=10, y=20)"),
        (
            {"type": "scroll", "x": 1, "y": 2, "scroll_x": -50, "keys": ["CTRL"]},
            CTRL_DOWN + "pyautogui.hscroll(-1, x=1, y=2)" + CTRL_UP,
        ),
    ],
)
def test_each_openai_action_gives_exactly_its_command(action, expected):
    assert from_openai(action) == [expected]


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (
            {"type": "click", "button": "side", "x": 1, "y": 1},
            TranslationError,
            "OpenAI action 'click button side' is not supported "
            "(expected one of: back, forward, left, middle, right, wheel)",
        ),
        (
            {"type": "drag", "path": [{"x": 1, "y": 1}]},
            TranslationError,
            "OpenAI action 'drag with 1 point(s)' is not supported (expected one of: drag with a path of >= 2 points)",
        ),
        ({"type": "keypress", "keys": []}, KeyNameError, "keypress without keys"),
    ],
)
def test_openai_actions_that_cannot_be_played_are_refused_with_what_was_wrong(action, error, message):
    with pytest.raises(error) as refused:
        from_openai(action)
    assert str(refused.value) == message


# ---------------------------------------------------------------- Qwen: x * 1280 / 999, y * 800 / 999


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"action": "left_click", "text": "ctrl"},
            CTRL_DOWN + "pyautogui.click(button='left', clicks=1)" + CTRL_UP,
        ),
        ({"action": "middle_click", "coordinate": [0, 999]}, "pyautogui.middleClick(0, 800)"),
        ({"action": "left_click_drag", "coordinate": [999, 0]}, "pyautogui.dragTo(1280, 0, duration=0.5)"),
        ({"action": "type", "text": "Scranton"}, "pyautogui.typewrite('Scranton', interval=0.02)"),
        ({"action": "type"}, "pyautogui.typewrite('', interval=0.02)"),
        ({"action": "key", "keys": "ctrl+c"}, "pyautogui.hotkey('ctrl', 'c')"),
        ({"action": "scroll", "pixels": -100}, "pyautogui.scroll(-2)"),
        ({"action": "scroll"}, "pyautogui.scroll(0)"),
        ({"action": "hscroll", "coordinate": [999, 0], "pixels": 100}, "pyautogui.hscroll(2, x=1280, y=0)"),
    ],
)
def test_each_qwen_call_gives_exactly_its_command(args, expected):
    assert from_qwen(args, SCREEN) == [expected]


def test_qwen_absolute_pixels_are_read_on_the_size_the_model_was_sent():
    call = {"action": "left_click", "coordinate": [630, 392]}
    # sent a 640x400 screenshot of the 1280x800 screen: 2x each way
    assert from_qwen(call, SCREEN, "absolute", model_size=(640, 400)) == ["pyautogui.click(1260, 784)"]
    # by default the model saw the smart_resize of the screen, 1260x784
    assert from_qwen(call, SCREEN, "absolute") == ["pyautogui.click(640, 400)"]
    with pytest.raises(KeyNameError) as refused:
        from_qwen({"action": "key", "keys": []}, SCREEN)
    assert str(refused.value) == "key action without keys"


# ---------------------------------------------------------------- Anthropic and the key helpers


def test_anthropic_edges():
    assert from_anthropic({"action": "zoom", "region": [0, 0, 10, 10]}) == []
    assert from_anthropic({"action": "type"}) == ["pyautogui.typewrite('', interval=0.02)"]
    assert from_anthropic({"action": "key", "text": " "}) == ["pyautogui.press('space')"]
    drag = {"action": "left_click_drag", "start_coordinate": [10, 20], "coordinate": [30, 40]}
    assert from_anthropic(drag) == ["pyautogui.moveTo(10, 20); pyautogui.dragTo(30, 40, duration=0.5)"]
    with pytest.raises(KeyNameError) as refused:
        from_anthropic({"action": "key"})
    assert str(refused.value) == "an empty key name"


def test_split_keys_takes_plus_as_a_key_at_the_end_of_a_combination():
    assert split_keys("+") == ["+"]
    assert split_keys("ctrl+alt+shift++") == ["ctrl", "alt", "shift", "+"]


def test_the_dispatcher_scales_by_the_size_the_model_saw():
    # Claude saw a 1280x720 screenshot of a 1920x1080 screen: 1.5x each way
    action = {"action": "left_click", "coordinate": [100, 200]}
    assert translate("anthropic", action, (1920, 1080), model_size=(1280, 720)) == ["pyautogui.click(150, 300)"]
    assert translate("anthropic", action, (1920, 1080)) == ["pyautogui.click(100, 200)"]
    gemini_call = {"name": "click_at", "args": {"x": 500, "y": 500}}
    assert translate("gemini", gemini_call, SCREEN) == ["pyautogui.click(640, 400)"]
    with pytest.raises(TranslationError, match="^Gemini action '' is not supported"):
        translate("gemini", {}, SCREEN)
    openai_click = {"type": "click", "x": 100, "y": 200}
    assert translate("openai", openai_click, (1920, 1080), model_size=(1280, 720)) == ["pyautogui.click(150, 300)"]
    with pytest.raises(TranslationError, match="translation action 'claude' is not supported"):
        translate("claude", action, SCREEN)


@pytest.mark.parametrize(
    ("screen", "max_size", "expected"),
    [
        ((1920, 1080), (1280, 800), (1280, 720)),  # the width binds: 2/3
        ((1280, 1024), (1280, 800), (1000, 800)),  # the height binds: 0.78125
        ((3000, 1), (1000, 1000), (1000, 1)),  # never below one pixel
        ((1, 3000), (1000, 1000), (1, 1000)),
    ],
)
def test_fit_within_keeps_the_aspect_ratio_under_either_bound(screen, max_size, expected):
    assert fit_within(screen, max_size) == expected


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        ((1, 1), (56, 56)),  # grown to the 3136-pixel floor: 56 x 56
        ((28, 28), (56, 56)),
        ((2, 300), (28, 308)),  # aspect ratio 150: allowed; the short side is at least one patch
    ],
)
def test_smart_resize_at_its_lower_edges(size, expected):
    assert smart_resize(size) == expected


def test_smart_resize_refuses_an_aspect_ratio_just_above_200_and_takes_200():
    assert smart_resize((200, 1)) == (196, 28)
    with pytest.raises(ValueError, match="aspect ratio above 200"):
        smart_resize((201, 1))
    with pytest.raises(ValueError, match="both sides must be at least 1 pixel"):
        smart_resize((800, 0))


def test_qwen_model_size_is_the_screen_on_the_relative_grid_and_the_resize_in_pixels():
    assert qwen_model_size((1280, 800)) == (1280, 800)
    assert qwen_model_size((1280, 800), "absolute") == (1260, 784)
    with pytest.raises(ValueError, match="Qwen coordinate type 'pixels'"):
        qwen_model_size((1280, 800), "pixels")


@pytest.mark.parametrize(
    ("pixels", "limit", "expected"),
    [
        (0, None, 0),
        (None, None, 0),
        (24, None, 1),  # under half a click still scrolls
        (0.5, None, 1),
        (-24, None, -1),
        (75, None, 2),  # 1.5 rounds to even: 2
        (-125, None, -2),  # 2.5 rounds to even: 2, downwards
        (5000, 1500, 30),  # clamped to 1500 px
        (-5000, 1500, -30),
    ],
)
def test_wheel_clicks(pixels, limit, expected):
    assert wheel_clicks(pixels, limit) == expected


def test_key_name_takes_one_key_and_refuses_a_combination():
    assert key_name("Return") == "enter"
    assert key_name("F24") == "f24"
    with pytest.raises(KeyNameError, match=r"'ISO_Left_Tab' is a combination \(shift\+tab\)"):
        key_name("ISO_Left_Tab")
    with pytest.raises(KeyNameError, match="'F25' has no equivalent"):
        key_name("F25")


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"action": "left_mouse_down", "coordinate": [10, 20]}, "pyautogui.mouseDown(10, 20)"),
        ({"action": "left_mouse_up"}, "pyautogui.mouseUp()"),
        (
            {"action": "hold_key", "text": "shift+ctrl", "duration": 2},
            "pyautogui.keyDown('shift'); pyautogui.keyDown('ctrl'); time.sleep(2.0); "
            "pyautogui.keyUp('ctrl'); pyautogui.keyUp('shift')",
        ),
        ({"action": "hold_key", "text": "a"}, "pyautogui.keyDown('a'); time.sleep(1.0); pyautogui.keyUp('a')"),
        # three wheel clicks down unless told otherwise
        ({"action": "scroll", "coordinate": [10, 20]}, "pyautogui.scroll(-3, x=10, y=20)"),
        ({"action": "scroll", "scroll_direction": "up", "scroll_amount": 5}, "pyautogui.scroll(5)"),
        ({"action": "scroll", "coordinate": [10, 20], "scroll_direction": "left"}, "pyautogui.hscroll(-3, x=10, y=20)"),
        (
            {"action": "scroll", "coordinate": [10, 20], "scroll_direction": "right", "text": "ctrl"},
            CTRL_DOWN + "pyautogui.hscroll(3, x=10, y=20)" + CTRL_UP,
        ),
    ],
)
def test_each_anthropic_action_gives_exactly_its_command(action, expected):
    assert from_anthropic(action) == [expected]


def test_anthropic_refusals_word_for_word():
    with pytest.raises(TranslationError) as refused:
        from_anthropic({"action": "scroll", "scroll_direction": "diagonal"})
    assert str(refused.value) == (
        "Anthropic action 'scroll_direction diagonal' is not supported (expected one of: down, left, right, up)"
    )
    with pytest.raises(KeyNameError) as refused:
        from_anthropic({"action": "key", "text": "Hyper_Q"})
    assert str(refused.value) == (
        "key 'Hyper_Q' has no equivalent on this computer (use an X keysym such as Return, BackSpace, "
        "Page_Down, KP_Enter, F5, Super_L, backslash, or a single character)"
    )


@pytest.mark.parametrize(
    ("name", "keys"),
    [("F1", ["f1"]), ("f12", ["f12"]), ("F24", ["f24"]), ("Next", ["pagedown"]), ("  Tab ", ["tab"]), ("T", ["T"])],
)
def test_key_names_as_models_write_them(name, keys):
    assert key_names(name) == keys


@pytest.mark.parametrize("name", ["F0", "F25", "Fx", "Hyper_Q"])
def test_key_names_pyautogui_would_ignore_are_refused(name):
    with pytest.raises(KeyNameError, match=f"^key '{name}' has no equivalent"):
        key_names(name)


def test_a_call_without_its_text_types_nothing_or_is_refused():
    nothing = "pyautogui.typewrite('', interval=0.02)"
    assert from_gemini("type", {}, SCREEN) == [nothing]
    assert from_gemini(
        "type_text_at", {"x": 0, "y": 0, "press_enter": False, "clear_before_typing": False}, SCREEN
    ) == [
        "pyautogui.click(0, 0)",
        nothing,
    ]
    assert from_openai({"type": "type"}) == [nothing]
    with pytest.raises(KeyNameError) as refused:
        from_anthropic({"action": "hold_key"})
    assert str(refused.value) == "an empty key name"


def test_gemini_scrolls_horizontally_by_a_share_of_the_width():
    # the default magnitude 800 of a 1280 px width: 1024 px = 20.48 -> 20 wheel clicks
    assert from_gemini("scroll", {"direction": "left"}, SCREEN) == ["pyautogui.hscroll(-20, x=640, y=400)"]
