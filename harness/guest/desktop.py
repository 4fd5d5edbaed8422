"""The local desktop guest: our own Control API server in front of a virtual X display (Xvfb) showing
Chromium. pyautogui snippets are parsed (never executed) and replayed with xdotool; screenshots are
real captures of the display. The harness's fast typing commands (``xdotool type``, ``xmodmap`` keycode
mappings) run against the display; other commands are refused unless explicitly allowed, and then run
as OSWorld's server runs them."""

import io
import os
import shutil
import subprocess
import tempfile
import threading
import time
from typing import Any

from harness.actions import parse_action
from harness.chromium import CHROMIUM, QUIET_ARGS
from harness.control import keymap_command, snippet_from_command, strip_prelude, xdotool_type_text
from harness.guest.server import ControlServer, answer, run_command

CHROMIUM_FLAGS = [
    *QUIET_ARGS,
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-dev-shm-usage",
    "--password-store=basic",
]
# pyautogui key names (its KEY_NAMES list, and the names harness.actions.translation produces) -> X keysyms, as
# xdotool takes them: the keysyms pyautogui's own X11 backend presses, and for the names it leaves
# unmapped there (browser, media, launch keys) the XF86 keysym of that key, so the guest presses them.
KEYSYMS = {
    "enter": "Return", "return": "Return", "\n": "Return", "\r": "Return",
    "esc": "Escape", "escape": "Escape",
    "tab": "Tab", "\t": "Tab", "backspace": "BackSpace", "\b": "BackSpace",
    "delete": "Delete", "del": "Delete", "space": "space", " ": "space",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right", "home": "Home", "end": "End",
    "pageup": "Prior", "pgup": "Prior", "pagedown": "Next", "pgdn": "Next", "insert": "Insert",
    "ctrl": "Control_L", "ctrlleft": "Control_L", "ctrlright": "Control_R", "control": "Control_L",
    "shift": "Shift_L", "shiftleft": "Shift_L", "shiftright": "Shift_R",
    "alt": "Alt_L", "altleft": "Alt_L", "altright": "Alt_R",
    "option": "Alt_L", "optionleft": "Alt_L", "optionright": "Alt_R",
    "win": "Super_L", "winleft": "Super_L", "winright": "Super_R", "command": "Super_L", "super": "Super_L",
    "fn": "Super_L",  # no X keysym; pyautogui's mac backend pairs it with the modifier row
    "apps": "Menu", "capslock": "Caps_Lock", "numlock": "Num_Lock", "scrolllock": "Scroll_Lock",
    "pause": "Pause", "print": "Print", "printscreen": "Print", "prtsc": "Print", "prtscr": "Print",
    "prntscrn": "Print", "select": "Select", "execute": "Execute", "help": "Help", "clear": "Clear",
    "accept": "Execute", "sleep": "XF86Sleep", "stop": "XF86AudioStop",
    "multiply": "KP_Multiply", "add": "KP_Add", "separator": "KP_Separator", "subtract": "KP_Subtract",
    "decimal": "KP_Decimal", "divide": "KP_Divide",
    "browserback": "XF86Back", "browserforward": "XF86Forward", "browserrefresh": "XF86Refresh",
    "browserstop": "XF86Stop", "browsersearch": "XF86Search", "browserfavorites": "XF86Favorites",
    "browserhome": "XF86HomePage", "volumemute": "XF86AudioMute", "volumedown": "XF86AudioLowerVolume",
    "volumeup": "XF86AudioRaiseVolume", "nexttrack": "XF86AudioNext", "prevtrack": "XF86AudioPrev",
    "playpause": "XF86AudioPlay", "launchmail": "XF86Mail", "launchmediaselect": "XF86AudioMedia",
    "launchapp1": "XF86Launch0", "launchapp2": "XF86Launch1",
    # input-method keys of East Asian keyboards
    "convert": "Henkan", "nonconvert": "Muhenkan", "modechange": "Mode_switch", "kana": "Katakana",
    "kanji": "Kanji", "hangul": "Hangul", "hanguel": "Hangul", "hanja": "Hangul_Hanja", "junja": "Hangul_Jeonja",
    "final": "Hangul_End", "yen": "yen",
    ",": "comma", ".": "period", "/": "slash", "-": "minus", "=": "equal", "+": "plus", ";": "semicolon",
    ":": "colon", "'": "apostrophe", '"': "quotedbl", "[": "bracketleft", "]": "bracketright", "{": "braceleft",
    "}": "braceright", "(": "parenleft", ")": "parenright", "<": "less", ">": "greater", "\\": "backslash",
    "|": "bar", "`": "grave", "~": "asciitilde", "!": "exclam", "?": "question", "@": "at", "#": "numbersign",
    "$": "dollar", "%": "percent", "^": "asciicircum", "&": "ampersand", "*": "asterisk", "_": "underscore",
}  # fmt: skip
KEYSYMS.update({f"num{i}": f"KP_{i}" for i in range(10)})
KEYSYMS.update({f"f{i}": f"F{i}" for i in range(1, 25)})
MAX_WAIT_SECONDS = 10.0


