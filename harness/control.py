"""Client for a guest's Control API (the OSWorld-compatible server on port 5000): screenshots, command
execution, readiness. Retries only what is safe to repeat; every failure names the URL and what came back."""

import shlex
import time
from dataclasses import dataclass

import requests

CONTROL_PORT = 5000
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
# What every pyautogui snippet runs after, as upstream: no fail-safe corner, no built-in pauses.
PYAUTOGUI_PRELUDE = "import pyautogui; import time; pyautogui.FAILSAFE = False; pyautogui.PAUSE = 0; "


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
    # True when the guest did not answer in time: the command may still be running there.
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def as_dict(self) -> dict:
        data = {"returncode": self.returncode, "output": self.output, "error": self.error}
        if self.timed_out:
            data["timed_out"] = True
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


def pyautogui_command(snippet: str) -> list[str]:
    """The argv that runs one pyautogui snippet on the guest."""
    return ["python3", "-c", PYAUTOGUI_PRELUDE + fix_less_than(snippet)]


def snippet_from_command(command) -> str | None:
    """The pyautogui code inside a ``python -c`` command (argv list or shell string), prelude removed."""
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError:
            return None
    if not isinstance(command, list) or len(command) < 3:
        return None
    if not str(command[0]).rsplit("/", 1)[-1].startswith("python") or command[1] != "-c":
        return None
    code = str(command[2])
    return code[len(PYAUTOGUI_PRELUDE) :] if code.startswith(PYAUTOGUI_PRELUDE) else code


class ControlClient:
    """One guest at ``base_url`` (e.g. ``http://127.0.0.1:5000``). Not thread-safe: one per slot."""

    def __init__(
        self,
        base_url: str,
        *,
        screenshot_timeout: float = 30.0,
        execute_timeout: float = 120.0,
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

    def health(self) -> bool:
        """True when the guest answers 200 on /health (or, for servers without it, on /screenshot)."""
        for path in ("/health", "/screenshot"):
            try:
                response = self.session.get(self._url(path), timeout=(self.connect_timeout, self.health_timeout))
            except requests.RequestException:
                return False
            if response.status_code == 200:
                return True
            if response.status_code != 404:
                return False
        return False

    def wait_ready(self, timeout: float = 900.0, interval: float = 5.0) -> float:
        """Poll until the guest is healthy; return the seconds waited. Raises ControlError on timeout."""
        start = time.monotonic()
        while True:
            if self.health():
                return time.monotonic() - start
            waited = time.monotonic() - start
            if waited >= timeout:
                raise ControlError(self._url("/health"), f"guest not ready after {waited:.0f} s (waited for HTTP 200)")
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
                response = self.session.get(url, timeout=(self.connect_timeout, self.screenshot_timeout))
            except requests.Timeout:
                problems.append(f"no answer within {self.screenshot_timeout:g} s")
                continue
            except requests.RequestException as exc:
                problems.append(f"cannot connect ({type(exc).__name__})")
                continue
            if response.status_code != 200:
                problems.append(f"HTTP {response.status_code}: {response.text[:120]!r}")
                continue
            data = response.content
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
            response = self.session.post(url, timeout=(self.connect_timeout, self.health_timeout))
            data = response.json()
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
                response = self.session.post(url, json=payload, timeout=(self.connect_timeout, read_timeout))
            except requests.ReadTimeout:
                return ExecResult(
                    returncode=-1,
                    error=f"{url}: no answer within {read_timeout:g} s; the command may still be running",
                    timed_out=True,
                )
            except requests.ConnectionError as exc:
                if not _never_sent(exc):
                    # The connection broke after the request went out: it may have run, so not resent.
                    raise ControlError(url, f"connection lost after sending the command ({exc})") from exc
                refused.append(type(exc).__name__)
                continue
            except requests.RequestException as exc:
                raise ControlError(url, f"request failed: {type(exc).__name__}: {exc}") from exc
            return _command_result(url, response, code_key)
        raise ControlError(url, f"cannot connect after {self.attempts} attempt(s) ({', '.join(refused)})")


def _never_sent(exc: requests.ConnectionError) -> bool:
    if isinstance(exc, requests.ConnectTimeout):
        return True
    text = repr(exc)
    return any(s in text for s in ("NewConnectionError", "Connection refused", "Failed to establish"))


def _command_result(url: str, response: requests.Response, code_key: str) -> ExecResult:
    try:
        data = response.json()
    except ValueError:
        raise ControlError(url, f"HTTP {response.status_code} with a non-JSON body {response.text[:120]!r}") from None
    if not isinstance(data, dict):
        raise ControlError(url, f"HTTP {response.status_code} with JSON {type(data).__name__}, expected an object")
    if response.status_code >= 500:
        # The OSWorld server answers 500 when running the command raised (e.g. its own timeout).
        message = data.get("message") or data.get("error") or data.get("output") or "no detail"
        return ExecResult(returncode=-1, output=str(data.get("output") or ""), error=f"HTTP 500 from {url}: {message}")
    if response.status_code != 200:
        raise ControlError(url, f"HTTP {response.status_code}: {str(data)[:200]}")
    code = data.get(code_key, data.get("returncode", data.get("return_code")))
    if isinstance(code, bool) or not isinstance(code, int):
        raise ControlError(url, f"answer has {code_key}={code!r}, expected an integer exit status")
    return ExecResult(returncode=code, output=str(data.get("output") or ""), error=str(data.get("error") or ""))
