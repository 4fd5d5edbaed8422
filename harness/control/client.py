"""Client for a guest's Control API (the OSWorld-compatible server on port 5000): screenshots, command
execution, readiness. Retries only what is safe to repeat; every failure names the URL and what came back."""

import ast
import shlex
import struct
import time
from dataclasses import dataclass

import requests

from harness import safejson

CONTROL_PORT = 5000
# What the harness reads from a guest at most: a 4K RGBA screen stored as PNG without compression is
# about 33 MB; a command's JSON answer (output and error text) gets a quarter of that, which is far
# beyond what an agent can be shown. A guest answering more is broken or hostile, and is told so.
MAX_SCREENSHOT_BYTES = 64 * 1024**2
MAX_ANSWER_BYTES = 16 * 1024**2
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
# What every pyautogui snippet runs after, as upstream: no fail-safe corner, no built-in pauses.
PYAUTOGUI_PRELUDE = "import pyautogui; import time; pyautogui.FAILSAFE = False; pyautogui.PAUSE = 0; "
# The OSWorld server kills an /execute command after 120 s and answers 500. The client waits longer, so
# that answer arrives and a slow command is told apart from a guest that stopped answering.
GUEST_COMMAND_TIMEOUT = 120.0
CLIENT_TIMEOUT_MARGIN = 30.0
# Shell commands (the agents' bash tool, state checks) run through this small program: under bash, as
# agents are told (the server's shell=True is /bin/sh, dash on Ubuntu), with stdin closed, and with output
# that is not UTF-8 escaped (\xff) instead of making the server answer 500 and lose all of it. It stops
# the command a little before the server's own limit, so the output so far still comes back.
SHELL_TIMEOUT = GUEST_COMMAND_TIMEOUT - 5
SHELL_WRAPPER = (
    "import subprocess, sys\n"
    "def out(stream, data):\n"
    "    stream.buffer.write((data or b'').decode('utf-8', 'backslashreplace').encode('utf-8'))\n"
    "try:\n"
    "    done = subprocess.run(['bash', '-c', sys.argv[1]], stdin=subprocess.DEVNULL, capture_output=True,\n"
    f"                          timeout={SHELL_TIMEOUT:g})\n"
    "except FileNotFoundError:\n"
    "    sys.stderr.write('bash is not installed on this computer\\n'); sys.exit(127)\n"
    "except subprocess.TimeoutExpired as exc:\n"
    "    out(sys.stdout, exc.stdout); out(sys.stderr, exc.stderr)\n"
    f"    sys.stderr.write('\\n[stopped: the command ran longer than {SHELL_TIMEOUT:g} s]\\n'); sys.exit(124)\n"
    "out(sys.stdout, done.stdout); out(sys.stderr, done.stderr); sys.exit(done.returncode)\n"
)


class ControlError(RuntimeError):
    """The guest could not be reached or answered something unusable."""

    def __init__(self, url: str, problem: str):
        self.url = url
        self.problem = problem
        super().__init__(f"{url}: {problem}")


@dataclass
class ExecResult:
    returncode: int
    output: str = ""
    error: str = ""
    # True when a timeout cut the command short; ``timeout_side`` says whose: "client" (the harness
    # stopped waiting: the command may still be running there) or "guest" (the server's own limit).
    timed_out: bool = False
    timeout_side: str = ""
    via: str = ""  # how an action was carried out when not through pyautogui (e.g. "xdotool")

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def client_gave_up(self) -> bool:
        """The guest never answered in time: a sign the guest, not the command, is in trouble."""
        return self.timed_out and self.timeout_side != "guest"

    def as_dict(self) -> dict:
        data = {"returncode": self.returncode, "output": self.output, "error": self.error}
        if self.timed_out:
            data["timed_out"] = True
            data["timed_out_by"] = self.timeout_side or "client"
        if self.via:
            data["via"] = self.via
        return data


def image_kind(data: bytes) -> str | None:
    if data.startswith(PNG_MAGIC):
        return "png"
    if data.startswith(JPEG_MAGIC):
        return "jpeg"
    return None


def fix_less_than(snippet: str) -> str:
    """Typing '<' through xdotool gives '>' on the guest's keymap; upstream types it as shift+comma."""
    if "<" not in snippet or "typewrite" not in snippet and "write(" not in snippet:
        return snippet
    from harness.actions import parse_action

    action = parse_action(snippet)
    if action.get("type") != "type" or "actions" in action or action.get("via"):
        return snippet
    parts = action["text"].split("<")
    lines = []
    for i, part in enumerate(parts):
        if part:
            lines.append(f"pyautogui.typewrite({part!r}, interval=0.02)")
        if i < len(parts) - 1:
            lines.append("pyautogui.hotkey('shift', ',')")
    return "; ".join(lines)


