"""Actions: what an agent did, as recorded (``parse``: a pyautogui snippet, a WAIT/DONE/FAIL word or an
OSWorld ``computer_13`` dict read into a structured action, and the action-shape kinds the analysis pages
count) and how each provider's computer-use actions become pyautogui commands (``translation``, built from
``commands``: key names, the coordinate scale, the pyautogui command strings).

May use: the shared utilities at the harness root (``safejson``). Pure functions, no I/O: agents, guests,
backends and result readers use this room. Exports the names the rest of the project uses."""

from harness.actions.commands import (
    KEY_NAMES,
    PYAUTOGUI_X11_KEYS,
    QWEN_MAX_SCROLL_PIXELS,
    SCROLL_PIXELS_PER_CLICK,
    KeyNameError,
    Scale,
    TranslationError,
    fit_within,
    key_name,
    key_names,
    split_keys,
    wheel_clicks,
)
from harness.actions.parse import ACTION_KINDS, action_kind, action_type_of, count_action_kinds, parse_action
from harness.actions.translation import (
    QWEN_ACTIONS,
    QWEN_COORDINATE_TYPES,
    VOCABULARIES,
    from_anthropic,
    from_gemini,
    from_openai,
    from_qwen,
    qwen_model_size,
    smart_resize,
    translate,
)

__all__ = [
    "ACTION_KINDS",
    "KEY_NAMES",
    "PYAUTOGUI_X11_KEYS",
    "QWEN_ACTIONS",
    "QWEN_COORDINATE_TYPES",
    "QWEN_MAX_SCROLL_PIXELS",
    "SCROLL_PIXELS_PER_CLICK",
    "VOCABULARIES",
    "KeyNameError",
    "Scale",
    "TranslationError",
    "action_kind",
    "action_type_of",
    "count_action_kinds",
    "fit_within",
    "from_anthropic",
    "from_gemini",
    "from_openai",
    "from_qwen",
    "key_name",
    "key_names",
    "parse_action",
    "qwen_model_size",
    "smart_resize",
    "split_keys",
    "translate",
    "wheel_clicks",
]
