"""One translation layer: each provider's computer-use action vocabulary (Anthropic, OpenAI, Gemini,
Qwen) becomes pyautogui command strings (or WAIT / DONE / FAIL). Pure functions, no I/O."""

import math
from dataclasses import dataclass
from typing import cast

DONE, FAIL, WAIT = "DONE", "FAIL", "WAIT"

# One mouse-wheel click scrolls Firefox on Linux by 3 lines (the GTK default Firefox follows, with its
# mousewheel.default.delta_multiplier_* at 100) of about 16-19 px each at the default font: about 50 px.
# Pixel amounts from the models are turned into wheel clicks at this rate.
SCROLL_PIXELS_PER_CLICK = 50
QWEN_MAX_SCROLL_PIXELS = 1500  # Qwen's scroll `pixels` are clamped to this (30 wheel clicks) per call

# The names pyautogui's X11 backend knows (anything else is silently ignored there): its keyboardMapping.
PYAUTOGUI_X11_KEYS = frozenset(
    "backspace tab enter return shift ctrl alt pause capslock esc escape pgup pgdn pageup pagedown end home "
    "left up right down select print execute prtsc prtscr prntscrn printscreen insert del delete help win "
    "winleft winright apps multiply add separator subtract decimal divide numlock scrolllock shiftleft "
    "shiftright ctrlleft ctrlright altleft altright space browserback browserforward browserrefresh browserstop "
    "browsersearch browserfavorites browserhome volumemute volumedown volumeup nexttrack prevtrack stop "
    "playpause launchmail launchmediaselect launchapp1 launchapp2 sleep".split()
    + [f"num{i}" for i in range(10)]
    + [f"f{i}" for i in range(1, 25)]
)
# X keysyms (xdotool names, as Claude writes them) and browser-style names (OpenAI, Gemini) -> pyautogui
# names; a tuple is a combination (ISO_Left_Tab is shift+Tab). Keys are lower case.
KEY_NAMES: dict[str, str | tuple[str, ...]] = {
    "return": "enter", "enter": "enter", "kp_enter": "enter", "linefeed": "enter",
    "escape": "esc", "esc": "esc",
    "backspace": "backspace", "back_space": "backspace",
    "delete": "delete", "del": "delete", "kp_delete": "delete",
    "tab": "tab", "kp_tab": "tab", "iso_left_tab": ("shift", "tab"),
    "space": "space", "kp_space": "space", "spacebar": "space",
    "page_up": "pageup", "pageup": "pageup", "pgup": "pageup", "prior": "pageup", "kp_page_up": "pageup",
    "kp_prior": "pageup",
    "page_down": "pagedown", "pagedown": "pagedown", "pgdn": "pagedown", "next": "pagedown",
    "kp_page_down": "pagedown", "kp_next": "pagedown",
    "home": "home", "kp_home": "home", "begin": "home", "end": "end", "kp_end": "end",
    "insert": "insert", "kp_insert": "insert",
    "up": "up", "down": "down", "left": "left", "right": "right",
    "kp_up": "up", "kp_down": "down", "kp_left": "left", "kp_right": "right",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
    "ctrl": "ctrl", "control": "ctrl", "control_l": "ctrl", "control_r": "ctrlright", "ctl": "ctrl",
    "shift": "shift", "shift_l": "shift", "shift_r": "shiftright",
    "alt": "alt", "alt_l": "alt", "alt_r": "altright", "option": "alt", "iso_level3_shift": "altright",
    # GNOME reads Super as the Windows/Command key; pyautogui's X11 backend has no Meta or Command key.
    "super": "win", "super_l": "win", "super_r": "winright", "meta": "win", "meta_l": "win",
    "meta_r": "winright", "cmd": "win", "command": "win", "win": "win", "windows": "win", "hyper_l": "win",
    "menu": "apps", "apps": "apps", "contextmenu": "apps",
    "caps_lock": "capslock", "capslock": "capslock", "num_lock": "numlock", "numlock": "numlock",
    "scroll_lock": "scrolllock", "scrolllock": "scrolllock",
    "print": "printscreen", "printscreen": "printscreen", "sys_req": "printscreen",
    "pause": "pause", "break": "pause",
    "kp_add": "add", "kp_subtract": "subtract", "kp_multiply": "multiply", "kp_divide": "divide",
    "kp_decimal": "decimal", "kp_separator": "separator", "kp_equal": "=",
    "minus": "-", "plus": "+", "equal": "=", "comma": ",", "period": ".", "slash": "/",
    "backslash": "\\", "semicolon": ";", "colon": ":", "apostrophe": "'", "quoteright": "'",
    "quotedbl": '"', "grave": "`", "quoteleft": "`", "bracketleft": "[", "bracketright": "]",
    "braceleft": "{", "braceright": "}", "parenleft": "(", "parenright": ")", "less": "<", "greater": ">",
    "question": "?", "exclam": "!", "at": "@", "numbersign": "#", "dollar": "$", "percent": "%",
    "asciicircum": "^", "ampersand": "&", "asterisk": "*", "underscore": "_", "bar": "|", "asciitilde": "~",
    # XF86Back/Forward may have no keycode in the guest's keymap; Alt+Left/Right go back/forward anyway
    "xf86back": ("alt", "left"), "xf86forward": ("alt", "right"), "xf86refresh": "browserrefresh",
    "xf86reload": "browserrefresh", "xf86search": "browsersearch", "xf86homepage": "browserhome",
    "xf86audiomute": "volumemute", "xf86audiolowervolume": "volumedown", "xf86audioraisevolume": "volumeup",
    "xf86audioplay": "playpause", "xf86audionext": "nexttrack", "xf86audioprev": "prevtrack",
    "xf86audiostop": "stop",
}  # fmt: skip
for _digit in range(10):
    KEY_NAMES[f"kp_{_digit}"] = f"num{_digit}"


