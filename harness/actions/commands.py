"""What every provider's actions are translated into: key names as pyautogui knows them on X11, the
coordinate scale between a model's screen and ours, and the pyautogui command strings (or WAIT / DONE /
FAIL) the translations build. Pure functions, no I/O."""

from dataclasses import dataclass

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
