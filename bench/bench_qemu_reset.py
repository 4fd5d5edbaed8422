"""Reset of a QEMU slot: loading a memory snapshot vs a cold boot from a fresh overlay, side by side.

Workload: the QEMU test guest of harness/testing/qemu_guest.py over a small ext4 base disk (the released VM is
not available here). Before every reset the guest writes a file to its disk and one to its memory
(tmpfs root); after the reset both must be gone, and the time counted is from the reset call until the
Control API answers again. Cold boot (upstream's reset: kill QEMU, new overlay, boot) and snapshot reset
(``VMConfig.snapshot_reset``: ``loadvm`` of the snapshot ``savevm`` took in the slot's overlay once the
guest was first ready) run in the same process, on the same machine, one after the other. Prints the
median of each, the ratio and the issue's goal (at most 2 s from reset to ready).

    .venv/bin/python bench/bench_qemu_reset.py [--rounds 3] [--cold-rounds 2] [--memory 256M]

Under TCG (no usable KVM here) every number is slower than on a KVM host; the ratio is what compares.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.backends import QemuEnv, kvm_problem  # noqa: E402
from harness.testing.qemu_guest import build_test_guest, make_disk  # noqa: E402
from tests.vm_slots import free_slot  # noqa: E402

GOAL_SECONDS = 2.0


def dirty_then_reset(env: QemuEnv) -> float:
    """Write to disk and memory, reset, check both are gone; the seconds from reset to ready."""
    wrote = env.execute("echo x > /root/mem.txt && echo x > /mnt/disk/disk.txt && sync", shell=True)
    if not wrote.ok:
        raise SystemExit(f"the guest could not write its marker files: {wrote.error}")
    started = time.monotonic()
    env.reset()
    seconds = time.monotonic() - started
    left = env.execute("ls /root/mem.txt /mnt/disk/disk.txt 2>/dev/null", shell=True).output.split()
    if left:
        raise SystemExit(f"reset left {left} behind: the guest is not back to its starting state")
    return seconds


def measure(guest, disk, work: Path, *, snapshot: bool, rounds: int, memory: str) -> tuple[float, list[float]]:
    config = guest.vm_config(disk, slot=free_slot(1, first_from=150), work_dir=str(work), allow_tcg=True,
                             memory=memory, snapshot_reset=snapshot)  # fmt: skip
    env = QemuEnv(config, ready_timeout=600)
    try:
        env.start()
        boot = env.boot_seconds or 0.0
        times = [dirty_then_reset(env) for _ in range(rounds)]
        if snapshot and env.last_reset["how"] != "snapshot":
            raise SystemExit(f"snapshot reset fell back to a cold boot: {env.last_reset}")
    finally:
        env.stop()
    return boot, times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="snapshot resets to time")
    parser.add_argument("--cold-rounds", type=int, default=2, help="cold-boot resets to time (slow under TCG)")
    parser.add_argument("--memory", default="256M", help="guest memory (the snapshot holds all of it)")
    args = parser.parse_args(argv)
    guest = build_test_guest(log=lambda message: print(message, file=sys.stderr))
    accel = "KVM" if kvm_problem() is None else "TCG (no usable KVM)"
    with tempfile.TemporaryDirectory(prefix="bench-qemu-reset-") as scratch:
        work = Path(scratch)
        disk = make_disk(work / "base.qcow2", {"hello.txt": "bench\n"})
        boot, cold = measure(guest, disk, work, snapshot=False, rounds=args.cold_rounds, memory=args.memory)
        _, snap = measure(guest, disk, work, snapshot=True, rounds=args.rounds, memory=args.memory)
    cold_median, snap_median = statistics.median(cold), statistics.median(snap)
    print(f"QEMU test guest, {args.memory} memory, {accel}; first boot to ready {boot:.1f} s")
    print(f"{'reset to ready':<28}{'median s':>10}{'runs':>6}   each")
    for label, median, times in (("cold boot (fresh overlay)", cold_median, cold),
                                 ("memory snapshot (loadvm)", snap_median, snap)):  # fmt: skip
        print(f"{label:<28}{median:>10.2f}{len(times):>6}   {', '.join(f'{t:.2f}' for t in times)}")
    print(f"snapshot reset is {cold_median / snap_median:.1f}x faster; goal: at most {GOAL_SECONDS:g} s to ready -> "
          f"{'met' if snap_median <= GOAL_SECONDS else 'NOT met'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
