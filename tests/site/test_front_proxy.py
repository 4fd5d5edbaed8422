"""The shipped nginx configuration (deploy/nginx/mypcbench.conf.template, as run-topology fills it), run
for real in front of a stand-in upstream that shows what it received: plain HTTP is redirected to HTTPS,
the client's address replaces whatever X-Real-IP a client sends, bodies up to the limit pass and larger
ones get 413, and an X-Accel-Redirect answer sends the file from the internal media location, which
nobody can ask for directly. (The whole site behind it: deploy/run-topology --check.)"""

import http.server
import importlib.util
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx-light)")


def load_front_proxy():
    spec = importlib.util.spec_from_file_location("deploy_front_proxy", ROOT / "deploy" / "front_proxy.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


front_proxy = load_front_proxy()
SHOT = b"\x89PNG\r\n\x1a\n stand-in screenshot bytes"


class Upstream(http.server.BaseHTTPRequestHandler):
    """/accel: an X-Accel-Redirect answer, as the media view gives; anything else: what arrived."""

    def answer(self, body: bytes, **headers):
        self.send_response(200)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/accel":
            self.answer(b"", X_Accel_Redirect="/internal-media/shots/a.png", Content_Type="image/png")
            return
        seen = {"peer": self.client_address[0], **{k.lower(): v for k, v in self.headers.items()}}
        self.answer(json.dumps(seen).encode(), Content_Type="application/json")

    def do_POST(self):
        received = len(self.rfile.read(int(self.headers["Content-Length"])))
        self.answer(json.dumps({"received": received}).encode(), Content_Type="application/json")

    def log_message(self, *args):
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nginx")
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    (folder / "media" / "shots").mkdir(parents=True)
    (folder / "media" / "shots" / "a.png").write_bytes(SHOT)
    http_port, https_port = free_port(), free_port()
    conf = front_proxy.nginx_conf(
        folder, upstream=f"127.0.0.1:{upstream.server_address[1]}", http_port=http_port, https_port=https_port
    )
    nginx = subprocess.Popen(front_proxy.nginx_command(conf), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", https_port), 1).close()
            break
        except OSError:
            if nginx.poll() is not None or time.monotonic() > deadline:
                nginx.kill()
                pytest.fail(f"nginx did not start: {(folder / 'error.log').read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)
    yield {
        "http": f"http://127.0.0.1:{http_port}",
        "https": f"https://127.0.0.1:{https_port}",
        "cert": folder / "tls.crt",
    }
    nginx.terminate()
    nginx.wait(timeout=10)
    upstream.shutdown()


def get(proxy, path, **kwargs):
    # verify on each call: REQUESTS_CA_BUNDLE in the environment would otherwise win
    return requests.get(proxy["https"] + path, verify=str(proxy["cert"]), timeout=10, **kwargs)


def test_plain_http_is_redirected_to_the_same_address_over_https(proxy):
    answer = requests.get(proxy["http"] + "/leaderboard/?suite=x", allow_redirects=False, timeout=10)
    assert answer.status_code == 301
    assert answer.headers["Location"] == proxy["https"] + "/leaderboard/?suite=x"


def test_the_client_address_and_scheme_reach_the_site_and_cannot_be_forged(proxy):
    seen = get(proxy, "/echo", headers={"X-Real-IP": "203.0.113.9", "X-Forwarded-Proto": "http"}).json()
    assert seen["x-real-ip"] == "127.0.0.1"  # the connection's address, not what the client claimed
    assert seen["x-forwarded-proto"] == "https"
    assert seen["x-forwarded-for"] == "127.0.0.1"


def test_a_body_at_the_limit_passes_and_a_larger_one_is_refused(proxy):
    limit = 9 * 1024 * 1024  # BODY_LIMIT, 9m
    post = {"verify": str(proxy["cert"]), "timeout": 30}
    assert requests.post(proxy["https"] + "/upload", data=b"\0" * limit, **post).json() == {"received": limit}
    assert requests.post(proxy["https"] + "/upload", data=b"\0" * (limit + 1), **post).status_code == 413


def test_x_accel_redirect_sends_the_file_and_the_internal_location_is_not_public(proxy):
    answer = get(proxy, "/accel")
    assert answer.status_code == 200 and answer.content == SHOT
    assert answer.headers["Content-Type"] == "image/png"
    assert get(proxy, "/internal-media/shots/a.png").status_code == 404
