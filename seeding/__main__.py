"""Command line of the persona world pipeline.

python -m seeding build --persona PATH --out DIR [--anchor YYYY-MM-DD] [--variant K] [--overlay PATH]
python -m seeding check DIR [--tasks PATH] [--keys DIR] [--persona PATH]
python -m seeding demo-apps DIR OUT [--days N] [--interface K]
"""

import argparse
import datetime as dt
import sys
import time
from pathlib import Path

from .demo_world_apps import DEFAULT_DAYS, DemoAppsError, render
from .world.answer_keys import KEYS_DIR
from .world.build import build
from .world.check import TASKS, check, render_figures

SPEC = TASKS.parent / "michael_scott.json"


def _date(text):
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--anchor must be YYYY-MM-DD, got {text!r}") from exc


def _variant(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"--variant must be a whole number 0 or more, got {text!r}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m seeding", description="Build and check a persona world.")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="seed a world from a persona spec")
    b.add_argument("--persona", required=True, help="persona spec JSON (upstream shape), or a registry.json")
    b.add_argument("--name", help="which persona of a registry.json (default: its default_persona)")
    b.add_argument("--out", required=True, help="output folder (replaced if it holds an earlier build)")
    b.add_argument("--anchor", type=_date, help="reference day of the world (default: today)")
    b.add_argument(
        "--variant",
        type=_variant,
        default=0,
        help="world variant K: 0 is the canonical world; K > 0 redraws surface facts, same story (default 0)",
    )
    b.add_argument("--overlay", help="overlay JSON read after the spec (default: seeding/personas/<stem>.overlay.json)")
    b.add_argument("--quiet", action="store_true", help="no per-seeder timings")
    c = sub.add_parser("check", help="validate a built world and measure it against the goals (writes check.json)")
    c.add_argument("dir", help="a folder written by build")
    c.add_argument("--tasks", default=str(TASKS), help="tasks JSON whose keys are resolved (default: %(default)s)")
    c.add_argument("--keys", default=str(KEYS_DIR), help="folder of answer keys (default: %(default)s)")
    c.add_argument("--persona", default=str(SPEC), help="spec whose author notes must not leak (default: %(default)s)")
    c.add_argument("--misses", type=int, default=40, help="how many unsolved tasks to list (default 40)")
    d = sub.add_parser("demo-apps", help="the desktop guest's demo apps filled from a built world")
    d.add_argument("dir", help="a folder written by build")
    d.add_argument("out", help="folder for the pages (created; earlier pages replaced)")
    d.add_argument(
        "--days",
        type=int,
        default=DEFAULT_DAYS,
        help="how many days before the anchor the mail, card and chat pages reach (default: %(default)s)",
    )
    d.add_argument(
        "--interface",
        type=_variant,
        default=None,
        help="the interface (theme and layout) of world variant K (default: the build's own variant)",
    )
    args = parser.parse_args(argv)
    if args.command == "build":
        started = time.perf_counter()
        try:
            manifest = build(
                args.persona,
                args.out,
                args.anchor,
                args.overlay,
                log=None if args.quiet else print,
                name=args.name,
                variant=args.variant,
            )
        except (OSError, ValueError, RuntimeError) as exc:
            print(f"build failed: {exc}", file=sys.stderr)
            return 2
        print(
            f"built {manifest['persona']} at anchor {manifest['anchor']}, world variant {args.variant}, "
            f"into {args.out} in {time.perf_counter() - started:.1f}s"
        )
        print(f"{'metric':<30}{'built':>8}{'target':>8}{'ratio':>8}")
        for metric, row in manifest["volume"].items():
            flag = "" if row["ratio"] is not None and abs(row["ratio"] - 1) <= 0.10 else "  OUTSIDE 10%"
            print(f"{metric:<30}{row['built']:>8}{row['target']:>8}{row['ratio']:>8}{flag}")
        print(f"{len(manifest['files'])} files, {manifest['events']} events; manifest.json written")
        return 0
    if args.command == "demo-apps":
        try:
            counts = render(args.dir, args.out, args.days, args.interface)
        except (OSError, DemoAppsError) as exc:
            print(f"demo-apps failed: {exc}", file=sys.stderr)
            return 2
        print(f"demo apps written to {args.out}: " + ", ".join(f"{n} {what}" for what, n in counts.items()))
        return 0
    for given, what in ((args.tasks, "--tasks"), (args.persona, "--persona")):
        if not Path(given).is_file():
            print(f"check failed: {what} {given} is not a file", file=sys.stderr)
            return 2
    try:
        report = check(args.dir, args.tasks, args.keys, args.persona)
    except (OSError, ValueError) as exc:
        print(f"check failed: {exc}", file=sys.stderr)
        return 2
    print(report.render())
    print(render_figures(report, args.misses))
    return 0 if report.met else 1


if __name__ == "__main__":
    sys.exit(main())