class KeyNameError(ValueError):
    """A key name with no pyautogui equivalent: told to the model, never silently dropped."""


class TranslationError(ValueError):
    """An action the translation layer does not know: names the vocabulary, the action and what it accepts."""

    def __init__(self, vocabulary: str, action, known):
        super().__init__(
            f"{vocabulary} action {action!r} is not supported (expected one of: {', '.join(sorted(known))})"
        )


@dataclass(frozen=True)
class Scale:
    """Maps model coordinates to screen pixels: ``screen = model * factor``."""

    x: float = 1.0
    y: float = 1.0

    @classmethod
    def between(cls, model_size: tuple[int, int], screen_size: tuple[int, int]) -> "Scale":
        return cls(screen_size[0] / model_size[0], screen_size[1] / model_size[1])

    def point(self, x, y) -> tuple[int, int]:
        return round(float(x) * self.x), round(float(y) * self.y)


def fit_within(screen_size: tuple[int, int], max_size: tuple[int, int]) -> tuple[int, int]:
    """The size a screenshot is resized to before it goes to a model that declares ``max_size``."""
    width, height = screen_size
    factor = min(max_size[0] / width, max_size[1] / height, 1.0)
    return max(1, round(width * factor)), max(1, round(height * factor))


def key_names(name: str) -> list[str]:
    """One key as the models name it -> the pyautogui key(s) that press it on X11 (ISO_Left_Tab is two).
    Single characters stay as they are; a name pyautogui would silently ignore raises KeyNameError."""
    raw = str(name).strip()
    if len(raw) == 1:
        return [raw]
    lower = raw.lower()
    mapped = KEY_NAMES.get(lower)
    if mapped is None and lower in PYAUTOGUI_X11_KEYS:
        mapped = lower
    if mapped is None:
        raise KeyNameError(
            f"key {raw!r} has no equivalent on this computer (use an X keysym such as Return, BackSpace, "
            "Page_Down, KP_Enter, F5, Super_L, backslash, or a single character)"
        )
    return list(mapped) if isinstance(mapped, tuple) else [mapped]


def key_name(name: str) -> str:
    """One key -> one pyautogui name (a key that needs a combination, such as ISO_Left_Tab, is refused)."""
    keys = key_names(name)
    if len(keys) != 1:
        raise KeyNameError(f"key {name!r} is a combination ({'+'.join(keys)}); press it as a combination")
    return keys[0]


