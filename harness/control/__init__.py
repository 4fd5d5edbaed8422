"""Control: talking to a guest over its Control API (the OSWorld-compatible server on port 5000). The
client (``client``: screenshots, commands, readiness, and the command strings the harness sends) and the
post-boot setup of a MyPCBench guest before its first task (``postboot``).

May use: ``harness.apps`` and the shared utilities at the harness root. Backends, agents, guests, the run
and the judge's state checks use this room. Exports the names they use."""

from harness.control.client import (
    GUEST_COMMAND_TIMEOUT,
    ControlClient,
    ControlError,
    ExecResult,
    fix_less_than,
    image_kind,
    keymap_command,
    needs_fast_typing,
    png_size,
    pyautogui_command,
    shell_command,
    snippet_from_command,
    spare_keycodes,
    strip_prelude,
    typing_plan,
    unwrap_shell,
    xdotool_type_text,
)
from harness.control.postboot import (
    PARTS,
    WEB_APPS,
    PostBootConfig,
    SetupError,
    nudge_network,
    parse_parts,
    run_post_boot,
    session_token,
)

__all__ = [
    "GUEST_COMMAND_TIMEOUT",
    "PARTS",
    "WEB_APPS",
    "ControlClient",
    "ControlError",
    "ExecResult",
    "PostBootConfig",
    "SetupError",
    "fix_less_than",
    "image_kind",
    "keymap_command",
    "needs_fast_typing",
    "nudge_network",
    "parse_parts",
    "png_size",
    "pyautogui_command",
    "run_post_boot",
    "session_token",
    "shell_command",
    "snippet_from_command",
    "spare_keycodes",
    "strip_prelude",
    "typing_plan",
    "unwrap_shell",
    "xdotool_type_text",
]
