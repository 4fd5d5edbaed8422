"""Stand-in for ``pyautogui`` inside the QEMU test guest, which has no display: installed there as
``pyautogui.py``, it appends every call (name, arguments) as one JSON line to $PYAUTOGUI_LOG
(default /var/log/pyautogui.jsonl) so a test can read back which actions reached the guest.
It moves nothing; the benchmark VM has the real pyautogui."""

import json
import os

FAILSAFE = True
PAUSE = 0.1
LOG = os.environ.get("PYAUTOGUI_LOG", "/var/log/pyautogui.jsonl")


def _record(name: str, args: tuple, kwargs: dict) -> None:
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps({"call": name, "args": list(args), "kwargs": kwargs}, default=str) + "\n")


def size():
    width, height = os.environ.get("MYPCBENCH_SCREEN", "1280x800").split("x")
    return int(width), int(height)


def __getattr__(name: str):
    if name.startswith("_"):
        raise AttributeError(name)

    def call(*args, **kwargs):
        _record(name, args, kwargs)

    return call