def split_keys(combo: str) -> list[str]:
    """``"ctrl+shift+t"`` -> ``["ctrl", "shift", "t"]``; a lone ``"+"`` stays a key; ISO_Left_Tab -> shift, tab."""
    combo = combo.strip()
    if not combo:
        raise KeyNameError("an empty key name")
    if combo == "+" or "+" not in combo:
        return key_names(combo)
    parts = combo.split("+")
    if combo.endswith("++"):
        parts = [*parts[:-2], "+"]
    keys = []
    for part in parts:
        if part:
            keys += [k for k in key_names(part) if k not in keys]
    return keys


def key_sequence(text: str) -> list[list[str]]:
    """xdotool key syntax: space-separated presses, each a ``+`` combination.
    ``"ctrl+a BackSpace"`` -> ``[["ctrl", "a"], ["backspace"]]``; ``" "`` alone is the space key."""
    presses = str(text).split()
    if not presses:
        return [["space"]] if text and text.isspace() else [split_keys(text)]
    return [split_keys(press_) for press_ in presses]


# ---------------------------------------------------------------- pyautogui builders


def click(x: int, y: int, button: str = "left", clicks: int = 1, hold: list[str] | None = None) -> str:
    if clicks == 2 and button == "left":
        call = f"pyautogui.doubleClick({x}, {y})"
    elif clicks == 3 and button == "left":
        call = f"pyautogui.tripleClick({x}, {y})"
    elif button == "right":
        call = f"pyautogui.rightClick({x}, {y})"
    elif button == "middle":
        call = f"pyautogui.middleClick({x}, {y})"
    else:
        call = f"pyautogui.click({x}, {y})"
    return holding(hold, call)


def holding(hold: list[str] | None, call: str) -> str:
    """``call`` with the ``hold`` keys pressed before it and released after it, in reverse order."""
    if not hold:
        return call
    downs = "; ".join(f"pyautogui.keyDown({k!r})" for k in hold)
    ups = "; ".join(f"pyautogui.keyUp({k!r})" for k in reversed(hold))
    return f"{downs}; {call}; {ups}"


def type_text(text: str) -> str:
    if text.isascii():
        return f"pyautogui.typewrite({text!r}, interval=0.02)"
    # pyautogui cannot type non-ASCII characters; paste them through the clipboard instead.
    return f"import pyperclip; pyperclip.copy({text!r}); pyautogui.hotkey('ctrl', 'v')"


def press(keys: list[str]) -> str:
    if len(keys) == 1:
        return f"pyautogui.press({keys[0]!r})"
    # In a combination "ctrl+L" means the L key, not shift+l (which pyautogui would press for 'L').
    keys = [k.lower() if len(k) == 1 else k for k in keys]
    return "pyautogui.hotkey(" + ", ".join(repr(k) for k in keys) + ")"


def press_sequence(presses: list[list[str]]) -> str:
    """Successive presses (xdotool's ``"ctrl+a BackSpace"``) as one command."""
    return "; ".join(press(keys) for keys in presses)


def scroll(x: int | None, y: int | None, dy: int = 0, dx: int = 0, hold: list[str] | None = None) -> str:
    """``dy`` > 0 scrolls up and ``dx`` > 0 right, as pyautogui counts, in wheel clicks; ``hold`` keys
    are held meanwhile (ctrl+wheel zooms)."""
    where = f", x={x}, y={y}" if x is not None and y is not None else ""
    if dx and not dy:
        return holding(hold, f"pyautogui.hscroll({dx}{where})")
    return holding(hold, f"pyautogui.scroll({dy}{where})")


def wheel_clicks(pixels, limit: int | None = None) -> int:
    """A pixel distance as wheel clicks of SCROLL_PIXELS_PER_CLICK (never rounded to nothing), clamped to
    ``limit`` pixels either way."""
    pixels = float(pixels or 0)
    if limit is not None:
        pixels = max(-limit, min(limit, pixels))
    if pixels == 0:
        return 0
    clicks = round(abs(pixels) / SCROLL_PIXELS_PER_CLICK) or 1
    return clicks if pixels > 0 else -clicks


