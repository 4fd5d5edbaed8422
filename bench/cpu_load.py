"""A CPU load beside a bench (its ``--busy N``): N processes spinning until the bench is done, so a
figure can be measured on a busy machine as well as a quiet one."""

import contextlib
import multiprocessing


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def cpu_load(processes: int):
    """Runs ``processes`` busy loops (none for 0) for the duration of the block, then stops them."""
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(max(0, processes))]
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.terminate()
        for spinner in spinners:
            spinner.join()


def describe(processes: int) -> str:
    """The load, as printed at the head of a bench's output."""
    if processes <= 0:
        return "no added load (the machine as it is)"
    return f"busy: {processes} spinning processes beside the bench on {multiprocessing.cpu_count()} CPUs"
