"""The local desktop guest for real: Xvfb + Chromium + xdotool behind our Control API. Typing and clicks
must change what a real screen capture shows. Skipped, with the reason, where the tools are missing."""

import io
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from harness.actions import KEY_NAMES, PYAUTOGUI_X11_KEYS, key_names
from harness.agents.scripted import Plan, ScriptedAgent, Turn
from harness.backends import LocalEnv
from harness.control import ControlClient
from harness.guest.desktop import LocalDesktopGuest, keysym, missing_tools, xdotool_commands
from harness.results import read_task_dir
from harness.run import LoopConfig, Recorder, run_task
from harness.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.mark.vm
@needs_desktop
def test_typing_and_clicking_change_the_real_screen(desktop):
    guest, client = desktop
    before = image(client.screenshot())
    assert before.size == (1024, 640)
    assert client.run_pyautogui("pyautogui.typewrite('Scranton <3', interval=0.02)").ok
    # Chromium repaints a moment after the keys arrive (seconds on a busy machine): capture until it shows
    box = settled(client, lambda shot: ImageChops.difference(before, shot).getbbox())
    assert box is not None and box[1] < 80  # the change is in the input field at the top
    # the button sits right of the 900 px input; clicking it paints the page red
    assert client.run_pyautogui("pyautogui.click(960, 30)").ok
    assert settled(client, lambda shot: shot.getpixel((500, 400)) == (255, 0, 0))


def settled(client, seen, timeout=20.0):
    """What ``seen`` says of the first capture where it says something truthy, polling up to ``timeout``
    seconds; its last answer when none does."""
    deadline = time.monotonic() + timeout
    while True:
        answer = seen(image(client.screenshot()))
        if answer or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


@pytest.mark.vm
@needs_desktop
def test_shell_commands_are_refused_unless_allowed(desktop, tmp_path):
    _, client = desktop
    target = tmp_path / "should-not-exist"  # this test's own folder, not a fixed name in the shared /tmp
    result = client.execute(["touch", str(target)], shell=False)
    assert result.returncode == 126 and "disabled" in result.error
    assert not target.exists()
    unknown = client.run_pyautogui("pyautogui.locateOnScreen('x.png')")
    assert unknown.returncode == 1 and "no xdotool equivalent" in unknown.error


@pytest.mark.vm
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
    assert xdotool_commands({"type": "hotkey", "keys": ["ctrl", "shift", "t"]}) == [["key", "Control_L+Shift_L+t"]]
    assert xdotool_commands({"type": "scroll", "dy": -3}) == [["click", "--repeat", "3", "5"]]
    assert xdotool_commands({"type": "drag", "from_x": 1, "from_y": 2, "x": 3, "y": 4})[-2:] == [
        ["mousemove", "--", "3", "4"],
        ["mouseup", "1"],
    ]
    assert keysym("enter") == "Return" and keysym("f5") == "F5" and keysym("a") == "a"
    with pytest.raises(ValueError, match="no xdotool equivalent"):
        xdotool_commands({"type": "other", "text": "x"})


@pytest.mark.vm
@needs_desktop
def test_allowed_shell_commands_run_with_the_display(tmp_path):
    from harness.guest.desktop import LocalDesktop

    desktop = LocalDesktop(320, 200, allow_shell=True)
    desktop.display = ":99999"  # not started: only the command path is exercised
    status, data = desktop.execute("echo $DISPLAY", shell=True)
    assert status == 200 and data["returncode"] == 0 and data["output"].strip() == ":99999"
    status, data = desktop.execute(f"touch {tmp_path / 'made'}", shell=False)
    assert data["returncode"] == 0 and (tmp_path / "made").exists()