def drag(start: tuple[int, int], end: tuple[int, int], duration: float = 0.5) -> str:
    return f"pyautogui.moveTo({start[0]}, {start[1]}); pyautogui.dragTo({end[0]}, {end[1]}, duration={duration})"


# ---------------------------------------------------------------- Anthropic computer use

_ANTHROPIC_CLICKS = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "middle_click": ("middle", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}
ANTHROPIC_ACTIONS = {
    *_ANTHROPIC_CLICKS,
    "screenshot",
    "cursor_position",
    "zoom",
    "mouse_move",
    "type",
    "key",
    "hold_key",
    "left_mouse_down",
    "left_mouse_up",
    "scroll",
    "left_click_drag",
    "wait",
}


def _pointed(point: tuple[int, int] | None, provider: str, name) -> tuple[int, int]:
    """The point of an action that needs one; told to the model as the call's error when it has none."""
    if point is None:
        raise ValueError(f"{provider} action {name!r} needs a coordinate")
    return point


def from_anthropic(action: dict, scale: Scale = Scale()) -> list[str]:
    """An Anthropic ``computer`` tool input (``{"action": "left_click", "coordinate": [x, y]}``)."""
    name = action.get("action")
    coordinate = action.get("coordinate")
    point = scale.point(*coordinate) if coordinate else None
    if name in ("screenshot", "cursor_position", "zoom"):
        return []  # observation only: the loop screenshots after every round anyway
    if name in _ANTHROPIC_CLICKS:
        button, clicks = _ANTHROPIC_CLICKS[name]
        hold = split_keys(action["text"]) if action.get("text") else None
        if point is None:
            return [f"pyautogui.click(button={button!r}, clicks={clicks})"]
        return [click(*point, button=button, clicks=clicks, hold=hold)]
    if name == "mouse_move":
        at = _pointed(point, "Anthropic", name)
        return [f"pyautogui.moveTo({at[0]}, {at[1]})"]
    if name == "type":
        return [type_text(action.get("text", ""))]
    if name == "key":
        return [press_sequence(key_sequence(action.get("text", "")))]
    if name == "hold_key":
        keys = split_keys(action.get("text", ""))
        duration = float(action.get("duration", 1))
        downs = "; ".join(f"pyautogui.keyDown({k!r})" for k in keys)
        ups = "; ".join(f"pyautogui.keyUp({k!r})" for k in reversed(keys))
        return [f"{downs}; time.sleep({duration}); {ups}"]
    if name in ("left_mouse_down", "left_mouse_up"):
        verb = "mouseDown" if name == "left_mouse_down" else "mouseUp"
        return [f"pyautogui.{verb}({point[0]}, {point[1]})" if point else f"pyautogui.{verb}()"]
    if name == "scroll":
        amount = int(action.get("scroll_amount", 3))
        direction = action.get("scroll_direction", "down")
        x, y = point if point else (None, None)
        hold = split_keys(action["text"]) if action.get("text") else None
        if direction in ("left", "right"):
            return [scroll(x, y, dx=amount if direction == "right" else -amount, hold=hold)]
        if direction not in ("up", "down"):
            raise TranslationError("Anthropic", f"scroll_direction {direction}", {"up", "down", "left", "right"})
        return [scroll(x, y, dy=amount if direction == "up" else -amount, hold=hold)]
    if name == "left_click_drag":
        start = scale.point(*action["start_coordinate"])
        return [drag(start, _pointed(point, "Anthropic", name))]
    if name == "wait":
        return [WAIT]
    raise TranslationError("Anthropic", name, ANTHROPIC_ACTIONS)


# ---------------------------------------------------------------- OpenAI computer use

OPENAI_ACTIONS = {"click", "double_click", "drag", "keypress", "move", "screenshot", "scroll", "type", "wait"}
_OPENAI_BUTTONS = {"left": "left", "right": "right", "wheel": "middle", "middle": "middle"}


