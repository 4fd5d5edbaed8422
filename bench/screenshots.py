"""Screenshots of every page of a running site at a desktop and a phone size, as a visitor, an
author and a maintainer, in Debian's Chromium; prints, per page, its width against the screen's,
its console errors and its failed requests, so a human can look at the pictures and the numbers.

    bin/screenshots --url http://127.0.0.1:8311 --out /tmp/shots [--author USER:PASS] [--staff USER:PASS]
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.chromium import launch_options  # noqa: E402
from tests.site_pages import AUTHOR_SEEDS, PUBLIC_SEEDS, STAFF_SEEDS, check_page, discover, log_in, problems_of  # noqa: E402

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="where the site runs")
    parser.add_argument("--out", type=Path, default=ROOT / "test-artifacts" / "screens", help="folder for the PNGs")
    parser.add_argument("--author", help="USER:PASS of an author account (pages of submissions)")
    parser.add_argument("--staff", help="USER:PASS of a staff account (staff views)")
    parser.add_argument("--size", choices=sorted(SIZES), action="append", help="only these sizes")
    parser.add_argument("--only", help="only pages whose name contains this")
    args = parser.parse_args()
    base = args.url.rstrip("/")
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    roles = [("visitor", None, PUBLIC_SEEDS)]
    if args.author:
        roles.append(("author", args.author, AUTHOR_SEEDS))
    if args.staff:
        roles.append(("staff", args.staff, STAFF_SEEDS))
    problems = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options())
        for role, credentials, seeds in roles:
            context = browser.new_context()
            if credentials:
                log_in(context, base, *credentials.split(":", 1))

            def fetch(path, context=context):
                response = context.request.get(base + path)
                return response.text() if response.ok and "html" in response.headers.get("content-type", "") else ""

            pages = discover(fetch, seeds)
            for size in args.size or list(SIZES):
                width, height = SIZES[size]
                context.close()
                context = browser.new_context(viewport={"width": width, "height": height})
                if credentials:
                    log_in(context, base, *credentials.split(":", 1))
                for name, path in pages:
                    if args.only and args.only not in name:
                        continue
                    page = context.new_page()
                    result = check_page(page, base + path, path)
                    shot = args.out / f"{role}-{name}-{size}.png"
                    page.screenshot(path=str(shot), full_page=True)
                    page.close()
                    bad = problems_of(result)
                    problems += bool(bad)
                    width = f"{result['scroll']}/{result['inner']}"
                    print(f"{'!!' if bad else 'ok'} {role:7} {size:7} {result['status']} {path:55} width {width}")
                    for line in bad:
                        print(f"      {line}")
            context.close()
        browser.close()
    print(f"screenshots in {args.out}; {problems} page(s) with problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