class DesktopUnavailable(RuntimeError):
    pass


def missing_tools() -> list[str]:
    """What this machine lacks to run the local desktop guest, with the Debian package to install."""
    missing = []
    if shutil.which("Xvfb") is None:
        missing.append("Xvfb (apt-get install xvfb)")
    if shutil.which("xdotool") is None:
        missing.append("xdotool (apt-get install xdotool)")
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(f"{CHROMIUM} (apt-get install chromium)")
    return missing


def keysym(key: str) -> str:
    """The X keysym xdotool presses for a pyautogui key name. A letter or digit is its own keysym; a
    name with none raises ValueError (pyautogui would silently press nothing; the guest says so)."""
    name = str(key)
    if name in KEYSYMS:
        return KEYSYMS[name]
    lower = name.lower()
    if lower in KEYSYMS:
        return KEYSYMS[lower]
    if len(name) == 1 and (name.isalnum() or not name.isascii()):
        return name
    raise ValueError(f"key {name!r} has no X keysym here (pyautogui key names such as enter, pagedown, num5, "
                     "or a single character)")  # fmt: skip


def xdotool_commands(action: dict) -> list[list[str]]:
    """xdotool argument lists equivalent to one parsed pyautogui action. Raises ValueError when the
    action has no equivalent here."""
    kind = action["type"]
    moves = []
    if "x" in action and "y" in action and kind != "drag":
        verb = "mousemove_relative" if action.get("relative") else "mousemove"
        moves = [[verb, "--", str(int(action["x"])), str(int(action["y"]))]]
    if kind == "click":
        button = {"middle": "2", "right": "3"}.get(action.get("button") or "", "1")
        return [*moves, ["click", "--repeat", str(int(action.get("clicks", 1))), button]]
    if kind == "double_click":
        return [*moves, ["click", "--repeat", "2", "1"]]
    if kind == "right_click":
        return [*moves, ["click", "3"]]
    if kind == "move":
        return moves
    if kind == "drag":
        start = []
        if "from_x" in action:
            start = [["mousemove", str(int(action["from_x"])), str(int(action["from_y"]))]]
        verb = "mousemove_relative" if action.get("relative") else "mousemove"
        return [
            *start,
            ["mousedown", "1"],
            [verb, "--", str(int(action["x"])), str(int(action["y"]))],
            ["mouseup", "1"],
        ]
    if kind == "type":
        return [["type", "--delay", "12", "--", action["text"]]]
    if kind == "key":
        verb = {"down": "keydown", "up": "keyup"}.get(action.get("state") or "", "key")
        repeat = ["--repeat", str(action["presses"])] if action.get("presses") else []
        return [[verb, *repeat, keysym(k)] for k in action["keys"]]
    if kind == "hotkey":
        return [["key", "+".join(keysym(k) for k in action["keys"])]]
    if kind == "scroll":
        amount = int(action.get("dy", 0) or 0)
        horizontal = int(action.get("dx", 0) or 0)
        if horizontal:
            button, amount = ("7" if horizontal > 0 else "6"), abs(horizontal)
        else:
            button, amount = ("4" if amount > 0 else "5"), abs(amount)
        return [*moves, ["click", "--repeat", str(max(amount, 1)), button]] if amount else moves
    if kind == "other" and action.get("mouse") in ("down", "up"):
        return [*moves, [f"mouse{action['mouse']}", "1"]]
    raise ValueError(f"no xdotool equivalent for {action}")


