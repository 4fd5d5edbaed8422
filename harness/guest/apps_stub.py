"""Stand-ins for the 17 in-VM web apps, as far as post-boot setup touches them (harness/control/postboot.py): each
answers its init path only with a valid signed session cookie ``session_<app>`` (HMAC-SHA256 with the
apps' key, for that app), and then seeds its database ``<data_dir>/<app>.sqlite`` with rows, as a real
app's first request does (Dinoco's also gets a ``bookings`` table with fares but, like databases made
before the app stored it, no ``fare_paid`` column: post-boot setup backfills it). A missing or forged
cookie gets 401 and seeds nothing. Standard library only: the test guests (harness/testing/qemu_guest.py)
run them beside the headless Control API guest."""

import base64
import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SESSION_KEY = b"mypcbench-session-2026"
DINOCO_BOOKINGS = (("DN4K2P", 412.5), ("DN7Q9X", 189.0))


def check_token(token: str, app: str, key: bytes = SESSION_KEY) -> str | None:
    """The email a valid ``session_<app>`` token was issued to, or None when it is not valid for ``app``."""
    try:
        payload, _, signature = base64.b64decode(token, validate=True).decode().rpartition(".")
        claims = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    expected = hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(signature, expected) or not isinstance(claims, dict) or claims.get("app") != app:
        return None
    return str(claims.get("email") or "") or None


def _cookies(header: str) -> dict:
    pairs = (part.strip().partition("=") for part in (header or "").split(";"))
    return {name: value for name, _, value in pairs if name}


class AppStub:
    """One app on host:port; ``requests`` counts init requests, ``rejected`` the refused ones."""

    def __init__(self, app: str, data_dir, host: str = "127.0.0.1", port: int = 0):
        self.app, self.data_dir = app, Path(data_dir)
        self.requests = self.rejected = 0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format, *args):  # noqa: A002
                return

            def do_GET(self):  # noqa: N802
                stub.requests += 1
                email = check_token(_cookies(self.headers.get("Cookie", "")).get(f"session_{stub.app}", ""), stub.app)
                if email is None:
                    stub.rejected += 1
                    body, status = b'{"error": "not signed in"}', 401
                else:
                    stub.seed(email)
                    body, status = json.dumps({"app": stub.app, "user": email}).encode(), 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]

    @property
    def database(self) -> Path:
        return self.data_dir / f"{self.app}.sqlite"

    def seed(self, email: str) -> None:
        import sqlite3  # here, so a guest without it still serves the Control API

        self.data_dir.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(self.database) as con:
            con.execute("create table if not exists users (email text primary key)")
            con.execute("insert or ignore into users values (?)", (email,))
            if self.app == "dinoco-airlines":
                con.execute("create table if not exists bookings (confirmation text primary key, fare real)")
                con.executemany("insert or ignore into bookings values (?, ?)", DINOCO_BOOKINGS)

    def start(self) -> "AppStub":
        threading.Thread(target=self.httpd.serve_forever, name=f"app-{self.app}", daemon=True).start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def start_app_stubs(apps, data_dir, host: str = "127.0.0.1", *, ephemeral: bool = False) -> dict[str, AppStub]:
    """A running stub per (app, port) pair; ``ephemeral`` picks free ports instead (tests on this machine)."""
    return {app: AppStub(app, data_dir, host, 0 if ephemeral else port).start() for app, port in apps}


def stop_app_stubs(stubs: dict[str, AppStub]) -> None:
    """Stop them all at once (each shutdown waits up to half a second for its serving loop)."""
    threads = [threading.Thread(target=stub.stop) for stub in stubs.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=5)