# Typing fast path: pyautogui types 50 characters a second (20 ms each), so 5,000 characters pass the
# guest's 120 s limit, and text it has no key for (non-ASCII) needs a clipboard tool. Long or non-ASCII
# text is typed with xdotool instead (the OSWorld server has DISPLAY set): 5 ms a character, in pieces
# that each finish well inside the limit. xdotool types a character missing from the keymap by mapping
# a spare keycode and unmapping it at once, which applications often read too late (the character is
# lost); so non-ASCII characters are first mapped to spare keycodes for good (xmodmap), typed, and the
# keycodes cleared afterwards.
FAST_TYPE_MIN_CHARS = 200
FAST_TYPE_DELAY_MS = 5
FAST_TYPE_CHUNK = 4000
KEYMAP_SETTLE_SECONDS = 0.2  # for applications to read the changed keymap before keys arrive


def needs_fast_typing(text: str) -> bool:
    return len(text) >= FAST_TYPE_MIN_CHARS or not text.isascii()


def spare_keycodes(keymap: str) -> list[int]:
    """Keycodes without any keysym in ``xmodmap -pke`` output (lines such as ``keycode  93 =``)."""
    spare = []
    for line in keymap.splitlines():
        name, _, symbols = line.partition("=")
        parts = name.split()
        if len(parts) == 2 and parts[0] == "keycode" and parts[1].isdigit() and not symbols.strip():
            spare.append(int(parts[1]))
    return spare


def xdotool_type_commands(text: str) -> list[list[str]]:
    """argv lists that type ``text`` (whose characters are all in the keymap) with xdotool. '<' goes as
    shift+comma, as upstream types it (the guest's keymap turns a typed '<' into '>')."""
    commands = []
    for i, part in enumerate(text.split("<")):
        if i:
            commands.append(["xdotool", "key", "--clearmodifiers", "shift+comma"])
        for start in range(0, len(part), FAST_TYPE_CHUNK):
            chunk = part[start : start + FAST_TYPE_CHUNK]
            commands.append(["xdotool", "type", "--delay", str(FAST_TYPE_DELAY_MS), "--", chunk])
    return commands


def typing_plan(text: str, spare: list[int]) -> list[list[str]]:
    """argv lists that type ``text``: pieces each using at most as many distinct non-ASCII characters as
    there are spare keycodes (one is left to xdotool), each piece preceded by an xmodmap mapping them
    and the keycodes cleared at the end. Without spare keycodes, xdotool's own mapping is used."""
    usable = spare[1:]
    if text.isascii() or not usable:
        return xdotool_type_commands(text)
    pieces: list[tuple[str, list[str]]] = []
    piece = ""
    chars: list[str] = []
    for char in text:
        if not char.isascii() and char not in chars:
            if len(chars) == len(usable):
                pieces.append((piece, chars))
                piece, chars = "", []
            chars.append(char)
        piece += char
    pieces.append((piece, chars))
    commands, used = [], set()
    for piece, chars in pieces:
        if chars:
            mapping = []
            for code, char in zip(usable, chars, strict=False):
                mapping += ["-e", f"keycode {code} = U{ord(char):04X}"]
                used.add(code)
            commands.append(["xmodmap", *mapping])
            commands.append(["sleep", str(KEYMAP_SETTLE_SECONDS)])
        commands.extend(xdotool_type_commands(piece))
    commands.append(["xmodmap", *[arg for code in sorted(used) for arg in ("-e", f"keycode {code} =")]])
    return commands


def keymap_command(command) -> bool:
    """An ``xmodmap -pke`` or ``xmodmap -e 'keycode N = ...'`` argv from typing_plan."""
    if not isinstance(command, list) or len(command) < 2 or command[0] != "xmodmap":
        return False
    if command[1:] == ["-pke"]:
        return True
    pairs = command[1:]
    if len(pairs) % 2:
        return False
    flags, texts = pairs[::2], pairs[1::2]
    return all(flag == "-e" and str(text).startswith("keycode ") for flag, text in zip(flags, texts, strict=True))


