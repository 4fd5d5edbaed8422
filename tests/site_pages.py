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
    ("suite", r"^/suites/[\w-]+/$"),
    ("suite-reliability", r"^/suites/[\w-]+/reliability/$"),
    ("task", r"^/tasks/[\w-]+/[\w.-]+/$"),
    ("task-reliability", r"^/tasks/[\w-]+/[\w.-]+/reliability/$"),
    ("run", r"^/runs/(?!reported-)[\w-]+/$"),
    ("run-reported", r"^/runs/reported-[\w-]+/$"),
    ("run-reliability", r"^/runs/[\w-]+/reliability/$"),
    ("model", r"^/models/[\w-]+/$"),
    ("trajectory", r"^/trajectories/\d+/$"),
    ("player", r"^/trajectories/\d+/play/$"),
    ("trajectory-compare", r"^/trajectories/compare/\?.+"),
    ("board-compare", r"^/compare/\?.+"),
    ("submission", r"^/submissions/\d+/$"),
]

HREF = re.compile(r'href="([^"#]+)"')


def _links(html: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in HREF.findall(html) if h.startswith("/")]


def discover(fetch: Callable[[str], str], seeds: list[str]) -> list[tuple[str, str]]:
    """(name, path) of the seed pages and one page of each detail kind linked from them or from the
    detail pages found so far. `fetch(path)` returns a page's HTML ('' when it cannot be read)."""
    pages = [(seed.strip("/").replace("/", "-") or "home", seed) for seed in seeds]
    found: dict[str, str] = {}
    queue = [path for _, path in pages]
    seen = set()
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        for link in _links(fetch(path)):
            for kind, pattern in DETAIL_KINDS:
                if kind not in found and re.match(pattern, link):
                    found[kind] = link
                    queue.append(link)
    pages += [(kind, found[kind]) for kind, _ in DETAIL_KINDS if kind in found]
    return pages
