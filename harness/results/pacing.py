"""Upload work at a share of one CPU: a worker that checks and stores uploads on a host shared with web
processes may be held to a fraction of a CPU (MYPCBENCH_UPLOAD_CPU_SHARE), so visitors never notice an
upload, which then takes longer. Work calls :func:`pace` between units (each archive member unpacked,
each screenshot decoded, each step stored); when a share is set for the current thread, it sleeps
until the thread's CPU time is within that share of the time since the work began. Linux's idle
scheduling class alone is not enough on a small machine: any CPU kept busy beside the visitors slows
them (bench/README.md, uploads)."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar


class Pacer:
    """Keeps the CPU time of the thread it was made in within ``share`` of the wall-clock time since."""

    def __init__(
        self,
        share: float,
        *,
        cpu: Callable[[], float] = time.thread_time,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if not 0 < share <= 1:
            raise ValueError(f"a CPU share is above 0 and at most 1, not {share!r}")
        self.share, self.cpu, self.clock, self.sleep = share, cpu, clock, sleep
        self.cpu_start, self.wall_start = cpu(), clock()
        self.rested = 0.0  # seconds slept so far

    def __call__(self) -> None:
        due = (self.cpu() - self.cpu_start) / self.share - (self.clock() - self.wall_start)
        if due > 0:
            self.sleep(due)
            self.rested += due


_current: ContextVar[Pacer | None] = ContextVar("upload_pacer", default=None)


def pace() -> None:
    """A point where upload work may rest (see the module's docstring); nothing without a share."""
    pacer = _current.get()
    if pacer is not None:
        pacer()


@contextmanager
def cpu_share(share: float):
    """Within the block, :func:`pace` holds this thread to ``share`` of one CPU (1: no rest)."""
    token = _current.set(Pacer(share) if share < 1 else None)
    try:
        yield _current.get()
    finally:
        _current.reset(token)
