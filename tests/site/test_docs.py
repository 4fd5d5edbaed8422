"""The documentation stays usable by someone with only a clone: README.md short, every page's links and
named project files present, no pointer at the developers' own reference folder beside the checkout,
and no references to our issue tracker's numbers (which a reader cannot follow)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
ALL_DOCS = [
    *PAGES,
    ROOT / "ARCHITECTURE.md",
    ROOT / "bench" / "README.md",
    *sorted((ROOT / "seeding").glob("*.md")),
    *sorted((ROOT / "deploy").glob("*.md")),
]
SCRIPTS = sorted(p for p in (ROOT / "bin").iterdir() if p.is_file())
PRODUCTION = ("harness", "seeding", "leaderboard", "trajectories", "world", "mypcbench_site")
# code a newcomer reads besides the production packages (this file names the patterns it looks for)
CODE = (*PRODUCTION, "bench", "tests", "deploy")

SHARED = "../shared"
# "issue 12", "issues 3 and 14", "Issue #7", and a bare "#20" used as a reference. Another project's
# thread written as owner/repo#N (or "owner/repo PR #N") names where to read it, so it is allowed.
ISSUE_WORD = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
BARE_NUMBER = re.compile(r"""(?<![\w/&#"'])#\d+\b""")  # not a colour in a quoted string
OTHER_REPO = re.compile(r"[\w.-]+/[\w.-]+(#| PR #)\d+")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
PROJECT_ROOTS = (
    "harness",
    "seeding",
    "bin",
    "leaderboard",
    "trajectories",
    "world",
    "mypcbench_site",
    "tests",
    "bench",
    "deploy",
    "docs",
    "static",
    "templates",
)
PROJECT_PATH = re.compile(r"^(?:" + "|".join(PROJECT_ROOTS) + r")/[\w./-]*$")


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _issue_references(text: str) -> list[str]:
    text = OTHER_REPO.sub("", text)
    found = [m.group(0) for m in ISSUE_WORD.finditer(text)]
    found += [m.group(0) for m in BARE_NUMBER.finditer(text)]
    return found


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+)$", text, re.MULTILINE)}


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move detail into docs/ (at most 200)"


def test_readme_opens_with_the_two_commands():
    head = "\n".join(README.read_text(encoding="utf-8").splitlines()[:6])
    assert "bin/demo" in head and "bin/test" in head


def test_every_docs_page_is_linked_from_the_readme():
    text = README.read_text(encoding="utf-8")
    missing = [_rel(p) for p in PAGES[1:] if f"({_rel(p)})" not in text]
    assert not missing, f"docs pages the README does not link: {missing}"


def test_no_pointer_at_the_reference_folder_beside_the_checkout():
    offenders = [
        f"{_rel(path)}:{number}"
        for path in [*ALL_DOCS, *SCRIPTS]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if SHARED in line
    ]
    assert not offenders, f"{SHARED} is not there on a user's clone; name the real source instead: {offenders}"


def test_no_issue_numbers_in_the_docs():
    offenders = [
        f"{_rel(path)}:{number}: {ref}"
        for path in ALL_DOCS
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for ref in _issue_references(line)
    ]
    assert not offenders, f"issue numbers a reader cannot follow; say what the change is instead: {offenders}"


def test_no_issue_numbers_in_code():
    offenders = [
        f"{_rel(path)}:{number}: {ref}"
        for package in CODE
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for ref in (_issue_references(line) if package in PRODUCTION else ISSUE_WORD.findall(line))
    ]
    # in tests and benches a bare "#12" is data (colours, step numbers), so only "issue N" counts there
    assert not offenders, f"issue numbers a reader cannot follow; say what the rule is instead: {offenders}"


def test_relative_links_resolve():
    broken = []
    for page in PAGES:
        for match in LINK.finditer(page.read_text(encoding="utf-8")):
            target = match.group(1) or match.group(2)
            if re.match(r"^[a-z]+:", target):
                continue
            name, _, anchor = target.partition("#")
            path = (page.parent / name).resolve() if name else page
            if not path.exists():
                broken.append(f"{_rel(page)}: {target} (no such file)")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{_rel(page)}: {target} (no such heading)")
    assert not broken, f"links that lead nowhere: {broken}"


def test_named_project_files_exist():
    missing = set()
    for page in PAGES:
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        for span in INLINE_CODE.findall(text):
            for token in span.split():
                token = token.rstrip(".,;:)")
                if PROJECT_PATH.match(token) and not (ROOT / token).exists():
                    missing.add(f"{_rel(page)}: {token}")
    assert not missing, f"project paths named in the docs that do not exist: {sorted(missing)}"