# pyautogui's KEY_NAMES (pyautogui 0.9.54, the list its press/hotkey accept), as data.
PYAUTOGUI_KEY_NAMES = (
    list("\t\n\r !\"#$%&'()*+,-./0123456789:;<=>?@[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~")
    + "accept add alt altleft altright apps backspace browserback browserfavorites browserforward browserhome "
    "browserrefresh browsersearch browserstop capslock clear convert ctrl ctrlleft ctrlright decimal del delete "
    "divide down end enter esc escape execute final fn hanguel hangul hanja help home insert junja kana kanji "
    "launchapp1 launchapp2 launchmail launchmediaselect left modechange multiply nexttrack nonconvert numlock "
    "pagedown pageup pause pgdn pgup playpause prevtrack print printscreen prntscrn prtsc prtscr return right "
    "scrolllock select separator shift shiftleft shiftright sleep space stop subtract tab up volumedown "
    "volumemute volumeup win winleft winright yen command option optionleft optionright".split()
    + [f"num{i}" for i in range(10)]
    + [f"f{i}" for i in range(1, 25)]
)


def translator_key_names() -> set[str]:
    """Every key name harness.actions can put in a pyautogui call: its table's values, the X11 names it
    passes through, and any single printable character (passed as it is)."""
    names = set(PYAUTOGUI_X11_KEYS) | {chr(c) for c in range(33, 127)}
    for value in KEY_NAMES.values():
        names.update(value if isinstance(value, tuple) else [value])
    names.update(k for keysym_ in ("F1", "f24", "KP_7", "ISO_Left_Tab", "Menu", "grave") for k in key_names(keysym_))
    return names


def x_keysym_names() -> set[str]:
    """The keysym names X defines (keysymdef.h, XF86keysym.h), as xdotool takes them."""
    names = set()
    for header, prefix in (("keysymdef.h", "XK_"), ("XF86keysym.h", "XF86XK_")):
        text = (Path("/usr/include/X11") / header).read_text(errors="replace")
        names.update(("XF86" if prefix == "XF86XK_" else "") + m for m in re.findall(rf"#define {prefix}(\w+)", text))
    return names


def test_every_key_name_the_translator_and_pyautogui_use_has_an_x_keysym_in_the_guest():
    names = translator_key_names() | set(PYAUTOGUI_KEY_NAMES)
    keysyms = {name: keysym(name) for name in sorted(names)}  # raises for a name with no keysym
    # spot checks, from X's names for these keys
    assert keysyms["apps"] == "Menu" and keysyms["num5"] == "KP_5" and keysyms["winright"] == "Super_R"
    assert keysyms["+"] == "plus" and keysyms["\\"] == "backslash" and keysyms["browserback"] == "XF86Back"
    assert keysyms["volumemute"] == "XF86AudioMute" and keysyms["scrolllock"] == "Scroll_Lock"
    if not Path("/usr/include/X11/keysymdef.h").exists():
        pytest.skip("no X11 keysym headers here to check the names against")
    defined = x_keysym_names()
    unknown = {name: sym for name, sym in keysyms.items() if sym not in defined}
    assert unknown == {}
    with pytest.raises(ValueError, match="no X keysym"):
        keysym("page_down")  # pyautogui would silently press nothing


@pytest.mark.vm
@pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xdotool")), reason="needs Xvfb and xdotool")
def test_xdotool_presses_every_keysym_of_the_guest_table(tmp_path):
    names = sorted(translator_key_names() | set(PYAUTOGUI_KEY_NAMES))
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "320x200x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stderr=subprocess.DEVNULL)  # fmt: skip
    os.close(write)
    try:
        display = ":" + os.read(read, 16).decode().strip()
        commands = [xdotool_commands({"type": "hotkey", "keys": ["ctrl", "shift", "+"]})[0]]
        commands += [args for name in names for args in xdotool_commands({"type": "key", "keys": [name]})]
        problems = []
        for args in commands:  # one run each: xdotool would read a keysym such as Home as a chained command
            for _ in range(5):  # a busy Xvfb now and then turns a connection away; that is not the key's fault
                done = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display},
                                      capture_output=True, text=True, timeout=20)  # fmt: skip
                if "Can't open display" not in done.stderr:
                    break
                time.sleep(0.2)
            if done.returncode != 0 or "No such key name" in done.stderr:
                problems.append((args, done.stderr.strip()))
    finally:
        os.close(read)
        xvfb.terminate()
        xvfb.wait(timeout=10)
    assert len(commands) > 150 and problems == [], problems
