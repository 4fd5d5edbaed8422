"""One translation layer: each provider's computer-use action vocabulary (Anthropic, OpenAI, Gemini,
Qwen) becomes pyautogui command strings (or WAIT / DONE / FAIL), built from ``commands``. Pure functions,
no I/O."""

import math
from typing import cast

from harness.actions.commands import (
    DONE,
    FAIL,
    QWEN_MAX_SCROLL_PIXELS,
    WAIT,
    KeyNameError,
    Scale,
    TranslationError,
    click,
    drag,
    holding,
    key_names,
    key_sequence,
    press,
    press_sequence,
    scroll,
    split_keys,
    type_text,
    wheel_clicks,
)

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
