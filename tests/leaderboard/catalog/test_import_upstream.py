"""import_tasks --upstream mypcbench|osworld: the published task files are downloaded at their
pinned commits, checked against their pinned sha256 and imported. A loopback HTTP server stands in for
the raw file host (the network is not reachable from tests); it serves the conformance copies of
../shared/upstream under <repo>/<commit>/<path>, as the host does, and 404s anything else."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from harness.tasks import upstream_tasks
from leaderboard.models import Suite
from tests.conftest import UPSTREAM, need_upstream

pytestmark = pytest.mark.django_db

SHARED = UPSTREAM  # where the host serves from: the fixture points it at the folder found


def local_copy(repo: str, path: str) -> Path | None:
    if repo.endswith("OSWorld-Microsoft"):
        return SHARED / "osworld" / path.removeprefix("evaluation_examples/")
    return SHARED / Path(path).name


class Host:
    """Serves /<owner>/<repo>/<commit>/<path> from the local copies; ``tamper`` replaces one file's bytes."""

    def __init__(self):
        self.requests: list[str] = []
        self.tamper: dict[str, bytes] = {}
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                host.requests.append(self.path)
                owner, repo, commit, path = self.path.lstrip("/").split("/", 3)
                pinned = {(s["repo"], s["commit"]) for src in upstream_tasks.sources().values() for s in src["sources"]}
                body = host.tamper.get(path)
                copy = local_copy(f"{owner}/{repo}", path)
                if body is None and (f"{owner}/{repo}", commit) in pinned and copy and copy.is_file():
                    body = copy.read_bytes()
                if body is None:
                    self.send_response(404)
                    self.end_headers()
                    self.wfile.write(b"404: Not Found")
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def host(monkeypatch, tmp_path):
    global SHARED
    SHARED = need_upstream("all_tasks_with_grading.json", "osworld/test_all.json")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with Host() as server:
        monkeypatch.setenv(upstream_tasks.BASE_ENV, server.url)
        yield server


@pytest.mark.slow
def test_mypcbench_is_downloaded_verified_and_imported(host, capsys):
    call_command("import_tasks", "--upstream", "mypcbench", verbosity=0)
    suite = Suite.objects.get(slug="mypcbench-eval-round0")
    assert suite.tasks.count() == 184
    assert suite.tasks.filter(type_source="file").count() == 184  # task_types.json came along
    assert "2 file(s) downloaded" in capsys.readouterr().out
    host.requests.clear()
    call_command("import_tasks", "--upstream", "mypcbench", verbosity=0)
    assert host.requests == []  # cached with the right hash: nothing fetched again


@pytest.mark.slow
def test_osworld_is_downloaded_and_imported_as_an_osworld_suite(host):
    call_command("import_tasks", "--upstream", "osworld", verbosity=0)
    suite = Suite.objects.get(kind="osworld")
    assert suite.tasks.count() == 369 and len(host.requests) == 370


def test_a_file_that_does_not_match_its_checksum_is_refused(host):
    host.tamper["tasks/final/all_tasks_with_grading.json"] = json.dumps([]).encode()
    with pytest.raises(CommandError, match="does not match the pinned"):
        call_command("import_tasks", "--upstream", "mypcbench", verbosity=0)
    assert not Suite.objects.exists()


def test_an_unreachable_file_names_its_url(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with Host() as server:
        monkeypatch.setenv(upstream_tasks.BASE_ENV, server.url + "/nothing-here")
        with pytest.raises(CommandError, match="HTTP 404"):
            call_command("import_tasks", "--upstream", "osworld", verbosity=0)
    assert not Suite.objects.exists()


def test_path_or_upstream_exactly_one(tmp_path):
    with pytest.raises(CommandError, match="either PATH or --upstream"):
        call_command("import_tasks", verbosity=0)
