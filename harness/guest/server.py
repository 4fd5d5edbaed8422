"""The Control API as a small threaded HTTP server (stdlib), shared by the fake guest and the local
desktop guest: routes requests to a backend object. Binds to loopback unless told otherwise."""

import ipaddress
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol, cast

MAX_BODY = 10 * 1024 * 1024
LOOPBACK_HOSTS = {"localhost"}


# The OSWorld server's own limits: /execute commands 120 s, /run_python code 30 s.
COMMAND_TIMEOUT = 120
PYTHON_TIMEOUT = 30


class BindRefused(ValueError):
    pass


def _text(data: bytes | None) -> str:
    # The real server decodes as text and answers 500 on bytes that are not UTF-8 (the output is lost);
    # our guests escape them instead (the harness's shell wrapper does the same on a real guest).
    return (data or b"").decode("utf-8", "backslashreplace")


def answer(code_key: str, code: int, output: str = "", error: str = "") -> dict:
    """An answer with the fields the OSWorld server gives: /execute (``returncode``) or /run_python
    (``return_code`` plus ``message`` and ``need_more``)."""
    # /execute says "success" whenever the command ran, whatever its exit status; /run_python does not.
    failed = code != 0 and code_key == "return_code"
    data = {"status": "error" if failed else "success", "output": output, "error": error, code_key: code}
    if code_key == "return_code":
        data["message"] = output + (("\n" if output else "") + error if error else "")
        data["need_more"] = False
    return data


