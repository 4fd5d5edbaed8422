"""What a real guest (OSWorld's server on a MyPCBench VM) does that our guests used to hide:
the guest's screen size is asked and checked, shell commands run under bash, timeouts say whose they
were, output that is not UTF-8 and very long answers survive, a list command with shell=True runs as the
real server runs it, a missing program is a 500, the remote backend fails fast on a dead URL and is reset
through a hook, long and non-ASCII typing takes a fast path. Guests run on loopback: the fake guest, and
the headless guest that runs commands for real on this machine."""

import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.agents.scripted import Plan, ScriptedAgent
from harness.backends import ANSWER_PATH, FakeEnv, RemoteEnv, ScreenSizeMismatch
from harness.control import GUEST_COMMAND_TIMEOUT, ControlClient, ExecResult
from harness.guest.fake import start_fake_guest
from harness.guest.headless import HeadlessGuest
from harness.guest.server import ControlServer
from harness.run import LoopConfig, Recorder, main, run_suite, run_task
from harness.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[2]
DEMO_SUITE = ROOT / "seeding" / "demo_suite.json"


@pytest.fixture
def fake_1080():
    guest, server = start_fake_guest(1920, 1080)
    yield guest, server
    server.stop()


@pytest.fixture
def headless():
    """The headless guest, running commands for real on this machine, behind a RemoteEnv."""
    server = ControlServer(HeadlessGuest(640, 400)).start()
    env = RemoteEnv(server.url, screen_size=(640, 400), ready_timeout=10)
    env.start()
    yield env, server
    env.stop()
    server.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tasks(n=1):
    return load_tasks(DEMO_SUITE).tasks[:n]


# ---------------------------------------------------------------- 1. screen size


def test_a_guest_whose_screen_differs_is_refused_with_the_way_out(fake_1080):
    _, server = fake_1080
    env = RemoteEnv(server.url, screen_size=(1280, 800), ready_timeout=5)
    with pytest.raises(ScreenSizeMismatch) as caught:
        env.start()
    message = str(caught.value)
    assert "1920x1080" in message and "1280x800" in message and "--adopt-screen-size" in message


def test_adopting_the_guest_screen_records_the_real_size(fake_1080):
    _, server = fake_1080
    env = RemoteEnv(server.url, screen_size=(1280, 800), ready_timeout=5, adopt_screen_size=True)
    env.start()
    assert env.screen_size == (1920, 1080)
    protocol = env.protocol()
    assert protocol["screen_size"] == [1920, 1080] and protocol["screen_size_requested"] == [1280, 800]
    env.stop()


def test_a_screenshot_of_another_size_is_refused(fake_1080):
    guest, server = fake_1080
    env = RemoteEnv(server.url, screen_size=(1920, 1080), ready_timeout=5)
    env.start()
    assert env.screenshot().startswith(b"\x89PNG")
    guest.resize(1024, 768)  # as if someone changed the resolution mid-run
    with pytest.raises(ScreenSizeMismatch, match="screenshot is 1024x768 but the guest's screen was 1920x1080"):
        env.screenshot()
    env.stop()


def test_cli_refuses_a_mismatched_guest_and_records_the_adopted_size(fake_1080, tmp_path, capsys):
    _, server = fake_1080
    args = ["run", "--tasks", DEMO_SUITE, "--task", "demo-d003", "--backend", "remote", "--url", server.url,
            "--agent", "dummy", "--settle", "0", "--no-progress", "--out", tmp_path / "out"]  # fmt: skip
    assert main([str(a) for a in args]) == 3
    assert "the guest's screen is 1920x1080 but the run is set up for 1280x800" in capsys.readouterr().err
    assert main([str(a) for a in [*args, "--adopt-screen-size"]]) == 0
    bundle = json.loads((tmp_path / "out" / "demo-d003" / "bundle.json").read_text())
    assert bundle["screen_size"] == [1920, 1080] and bundle["guest_screen_size"] == [1920, 1080]


def test_post_boot_xrandr_forces_the_resolution_and_is_recorded(fake_1080, tmp_path):
    guest, server = fake_1080
    args = ["run", "--tasks", DEMO_SUITE, "--task", "demo-d003", "--backend", "remote", "--url", server.url,
            "--agent", "dummy", "--settle", "0", "--no-progress", "--out", tmp_path / "out",
            "--setup", "xrandr"]  # fmt: skip
    assert main([str(a) for a in args]) == 0
    assert guest.size == (1280, 800)
    bundle = json.loads((tmp_path / "out" / "demo-d003" / "bundle.json").read_text())
    assert bundle["screen_size"] == [1280, 800]
    assert bundle["post_boot"]["xrandr"]["status"] == "done"
    assert bundle["post_boot"]["xrandr"]["screen_after"] == [1280, 800]
    assert bundle["post_boot"]["dns"] == {"status": "off"}
    sent = [c["command"] for c in guest.commands if c.get("wrapped") == "bash"]
    assert any("DISPLAY=:0" in c and "xrandr -s 1280x800" in c for c in sent)


