"""Turn a recorded action (a pyautogui snippet, a WAIT/DONE/FAIL word, or an OSWorld ``computer_13``
dict such as ``{"action_type": "CLICK", "parameters": {...}}``) into a structured action for display
and analysis, and sort steps into the action-shape kinds the analysis pages count. Parsing
uses `ast` and literal values only: recorded code is never executed."""

import ast
import json
from collections import Counter
from collections.abc import Iterable

from harness import safejson

# Longest snippet we try to parse; anything longer is shown verbatim as "other".
MAX_SOURCE_CHARS = 50_000

CONTROL_WORDS = {"WAIT": "wait", "DONE": "done", "FAIL": "fail"}

_CLICKS = {
    "click": ("click", None),
    "leftClick": ("click", None),
    "doubleClick": ("double_click", None),
    "tripleClick": ("click", 3),
    "rightClick": ("right_click", None),
    "middleClick": ("click", None),
}
_MOVES = {"moveTo", "moveRel", "move"}
_DRAGS = {"dragTo", "dragRel", "drag"}
_SCROLLS = {"scroll": "dy", "vscroll": "dy", "hscroll": "dx"}


def parse_action(source) -> dict:
    """A structured action such as ``{"type": "click", "x": 10, "y": 20}``.

    Several calls in one snippet give the first call's fields plus ``actions`` (all of them).
    Anything not understood gives ``{"type": "other", "text": source}``.
    """
    if isinstance(source, dict):
        return computer13_action(source) or {"type": "other", "text": str(source)}
    if not isinstance(source, str):
        return {"type": "other", "text": str(source)}
    text = source.strip()
    if text in CONTROL_WORDS:
        return {"type": CONTROL_WORDS[text]}
    if not text or len(text) > MAX_SOURCE_CHARS:
        return {"type": "other", "text": source}
    if text.startswith("{") and "action_type" in text:
        # a computer_13 dict written as JSON, or str()'d by a runner (Python literal): read, never run
        try:
            value = safejson.loads(text)  # bounded: a deep document is refused, not recursed into
        except ValueError:
            try:
                value = ast.literal_eval(text)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                value = None
        action = computer13_action(value) if isinstance(value, dict) else None
        if action is not None:
            return action
    try:
        tree = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {"type": "other", "text": source}

    actions = []
    for statement in tree.body:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            actions.append(_call(statement.value, text))
        else:
            actions.append({"type": "other", "text": _segment(text, statement)})
    actions = _combine(actions)
    if not actions:
        return {"type": "other", "text": source}
    if len(actions) == 1:
        return actions[0]
    return {**actions[0], "actions": actions}


# OSWorld's computer_13 action space: action_type -> our structured action type.
_COMPUTER13_SIMPLE = {"MOVE_TO": "move", "RIGHT_CLICK": "right_click", "DOUBLE_CLICK": "double_click",
                      "DRAG_TO": "drag", "WAIT": "wait", "DONE": "done", "FAIL": "fail"}  # fmt: skip


def computer13_action(value: dict) -> dict | None:
    """An OSWorld ``computer_13`` action (``{"action_type": "CLICK", "parameters": {"x": .., "y": ..,
    "button": .., "num_clicks": ..}}``) as the structured action its pyautogui equivalent parses to;
    None when ``value`` is not one. An unknown action type keeps its name in an "other" action."""
    kind = value.get("action_type")
    if not isinstance(kind, str):
        return None
    kind = kind.strip().upper()
    params = value.get("parameters")
    params = params if isinstance(params, dict) else {}
    point = _point(params)
    action: dict
    if kind in _COMPUTER13_SIMPLE:
        action = {"type": _COMPUTER13_SIMPLE[kind]}
        return action if kind in ("WAIT", "DONE", "FAIL") else {**action, **point}
    if kind == "CLICK":
        return _computer13_click(params, point)
    if kind in ("MOUSE_DOWN", "MOUSE_UP"):
        return {"type": "other", "mouse": "down" if kind == "MOUSE_DOWN" else "up", **point}
    if kind == "SCROLL":
        return _computer13_scroll(params)
    if kind == "TYPING" and isinstance(params.get("text"), str):
        return {"type": "type", "text": params["text"]}
    if kind in ("PRESS", "KEY_DOWN", "KEY_UP") and params.get("key") is not None:
        action = {"type": "key", "keys": _keys(params.get("key"))}
        if kind != "PRESS":
            action["state"] = "down" if kind == "KEY_DOWN" else "up"
        return action
    if kind == "HOTKEY":
        return {"type": "hotkey", "keys": _keys(params.get("keys"))}
    return {"type": "other", "text": json.dumps(value, ensure_ascii=False, default=str)[:2000]}


