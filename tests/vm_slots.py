"""Helpers shared by the tests that start real VM slots (tests/test_harness_qemu.py, tests/test_harness_docker.py):
finding free slot ports, running a shell command in a guest, starting two slots at once."""

import os
import threading

from harness.envs import SlotPorts, port_taken


def free_slot(count: int = 1, port_base: int = 25000, first_from: int = 100) -> int:
    """A slot number from which ``count`` consecutive slots have every host port free (searched from
    ``first_from`` plus an offset by pid, so parallel test runs rarely try the same ports)."""
    for first in range(first_from + os.getpid() % 200, 700):
        if not any(port_taken(p) for s in range(first, first + count) for p in SlotPorts.for_slot(s, port_base).all()):
            return first
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