# ---------------------------------------------------------------- 3. bash, 4. timeouts


def test_shell_commands_run_under_bash(headless):
    env, _ = headless
    result = env.execute("echo {a,b}; [[ 2 -gt 1 ]] && echo bash; echo oops >&2; exit 3", shell=True)
    assert result.output == "a b\nbash\n" and result.error == "oops\n" and result.returncode == 3


def test_the_client_outwaits_the_guest_and_says_whose_timeout_fired(fake_1080):
    guest, server = fake_1080
    client = ControlClient(server.url, retry_delay=0.01)
    assert client.execute_timeout > GUEST_COMMAND_TIMEOUT
    guest.fail_next("execute", "error")  # the server's own 120 s limit: HTTP 500 "timed out after 120 seconds"
    by_guest = client.execute(["sleep", "500"])
    assert by_guest.timed_out and by_guest.timeout_side == "guest" and not by_guest.client_gave_up
    assert "the guest's own command timeout fired" in by_guest.error
    guest.slow_seconds = 1.0
    guest.fail_next("execute", "slow")
    by_client = client.execute(["sleep", "500"], timeout=0.3)
    assert by_client.client_gave_up and by_client.as_dict()["timed_out_by"] == "client"
    assert "the client stopped waiting after 0.3 s" in by_client.error and "may still be running" in by_client.error
    client.close()


def test_commands_stopped_by_the_guests_own_timeout_do_not_end_the_task(tmp_path):
    env = FakeEnv(screen_size=(320, 200))
    env.start()
    env.reset = lambda task=None: None  # keeps the faults below (a fake guest's reset clears them)
    env.guest.fail_next("execute", "error", 4)  # four actions in a row hit the guest's command timeout
    task = tasks()[0]
    actions = [f"pyautogui.click({i}, {i})" for i in range(4)]
    plan = Plan.from_dict({"turns": [{"response": "go", "actions": actions}], "final_answer": "ok"}, "plan")
    recorder = Recorder.to_folder(task, tmp_path / task.id)
    result = run_task(task, env, ScriptedAgent({"*": plan}), recorder, LoopConfig(sleep_after=0))
    env.stop()
    assert result.status == "finished" and result.ended_by == "done"
    rows = [json.loads(line) for line in (tmp_path / task.id / "traj.jsonl").read_text().splitlines()]
    assert rows[0]["execution"]["timed_out_by"] == "guest"


# ---------------------------------------------------------------- 5. edge cases, 10. missing programs


def test_output_that_is_not_utf8_comes_back_escaped(headless):
    env, server = headless
    result = env.execute("printf 'caf\\xe9 \\xff ok'", shell=True)
    assert result.returncode == 0 and result.output == "caf\\xe9 \\xff ok"
    raw = ControlClient(server.url).execute(["printf", "\\377"])  # our guests escape, never 500
    assert raw.returncode == 0 and raw.output == "\\xff"


class _RealServer500(BaseHTTPRequestHandler):
    """Answers /execute as OSWorld's server does when the output is not UTF-8 (its text=True decode raises)."""

    def log_message(self, *args):
        return

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps({"status": "error", "message": "'utf-8' codec can't decode byte 0xff in position 0: "
                           "invalid start byte"}).encode()  # fmt: skip
        self.send_response(500)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_the_client_survives_the_real_servers_500_and_says_what_happened():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _RealServer500)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        result = ControlClient(f"http://127.0.0.1:{httpd.server_address[1]}").execute(["cat", "/bin/ls"])
    finally:
        httpd.shutdown()
    assert result.returncode == -1 and not result.timed_out
    assert "HTTP 500" in result.error and "not UTF-8" in result.error and "output lost" in result.error


def test_an_answer_of_200_kb_is_written_whole(headless):
    env, _ = headless
    answer = "Flight DN1562 é\n" + "x" * 200_000
    assert len(answer.encode()) > 96_000
    Path(ANSWER_PATH).unlink(missing_ok=True)
    result = env.write_answer(answer)
    assert result.ok, result.error
    assert Path(ANSWER_PATH).read_text(encoding="utf-8") == answer
    assert not Path(ANSWER_PATH + ".b64").exists()