def _computer13_click(params: dict, point: dict) -> dict:
    button, clicks = params.get("button"), params.get("num_clicks")
    if button == "right":
        return {"type": "right_click", **point}
    if clicks == 2:
        return {"type": "double_click", **point}
    action = {"type": "click", **point}
    if isinstance(clicks, int) and not isinstance(clicks, bool) and clicks > 2:
        action["clicks"] = clicks
    if button == "middle":
        action["button"] = "middle"
    return action


def _computer13_scroll(params: dict) -> dict:
    action: dict = {"type": "scroll"}
    for axis in ("dx", "dy"):
        amount = params.get(axis)
        if isinstance(amount, int | float) and not isinstance(amount, bool) and amount:
            action[axis] = amount
    return action


def _segment(text: str, node) -> str:
    return ast.get_source_segment(text, node) or ""


def _literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def _call_name(func) -> str:
    """``pyautogui.click`` -> ``click``; ``time.sleep`` -> ``time.sleep``; bare ``click`` -> ``click``."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id == "pyautogui":
            return func.attr
        return f"{func.value.id}.{func.attr}"
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _args(call: ast.Call, names: tuple[str, ...]) -> dict:
    """Positional and keyword arguments as literal values, keyed by pyautogui's parameter names."""
    values = {}
    for name, node in zip(names, call.args, strict=False):
        values[name] = _literal(node)
    for keyword in call.keywords:
        if keyword.arg:
            values[keyword.arg] = _literal(keyword.value)
    return values


def _point(values: dict) -> dict:
    x, y = values.get("x"), values.get("y")
    # pyautogui accepts click((x, y)) as well as click(x, y).
    if isinstance(x, tuple | list) and len(x) == 2 and y is None:
        x, y = x
    point = {}
    if isinstance(x, int | float) and not isinstance(x, bool):
        point["x"] = x
    if isinstance(y, int | float) and not isinstance(y, bool):
        point["y"] = y
    return point


