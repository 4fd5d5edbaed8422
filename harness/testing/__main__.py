"""Builds the test guests: ``python -m harness.testing`` the QEMU test guest (and with ``--disk`` a
small base disk), ``python -m harness.testing --docker`` the Docker test image; each prints how to
run the harness on it."""

import argparse
import sys
from pathlib import Path

from harness.backends import kvm_problem
from harness.testing import qemu_guest
from harness.testing.docker_guest import build_test_image, run_line
from harness.testing.qemu_guest import BuildError, build_test_guest, cache_dir, make_disk


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.testing", description=qemu_guest.__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=None, help=f"cache folder (default {cache_dir()})")
    parser.add_argument("--disk", type=Path, help="also write a small base disk (qcow2) here")
    parser.add_argument(
        "--docker", action="store_true", help="build (or reuse) the Docker test image (harness/testing/docker_guest.py)"
    )
    args = parser.parse_args(argv)
    if args.docker:
        if args.disk:
            parser.error("--disk: the Docker test image has no disk (it is for the qemu backend)")
        return _docker_main(args.cache)
    try:
        guest = build_test_guest(args.cache, log=lambda message: print(message, file=sys.stderr))
        if args.disk:
            make_disk(args.disk, {"README": "MyPCBench QEMU test guest disk\n"})
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"kernel: {guest.kernel}\ninitrd: {guest.initrd}\nappend: {guest.append}")
    image = args.disk or "BASE.qcow2"
    tcg = f" --allow-tcg  (no usable KVM: {problem})" if (problem := kvm_problem()) else ""
    print(f"boot it: python -m harness run --backend qemu --image {image} --kernel {guest.kernel} "
          f"--initrd {guest.initrd} --append '{guest.append}' --memory 256M --cpus 1 --settle 0 "
          f"--tasks ... --out ...{tcg}")  # fmt: skip
    return 0


def _docker_main(cache: Path | None) -> int:
    try:
        tag = build_test_image(cache, log=lambda message: print(message, file=sys.stderr))
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"image: {tag}  (a stand-in for the released image: the Control API on port 5000, no VM inside)")
    print(f"run on it: {run_line(tag)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