def run_command(command, shell: bool, *, env=None, timeout: float = COMMAND_TIMEOUT):
    """/execute as the OSWorld server runs it: a string without shell is split like a shell would; a
    list with shell=True runs only its first element (the others become $0, $1, ... of /bin/sh, as
    subprocess does); ``~/`` arguments are expanded; a program that cannot start (not found) or a
    timeout answers 500 with a message. A bare ``python`` falls back to this interpreter when the system
    has none (Debian ships only python3; OSWorld's client calls ``python``)."""
    if not isinstance(command, str | list) or not command:
        return 400, {"status": "error", "message": "command must be a non-empty string or list", "returncode": -1}
    if isinstance(command, str) and not shell:
        command = shlex.split(command)
    if isinstance(command, list):
        command = [os.path.expanduser(a) if isinstance(a, str) and a.startswith("~/") else a for a in command]
        if not shell and command[0] == "python" and shutil.which("python") is None:
            command = [sys.executable, *command[1:]]
    try:
        done = subprocess.run(command, shell=shell, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return 500, {"status": "error", "message": f"Command {command!r} timed out after {timeout:g} seconds"}
    except (OSError, TypeError, ValueError) as exc:  # no such program, not executable, bad argument
        return 500, {"status": "error", "message": str(exc)}
    return 200, {"status": "success", "output": _text(done.stdout), "error": _text(done.stderr),
                 "returncode": done.returncode}  # fmt: skip


def run_python_code(code, *, python: str = sys.executable, env=None, timeout: float = PYTHON_TIMEOUT):
    """/run_python as the OSWorld server runs it: the code from a temporary file, fields ``message``
    (stdout and stderr), ``output``, ``error``, ``return_code`` (not ``returncode``); a non-zero exit is
    HTTP 200 with status error; no code is 400; its 30 s timeout is 500."""
    if not code or not isinstance(code, str):
        return 400, {"status": "error", "message": "Code not supplied!"}
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="python_exec_", delete=False) as handle:
        handle.write(code)
    try:
        done = subprocess.run([python, handle.name], capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return 500, {"status": "error", "message": "Execution timeout: Code took too long to execute",
                     "error": "TimeoutExpired", "need_more": False, "output": None}  # fmt: skip
    finally:
        os.unlink(handle.name)
    output, error = _text(done.stdout), _text(done.stderr)
    message = output + (("\n" + error if output else error) if error else "")
    if done.returncode and not error:
        error = f"Process exited with code {done.returncode}"
        message = f"{message}\n{error}" if message else error
    return 200, {"status": "error" if done.returncode else "success", "message": message, "need_more": False,
                 "output": output, "error": error, "return_code": done.returncode}  # fmt: skip


def check_bind(host: str, allow_remote: bool) -> None:
    """The Control API runs anything it is sent and has no authentication: only loopback by default."""
    if allow_remote or host in LOOPBACK_HOSTS:
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise BindRefused(
        f"refusing to bind the Control API to {host!r}: it executes whatever it receives without "
        "authentication (expected a loopback address such as 127.0.0.1; pass allow_remote=True / "
        "--allow-remote only inside an isolated network)"
    )


class GuestBackend(Protocol):
    """What a ControlServer serves (the fake, headless and local desktop guests): each call answers with
    an HTTP status and what to send."""

    size: tuple[int, int]

    def health(self) -> tuple[int, dict]: ...

    def screenshot_response(self) -> tuple[int, bytes, str]: ...

    def execute(self, command, shell: bool) -> tuple[int, dict]: ...

    def run_python(self, code) -> tuple[int, dict]: ...


class _GuestHTTPServer(ThreadingHTTPServer):
    """The HTTP server of a ControlServer, holding the backend its handlers route to."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], backend: GuestBackend):
        super().__init__(address, _Handler)
        self.backend = backend


class _Handler(BaseHTTPRequestHandler):
    server: _GuestHTTPServer
    protocol_version = "HTTP/1.1"  # keep-alive: one connection per client session
    # Headers and body go out in separate writes; with Nagle on, each answer waits ~40 ms for an ACK.
    disable_nagle_algorithm = True
    server_version = "MyPCBenchGuest/1"

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
        return

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            # The client stopped waiting (its timeout); nothing is left to tell it.
            self.close_connection = True

    def _json(self, status: int, data) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError(f"body of {length} bytes is larger than {MAX_BODY}")
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw or b"{}")

    def do_GET(self):  # noqa: N802 - http.server's name
        backend = self.server.backend
        try:
            if self.path == "/health":
                status, data = backend.health()
                self._json(status, data)
            elif self.path == "/screenshot":
                status, body, content_type = backend.screenshot_response()
                self._send(status, body, content_type)
            elif self.path == "/platform":
                self._send(200, b"Linux", "text/plain")
            else:
                self._json(404, {"status": "error", "message": f"no route GET {self.path}"})
        except Exception as exc:  # a broken backend answers 500 instead of dropping the connection
            self._json(500, {"status": "error", "message": f"{type(exc).__name__}: {exc}"})

    def do_POST(self):  # noqa: N802
        backend = self.server.backend
        try:
            payload = self._body()
        except (ValueError, UnicodeDecodeError) as exc:
            self._json(400, {"status": "error", "message": f"bad JSON body: {exc}", "returncode": -1})
            return
        try:
            if self.path in ("/execute", "/setup/execute"):
                status, data = backend.execute(payload.get("command"), bool(payload.get("shell", False)))
                self._json(status, data)
            elif self.path == "/run_python":
                status, data = backend.run_python(payload.get("code"))
                self._json(status, data)
            elif self.path == "/screen_size":
                width, height = backend.size
                self._json(200, {"width": width, "height": height})
            else:
                self._json(404, {"status": "error", "message": f"no route POST {self.path}"})
        except Exception as exc:
            self._json(500, {"status": "error", "message": f"{type(exc).__name__}: {exc}"})


class ControlServer:
    """Serve ``backend`` (health, screenshot_response, execute, run_python, size) on host:port in a
    background thread. Port 0 picks a free port; ``url`` says where it ended up."""

    def __init__(self, backend: GuestBackend, host: str = "127.0.0.1", port: int = 0, *, allow_remote: bool = False):
        check_bind(host, allow_remote)
        self.backend = backend
        self.httpd = _GuestHTTPServer((host, port), backend)
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = cast(tuple[str, int], self.httpd.server_address)[:2]  # an AF_INET address
        return f"http://{host}:{port}"

    def start(self) -> "ControlServer":
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="control-api", daemon=True)
        self.thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.thread is not None:
            self.thread.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
