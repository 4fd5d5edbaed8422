"""A fake guest for tests and benchmarks: speaks the Control API on loopback, records every command,
and draws a screenshot that reflects the pyautogui actions it was sent (parsed, never executed)."""

import io
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from PIL import Image, ImageDraw, ImageFont

from harness.actions import parse_action
from harness.control import keymap_command, snippet_from_command, strip_prelude, unwrap_shell, xdotool_type_text
from harness.guest.server import ControlServer, answer

FAULTS = {
    "screenshot": {"bad_png", "error", "slow"},
    "execute": {"error", "slow", "garbage"},
    "health": {"down"},
}
XRANDR = re.compile(r"\bxrandr\b.*?(?:-s|--size)\s+(\d+)x(\d+)")


@dataclass
class FakeScreen:
    width: int = 1280
    height: int = 800
    cursor: tuple[int, int] = (0, 0)
    clicks: list = field(default_factory=list)  # (x, y, kind)
    typed: str = ""
    keys: list = field(default_factory=list)
    scrolled: int = 0


class FakeGuest:
    """Backend of the fake guest. ``commands`` lists every /execute and /run_python payload received;
    ``actions`` the pyautogui actions it understood. ``fail_next(route, fault)`` injects faults."""

    def __init__(self, width: int = 1280, height: int = 800, *, slow_seconds: float = 2.0):
        self.size = (width, height)
        self.slow_seconds = slow_seconds
        self.lock = threading.Lock()
        self.screen = FakeScreen(width, height)
        self.commands: list[dict] = []
        self.actions: list[dict] = []
        self.screenshots_served = 0
        # Shell commands are never run; a test can script what one prints (kept across resets).
        self.scripted: dict[str, tuple[int, str, str]] = {}
        # Programs an argv command may name that "do not exist" here: answered 500 as the real server does.
        self.missing_programs: set[str] = set()
        # The keyboard map xmodmap shows: keycodes 8-15, 8 and 12-15 spare. With ``strict_keymap`` a
        # non-ASCII character typed while not in the map is lost, as in many applications on a real display.
        self.keymap: dict[int, str] = {9: "Escape", 10: "1 exclam", 11: "2 at"}
        self.strict_keymap = True
        self._faults: dict[str, deque] = {route: deque() for route in FAULTS}

    # ------------------------------------------------------------ test controls

    def fail_next(self, route: str, fault: str, times: int = 1) -> None:
        if fault not in FAULTS.get(route, ()):
            raise ValueError(f"unknown fault {route}/{fault} (expected one of {sorted(FAULTS.get(route, ()))})")
        self._faults[route].extend([fault] * times)

    def script(self, command, output: str = "", returncode: int = 0, error: str = "") -> None:
        """Answer ``command`` (a shell string or an argv list, as sent) with this output and status."""
        self.scripted[_command_key(command)] = (returncode, output, error)

    def reset(self) -> None:
        with self.lock:
            self.screen = FakeScreen(*self.size)
            self.commands.clear()
            self.actions.clear()
            for queue in self._faults.values():
                queue.clear()

    def _fault(self, route: str) -> str | None:
        queue = self._faults[route]
        return queue.popleft() if queue else None

    # ------------------------------------------------------------ Control API backend

    def health(self):
        if self._fault("health") == "down":
            return 503, {"status": "error", "message": "booting"}
        return 200, {"status": "ok"}

    def screenshot_response(self):
        fault = self._fault("screenshot")
        if fault == "error":
            return 500, b'{"status": "error", "message": "capture failed"}', "application/json"
        if fault == "bad_png":
            return 200, b"<html>not an image</html>", "image/png"
        if fault == "slow":
            time.sleep(self.slow_seconds)
        with self.lock:
            self.screenshots_served += 1
            return 200, self.render(), "image/png"

    def execute(self, command, shell: bool):
        fault = self._fault("execute")
        with self.lock:
            self.commands.append({"command": command, "shell": shell})
        if fault == "slow":
            time.sleep(self.slow_seconds)
        if fault == "error":
            return 500, {"status": "error", "message": "Command '...' timed out after 120 seconds"}
        if fault == "garbage":
            return 200, "<html>proxy error</html>"
        inner = unwrap_shell(command)
        if inner is not None:  # the harness's bash wrapper: logged as the shell command it carries
            with self.lock:
                self.commands[-1] = {"command": inner, "shell": True, "wrapped": "bash"}
            command, shell = inner, True
        snippet = snippet_from_command(command)
        if snippet is not None:
            return self._apply(snippet, "returncode")
        if keymap_command(command) and not shell:  # xmodmap: a small keyboard map with spare keycodes
            with self.lock:
                if command[1] == "-pke":
                    keymap = "".join(f"keycode {code:3d} = {self.keymap.get(code, '')}".rstrip() + "\n"
                                     for code in range(8, 16))  # fmt: skip
                    return 200, {"status": "success", "output": keymap, "error": "", "returncode": 0}
                for expression in command[2::2]:
                    code, _, symbol = expression.removeprefix("keycode ").partition("=")
                    self.keymap[int(code)] = symbol.strip()
            return 200, {"status": "success", "output": "", "error": "", "returncode": 0}
        typed = xdotool_type_text(command)
        if typed is not None and not shell:
            missing = {c for c in typed if not c.isascii() and f"U{ord(c):04X}" not in self.keymap.values()}
            if missing and self.strict_keymap:  # as xdotool's own keycode mapping loses them in many apps
                typed = "".join(c for c in typed if c not in missing)
            with self.lock:
                self.screen.typed += typed
                self.actions.append({"type": "type", "text": typed, "via": "xdotool"})
            return 200, {"status": "success", "output": "", "error": "", "returncode": 0}
        scripted = self.scripted.get(_command_key(command))
        if scripted is not None:
            returncode, output, error = scripted
            return 200, {"status": "success", "output": output, "error": error, "returncode": returncode}
        if isinstance(command, list) and command and not shell and command[0] in self.missing_programs:
            # as the OSWorld server answers a program that does not exist (subprocess raises)
            return 500, {"status": "error", "message": f"[Errno 2] No such file or directory: {command[0]!r}"}
        resized = XRANDR.search(command) if isinstance(command, str) else None
        if resized:
            self.resize(int(resized.group(1)), int(resized.group(2)))
        # Shell commands are recorded, not run: the fake guest has no system to run them on.
        return 200, {"status": "success", "output": "", "error": "", "returncode": 0}

    def resize(self, width: int, height: int) -> None:
        """What ``xrandr -s WxH`` does to a real display: the screen and its screenshots change size."""
        with self.lock:
            self.size = (width, height)
            self.screen.width, self.screen.height = width, height

    def run_python(self, code):
        with self.lock:
            self.commands.append({"code": code})
        if not code or not isinstance(code, str):
            return 400, {"status": "error", "message": "Code not supplied!"}
        return self._apply(strip_prelude(code), "return_code")

    def _apply(self, snippet: str, code_key: str):
        action = parse_action(snippet)
        steps = action.get("actions", [action])
        unknown = [a for a in steps if a["type"] == "other" and not a.get("clipboard") and "mouse" not in a]
        if unknown:
            message = f"fake guest does not understand: {unknown[0].get('text', '')[:200]}"
            return 200, answer(code_key, 1, error=message)
        with self.lock:
            for step in steps:
                self._apply_one(step)
                self.actions.append(step)
        return 200, answer(code_key, 0)

    def _apply_one(self, action: dict) -> None:
        screen = self.screen
        kind = action["type"]
        if "x" in action and "y" in action and not action.get("relative"):
            screen.cursor = (int(action["x"]), int(action["y"]))
        if kind in ("click", "double_click", "right_click"):
            screen.clicks.append((*screen.cursor, kind))
        elif kind == "drag":
            screen.clicks.append((*screen.cursor, "drag"))
        elif kind == "type":
            screen.typed += action["text"]
        elif kind == "hotkey" and action["keys"] == ["shift", ","]:
            screen.typed += "<"  # how the client types '<' (see harness.control.fix_less_than)
        elif kind in ("key", "hotkey"):
            screen.keys.append("+".join(action["keys"]))
            if action["keys"] == ["backspace"]:
                screen.typed = screen.typed[:-1]
            elif action["keys"] in (["enter"], ["return"]):
                screen.typed += "\n"
        elif kind == "scroll":
            screen.scrolled += int(action.get("dy", 0) or action.get("dx", 0) or 0)

    # ------------------------------------------------------------ drawing

    def render(self) -> bytes:
        screen = self.screen
        image = Image.new("RGB", self.size, (236, 240, 244))
        draw = ImageDraw.Draw(image)
        draw.font = _font()
        draw.rectangle((0, 0, self.size[0], 28), fill=(52, 73, 94))
        draw.text((10, 5), f"fake guest - {len(self.actions)} actions", fill=(255, 255, 255))
        draw.rectangle((40, 60, self.size[0] - 40, 220), outline=(120, 120, 120), fill=(255, 255, 255))
        for i, line in enumerate(screen.typed.splitlines()[-8:] or [""]):
            draw.text((50, 70 + 20 * i), line[:110], fill=(0, 0, 0))
        if screen.keys:
            draw.text((50, 230), "keys: " + " ".join(screen.keys[-10:]), fill=(80, 0, 0))
        if screen.scrolled:
            draw.text((50, 250), f"scrolled {screen.scrolled}", fill=(0, 0, 120))
        for n, (x, y, kind) in enumerate(screen.clicks[-50:], start=1):
            colour = {"right_click": (200, 0, 0), "double_click": (0, 120, 0), "drag": (120, 0, 120)}.get(
                kind, (0, 90, 200)
            )
            draw.ellipse((x - 8, y - 8, x + 8, y + 8), outline=colour, width=3)
            draw.text((x + 10, y - 6), str(n), fill=colour)
        x, y = screen.cursor
        draw.polygon([(x, y), (x, y + 16), (x + 11, y + 11)], fill=(0, 0, 0))
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue()


_FONT: list = []  # the font, loaded once


def _command_key(command) -> str:
    return command if isinstance(command, str) else "\0".join(str(part) for part in command)


def _font():
    if not _FONT:
        _FONT.append(ImageFont.load_default(size=16))
    return _FONT[0]


def start_fake_guest(width: int = 1280, height: int = 800, host: str = "127.0.0.1", port: int = 0):
    """A running fake guest: returns (guest, server); ``server.url`` is its address, ``server.stop()`` ends it."""
    guest = FakeGuest(width, height)
    server = ControlServer(guest, host, port).start()
    return guest, server
