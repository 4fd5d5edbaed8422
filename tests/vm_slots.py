"""Helpers shared by the tests that start real VM slots (tests/harness/test_harness_qemu.py,
tests/harness/test_harness_docker.py): finding free slot ports, running a shell command in a guest, starting two
slots at once."""

import json
import os
import socket
import threading
from pathlib import Path

from harness.backends import SlotPorts, port_taken

CLAIM_BASE = 20000  # claim ports: CLAIM_BASE + slot, below every slot's ports (slots < 700 from 25000)
_claims: list[socket.socket] = []  # held until this test process ends


def _claim(slot: int) -> bool:
    """Claim ``slot`` for this test process by binding its claim port (no SO_REUSEADDR): a parallel
    test run binding the same claim port fails, so two runs never pick one slot."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", CLAIM_BASE + slot))
    except OSError:
        sock.close()
        return False
    _claims.append(sock)
    return True


def free_slot(count: int = 1, port_base: int = 25000, first_from: int = 100) -> int:
    """A slot number from which ``count`` consecutive slots have every host port free, each slot claimed
    by binding its claim port for the rest of this test process (searched from ``first_from`` plus an
    offset by pid, so parallel test runs rarely even try the same slots)."""
    for first in range(first_from + os.getpid() % 200, 700):
        slots = range(first, first + count)
        if any(port_taken(p) for s in slots for p in SlotPorts.for_slot(s, port_base).all()):
            continue
        held = len(_claims)
        if all(_claim(s) for s in slots):
            return first
        for sock in _claims[held:]:  # a partly claimed run of slots is given back
            sock.close()
        del _claims[held:]
    raise RuntimeError(f"no {count} consecutive free slots from slot {first_from} (ports from {port_base})")


def shell(env, command: str, where: str = "guest") -> str:
    """``command`` run through the guest's Control API; its output, or a failed assertion naming it."""
    result = env.execute(command, shell=True)
    assert result.ok, f"{command!r} failed in the {where}: {result.error or result.output}"
    return result.output


def start_side_by_side(envs) -> None:
    """Start every env in its own thread at once; fail with every start error once all have ended."""
    errors = []

    def start(env):
        try:
            env.start()
        except Exception as exc:  # reported below, after every thread ended
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(env,)) for env in envs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def write_demo_plan(folder) -> Path:
    """A scripted-agent plan for demo-d001: one click, then the answer DN1562."""
    plan = Path(folder) / "plan.json"
    plan.write_text(json.dumps({"plans": {"demo-d001": {
        "turns": [{"response": "Open HooliMail.", "actions": ["pyautogui.click(120, 80)"]}],
        "final_answer": "DN1562",
    }}}))  # fmt: skip
    return plan


def assert_demo_plan_ran(done, out, backend: str) -> None:
    """``python -m harness run`` of write_demo_plan's plan on ``backend`` ended well and wrote its result
    folder ``out``: the click ran in the guest (its python3 imported its pyautogui and called it),
    every step has a PNG screenshot, and the answer reached the bundle."""
    assert done.returncode == 0, done.stderr
    assert "1 task(s): finished 1, done 1" in done.stderr
    run = json.loads((out / "run.json").read_text())
    assert run["backend"] == backend and run["agent"] == "scripted"
    task = out / "demo-d001"
    assert (task / "result.txt").read_text().strip() == "1.0"
    rows = [json.loads(line) for line in (task / "traj.jsonl").read_text().splitlines()]
    click = next(row for row in rows if "click" in str(row.get("action")))
    assert click["execution"]["returncode"] == 0
    assert all((task / row["screenshot_file"]).read_bytes().startswith(b"\x89PNG") for row in rows)
    bundle = json.loads((task / "bundle.json").read_text())
    assert bundle["backend"] == backend and bundle["final_answer"] == "DN1562"
    assert not any("not written to the guest" in note for note in bundle["notes"])  # it was
    # post-boot setup ran in the test guest and recorded each part
    assert bundle["guest_screen_size"] == bundle["screen_size"] == [1280, 800]
    setup = bundle["post_boot"]
    assert setup["dns"]["status"] == "done", setup
    assert setup["prewarm"]["status"] == "done" and len(setup["prewarm"]["rows"]) == 17, setup
    assert setup["xrandr"]["status"] == "failed"  # the test guests have no display to resize
    assert setup["chatbot_key"]["status"] in ("done", "skipped")  # done when OPENAI_API_KEY is set here