def xdotool_type_text(command) -> str | None:
    """What an ``xdotool type ... -- TEXT`` or ``xdotool key ... shift+comma`` argv types; None otherwise."""
    if not isinstance(command, list) or len(command) < 3 or command[0] != "xdotool":
        return None
    if command[1] == "type" and "--" in command:
        return str(command[command.index("--") + 1]) if command.index("--") + 1 < len(command) else ""
    if command[1] == "key" and command[-1] == "shift+comma":
        return "<"
    return None


def pyautogui_command(snippet: str) -> list[str]:
    """The argv that runs one pyautogui snippet on the guest."""
    return ["python3", "-c", PYAUTOGUI_PRELUDE + fix_less_than(snippet)]


def shell_command(command: str) -> list[str]:
    """The argv that runs a shell command on the guest under bash (see SHELL_WRAPPER)."""
    return ["python3", "-c", SHELL_WRAPPER, command]


def unwrap_shell(command) -> str | None:
    """The shell command inside a ``shell_command`` argv, or None when ``command`` is not one."""
    if isinstance(command, list) and len(command) == 4 and command[1:3] == ["-c", SHELL_WRAPPER]:
        return str(command[3]) if str(command[0]).rsplit("/", 1)[-1].startswith("python") else None
    return None


def strip_prelude(code: str) -> str:
    """``code`` without the set-up statements clients put before pyautogui calls: imports and settings
    such as ``pyautogui.FAILSAFE = False`` (ours, and OSWorld's ``PythonController`` prefix)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return code
    end = None
    for statement in tree.body:
        if isinstance(statement, ast.Import | ast.ImportFrom) or _is_setting(statement):
            end = (statement.end_lineno or 0, statement.end_col_offset or 0)  # ast.parse sets both
            continue
        break
    if end is None:
        return code
    lines = code.splitlines(keepends=True)
    offset = sum(len(line) for line in lines[: end[0] - 1]) + end[1]
    return code[offset:].lstrip(" \t;\r\n")


def _is_setting(statement) -> bool:
    """``pyautogui.NAME = <literal>`` (FAILSAFE, PAUSE, ...)."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return False
    target = statement.targets[0]
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "pyautogui"
        and isinstance(statement.value, ast.Constant)
    )


