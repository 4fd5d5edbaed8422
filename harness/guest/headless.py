"""A headless guest for machines without a display, such as the QEMU test guest (harness/testing/qemu_guest.py):
serves the Control API with the standard library only, runs /execute and /run_python for real, and
answers /screenshot with a plain PNG of the screen size (there is no screen to capture).

pyautogui snippets run for real too; in the test guest the ``pyautogui`` they import is
harness/guest/pyautogui_log.py, which appends each call to a log instead of moving a mouse.

    python3 -m harness.guest.headless [--host 0.0.0.0 --allow-remote] [--port 5000] [--size 1280x800]
                                      [--ready-file PATH]

With ``--ready-file`` the guest plays one whose network is not up yet: /health answers 503 until the
file exists (a NetworkManager stand-in the tests put on PATH creates it when post-boot setup's network
nudge restarts networking).
"""

import argparse
import struct
import sys
import zlib
from pathlib import Path

from harness.guest.server import BindRefused, ControlServer, run_command, run_python_code


def plain_png(width: int, height: int, colour=(58, 110, 165), bar=(32, 40, 48)) -> bytes:
    """An RGB PNG of ``width`` x ``height``: a dark top bar over a flat colour (no Pillow needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    bar_rows = min(height, 28)
    raw = (b"\0" + bytes(bar) * width) * bar_rows + (b"\0" + bytes(colour) * width) * (height - bar_rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


class HeadlessGuest:
    """Control API backend (see harness.guest.server.ControlServer) that runs what it is sent, as the
    OSWorld server does (same fields, same 500s)."""

    def __init__(self, width: int = 1280, height: int = 800, *, python: str = sys.executable, ready_file=None):
        self.size = (width, height)
        self.ready_file = Path(ready_file) if ready_file else None
        self.python = python or "python3"
        self._png = plain_png(width, height)

    def health(self):
        if self.ready_file is not None and not self.ready_file.exists():
            return 503, {"status": "starting", "network": "down", "waiting_for": str(self.ready_file)}
        return 200, {"status": "ok", "display": None}

    def screenshot_response(self):
        return 200, self._png, "image/png"

    def execute(self, command, shell: bool):
        return run_command(command, shell)

    def run_python(self, code):
        return run_python_code(code, python=self.python)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m harness.guest.headless", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--size", default="1280x800", help="screen size WIDTHxHEIGHT the screenshots have")
    parser.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    parser.add_argument("--apps", metavar="DATA_DIR", help="also serve the web-app stand-ins on ports 3001-3017, "
                        "seeding DATA_DIR/<app>.sqlite (what post-boot setup pre-warms)")  # fmt: skip
    parser.add_argument("--ready-file", help="answer /health with 503 until this file exists (network not up)")
    args = parser.parse_args(argv)
    try:
        width, height = (int(n) for n in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size!r}: expected WIDTHxHEIGHT, e.g. 1280x800")
    try:
        guest = HeadlessGuest(width, height, ready_file=args.ready_file)
        server = ControlServer(guest, args.host, args.port, allow_remote=args.allow_remote)
    except (BindRefused, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.apps:
        from harness.apps import APPS, WEB
        from harness.guest.apps_stub import start_app_stubs

        apps = [(app.internal_name, app.port) for app in APPS if app.kind == WEB]
        try:
            start_app_stubs(apps, args.apps, "127.0.0.1")
        except OSError as exc:  # the Control API still comes up; pre-warming will say what is missing
            print(f"error: the web-app stand-ins cannot start: {exc}", file=sys.stderr)
    print(f"headless guest serving the Control API at {server.url}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
