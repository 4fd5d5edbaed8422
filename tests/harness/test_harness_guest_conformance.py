"""Our guests against what OSWorld's own server does (desktop_env/server/main.py; the facts are in
shared/reference/provider-apis.md §1): the SAME scripted plan, sent as OSWorld's client sends it (its
``import pyautogui; import time; pyautogui.FAILSAFE = False;`` prefix, ``python -c``), runs against each
of our guests (fake, headless, and the local desktop when Xvfb, xdotool and Chromium are here) and must
give the fields, status codes and error shapes the real server gives, and the typed text must show
where each guest shows it. The stand-ins cannot drift from the real server without this failing."""

import io
import json
import sys
import time
from pathlib import Path

import pytest
import requests
from PIL import Image, ImageChops

from harness.guest.desktop import LocalDesktopGuest, missing_tools
from harness.guest.fake import FakeGuest
from harness.guest.headless import HeadlessGuest
from harness.guest.server import ControlServer

ROOT = Path(__file__).resolve().parents[2]
# What OSWorld's PythonController puts before every command (desktop_env/controllers/python.py).
OSWORLD_PREFIX = "import pyautogui; import time; pyautogui.FAILSAFE = False; "
EXECUTE_FIELDS = {"status", "output", "error", "returncode"}
RUN_PYTHON_FIELDS = {"status", "message", "need_more", "output", "error", "return_code"}
MISSING = missing_tools()
PAGE = (
    "data:text/html,<title>ready</title><textarea autofocus style='font-size:40px;width:700px' "
    "oninput='document.title=this.value'></textarea>"
)


def osworld_command(code: str) -> dict:
    return {"command": ["python", "-c", OSWORLD_PREFIX + code], "shell": False}


class Fake:
    name = "fake"

    def __init__(self, tmp_path, monkeypatch):
        self.guest = FakeGuest(800, 500)
        self.guest.missing_programs.add("no-such-program-x")  # it has no system: told what is missing
        self.server = ControlServer(self.guest).start()

    def typed(self) -> str:
        return self.guest.screen.typed

    def stop(self):
        self.server.stop()


