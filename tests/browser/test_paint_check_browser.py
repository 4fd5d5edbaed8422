"""deploy/paint_check.py, the check run-topology --check makes of the player: an image whose URL answers
200 but that the browser does not paint (refused by the page's Content-Security-Policy, or missing) is
reported with what the browser said; an image that paints is not."""

import http.server
import importlib.util
import io
import sys
import threading
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.browser


def load_paint_check():
    spec = importlib.util.spec_from_file_location("deploy_paint_check", ROOT / "deploy" / "paint_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


paint_check = load_paint_check()


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


class Handler(http.server.BaseHTTPRequestHandler):
    """/page?csp=...&src=...: a page with one image; /shot.png: the image (200)."""

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path == "/shot.png":
            body, kind, csp = png(), "image/png", ""
        elif path == "/page":
            params = dict(part.split("=", 1) for part in query.split("&") if "=" in part)
            body = f'<!doctype html><img id="stage-image" src="{params["src"]}">'.encode()
            kind, csp = "text/html", params.get("csp", "").replace("+", " ")
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        if csp:
            self.send_header("Content-Security-Policy", csp)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def servers():
    """Two origins: the page's, and the "bucket's" (another port), both answering 200 for the image."""
    started = []
    for _ in range(2):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
    yield [f"http://127.0.0.1:{s.server_address[1]}" for s in started]
    for server in started:
        server.shutdown()


def test_an_image_from_an_origin_the_policy_allows_paints(servers):
    page, bucket = servers
    url = f"{page}/page?src={bucket}/shot.png&csp=img-src+'self'+{bucket}"
    assert paint_check.unpainted_images(url, "#stage-image") == []


def test_an_image_the_policy_refuses_is_reported_though_its_url_answers_200(servers):
    page, bucket = servers
    url = f"{page}/page?src={bucket}/shot.png&csp=img-src+'self'"
    problems = paint_check.unpainted_images(url, "#stage-image", timeout_ms=10_000)
    assert problems[0] == f"{url}: image {bucket}/shot.png did not paint"
    assert any("Content Security Policy" in line for line in problems[1:])


def test_a_missing_image_is_reported(servers):
    page, _ = servers
    url = f"{page}/page?src=/gone.png"
    problems = paint_check.unpainted_images(url, "#stage-image", timeout_ms=10_000)
    assert problems[0] == f"{url}: image {page}/gone.png did not paint"