def from_openai(action: dict, scale: Scale = Scale()) -> list[str]:
    """One OpenAI ``computer_call`` action (``{"type": "click", "button": "left", "x": .., "y": ..}``)."""
    kind = action.get("type")
    hold = [k for key in action.get("keys") or [] for k in key_names(key)] if kind != "keypress" else None
    if kind == "screenshot":
        return []
    if kind == "click":
        button = action.get("button", "left")
        if button in ("back", "forward"):
            # the mouse's back / forward buttons: X11 sends them as buttons 8 / 9, which pyautogui cannot
            # press; Alt+Left / Alt+Right do the same in Firefox, Files and most GTK apps.
            return [holding(hold, press(["alt", "left" if button == "back" else "right"]))]
        if button not in _OPENAI_BUTTONS:
            raise TranslationError("OpenAI", f"click button {button}", {*_OPENAI_BUTTONS, "back", "forward"})
        return [click(*scale.point(action["x"], action["y"]), button=_OPENAI_BUTTONS[button], hold=hold)]
    if kind == "double_click":
        return [click(*scale.point(action["x"], action["y"]), clicks=2, hold=hold)]
    if kind == "move":
        x, y = scale.point(action["x"], action["y"])
        return [holding(hold, f"pyautogui.moveTo({x}, {y})")]
    if kind == "drag":
        path = [scale.point(p["x"], p["y"]) for p in action.get("path") or []]
        if len(path) < 2:
            raise TranslationError("OpenAI", f"drag with {len(path)} point(s)", {"drag with a path of >= 2 points"})
        moves = "; ".join(f"pyautogui.dragTo({x}, {y}, duration=0.2)" for x, y in path[1:])
        return [holding(hold, f"pyautogui.moveTo({path[0][0]}, {path[0][1]}); {moves}")]
    if kind == "keypress":
        keys = [k for key in action.get("keys") or [] for k in key_names(key)]
        if not keys:
            raise KeyNameError("keypress without keys")
        return [press(keys)]
    if kind == "type":
        return [type_text(action.get("text", ""))]
    if kind == "scroll":
        x, y = scale.point(action["x"], action["y"])
        # OpenAI's scroll_y > 0 means down; pyautogui's positive means up. Pixels -> wheel clicks.
        dy = -wheel_clicks(action.get("scroll_y", 0))
        dx = wheel_clicks(action.get("scroll_x", 0))
        return [scroll(x, y, dy=dy, dx=dx, hold=hold)]
    if kind == "wait":
        return [WAIT]
    raise TranslationError("OpenAI", kind, OPENAI_ACTIONS)


# ---------------------------------------------------------------- Gemini computer use (0-999 grid)

GEMINI_ACTIONS = {
    "click_at",
    "click",
    "double_click",
    "triple_click",
    "right_click",
    "middle_click",
    "hover_at",
    "move",
    "type_text_at",
    "type",
    "key_combination",
    "press_key",
    "hotkey",
    "scroll_document",
    "scroll_at",
    "scroll",
    "drag_and_drop",
    "mouse_down",
    "mouse_up",
    "key_down",
    "key_up",
    "wait_5_seconds",
    "wait",
    "take_screenshot",
    "go_back",
    "go_forward",
    "navigate",
    "open_web_browser",
    "search",
}


def gemini_point(x, y, screen: tuple[int, int]) -> tuple[int, int]:
    """Gemini coordinates are on a 0-999 grid: ``px = x / 1000 * width``."""
    return int(float(x) / 1000 * screen[0]), int(float(y) / 1000 * screen[1])


def _flag(value, default: bool) -> bool:
    """A boolean argument as models send it: true / false, or the strings "true" / "false"."""
    if value is None:
        return default
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "")
    return bool(value)


def _gemini_keys(args: dict) -> list[str]:
    keys = args.get("keys", args.get("key", ""))
    if isinstance(keys, str):
        return split_keys(keys)
    out = [k for key in keys or [] for k in key_names(key)]
    if not out:
        raise KeyNameError("no keys given")
    return out


