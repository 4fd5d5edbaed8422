"""The Control API client against the fake guest on loopback: screenshots, commands, readiness, and
what it does when the guest misbehaves (bad image, HTTP 500, no answer, nobody listening)."""

import http.server
import io
import socket
import threading

import pytest
from PIL import Image

from harness.control import ControlClient, ControlError, fix_less_than, pyautogui_command, snippet_from_command
from harness.guest.fake import start_fake_guest
from harness.guest.server import BindRefused, ControlServer


@pytest.fixture
def guest():
    fake, server = start_fake_guest(640, 400)
    fake.slow_seconds = 1.0
    yield fake, server
    server.stop()


@pytest.fixture
def client(guest):
    client = ControlClient(guest[1].url, retry_delay=0.01, execute_timeout=0.4, screenshot_timeout=0.4)
    yield client
    client.close()


def pixel(png: bytes, x: int, y: int):
    return Image.open(io.BytesIO(png)).convert("RGB").getpixel((x, y))


def test_screenshot_is_a_png_of_the_guest_screen(client):
    png = client.screenshot()
    assert png.startswith(b"\x89PNG")
    assert Image.open(io.BytesIO(png)).size == (640, 400)


def test_a_click_shows_up_in_the_next_screenshot_and_is_recorded(guest, client):
    fake, _ = guest
    before = pixel(client.screenshot(), 300 + 8, 300)
    result = client.run_pyautogui("pyautogui.click(300, 300)")
    assert result.ok and result.returncode == 0
    after = pixel(client.screenshot(), 300 + 8, 300)  # the marker ring passes 8 px right of the click
    assert before != after
    assert fake.actions == [{"type": "click", "x": 300, "y": 300}]
    command = fake.commands[0]["command"]
    assert command[:2] == ["python3", "-c"] and "FAILSAFE = False" in command[2]


def test_typed_text_is_kept_and_less_than_goes_as_shift_comma(guest, client):
    fake, _ = guest
    client.run_pyautogui("pyautogui.typewrite('a<b', interval=0.02)")
    assert fake.screen.typed == "a<b"
    assert [a["type"] for a in fake.actions] == ["type", "hotkey", "type"]


def test_bad_image_is_retried_then_accepted(guest, client):
    fake, _ = guest
    fake.fail_next("screenshot", "bad_png")
    assert client.screenshot().startswith(b"\x89PNG")


def test_screenshot_gives_up_naming_the_url_and_every_answer(guest, client):
    fake, server = guest
    fake.fail_next("screenshot", "bad_png", 2)
    fake.fail_next("screenshot", "error")
    with pytest.raises(ControlError) as caught:
        client.screenshot()
    message = str(caught.value)
    assert f"{server.url}/screenshot" in message
    assert "not a PNG or JPEG" in message and "HTTP 500" in message and "3 attempt" in message


def test_screenshot_timeout_is_retried(guest, client):
    fake, _ = guest
    fake.fail_next("screenshot", "slow")
    assert client.screenshot().startswith(b"\x89PNG")


def test_execute_read_timeout_is_not_repeated(guest, client):
    fake, _ = guest
    fake.fail_next("execute", "slow")
    result = client.run_pyautogui("pyautogui.click(10, 10)")
    assert result.returncode == -1 and result.timed_out
    assert "may still be running" in result.error
    assert len(fake.commands) == 1  # sent once, never resent


def test_execute_http_500_is_a_failed_command_not_a_retry(guest, client):
    fake, _ = guest
    fake.fail_next("execute", "error")
    result = client.execute("ls", shell=True)
    assert result.returncode == -1 and "HTTP 500" in result.error and "timed out" in result.error
    assert len(fake.commands) == 1


def test_execute_non_json_answer_is_an_error_naming_the_url(guest, client):
    fake, server = guest
    fake.fail_next("execute", "garbage")
    with pytest.raises(ControlError, match=f"{server.url}/execute.*expected an object"):
        client.execute("ls", shell=True)