def snippet_from_command(command) -> str | None:
    """The pyautogui code inside a ``python -c`` command (argv list or shell string), prelude removed.
    None for anything else, including a shell command sent through SHELL_WRAPPER."""
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError:
            return None
    if not isinstance(command, list) or len(command) < 3 or unwrap_shell(command) is not None:
        return None
    if not str(command[0]).rsplit("/", 1)[-1].startswith("python") or command[1] != "-c":
        return None
    return strip_prelude(str(command[2]))


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's header, or from a JPEG's frame header; None when unreadable."""
    if data.startswith(PNG_MAGIC) and len(data) >= 24 and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])
    if data.startswith(JPEG_MAGIC):
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                return None
            marker, length = data[i + 1], struct.unpack(">H", data[i + 2 : i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                return width, height
            i += 2 + length
    return None


class ControlClient:
    """One guest at ``base_url`` (e.g. ``http://127.0.0.1:5000``). Not thread-safe: one per slot."""

    def __init__(
        self,
        base_url: str,
        *,
        screenshot_timeout: float = 30.0,
        execute_timeout: float = GUEST_COMMAND_TIMEOUT + CLIENT_TIMEOUT_MARGIN,
        health_timeout: float = 5.0,
        connect_timeout: float = 5.0,
        attempts: int = 3,
        retry_delay: float = 3.0,
    ):
        self.base_url = base_url.rstrip("/")
        self.screenshot_timeout = screenshot_timeout
        self.execute_timeout = execute_timeout
        self.health_timeout = health_timeout
        self.connect_timeout = connect_timeout
        self.attempts = max(1, attempts)
        self.retry_delay = retry_delay
        self.session = requests.Session()
        # Guests are reached directly (loopback or the VM network); a proxy from the environment
        # would only get in the way, and reading it costs a few ms on every request.
        self.session.trust_env = False

    def close(self) -> None:
        self.session.close()

    def _url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    # ------------------------------------------------------------ readiness

    def probe(self) -> str:
        """ "ready" (HTTP 200 on /health, or on /screenshot for servers without /health), "refused"
        (nothing listens: the connection was refused) or "not ready" (anything else, e.g. a booting VM
        whose port forwarder accepts and drops connections)."""
        for path in ("/health", "/screenshot"):
            try:
                response = self.session.get(self._url(path), timeout=(self.connect_timeout, self.health_timeout))
            except requests.ConnectionError as exc:
                return "refused" if _refused(exc) else "not ready"
            except requests.RequestException:
                return "not ready"
            if response.status_code == 200:
                return "ready"
            if response.status_code != 404:
                return "not ready"
        return "not ready"

    def health(self) -> bool:
        """True when the guest answers 200 on /health (or, for servers without it, on /screenshot)."""
        return self.probe() == "ready"

    def wait_ready(self, timeout: float = 900.0, interval: float = 5.0, refused_grace: float | None = None,
                   on_wait=None) -> float:  # fmt: skip
        """Poll until the guest is healthy; return the seconds waited. Raises ControlError on timeout, and
        with ``refused_grace`` as soon as every connection has been refused for that long (nothing
        listens at the URL: waiting the whole timeout would not help). ``on_wait(waited, state)`` is
        called after each poll that did not find the guest ready."""
        start = time.monotonic()
        while True:
            state = self.probe()
            if state == "ready":
                return time.monotonic() - start
            waited = time.monotonic() - start
            if state != "refused":
                refused_grace = None  # something answered once: a guest that is coming up
            elif refused_grace is not None and waited >= refused_grace:
                raise ControlError(self._url("/health"), f"nothing listens there (connection refused for {waited:.0f} "
                                   "s): check the URL and that the guest's Control API server runs")  # fmt: skip
            if waited >= timeout:
                raise ControlError(self._url("/health"), f"guest not ready after {waited:.0f} s (waited for HTTP 200)")
            if on_wait is not None:
                on_wait(waited, state)
            time.sleep(min(interval, max(0.0, timeout - waited)))

    # ------------------------------------------------------------ screenshot

    def screenshot(self) -> bytes:
        """The screen as PNG (or JPEG) bytes. Repeating a screenshot is harmless, so failures are
        retried; after the last attempt the error says what came back each time."""
        url = self._url("/screenshot")
        problems = []
        for attempt in range(self.attempts):
            if attempt:
                time.sleep(self.retry_delay)
            try:
                response = self.session.get(url, timeout=(self.connect_timeout, self.screenshot_timeout), stream=True)
                data = bounded_body(url, response, MAX_SCREENSHOT_BYTES)
            except requests.Timeout:
                problems.append(f"no answer within {self.screenshot_timeout:g} s")
                continue
            except requests.RequestException as exc:
                problems.append(f"cannot connect ({type(exc).__name__})")
                continue
            if response.status_code != 200:
                problems.append(f"HTTP {response.status_code}: {data[:120]!r}")
                continue
            if image_kind(data) is None:
                problems.append(f"{len(data)} bytes starting {data[:8]!r}, not a PNG or JPEG image")
                continue
            return data
        raise ControlError(url, f"no screenshot after {self.attempts} attempt(s): " + "; ".join(problems))

    # ------------------------------------------------------------ commands

    def execute(self, command, shell: bool = False, timeout: float | None = None) -> ExecResult:
        """Run a command on the guest. Only a refused connection (the request never arrived) is retried:
        a command that reached the guest is never sent twice. A read timeout gives returncode -1."""
        return self._post_command("/execute", {"command": command, "shell": shell}, "returncode", timeout)

    def run_python(self, code: str, timeout: float | None = None) -> ExecResult:
        """Run Python code on the guest (the server answers ``return_code``, not ``returncode``)."""
        return self._post_command("/run_python", {"code": code}, "return_code", timeout)

    def run_pyautogui(self, snippet: str, timeout: float | None = None) -> ExecResult:
        return self.execute(pyautogui_command(snippet), shell=False, timeout=timeout)

    def screen_size(self) -> tuple[int, int]:
        url = self._url("/screen_size")
        try:
            response = self.session.post(url, timeout=(self.connect_timeout, self.health_timeout), stream=True)
            data = safejson.loads(bounded_body(url, response, MAX_ANSWER_BYTES), max_bytes=MAX_ANSWER_BYTES)
            return int(data["width"]), int(data["height"])
        except (requests.RequestException, ValueError, KeyError, TypeError) as exc:
            raise ControlError(url, f"no screen size ({type(exc).__name__}: {exc})") from exc

    def _post_command(self, path: str, payload: dict, code_key: str, timeout: float | None) -> ExecResult:
        url = self._url(path)
        read_timeout = self.execute_timeout if timeout is None else timeout
        refused = []
        for attempt in range(self.attempts):
            if attempt:
                time.sleep(self.retry_delay)
            try:
                response = self.session.post(
                    url, json=payload, timeout=(self.connect_timeout, read_timeout), stream=True
                )
                body = bounded_body(url, response, MAX_ANSWER_BYTES)
            except requests.ReadTimeout:
                return ExecResult(
                    returncode=-1,
                    error=f"{url}: the client stopped waiting after {read_timeout:g} s without an answer (the "
                    f"guest's own command limit is {GUEST_COMMAND_TIMEOUT:g} s); the command may still be running",
                    timed_out=True,
                    timeout_side="client",
                )
            except requests.ConnectionError as exc:
                if not _never_sent(exc):
                    # The connection broke after the request went out: it may have run, so not resent.
                    raise ControlError(url, f"connection lost after sending the command ({exc})") from exc
                refused.append(type(exc).__name__)
                continue
            except requests.RequestException as exc:
                raise ControlError(url, f"request failed: {type(exc).__name__}: {exc}") from exc
            return _command_result(url, response.status_code, body, code_key)
        raise ControlError(url, f"cannot connect after {self.attempts} attempt(s) ({', '.join(refused)})")


def _refused(exc: requests.ConnectionError) -> bool:
    text = repr(exc)
    return "Connection refused" in text or "Errno 111" in text


def _never_sent(exc: requests.ConnectionError) -> bool:
    if isinstance(exc, requests.ConnectTimeout):
        return True
    text = repr(exc)
    return any(s in text for s in ("NewConnectionError", "Connection refused", "Failed to establish"))


def bounded_body(url: str, response: requests.Response, limit: int) -> bytes:
    """The body of a streamed response, read up to ``limit`` bytes; ControlError beyond it (the
    connection is closed, so the rest is never read)."""
    length = response.headers.get("Content-Length", "")
    try:
        if length.isdigit() and int(length) > limit:
            raise ControlError(url, f"the guest announced {int(length)} bytes (at most {limit} are read)")
        chunks, size = [], 0
        for chunk in response.iter_content(chunk_size=256 * 1024):
            size += len(chunk)
            if size > limit:
                raise ControlError(url, f"the guest sent more than {limit} bytes (at most {limit} are read)")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        response.close()


def _command_result(url: str, status: int, body: bytes, code_key: str) -> ExecResult:
    try:
        data = safejson.loads(body, max_bytes=MAX_ANSWER_BYTES)
    except safejson.JSONRefused as exc:
        shown = body[:120].decode("utf-8", "backslashreplace")
        raise ControlError(url, f"HTTP {status} with a body that is not usable JSON ({exc}): {shown!r}") from None
    if not isinstance(data, dict):
        raise ControlError(url, f"HTTP {status} with JSON {type(data).__name__}, expected an object")
    if status >= 500:
        return _server_error(url, status, data)
    if status != 200:
        raise ControlError(url, f"HTTP {status}: {str(data)[:200]}")
    code = data.get(code_key, data.get("returncode", data.get("return_code")))
    if isinstance(code, bool) or not isinstance(code, int):
        raise ControlError(url, f"answer has {code_key}={code!r}, expected an integer exit status")
    return ExecResult(returncode=code, output=str(data.get("output") or ""), error=str(data.get("error") or ""))


def _server_error(url: str, status: int, data: dict) -> ExecResult:
    """The OSWorld server answers 500 when running the command raised; the message says why, and the
    harness says what it means for the command."""
    message = str(data.get("message") or data.get("error") or data.get("output") or "no detail")
    prefix = f"HTTP {status} from {url}"
    if "timed out after" in message or "TimeoutExpired" in message or "timeout" in message.lower():
        return ExecResult(returncode=-1, output=str(data.get("output") or ""), timed_out=True, timeout_side="guest",
                          error=f"{prefix}: the guest's own command timeout fired and it stopped the command "
                                f"({message})")  # fmt: skip
    if "codec can't decode" in message:
        meaning = "the command ran, but its output is not UTF-8 text, so the server could not send it (output lost)"
    elif "No such file or directory" in message or "not found" in message.lower():
        meaning = "the program was not found on the guest"
    else:
        meaning = "running the command raised an error on the guest"
    return ExecResult(returncode=-1, output=str(data.get("output") or ""), error=f"{prefix}: {meaning} ({message})")
