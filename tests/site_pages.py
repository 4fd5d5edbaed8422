"""Which pages the site has, found the way a visitor finds them: start from the list pages and follow
the first link of each kind of detail page. Shared by `bin/screenshots` (against a running site) and
the whole-site browser test (against the live test server), so both look at the same pages."""

import re
from collections.abc import Callable

# List pages every visitor can open, in the order a visitor meets them.
PUBLIC_SEEDS = [
    "/",
    "/leaderboard/",
    "/compare/",
    "/suites/",
    "/tasks/",
    "/runs/",
    "/analysis/",
    "/analysis/failures/",
    "/analysis/failures/judgments/",
    "/analysis/scaling/",
    "/trajectories/",
    "/trajectories/compare/",
    "/methodology/",
    "/judges/",
    "/search/?q=demo",
    "/submit/",
    "/accounts/login/",
    "/accounts/signup/",
    "/this-page-does-not-exist/",
]
AUTHOR_SEEDS = ["/submissions/", "/submissions/new/", "/accounts/tokens/"]
STAFF_SEEDS = ["/submissions/", "/admin/"]

# Kinds of detail page: (name, pattern of its links). The first link of each kind found on the pages
# above is visited too; a graded run is preferred over a reported one by the order of the patterns.
DETAIL_KINDS = [
    ("board-suite", r"^/leaderboard/\?suite=[\w-]+$"),  # every suite's board is visited (see EVERY)
    ("suite", r"^/suites/[\w-]+/$"),
    ("suite-reliability", r"^/suites/[\w-]+/reliability/$"),
    ("task", r"^/tasks/[\w-]+/[\w.-]+/$"),
    ("task-reliability", r"^/tasks/[\w-]+/[\w.-]+/reliability/$"),
    ("run", r"^/runs/(?!reported-)[\w-]+/$"),
    ("run-reported", r"^/runs/reported-[\w-]+/$"),
    ("run-reliability", r"^/runs/[\w-]+/reliability/$"),
    ("model", r"^/models/[\w-]+/$"),
    ("judge", r"^/judges/\d+/$"),
    ("trajectory", r"^/trajectories/\d+/$"),
    ("player", r"^/trajectories/\d+/play/$"),
    ("trajectory-compare", r"^/trajectories/compare/\?.+"),
    ("board-compare", r"^/compare/\?a=.+"),
    ("submission", r"^/submissions/\d+/$"),
]

EVERY = {"board-suite": 6}  # kinds visited for each link found (up to this many), not only the first

HREF = re.compile(r'href="([^"#]+)"')


def _links(html: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in HREF.findall(html) if h.startswith("/")]


def discover(fetch: Callable[[str], str], seeds: list[str]) -> list[tuple[str, str]]:
    """(name, path) of the seed pages and one page of each detail kind linked from them or from the
    detail pages found so far. `fetch(path)` returns a page's HTML ('' when it cannot be read)."""
    pages = [(seed.strip("/").replace("/", "-") or "home", seed) for seed in seeds]
    found: dict[str, list[str]] = {}
    queue = [path for _, path in pages]
    seen = set()
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        for link in _links(fetch(path)):
            for kind, pattern in DETAIL_KINDS:
                links = found.setdefault(kind, [])
                if len(links) < EVERY.get(kind, 1) and link not in links and re.match(pattern, link):
                    links.append(link)
                    queue.append(link)
    for kind, _ in DETAIL_KINDS:
        links = found.get(kind, [])
        pages += [(kind if i == 0 else f"{kind}-{i + 1}", link) for i, link in enumerate(links)]
    return pages


def log_in(context, base: str, user: str, password: str) -> None:
    """Log a browser context in through the login form, as a person would."""
    page = context.new_page()
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", password)
    page.click("main button[type=submit], main input[type=submit]")
    page.wait_for_load_state()
    if "/accounts/login/" in page.url:
        raise RuntimeError(f"could not log in as {user!r} on {base}")
    page.close()


# Pages that answer with an error on purpose: the request for the page itself is expected to fail.
EXPECTED_ERRORS = {"/this-page-does-not-exist/": 404}


def check_page(page, url: str, path: str) -> dict:
    """Load one page and report what a visitor would notice is wrong with it: wider than the screen,
    console errors, failed requests (its own expected error status aside)."""
    errors, failed = [], []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("requestfailed", lambda req: failed.append(f"{req.url} ({req.failure})"))
    page.on("response", lambda r: failed.append(f"{r.url} ({r.status})") if r.status >= 400 else None)
    response = page.goto(url, wait_until="load")
    page.wait_for_timeout(150)  # charts and players draw right after load; their errors come then
    status = response.status if response else 0
    expected = EXPECTED_ERRORS.get(path)
    if expected and status == expected:
        failed = [f for f in failed if f != f"{url} ({status})"]
        errors = [e for e in errors if f"status of {status}" not in e]
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    return {"status": status, "scroll": scroll, "inner": inner, "errors": errors, "failed": failed}


def problems_of(result: dict) -> list[str]:
    out = []
    if result["scroll"] > result["inner"]:
        out.append(f"page is {result['scroll']} px wide on a {result['inner']} px screen")
    out += [f"console: {e[:200]}" for e in result["errors"]]
    out += [f"failed request: {f[:200]}" for f in result["failed"]]
    return out