def test_pyautogui_the_guest_does_not_understand_fails_with_the_reason(client):
    result = client.run_pyautogui("pyautogui.locateOnScreen('x.png')")
    assert result.returncode == 1 and "does not understand" in result.error


def test_run_python_reads_return_code(guest, client):
    result = client.run_python("pyautogui.press('enter')")
    assert result.ok
    assert guest[0].actions == [{"type": "key", "keys": ["enter"]}]


def test_nobody_listening_is_retried_then_reported():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = ControlClient(f"http://127.0.0.1:{port}", retry_delay=0.01, attempts=2)
    with pytest.raises(ControlError, match=f"127.0.0.1:{port}/execute: cannot connect after 2 attempt"):
        client.execute("ls")
    assert client.health() is False


def test_wait_ready_polls_until_healthy_and_times_out_clearly(guest, client):
    fake, server = guest
    fake.fail_next("health", "down", 2)
    assert client.wait_ready(timeout=5, interval=0.01) >= 0
    fake.fail_next("health", "down", 1000)
    with pytest.raises(ControlError, match="/health: guest not ready after"):
        client.wait_ready(timeout=0.1, interval=0.02)


def test_control_api_refuses_non_loopback_binds():
    with pytest.raises(BindRefused, match="0.0.0.0.*loopback"):
        ControlServer(object(), "0.0.0.0", 0)


def test_pyautogui_commands_round_trip():
    command = pyautogui_command("pyautogui.click(1, 2)")
    assert snippet_from_command(command) == "pyautogui.click(1, 2)"
    assert snippet_from_command("python3 -c 'pyautogui.press(\"a\")'") == 'pyautogui.press("a")'
    assert snippet_from_command(["ls", "-l"]) is None
    assert (
        fix_less_than("pyautogui.typewrite('<<')") == "pyautogui.hotkey('shift', ','); pyautogui.hotkey('shift', ',')"
    )
    assert fix_less_than("pyautogui.click(1, 2)") == "pyautogui.click(1, 2)"


class _Answers:
    """A guest stand-in on loopback that answers every request with fixed bytes (a broken or hostile
    guest: the fake guest only ever answers what the real server would)."""

    def __init__(self, body: bytes, *, content_type: str = "application/json", announce: bool = True):
        outer = self
        self.body = body

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                if announce:
                    self.send_header("Content-Length", str(len(outer.body)))
                self.end_headers()
                try:
                    self.wfile.write(outer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("announce", [True, False], ids=["content-length", "no-length"])
def test_an_answer_beyond_the_bound_is_refused_not_read_whole(monkeypatch, announce):
    monkeypatch.setattr("harness.control.client.MAX_ANSWER_BYTES", 4096)
    guest = _Answers(b'{"returncode": 0, "output": "' + b"x" * 100_000 + b'"}', announce=announce)
    client = ControlClient(guest.url, retry_delay=0.01)
    try:
        with pytest.raises(ControlError, match="at most 4096 are read"):
            client.execute("ls", shell=True)
    finally:
        client.close()
        guest.stop()


def test_a_screenshot_beyond_the_bound_is_refused(monkeypatch):
    monkeypatch.setattr("harness.control.client.MAX_SCREENSHOT_BYTES", 10_000)
    guest = _Answers(b"\x89PNG\r\n\x1a\n" + b"\0" * 50_000, content_type="image/png")
    client = ControlClient(guest.url, retry_delay=0.01)
    try:
        with pytest.raises(ControlError, match="announced 50008 bytes"):
            client.screenshot()
    finally:
        client.close()
        guest.stop()


def test_a_deeply_nested_answer_is_an_error_naming_the_url_not_a_crash():
    guest = _Answers(b"[" * 100_000 + b"]" * 100_000)
    client = ControlClient(guest.url, retry_delay=0.01)
    try:
        with pytest.raises(ControlError, match=f"{guest.url}/execute.*nested more than"):
            client.execute("ls", shell=True)
    finally:
        client.close()
        guest.stop()