class Headless:
    """Runs what it is sent on this machine; ``pyautogui`` is the test guest's logging stand-in."""

    name = "headless"

    def __init__(self, tmp_path, monkeypatch):
        lib = tmp_path / "lib"
        lib.mkdir()
        (lib / "pyautogui.py").write_text((ROOT / "harness" / "guest" / "pyautogui_log.py").read_text())
        self.log = tmp_path / "pyautogui.jsonl"
        monkeypatch.setenv("PYTHONPATH", str(lib))
        monkeypatch.setenv("PYAUTOGUI_LOG", str(self.log))
        self.server = ControlServer(HeadlessGuest(800, 500, python=sys.executable)).start()

    def typed(self) -> str:
        calls = [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.exists() else []
        return "".join(c["args"][0] for c in calls if c["call"] in ("typewrite", "write"))

    def stop(self):
        self.server.stop()


class Desktop:
    """Xvfb + Chromium; the page puts what is typed into its title, which xdotool reads back."""

    name = "desktop"

    def __init__(self, tmp_path, monkeypatch):
        self.guest = LocalDesktopGuest(800, 500, url=PAGE, allow_shell=True)
        self.guest.start()
        self.server = self.guest.server
        # typing before the page is there would go nowhere (a busy machine paints late)
        assert shows(self, "ready", seconds=30), f"the page never loaded: {self.typed()!r}"

    def typed(self) -> str:
        found = self.guest.desktop._xdotool(["search", "--onlyvisible", "--class", "chromium", "getwindowname"],
                                            check=False)  # fmt: skip
        return found.stdout

    def stop(self):
        self.guest.stop()


GUESTS = [
    pytest.param(Fake, id="fake"),
    pytest.param(Headless, id="headless"),
    pytest.param(
        Desktop, id="desktop", marks=[pytest.mark.vm, pytest.mark.skipif(bool(MISSING), reason=f"needs {MISSING}")]
    ),
]


@pytest.fixture(params=GUESTS)
def guest(request, tmp_path, monkeypatch):
    made = request.param(tmp_path, monkeypatch)
    yield made
    made.stop()


def shows(guest, text: str, seconds: float = 5.0) -> bool:
    """``text`` among what the guest shows as typed (a window title takes a moment to follow the page)."""
    deadline = time.monotonic() + seconds
    while text not in guest.typed().replace("\n", ""):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def post(guest, path, payload):
    return requests.post(guest.server.url + path, json=payload, timeout=60)


def test_the_same_plan_gives_what_the_real_server_gives(guest):
    url = guest.server.url
    size = requests.post(url + "/screen_size", timeout=10)
    assert size.status_code == 200 and size.json() == {"width": 800, "height": 500}
    before = requests.get(url + "/screenshot", timeout=30)
    assert before.status_code == 200 and before.content.startswith(b"\x89PNG")
    assert Image.open(io.BytesIO(before.content)).size == (800, 500)

    # a click and typing, exactly as OSWorld's client sends them
    for code in ("pyautogui.click(200, 40)", "pyautogui.typewrite('hello conformance')"):
        answer = post(guest, "/execute", osworld_command(code))
        assert answer.status_code == 200, answer.text
        assert set(answer.json()) >= EXECUTE_FIELDS and answer.json()["returncode"] == 0, answer.json()
        assert answer.json()["status"] == "success"
    assert shows(guest, "hello conformance"), guest.typed()
    if guest.name != "headless":  # the headless guest has no screen to draw on
        after = requests.get(url + "/screenshot", timeout=30).content
        assert ImageChops.difference(Image.open(io.BytesIO(before.content)).convert("RGB"),
                                     Image.open(io.BytesIO(after)).convert("RGB")).getbbox() is not None  # fmt: skip

    # /run_python answers return_code (not returncode), with message and need_more
    ran = post(guest, "/run_python", {"code": OSWORLD_PREFIX + "pyautogui.press('enter')"})
    assert ran.status_code == 200 and set(ran.json()) >= RUN_PYTHON_FIELDS and "returncode" not in ran.json()
    assert ran.json()["return_code"] == 0 and ran.json()["status"] == "success"

    # error shapes
    empty = post(guest, "/run_python", {"code": ""})
    assert empty.status_code == 400 and empty.json() == {"status": "error", "message": "Code not supplied!"}
    missing = post(guest, "/execute", {"command": ["no-such-program-x"], "shell": False})
    assert missing.status_code == 500 and missing.json()["status"] == "error"
    assert "No such file or directory" in missing.json()["message"]


def test_our_clients_own_prelude_is_accepted_too(guest):
    from harness.control import ControlClient

    client = ControlClient(guest.server.url)
    assert client.run_pyautogui("pyautogui.typewrite('ours')").ok
    assert client.run_python("import pyautogui\npyautogui.FAILSAFE = False\npyautogui.typewrite('too')").ok
    assert shows(guest, "ourstoo"), guest.typed()
    client.close()


def test_a_bare_python_runs_where_the_system_has_none(tmp_path, monkeypatch):
    """OSWorld's client calls ``python``; Debian has only python3. The headless guest answers anyway."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no python on PATH at all
    server = ControlServer(HeadlessGuest(64, 64, python=sys.executable)).start()
    try:
        answer = post(type("G", (), {"server": server}), "/execute",
                      {"command": ["python", "-c", "print(6 * 7)"], "shell": False})  # fmt: skip
    finally:
        server.stop()
    assert answer.status_code == 200 and answer.json()["output"] == "42\n"


# The calls OSWorld's PythonController.execute_action formats for its computer_13 actions.
OSWORLD_CALLS = [
    "pyautogui.moveTo(300, 200, 0.5, pyautogui.easeInQuad)",
    "pyautogui.click(button='left', x=300, y=200, clicks=2)",
    "pyautogui.click(button='right', x=310, y=210)",
    "pyautogui.click()",
    "pyautogui.mouseDown(button='left')",
    "pyautogui.mouseUp(button='left')",
    "pyautogui.rightClick(x=320, y=220)",
    "pyautogui.doubleClick(x=330, y=230)",
    "pyautogui.dragTo(400, 300, duration=1.0, button='left', mouseDownUp=True)",
    "pyautogui.hscroll(2)",
    "pyautogui.vscroll(-3)",
    "pyautogui.press('esc')",
    "pyautogui.keyDown('shift')",
    "pyautogui.keyUp('shift')",
    "pyautogui.hotkey('ctrl', 'a')",
]


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_every_call_osworlds_controller_sends_is_carried_out(guest):
    for code in OSWORLD_CALLS:
        answer = post(guest, "/execute", osworld_command(code))
        assert answer.status_code == 200 and answer.json()["returncode"] == 0, (code, answer.json())