class LocalDesktop:
    """Xvfb + Chromium + xdotool. ``start()`` brings the display up; ``open(url)`` shows a page."""

    def __init__(self, width: int = 1280, height: int = 800, url: str = "about:blank", *, allow_shell: bool = False,
                 devtools_port: int = 0):  # fmt: skip
        self.size = (width, height)
        self.url = url
        self.allow_shell = allow_shell
        self.devtools_port = devtools_port  # Chromium's DevTools on this loopback port (0: none), for observers
        self.display = ""
        self.lock = threading.Lock()
        self._xvfb: subprocess.Popen | None = None
        self._browser: subprocess.Popen | None = None
        self._profile: str | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> "LocalDesktop":
        missing = missing_tools()
        if missing:
            raise DesktopUnavailable("the local desktop guest needs " + ", ".join(missing))
        read_fd, write_fd = os.pipe()
        width, height = self.size
        self._xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number.isdigit():
            stderr = self._xvfb.stderr  # a pipe: Xvfb was started with stderr=PIPE
            error = stderr.read().decode(errors="replace")[-300:] if stderr and self._xvfb.poll() is not None else ""
            self.stop()
            raise DesktopUnavailable(f"Xvfb did not report a display number: {error or 'no output'}")
        self.display = f":{number}"
        try:
            self.open(self.url)
        except Exception:
            self.stop()  # no display left behind when Chromium does not come up
            raise
        return self

    def open(self, url: str) -> None:
        """Show ``url`` in a fresh full-screen Chromium (a new profile each time: a clean state)."""
        self._stop_browser()
        self.url = url
        self._profile = tempfile.mkdtemp(prefix="mypcbench-guest-profile-")
        width, height = self.size
        self._browser = subprocess.Popen(
            [
                CHROMIUM,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={self._profile}",
                "--window-position=0,0",
                f"--window-size={width},{height}",
                "--kiosk",
                *([f"--remote-debugging-port={self.devtools_port}"] if self.devtools_port else []),
                url,
            ],
            env={**os.environ, "DISPLAY": self.display},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._wait_for_window()

    def _wait_for_window(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self._xdotool(["search", "--onlyvisible", "--class", "chromium"], check=False)
            if found.returncode == 0 and found.stdout.strip():
                time.sleep(0.5)  # the first paint follows the window by a moment
                return
            if self._browser is not None and self._browser.poll() is not None:
                raise DesktopUnavailable(f"Chromium exited with status {self._browser.returncode} on {self.display}")
            time.sleep(0.2)
        raise DesktopUnavailable(f"no Chromium window appeared on {self.display} within {timeout:g} s")

    def _stop_browser(self) -> None:
        if self._browser is not None:
            _terminate(self._browser)
            self._browser = None
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    def stop(self) -> None:
        self._stop_browser()
        if self._xvfb is not None:
            _terminate(self._xvfb)
            self._xvfb = None

    # ------------------------------------------------------------ Control API backend

    def health(self):
        if self._xvfb is None or self._xvfb.poll() is not None:
            return 503, {"status": "error", "message": "display not running"}
        return 200, {"status": "ok", "display": self.display}

    def screenshot_response(self):
        from PIL import ImageGrab

        image = ImageGrab.grab(xdisplay=self.display)
        out = io.BytesIO()
        image.convert("RGB").save(out, format="PNG", compress_level=3)
        return 200, out.getvalue(), "image/png"

    def execute(self, command, shell: bool):
        snippet = snippet_from_command(command)
        if snippet is not None:
            return self._replay(snippet, "returncode")
        typed = xdotool_type_text(command)
        if (typed is not None or keymap_command(command)) and not shell:
            # the harness's fast typing path (xdotool, and xmodmap for non-ASCII keys): input, not a shell
            with self.lock:
                if command[0] == "xmodmap":
                    done = subprocess.run(command, capture_output=True, text=True, timeout=30, env=self._env())
                else:
                    done = self._xdotool(command[1:], check=False)
            answer = {"output": done.stdout, "error": done.stderr, "returncode": done.returncode}
            return 200, {"status": "success", **answer}
        if not self.allow_shell:
            message = "shell commands are disabled on the local desktop guest (start it with allow_shell=True)"
            return 200, {"status": "error", "output": "", "error": message, "returncode": 126}
        return run_command(command, shell, env=self._env())

    def run_python(self, code):
        if not code or not isinstance(code, str):
            return 400, {"status": "error", "message": "Code not supplied!"}
        return self._replay(strip_prelude(code), "return_code")

    def _env(self) -> dict:
        return {**os.environ, "DISPLAY": self.display}

    def _xdotool(self, args: list[str], check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=30, env=self._env())
        if check and done.returncode != 0:
            raise RuntimeError(f"xdotool {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[:200]}")
        return done

    def _replay(self, snippet: str, code_key: str):
        parsed = parse_action(snippet)
        steps = parsed.get("actions", [parsed])
        try:
            plans: list[tuple[str, Any]] = []
            for action in steps:
                if action["type"] == "wait":
                    plans.append(("sleep", min(float(action.get("seconds", 1.0)), MAX_WAIT_SECONDS)))
                elif action["type"] == "other" and "clipboard" in action:
                    plans.append(("skip", None))  # the paste that follows is folded into a "type"
                else:
                    plans.extend(("xdotool", args) for args in xdotool_commands(action))
        except ValueError as exc:
            return 200, answer(code_key, 1, error=str(exc))
        with self.lock:
            try:
                for kind, value in plans:
                    if kind == "sleep":
                        time.sleep(value)
                    elif kind == "xdotool":
                        self._xdotool(value)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                return 200, answer(code_key, 1, error=str(exc))
        return 200, answer(code_key, 0)


def _terminate(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, 15) if _own_group(process) else process.terminate()
        process.wait(timeout=5)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        process.kill()
        process.wait(timeout=5)


def _own_group(process: subprocess.Popen) -> bool:
    try:
        return os.getpgid(process.pid) == process.pid
    except ProcessLookupError:
        return False


class LocalDesktopGuest:
    """A LocalDesktop behind a ControlServer: ``start()`` returns the URL the harness talks to."""

    def __init__(self, width=1280, height=800, url="about:blank", host="127.0.0.1", port=0, *, allow_shell=False,
                 devtools_port=0):  # fmt: skip
        self.desktop = LocalDesktop(width, height, url, allow_shell=allow_shell, devtools_port=devtools_port)
        self.host, self.port = host, port
        self.server: ControlServer | None = None

    def start(self) -> str:
        self.desktop.start()
        try:
            self.server = ControlServer(self.desktop, self.host, self.port).start()
        except Exception:
            self.desktop.stop()
            raise
        return self.server.url

    @property
    def url(self) -> str:
        return self.server.url if self.server else ""

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
        self.desktop.stop()