def test_a_list_with_shell_true_runs_as_the_real_server_runs_it(headless):
    env, server = headless
    raw = ControlClient(server.url).execute(["echo", "one", "two"], shell=True)
    assert raw.output == "\n"  # /bin/sh -c echo one two: only "echo" runs, as on the real server
    assert env.execute(["echo", "one", "two"], shell=True).output == "one two\n"  # the harness joins it


def test_a_missing_program_is_a_500_as_on_the_real_server(headless):
    import requests

    env, server = headless
    answer = requests.post(f"{server.url}/execute", json={"command": ["no-such-program-x"], "shell": False})
    assert answer.status_code == 500
    assert answer.json()["status"] == "error" and "No such file or directory" in answer.json()["message"]
    result = env.execute(["no-such-program-x"])
    assert result.returncode == -1 and "the program was not found on the guest" in result.error


# ---------------------------------------------------------------- 6, 7. the remote backend


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_remote_fails_fast_when_nothing_listens():
    env = RemoteEnv(f"http://127.0.0.1:{free_port()}", ready_timeout=900, refused_grace=0.5)
    started = time.monotonic()
    with pytest.raises(Exception, match="nothing listens there \\(connection refused"):
        env.start()
    assert time.monotonic() - started < 10


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_remote_keeps_waiting_for_a_guest_that_answers_but_is_not_ready(fake_1080):
    guest, server = fake_1080
    guest.fail_next("health", "down", 10_000)
    env = RemoteEnv(server.url, screen_size=(1920, 1080), ready_timeout=2.5, refused_grace=0.1)
    started = time.monotonic()
    with pytest.raises(Exception, match="guest not ready after"):
        env.start()
    assert time.monotonic() - started >= 2.4


def test_remote_without_a_reset_hook_warns_once_tasks_share_the_guest(fake_1080, tmp_path):
    _, server = fake_1080
    warnings = []
    env = RemoteEnv(server.url, screen_size=(1920, 1080), ready_timeout=5, warn=warnings.append)
    env.start()
    run_suite(tasks(3), env, ScriptedAgent(None), tmp_path / "out", LoopConfig(sleep_after=0), progress=False)
    env.stop()
    assert len(warnings) == 1 and "not reset between tasks" in warnings[0]
    assert env.protocol()["reset"].startswith("none")


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_remote_reset_command_runs_before_every_task_but_the_first(fake_1080, tmp_path):
    guest, server = fake_1080
    marker = tmp_path / "resets.log"
    warnings = []
    env = RemoteEnv(server.url, screen_size=(1920, 1080), ready_timeout=5, warn=warnings.append,
                    reset_command=f"echo reset >> {marker}")  # fmt: skip
    env.start()
    run_suite(tasks(3), env, ScriptedAgent(None), tmp_path / "out", LoopConfig(sleep_after=0), progress=False)
    assert marker.read_text().splitlines() == ["reset", "reset"] and warnings == []
    bad = RemoteEnv(server.url, screen_size=(1920, 1080), ready_timeout=5, reset_command="echo broken >&2; exit 4")
    bad.start()
    bad.execute("true", shell=True)
    with pytest.raises(Exception, match="--reset-command exited 4: broken"):
        bad.reset()


def test_remote_reset_url_is_posted(fake_1080):
    _, server = fake_1080
    posts = []

    class Reset(BaseHTTPRequestHandler):
        def log_message(self, *args):
            return

        def do_POST(self):  # noqa: N802
            posts.append(self.path)
            self.send_response(204)
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Reset)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        env = RemoteEnv(server.url, screen_size=(1920, 1080), ready_timeout=5,
                        reset_url=f"http://127.0.0.1:{httpd.server_address[1]}/revert")  # fmt: skip
        env.start()
        env.reset()  # fresh: nothing sent yet, nothing to undo
        env.run_action("pyautogui.click(1, 1)")
        env.reset()
    finally:
        httpd.shutdown()
    assert posts == ["/revert"] and env.protocol()["reset"] == "reset URL"


