"""The local desktop guest for real: Xvfb + Chromium + xdotool behind our Control API. Typing and clicks
must change what a real screen capture shows. Skipped, with the reason, where the tools are missing."""

import io
import time
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from harness.agents.scripted import Plan, ScriptedAgent, Turn
from harness.bundle import read_task_dir
from harness.control import ControlClient
from harness.envs import LocalEnv
from harness.guest.desktop import LocalDesktopGuest, keysym, missing_tools, xdotool_commands
from harness.loop import LoopConfig, run_task
from harness.recorder import Recorder
from harness.taskfile import load_tasks

ROOT = Path(__file__).resolve().parent.parent
PAGE = (
    "data:text/html,<body style='margin:0'><input id=q autofocus style='font-size:48px;width:900px'>"
    "<button style='font-size:48px' onclick=\"document.body.style.background='rgb(255,0,0)'\">paint</button></body>"
)
MISSING = missing_tools()
needs_desktop = pytest.mark.skipif(bool(MISSING), reason=f"local desktop guest needs {', '.join(MISSING)}")


def image(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


@pytest.fixture(scope="module")
def desktop():
    if MISSING:
        pytest.skip(f"local desktop guest needs {', '.join(MISSING)}")
    guest = LocalDesktopGuest(1024, 640, url=PAGE)
    url = guest.start()
    client = ControlClient(url, retry_delay=0.2)
    # on a busy machine the page paints a while after its window appears; typing before would go nowhere
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        top = image(client.screenshot()).crop((0, 0, 1024, 80)).convert("L")
        if top.getextrema()[0] != top.getextrema()[1]:  # the input's border is drawn
            break
        time.sleep(0.2)
    yield guest, client
    client.close()
    guest.stop()


@needs_desktop
def test_typing_and_clicking_change_the_real_screen(desktop):
    guest, client = desktop
    before = image(client.screenshot())
    assert before.size == (1024, 640)
    assert client.run_pyautogui("pyautogui.typewrite('Scranton <3', interval=0.02)").ok
    typed = image(client.screenshot())
    box = ImageChops.difference(before, typed).getbbox()
    assert box is not None and box[1] < 80  # the change is in the input field at the top
    # the button sits right of the 900 px input; clicking it paints the page red
    assert client.run_pyautogui("pyautogui.click(960, 30)").ok
    painted = image(client.screenshot())
    assert painted.getpixel((500, 400)) == (255, 0, 0)


@needs_desktop
def test_shell_commands_are_refused_unless_allowed(desktop, tmp_path):
    _, client = desktop
    target = tmp_path / "should-not-exist"  # this test's own folder, not a fixed name in the shared /tmp
    result = client.execute(["touch", str(target)], shell=False)
    assert result.returncode == 126 and "disabled" in result.error
    assert not target.exists()
    unknown = client.run_pyautogui("pyautogui.locateOnScreen('x.png')")
    assert unknown.returncode == 1 and "no xdotool equivalent" in unknown.error


@needs_desktop
def test_agent_loop_on_the_local_desktop(tmp_path):
    task = load_tasks(ROOT / "seeding" / "demo_suite.json").tasks[0]
    page = (ROOT / "seeding" / "demo_apps" / "hoolimail.html").as_uri()
    env = LocalEnv(start_url=page, screen_size=(1280, 800))
    env.start()
    try:
        plan = Plan(turns=[Turn("Scroll the inbox", ["pyautogui.scroll(-5, x=640, y=400)"])], final_answer="Seen.")
        recorder = Recorder.to_folder(task, tmp_path / task.id)
        result = run_task(task, env, ScriptedAgent({"*": plan}), recorder, LoopConfig(sleep_after=0.5))
    finally:
        env.stop()
    assert result.status == "finished" and result.ended_by == "done"
    # the guest refuses shell commands, so the answer file is not written; that is noted, not fatal
    assert any("final answer not written" in note for note in result.notes)
    bundle = read_task_dir(tmp_path / task.id)
    assert [s.action["type"] for s in bundle.steps] == ["scroll", "done"]
    assert image(bundle.steps[0].screenshot.read_bytes()).size == (1280, 800)


def test_xdotool_translation_of_parsed_actions():
    assert xdotool_commands({"type": "click", "x": 5, "y": 6}) == [
        ["mousemove", "--", "5", "6"],
        ["click", "--repeat", "1", "1"],
    ]
    assert xdotool_commands({"type": "hotkey", "keys": ["ctrl", "shift", "t"]}) == [["key", "ctrl+shift+t"]]
    assert xdotool_commands({"type": "scroll", "dy": -3}) == [["click", "--repeat", "3", "5"]]
    assert xdotool_commands({"type": "drag", "from_x": 1, "from_y": 2, "x": 3, "y": 4})[-2:] == [
        ["mousemove", "--", "3", "4"],
        ["mouseup", "1"],
    ]
    assert keysym("enter") == "Return" and keysym("f5") == "F5" and keysym("a") == "a"
    with pytest.raises(ValueError, match="no xdotool equivalent"):
        xdotool_commands({"type": "other", "text": "x"})


@needs_desktop
def test_allowed_shell_commands_run_with_the_display(tmp_path):
    from harness.guest.desktop import LocalDesktop

    desktop = LocalDesktop(320, 200, allow_shell=True)
    desktop.display = ":99999"  # not started: only the command path is exercised
    status, data = desktop.execute("echo $DISPLAY", shell=True)
    assert status == 200 and data["returncode"] == 0 and data["output"].strip() == ":99999"
    status, data = desktop.execute(f"touch {tmp_path / 'made'}", shell=False)
    assert data["returncode"] == 0 and (tmp_path / "made").exists()