GEMINI_POINTED = {
    "click_at", "click", "double_click", "triple_click", "right_click", "middle_click", "hover_at", "move",
    "type_text_at", "drag_and_drop",
}  # fmt: skip


def from_gemini(name: str, args: dict, screen: tuple[int, int]) -> list[str]:
    """One Gemini function call (``click_at`` with ``{"x": 500, "y": 250}``) on a screen of ``screen`` px."""
    args = args or {}
    point = gemini_point(args["x"], args["y"], screen) if "x" in args and "y" in args else None
    if point is None and name in GEMINI_POINTED:
        # told to the model as the call's error, instead of a Python unpacking message
        raise ValueError(f"Gemini action {name!r} needs both x and y (on the 0-999 grid)")
    clicks = {"click_at": ("left", 1), "click": ("left", 1), "double_click": ("left", 2)}
    clicks |= {"triple_click": ("left", 3), "right_click": ("right", 1), "middle_click": ("middle", 1)}
    at = cast(tuple[int, int], point)  # every GEMINI_POINTED action has its point (checked above)
    if name in clicks:
        button, count = clicks[name]
        return [click(*at, button=button, clicks=count)]
    if name in ("hover_at", "move"):
        return [f"pyautogui.moveTo({at[0]}, {at[1]})"]
    if name in ("type_text_at", "type"):
        return _gemini_typing(name, args, point)
    if name in ("key_combination", "press_key", "hotkey", "key_down", "key_up"):
        return _gemini_keys_pressed(name, args)
    if name in ("mouse_down", "mouse_up"):
        return _gemini_mouse_button(name, args, point)
    if name in ("scroll_document", "scroll_at", "scroll"):
        return _gemini_scroll(name, args, point, screen)
    if name == "drag_and_drop":
        end = gemini_point(args["destination_x"], args["destination_y"], screen)
        return [drag(at, end)]
    if name in ("wait_5_seconds", "wait"):
        return [WAIT]
    if name == "take_screenshot":
        return []
    if name in ("go_back", "go_forward"):
        return [press(["alt", "left" if name == "go_back" else "right"])]
    if name in ("navigate", "search", "open_web_browser"):
        url = args.get("url") or ("https://www.google.com" if name == "search" else "")
        if not url:
            return []
        return [press(["ctrl", "l"]), type_text(url), press(["enter"])]
    raise TranslationError("Gemini", name, GEMINI_ACTIONS)


def _gemini_typing(name: str, args: dict, point) -> list[str]:
    """``type_text_at`` (clicks, clears and presses Enter unless told not to) and ``type`` (clicks and
    clears only when given a point and told to, presses Enter only when told to)."""
    if name == "type_text_at":
        commands = [click(*point)]
        if _flag(args.get("clear_before_typing"), True):
            commands += [press(["ctrl", "a"]), press(["backspace"])]
        commands.append(type_text(args.get("text", "")))
        if _flag(args.get("press_enter"), True):
            commands.append(press(["enter"]))
        return commands
    commands = [click(*point)] if point else []
    if _flag(args.get("clear_before_typing"), False) and point:
        commands += [press(["ctrl", "a"]), press(["backspace"])]
    commands.append(type_text(args.get("text", "")))
    if _flag(args.get("press_enter"), False):
        commands.append(press(["enter"]))
    return commands


def _gemini_keys_pressed(name: str, args: dict) -> list[str]:
    """A key combination pressed at once, or keys held down (released in reverse order)."""
    if name in ("key_combination", "press_key", "hotkey"):
        return [press(_gemini_keys(args))]
    verb = "keyDown" if name == "key_down" else "keyUp"
    keys = _gemini_keys(args)
    return ["; ".join(f"pyautogui.{verb}({k!r})" for k in (keys if verb == "keyDown" else reversed(keys)))]


def _gemini_mouse_button(name: str, args: dict, point) -> list[str]:
    verb = "mouseDown" if name == "mouse_down" else "mouseUp"
    button = _OPENAI_BUTTONS.get(str(args.get("button", "left")).lower())
    if button is None:
        raise TranslationError("Gemini", f"{name} button {args.get('button')}", {"left", "right", "middle"})
    where = f"{point[0]}, {point[1]}, " if point else ""
    return [f"pyautogui.{verb}({where}button={button!r})"]