# ---------------------------------------------------------------- 23. typing


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_long_and_non_ascii_typing_goes_through_xdotool(tmp_path):
    env = FakeEnv(screen_size=(320, 200))
    env.start()
    text = "Grüße, Zoë <3 " + "y" * 9000
    result = env.run_action(f"pyautogui.typewrite({text!r}, interval=0.02)")
    assert result.ok and result.via == "xdotool" and result.as_dict()["via"] == "xdotool"
    assert env.guest.screen.typed == text
    typed = [c["command"] for c in env.guest.commands if c["command"][:2] == ["xdotool", "type"]]
    assert len(typed) == 4 and all(len(c[-1]) <= 4000 for c in typed)  # in pieces that each finish in time
    short = env.run_action("pyautogui.typewrite('plain', interval=0.02)")
    assert short.via == "" and env.guest.screen.typed.endswith("plain")
    # more distinct non-ASCII characters than spare keycodes (the fake has 4 to give): mapped in turns
    many = "àéîõü ñ ç ø"
    assert env.run_action(f"pyautogui.typewrite({many!r})").ok
    assert env.guest.screen.typed.endswith(many)
    maps = [c["command"] for c in env.guest.commands if c["command"][:2] == ["xmodmap", "-e"]]
    assert maps[-1] == ["xmodmap", "-e", "keycode 12 =", "-e", "keycode 13 =", "-e", "keycode 14 =",
                        "-e", "keycode 15 ="]  # fmt: skip
    assert len(maps) == 2 + 3  # map and clear for the first text; two turns and a clear for this one
    env.stop()


def test_a_guest_without_xdotool_still_types_through_pyautogui(headless, tmp_path, monkeypatch):
    env, _ = headless
    log = tmp_path / "pyautogui.jsonl"
    stand_in = tmp_path / "lib"
    stand_in.mkdir()
    (stand_in / "pyautogui.py").write_text((ROOT / "harness" / "guest" / "pyautogui_log.py").read_text())
    monkeypatch.setenv("PYTHONPATH", str(stand_in))
    monkeypatch.setenv("PYAUTOGUI_LOG", str(log))
    bin_dir = tmp_path / "bin"  # python3 but no xdotool: a guest like the QEMU test guest
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(bin_dir))
    result = env.run_action("pyautogui.typewrite('Grüße', interval=0.02)")
    assert result.ok and result.via == ""
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls == [{"call": "typewrite", "args": ["Grüße"], "kwargs": {"interval": 0.02}}]


def test_exec_result_reports_a_guest_side_timeout_as_not_the_guests_failure():
    assert ExecResult(-1, timed_out=True, timeout_side="guest").client_gave_up is False
    assert ExecResult(-1, timed_out=True, timeout_side="client").client_gave_up is True


@pytest.mark.vm
def test_non_ascii_typing_reaches_a_real_screen_through_xdotool():
    from harness.backends import LocalEnv
    from harness.guest.desktop import missing_tools

    if missing_tools():
        pytest.skip(f"the local desktop guest needs {', '.join(missing_tools())}")
    page = ("data:text/html,<title>ready</title><textarea autofocus style='font-size:40px;width:700px' "
            "oninput='document.title=this.value'></textarea>")  # fmt: skip
    env = LocalEnv(start_url=page, screen_size=(800, 500))
    env.start()
    try:
        desktop = env.guest.desktop

        def title() -> str:
            args = ["search", "--onlyvisible", "--class", "chromium", "getwindowname"]
            return desktop._xdotool(args, check=False).stdout

        deadline = time.monotonic() + 30
        while "ready" not in title() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert env.run_action("pyautogui.click(200, 40)").ok
        result = env.run_action("pyautogui.typewrite('Grüße, Zoë <3', interval=0.02)")
        assert result.ok and result.via == "xdotool", result
        deadline = time.monotonic() + 5
        while "Grüße, Zoë <3" not in title() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "Grüße, Zoë <3" in title()
    finally:
        env.stop()


def test_cli_refuses_setup_and_reset_hooks_where_they_do_not_apply(tmp_path, capsys):
    base = ["run", "--tasks", str(DEMO_SUITE), "--agent", "dummy", "--no-progress", "--out", str(tmp_path / "o")]
    assert main([*base, "--backend", "fake", "--setup", "dns"]) == 2
    assert "post-boot setup is for the remote, qemu and docker backends (got fake)" in capsys.readouterr().err
    assert main([*base, "--backend", "qemu", "--reset-url", "http://127.0.0.1:9/reset"]) == 2
    assert "only the remote backend takes a reset hook (got qemu)" in capsys.readouterr().err
    assert main([*base, "--backend", "remote", "--url", "http://127.0.0.1:9", "--setup", "dns,wallpaper"]) == 2
    assert "unknown part(s) wallpaper" in capsys.readouterr().err