def _keys(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [str(k) for k in value]
    return []


def _call(call: ast.Call, source: str) -> dict:
    name = _call_name(call.func)
    if name in _CLICKS:
        return _click_call(name, call)
    if name in _MOVES:
        values = _args(call, ("x", "y", "duration"))
        action = {"type": "move", **_point(values)}
        if name in ("moveRel", "move"):
            action["relative"] = True
        return action
    if name in _DRAGS:
        values = _args(call, ("x", "y", "duration", "button"))
        action = {"type": "drag", **_point(values)}
        if name in ("dragRel", "drag"):
            action["relative"] = True
        return action
    if name in ("typewrite", "write"):
        return _typing_call(call, source)
    if name in ("press", "keyDown", "keyUp"):
        return _key_call(name, call)
    if name == "hotkey":
        keys = [_literal(arg) for arg in call.args]
        return {"type": "hotkey", "keys": [str(k) for k in keys if k is not None]}
    if name in _SCROLLS:
        return _scroll_call(name, call)
    if name in ("mouseDown", "mouseUp"):
        values = _args(call, ("x", "y", "button"))
        return {"type": "other", "mouse": "down" if name == "mouseDown" else "up", **_point(values)}
    if name in ("time.sleep", "sleep"):
        values = _args(call, ("seconds",))
        seconds = values.get("seconds")
        return {"type": "wait", **({"seconds": seconds} if isinstance(seconds, int | float) else {})}
    if name == "pyperclip.copy":
        values = _args(call, ("text",))
        return {"type": "other", "clipboard": values.get("text")}
    return {"type": "other", "text": _segment(source, call)}


def _click_call(name: str, call: ast.Call) -> dict:
    kind, clicks = _CLICKS[name]
    values = _args(call, ("x", "y", "clicks", "interval", "button"))
    action = {"type": kind, **_point(values)}
    button = values.get("button")
    clicks = clicks or values.get("clicks")
    if name == "middleClick":
        button = "middle"
    if kind == "click" and button == "right":
        action["type"] = "right_click"
    elif kind == "click" and clicks == 2:
        action["type"] = "double_click"
    elif isinstance(clicks, int) and clicks > 2:
        action["clicks"] = clicks
    if button in ("middle",):
        action["button"] = button
    return action


def _typing_call(call: ast.Call, source: str) -> dict:
    values = _args(call, ("message", "interval"))
    message = values.get("message")
    if isinstance(message, str):
        return {"type": "type", "text": message}
    if isinstance(message, list | tuple):
        return {"type": "key", "keys": _keys(message)}
    return {"type": "other", "text": _segment(source, call)}


def _key_call(name: str, call: ast.Call) -> dict:
    values = _args(call, ("keys", "presses"))
    action: dict = {"type": "key", "keys": _keys(values.get("keys"))}
    if name != "press":
        action["state"] = "down" if name == "keyDown" else "up"
    presses = values.get("presses")
    if isinstance(presses, int) and presses > 1:
        action["presses"] = presses
    return action


def _scroll_call(name: str, call: ast.Call) -> dict:
    values = _args(call, ("clicks", "x", "y"))
    action = {"type": "scroll", **_point(values)}
    amount = values.get("clicks")
    if isinstance(amount, int | float):
        action[_SCROLLS[name]] = amount
    return action


def _combine(actions: list[dict]) -> list[dict]:
    """Fold idioms the agents emit into one action: move-then-drag is a drag from the move's point;
    copy-to-clipboard-then-paste is typing (how non-ASCII text is entered)."""
    combined: list[dict] = []
    for action in actions:
        previous = combined[-1] if combined else None
        if (
            previous is not None
            and previous["type"] == "move"
            and action["type"] == "drag"
            and not action.get("relative")
            and "x" in previous
        ):
            combined[-1] = {"type": "drag", "from_x": previous["x"], "from_y": previous.get("y"), **_point(action)}
            continue
        if (
            previous is not None
            and isinstance(previous.get("clipboard"), str)
            and action["type"] == "hotkey"
            and [k.lower() for k in action["keys"]] in (["ctrl", "v"], ["ctrl", "shift", "v"])
        ):
            combined[-1] = {"type": "type", "text": previous["clipboard"], "via": "clipboard"}
            continue
        combined.append(action)
    return combined


# -- action shape: which kind of action a step is ------------------------------------------

ACTION_KINDS = ("click", "type", "key", "scroll", "drag", "bash", "editor", "other")
_ACTION_KIND = {
    "click": "click",
    "double_click": "click",
    "right_click": "click",
    "triple_click": "click",
    "type": "type",
    "key": "key",
    "hotkey": "key",
    "scroll": "scroll",
    "drag": "drag",
}


def action_kind(tool: str, action_type: str | None) -> str | None:
    """The action-shape kind (one of ACTION_KINDS) of a step by its tool and its structured
    action's ``type``; None for control steps (wait / done / fail), which are not counted."""
    if tool in ("bash", "editor"):
        return tool
    if tool == "control" or action_type in ("wait", "done", "fail"):
        return None
    return _ACTION_KIND.get(action_type or "", "other")


def action_type_of(action) -> str | None:
    """The ``type`` of a structured action as the database reads it (``action->>'type'``): the
    string when it is one, else None (a type that is no string matches no kind)."""
    kind = action.get("type") if isinstance(action, dict) else None
    return kind if isinstance(kind, str) else None


def count_action_kinds(steps: Iterable[tuple[str, str | None, int]]) -> dict[str, int]:
    """{kind: number of steps} in ACTION_KINDS order, kinds with no step left out, from
    (tool, action type, how many steps) triples such as a GROUP BY over steps returns."""
    counts: Counter = Counter()
    for tool, action_type, n in steps:
        kind = action_kind(tool, action_type)
        if kind:
            counts[kind] += n
    return {k: counts[k] for k in ACTION_KINDS if counts[k] > 0}