def _gemini_scroll(name: str, args: dict, point, screen: tuple[int, int]) -> list[str]:
    direction = args.get("direction", "down")
    # magnitude is on the 0-999 grid too (default 800): a share of the screen, scrolled in wheel clicks
    horizontal = direction in ("left", "right")
    if not horizontal and direction not in ("up", "down"):
        raise TranslationError("Gemini", f"{name} direction {direction}", {"up", "down", "left", "right"})
    side = screen[0] if horizontal else screen[1]
    amount = abs(wheel_clicks(float(args.get("magnitude", 800)) / 1000 * side)) or 1
    x, y = point if point else (screen[0] // 2, screen[1] // 2)
    if horizontal:
        return [scroll(x, y, dx=amount if direction == "right" else -amount)]
    return [scroll(x, y, dy=amount if direction == "up" else -amount)]


# ---------------------------------------------------------------- Qwen computer_use tool calls

QWEN_ACTIONS = {
    "key",
    "type",
    "mouse_move",
    "left_click",
    "left_click_drag",
    "right_click",
    "middle_click",
    "double_click",
    "triple_click",
    "scroll",
    "hscroll",
    "wait",
    "terminate",
    "answer",
}


# Qwen3-VL answers on a relative 0..999 grid whatever the image size; Qwen2.5-VL answers in absolute
# pixels of the image its processor actually saw, which smart_resize below reproduces.
QWEN_COORDINATE_TYPES = {
    "relative": "Qwen3-VL: a 0-999 grid over the screenshot",
    "absolute": "Qwen2.5-VL: pixels of the screenshot resized by smart_resize",
}
QWEN_GRID = 999
QWEN25_FACTOR = 28  # the vision patch (14) times the 2x2 token merge
QWEN25_MIN_PIXELS = 4 * 28 * 28  # 3136, the processor's default floor
QWEN25_MAX_PIXELS = 1280 * 28 * 28  # 1,003,520 (provider-apis.md section 5)


def check_coordinate_type(coordinate_type: str) -> None:
    if coordinate_type not in QWEN_COORDINATE_TYPES:
        expected = ", ".join(QWEN_COORDINATE_TYPES)
        raise ValueError(f"Qwen coordinate type {coordinate_type!r} (expected one of: {expected})")


def smart_resize(size: tuple[int, int], *, factor: int = QWEN25_FACTOR, min_pixels: int = QWEN25_MIN_PIXELS,
                 max_pixels: int = QWEN25_MAX_PIXELS) -> tuple[int, int]:  # fmt: skip
    """(width, height) of the image a Qwen2.5-VL processor feeds the model for a screenshot of ``size``:
    both sides a multiple of ``factor``, nearest to the original, then shrunk (sides rounded down) or
    grown (rounded up) with the aspect ratio kept until the area is within [min_pixels, max_pixels].
    1280x800 -> 1260x784, 1920x1080 -> 1316x728."""
    width, height = size
    if width < 1 or height < 1:
        raise ValueError(f"screen size {width}x{height}: both sides must be at least 1 pixel")
    if max(width, height) / min(width, height) > 200:
        raise ValueError(f"screen size {width}x{height}: aspect ratio above 200 (the Qwen2.5-VL processor refuses it)")
    w = max(factor, round(width / factor) * factor)
    h = max(factor, round(height / factor) * factor)
    if w * h > max_pixels:
        shrink = math.sqrt(width * height / max_pixels)
        w = max(factor, math.floor(width / shrink / factor) * factor)
        h = max(factor, math.floor(height / shrink / factor) * factor)
    elif w * h < min_pixels:
        grow = math.sqrt(min_pixels / (width * height))
        w = math.ceil(width * grow / factor) * factor
        h = math.ceil(height * grow / factor) * factor
    return w, h


def qwen_model_size(screen: tuple[int, int], coordinate_type: str = "relative") -> tuple[int, int]:
    """The size of the screenshot the model is sent: the screen itself (relative), or its smart_resize (absolute)."""
    check_coordinate_type(coordinate_type)
    return smart_resize(screen) if coordinate_type == "absolute" else cast(tuple[int, int], tuple(screen))


def qwen_point(coordinate, screen: tuple[int, int], coordinate_type: str = "relative",
               model_size: tuple[int, int] | None = None) -> tuple[int, int]:  # fmt: skip
    """A Qwen coordinate as screen pixels: relative ``x * width / 999``; absolute, pixels of the
    ``model_size`` image (default: the screen's smart_resize) scaled back by screen / model size."""
    x, y = coordinate
    if coordinate_type == "relative":
        return round(float(x) * screen[0] / QWEN_GRID), round(float(y) * screen[1] / QWEN_GRID)
    return Scale.between(model_size or qwen_model_size(screen, coordinate_type), screen).point(x, y)


def from_qwen(args: dict, screen: tuple[int, int], coordinate_type: str = "relative",
              model_size: tuple[int, int] | None = None) -> list[str]:  # fmt: skip
    """The arguments of one ``computer_use`` tool call (``{"action": "left_click", "coordinate": [x, y]}``),
    coordinates read as ``coordinate_type`` (see QWEN_COORDINATE_TYPES)."""
    check_coordinate_type(coordinate_type)
    name = args.get("action")
    point = qwen_point(args["coordinate"], screen, coordinate_type, model_size) if args.get("coordinate") else None
    clicks = {"left_click": ("left", 1), "right_click": ("right", 1), "middle_click": ("middle", 1)}
    # Qwen's triple click is played as a double click, as upstream does.
    clicks |= {"double_click": ("left", 2), "triple_click": ("left", 2)}
    if name in clicks:
        button, count = clicks[name]
        hold = split_keys(args["text"]) if args.get("text") else None  # keys held during the click
        if point is None:
            return [holding(hold, f"pyautogui.click(button={button!r}, clicks={count})")]
        return [click(*point, button=button, clicks=count, hold=hold)]
    if name == "mouse_move":
        x, y = _pointed(point, "Qwen", name)
        return [f"pyautogui.moveTo({x}, {y})"]
    if name == "left_click_drag":
        x, y = _pointed(point, "Qwen", name)
        return [f"pyautogui.dragTo({x}, {y}, duration=0.5)"]
    if name == "type":
        return [type_text(args.get("text", ""))]
    if name == "key":
        keys = args.get("keys") or []
        keys = [k for key in ([keys] if isinstance(keys, str) else keys) for k in split_keys(str(key))]
        if not keys:
            raise KeyNameError("key action without keys")
        return [press(keys)]
    if name in ("scroll", "hscroll"):
        # pixels, positive up / right, clamped and turned into wheel clicks (the tool text says so)
        wheel = wheel_clicks(args.get("pixels", 0), QWEN_MAX_SCROLL_PIXELS)
        sx, sy = point if point else (None, None)
        return [scroll(sx, sy, dx=wheel) if name == "hscroll" else scroll(sx, sy, dy=wheel)]
    if name == "wait":
        return [WAIT]
    if name == "terminate":
        return [FAIL if args.get("status") == "failure" else DONE]
    if name == "answer":
        return [DONE]
    raise TranslationError("Qwen", name, QWEN_ACTIONS)


VOCABULARIES = {"anthropic", "openai", "gemini", "qwen"}


def translate(vocabulary: str, action: dict, screen: tuple[int, int], model_size: tuple[int, int] | None = None):
    """Dispatch by vocabulary name; ``model_size`` is the screenshot size the model saw (for scaling)."""
    scale = Scale.between(model_size, screen) if model_size else Scale()
    if vocabulary == "anthropic":
        return from_anthropic(action, scale)
    if vocabulary == "openai":
        return from_openai(action, scale)
    if vocabulary == "gemini":
        return from_gemini(action.get("name", ""), action.get("args") or {}, screen)
    if vocabulary == "qwen":
        return from_qwen(action, screen)
    raise TranslationError("translation", vocabulary, VOCABULARIES)
