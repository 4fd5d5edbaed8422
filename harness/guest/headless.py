"""A headless guest for machines without a display, such as the QEMU test guest (harness/testing/qemu_guest.py):
serves the Control API with the standard library only, runs /execute and /run_python for real, and
answers /screenshot with a plain PNG of the screen size (there is no screen to capture).

pyautogui snippets run for real too; in the test guest the ``pyautogui`` they import is
harness/guest/pyautogui_log.py, which appends each call to a log instead of moving a mouse.

    python3 -m harness.guest.headless [--host 0.0.0.0 --allow-remote] [--port 5000] [--size 1280x800]
"""

import argparse
import shlex
import struct
import subprocess
import sys
import zlib

from harness.guest.server import BindRefused, ControlServer

COMMAND_TIMEOUT = 120


def plain_png(width: int, height: int, colour=(58, 110, 165), bar=(32, 40, 48)) -> bytes:
    """An RGB PNG of ``width`` x ``height``: a dark top bar over a flat colour (no Pillow needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    bar_rows = min(height, 28)
    raw = (b"\0" + bytes(bar) * width) * bar_rows + (b"\0" + bytes(colour) * width) * (height - bar_rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


class HeadlessGuest:
    """Control API backend (see harness.guest.server.ControlServer) that runs what it is sent."""

    def __init__(self, width: int = 1280, height: int = 800, *, python: str = sys.executable):
        self.size = (width, height)
        self.python = python or "python3"
        self._png = plain_png(width, height)

    def health(self):
        return 200, {"status": "ok", "display": None}

    def screenshot_response(self):
        return 200, self._png, "image/png"

    def execute(self, command, shell: bool):
        if not isinstance(command, str | list) or not command:
            return 400, {"status": "error", "message": "command must be a non-empty string or list", "returncode": -1}
        if isinstance(command, str) and not shell:
            command = shlex.split(command)  # as the OSWorld server does
        elif isinstance(command, list) and shell:
            command = shlex.join(str(part) for part in command)
        return self._run(command, shell, "returncode")

    def run_python(self, code):
        if not isinstance(code, str):
            return 400, {"status": "error", "message": "code must be a string", "return_code": -1}
        return self._run([self.python, "-c", code], False, "return_code")

    def _run(self, command, shell: bool, code_key: str):
        try:
            done = subprocess.run(command, shell=shell, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            return 500, {"status": "error", "message": f"command timed out after {COMMAND_TIMEOUT} s"}
        except OSError as exc:  # no such program, not executable
            return 200, {"status": "error", "output": "", "error": str(exc), code_key: 127}
        status = "success" if done.returncode == 0 else "error"
        return 200, {"status": status, "output": done.stdout, "error": done.stderr, code_key: done.returncode}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m harness.guest.headless", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--size", default="1280x800", help="screen size WIDTHxHEIGHT the screenshots have")
    parser.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    args = parser.parse_args(argv)
    try:
        width, height = (int(n) for n in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size!r}: expected WIDTHxHEIGHT, e.g. 1280x800")
    try:
        server = ControlServer(HeadlessGuest(width, height), args.host, args.port, allow_remote=args.allow_remote)
    except (BindRefused, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"headless guest serving the Control API at {server.url}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
