"""The contamination scan: steps of a trajectory whose actions, typed text, visited URLs or model text
reach the benchmark's own repository, paper, site or task files, the answer files of other runs, or
copy a long verbatim run of the task's rubric. Patterns come from settings (``CONTAMINATION_PATTERNS``,
``CONTAMINATION_SITE_HOST``, ``CONTAMINATION_SUITE_PATTERNS``); a bad pattern is refused with an
error naming it. The scan reads each step once: its cost grows with the trajectory's text, never with
its square (rubric runs are matched through a set of word windows)."""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from leaderboard.models import RubricItem, Task
from trajectories.models import Step, Trajectory

# A rubric criterion copied this many words in a row counts as a hit. Numbers are left out of the
# words compared: an agent reporting the facts it found ("DN6769 leaves AVP at 7:30am on Friday,
# April 17") repeats a criterion's figures honestly; shorter runs are common phrases, and runs the
# instruction (which the agent is given) also holds never count.
RUBRIC_RUN_WORDS = 12
MAX_HITS = 50  # stored per trajectory; the count beyond is kept
EXCERPT_CHARS = 60
MAX_FIELD_CHARS = 200_000  # text read per field of one step (a pasted file is still scanned in full up to this)

KINDS = {
    "repository": "the benchmark's repository",
    "paper": "the benchmark's paper",
    "site": "this site",
    "task file": "the benchmark's task files",
    "answer file": "another run's answer files",
    "rubric": "the task's rubric text",
    "custom": "a configured pattern",
}

DEFAULT_PATTERNS: list[dict] = [
    # every form of the repository: github.com, raw.githubusercontent.com, api.github.com/repos, codeload, clones
    {"name": "MyPCBench repository", "kind": "repository", "pattern": r"ljang0/mypcbench\b"},
    # the paper on arXiv: abs, pdf and html pages, any version
    {"name": "MyPCBench paper (arXiv 2606.16748)", "kind": "paper", "pattern": r"\b2606\.16748(?:v\d+)?\b"},
    {"name": "task file all_tasks_with_grading.json", "kind": "task file", "pattern": r"all_tasks_with_grading\.json"},
    {"name": "task file variables.json", "kind": "task file", "pattern": r"\bvariables\.json\b"},
    {"name": "rubric audit LIVE_RUBRIC_AUDIT", "kind": "task file", "pattern": r"LIVE_RUBRIC_AUDIT"},
    {
        "name": "a run's answer file",
        "kind": "answer file",
        "pattern": r"\b(?:rubric_judge_result|rubric_result|rubric_bundle|osworld_full_traj_result)\.json\b",
    },
]


@dataclass(frozen=True)
class Pattern:
    name: str
    kind: str
    regex: re.Pattern


def _compile(entry, where: str) -> Pattern:
    if isinstance(entry, str):
        entry = {"name": entry, "kind": "custom", "pattern": entry}
    if not isinstance(entry, dict):
        raise ImproperlyConfigured(
            f"{where}: {entry!r} is not a pattern (expected a regular expression string or "
            '{"name": ..., "kind": ..., "pattern": ...})'
        )
    unknown = set(entry) - {"name", "kind", "pattern"}
    if unknown:
        raise ImproperlyConfigured(f"{where}: unknown keys {sorted(unknown)} (expected name, kind, pattern)")
    text = entry.get("pattern")
    if not isinstance(text, str) or not text.strip():
        raise ImproperlyConfigured(
            f"{where}: pattern {text!r} is empty or not a string (expected a regular expression)"
        )
    kind = entry.get("kind", "custom")
    if kind not in KINDS or kind == "rubric":
        raise ImproperlyConfigured(
            f"{where}: kind {kind!r} is not one of {', '.join(k for k in KINDS if k != 'rubric')}"
        )
    try:
        regex = re.compile(text, re.IGNORECASE)
    except re.error as exc:
        raise ImproperlyConfigured(f"{where}: pattern {text!r} is not a valid regular expression ({exc})") from exc
    if regex.search(""):
        raise ImproperlyConfigured(f"{where}: pattern {text!r} matches empty text, so it would flag every step")
    return Pattern(str(entry.get("name") or text), kind, regex)


def configured_patterns(suite_slug: str = "") -> list[Pattern]:
    """The patterns in force: ``CONTAMINATION_PATTERNS`` (default: the built-in list), this site's host
    (``CONTAMINATION_SITE_HOST``) when set, and the suite's extra patterns. Raises ImproperlyConfigured
    naming the setting and the entry that is wrong."""
    entries = getattr(settings, "CONTAMINATION_PATTERNS", None)
    if entries is None:
        entries = DEFAULT_PATTERNS
    if not isinstance(entries, list | tuple):
        raise ImproperlyConfigured(f"CONTAMINATION_PATTERNS is {type(entries).__name__} (expected a list)")
    patterns = [_compile(e, f"CONTAMINATION_PATTERNS[{i}]") for i, e in enumerate(entries)]
    host = getattr(settings, "CONTAMINATION_SITE_HOST", "") or ""
    if not isinstance(host, str) or any(c in host for c in "/ \t"):
        raise ImproperlyConfigured(
            f"CONTAMINATION_SITE_HOST {host!r} is not a host name (expected e.g. bench.example.org)"
        )
    if host:
        patterns.append(Pattern(f"this site ({host})", "site", re.compile(rf"\b{re.escape(host)}\b", re.IGNORECASE)))
    per_suite = getattr(settings, "CONTAMINATION_SUITE_PATTERNS", None) or {}
    if not isinstance(per_suite, dict):
        raise ImproperlyConfigured(
            f"CONTAMINATION_SUITE_PATTERNS is {type(per_suite).__name__} (expected a dict of suite slug to list)"
        )
    for slug, extra in per_suite.items():
        if not isinstance(extra, list | tuple):
            raise ImproperlyConfigured(f"CONTAMINATION_SUITE_PATTERNS[{slug!r}] is not a list of patterns")
        checked = [_compile(e, f"CONTAMINATION_SUITE_PATTERNS[{slug!r}][{i}]") for i, e in enumerate(extra)]
        if slug == suite_slug:
            patterns.extend(checked)
    return patterns


# ---------------------------------------------------------------- rubric runs

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if not w.isdigit()]


def _windows(words: list[str], n: int) -> Iterable[tuple[int, str]]:
    for i in range(len(words) - n + 1):
        yield i, " ".join(words[i : i + n])


def rubric_windows(task: Task, n: int = RUBRIC_RUN_WORDS) -> dict[str, tuple[str, bool]]:
    """The word windows of the task's rubric criteria, all versions (``criterion_windows``)."""
    return criterion_windows(
        RubricItem.objects.filter(task=task).values_list("rubric_id", "criterion"), task.instruction, n
    )


def criterion_windows(criteria: Iterable[tuple[str, str]], instruction: str, n: int = RUBRIC_RUN_WORDS):
    """Every run of ``n`` words of the criteria ((rubric id, text) pairs), to the rubric id it came from
    and whether the instruction (which the agent reads) holds it too: those never count as a hit on
    their own, only as the continuation of one."""
    given = {w for _, w in _windows(_words(instruction), n)}
    found: dict[str, tuple[str, bool]] = {}
    for rubric_id, criterion in criteria:
        for _, window in _windows(_words(criterion), n):
            found.setdefault(window, (rubric_id, window in given))
    return found


# ---------------------------------------------------------------- the scan


def _strings(value) -> Iterable[str]:
    """The strings inside an action or info value (typed text, URLs, commands, file paths)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _excerpt(text: str, start: int, end: int) -> str:
    """The match with up to EXCERPT_CHARS // 3 characters either side, whitespace folded."""
    left, right = max(0, start - EXCERPT_CHARS // 3), min(len(text), end + EXCERPT_CHARS // 3)
    piece = " ".join(text[left:right].split())
    return ("…" if left else "") + piece + ("…" if right < len(text) else "")


class Scanner:
    """The patterns and the rubric windows of one task, ready to scan that task's steps."""

    def __init__(self, task: Task | None, patterns: list[Pattern] | None = None, windows: dict | None = None):
        """``task`` None: no rubric (``windows`` given instead, or none) and the site-wide patterns."""
        if patterns is None:
            patterns = configured_patterns(task.suite.slug if task is not None else "")
        self.patterns = patterns
        self.windows = windows if windows is not None else (rubric_windows(task) if task is not None else {})

    def text_hits(self, text: str, step: int | None, where: str) -> list[dict]:
        text = text[:MAX_FIELD_CHARS]
        hits = []
        for pattern in self.patterns:
            match = pattern.regex.search(text)
            if match:
                hits.append(
                    {
                        "step": step,
                        "field": where,
                        "kind": pattern.kind,
                        "pattern": pattern.name,
                        "excerpt": _excerpt(text, match.start(), match.end()),
                    }
                )
        if self.windows and where != "visited URL":
            words = _words(text)
            for i, window in _windows(words, RUBRIC_RUN_WORDS):
                entry = self.windows.get(window)
                if entry is not None and not entry[1]:
                    rubric_id = entry[0]
                    start, j = i, i + RUBRIC_RUN_WORDS  # widen the run both ways, for the excerpt
                    while start > 0 and " ".join(words[start - 1 : start - 1 + RUBRIC_RUN_WORDS]) in self.windows:
                        start -= 1
                    while j < len(words) and " ".join(words[j - RUBRIC_RUN_WORDS + 1 : j + 1]) in self.windows:
                        j += 1
                    run = " ".join(words[start:j])
                    hits.append(
                        {
                            "step": step,
                            "field": where,
                            "kind": "rubric",
                            "pattern": f"rubric item {rubric_id}",
                            "excerpt": run if len(run) <= 240 else run[:240] + "…",
                        }
                    )
                    break  # one rubric hit per field is enough evidence
        return hits

    def step_hits(self, index: int, action, action_text: str, model_text: str, info) -> list[dict]:
        hits = []
        typed = "\n".join(_strings(action))
        if typed:
            hits += self.text_hits(typed, index, "action")
        if action_text and action_text != typed:
            hits += self.text_hits(action_text, index, "action")
        if model_text:
            hits += self.text_hits(model_text, index, "model text")
        urls = "\n".join(s for s in _strings(info) if "://" in s or s.startswith("www."))
        if urls:
            hits += self.text_hits(urls, index, "visited URL")
        return _unique(hits)


def _unique(hits: list[dict]) -> list[dict]:
    seen = set()
    out = []
    for hit in hits:
        key = (hit["step"], hit["field"], hit["pattern"])
        if key not in seen:
            seen.add(key)
            out.append(hit)
    return out


def scan(trajectory: Trajectory, patterns: list[Pattern] | None = None) -> list[dict]:
    """Every hit of one stored trajectory, in step order (the final answer last), at most MAX_HITS
    kept; each names the step (1-based, as the player numbers them), the field, what it reached and
    an excerpt."""
    scanner = Scanner(trajectory.task, patterns)
    hits: list[dict] = []
    last = None
    rows = Step.objects.filter(trajectory=trajectory).order_by("index")
    for index, action, action_text, model_text, info in rows.values_list(
        "index", "action", "action_text", "model_text", "info"
    ).iterator():
        hits += scanner.step_hits(index, action, action_text, model_text, info)
        last = index
    if trajectory.final_answer:
        hits += scanner.text_hits(trajectory.final_answer, last, "final answer")
    return _unique(hits)


def record_scan(trajectory: Trajectory, patterns: list[Pattern] | None = None) -> int:
    """Scan and store the hits on the trajectory (``contamination``: the first MAX_HITS and the total);
    returns the number of hits."""
    hits = scan(trajectory, patterns)
    found = {"hits": hits[:MAX_HITS], "total": len(hits)} if hits else {}
    if found != (trajectory.contamination or {}):  # a rescan finding the same leaves the page caches be
        trajectory.contamination = found
        Trajectory.objects.filter(pk=trajectory.pk).update(contamination=found)
    return len(hits)


def hit_count(trajectory: Trajectory) -> int:
    return int((trajectory.contamination or {}).get("total", 0))


def run_flags(trajectories: Iterable[Trajectory]) -> list[dict]:
    """The hits of a run's trajectories, for its page and its submission: one entry per hit, naming
    the trajectory (task, attempt, id for the player link)."""
    flags = []
    for t in trajectories:
        for hit in (t.contamination or {}).get("hits", []):
            flags.append(
                {
                    **hit,
                    "trajectory_id": t.pk,
                    "task_id": t.task.task_id,
                    "attempt": t.attempt,
                    "what": KINDS.get(hit.get("kind", ""), hit.get("kind", "")),
                }
            )
    return flags


def describe(flag: dict) -> str:
    """One flag in plain words, for the submission's report."""
    step = f"step {flag['step']}" if flag.get("step") else "its final answer"
    attempt = f" attempt {flag['attempt']}" if flag.get("attempt") else ""
    return (
        f"contamination: {flag['task_id']}{attempt}, {step} ({flag['field']}) reaches {flag['what']}: "
        f"{flag['pattern']} in “{flag['excerpt']}”"
    )


def flags_of_run(run_id: int) -> tuple[list[dict], int]:
    """The stored flags of one run's trajectories (for its page, its submission and the API) and the
    run's total number of hits (beyond the MAX_HITS kept per trajectory)."""
    rows = list(
        Trajectory.objects.filter(run_id=run_id)
        .exclude(contamination={})
        .select_related("task")
        .order_by("task__position", "attempt")
    )
    return run_flags(rows), sum(hit_count(t) for t in rows)


def check_patterns(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """System check: the patterns in settings compile (``manage.py check``, and every command that
    runs the checks, refuses a bad one naming the setting and the entry)."""
    try:
        configured_patterns()
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), hint="Fix the contamination patterns in settings.", id="mypcbench.E101")]
    return []


def hits_by_run(slugs: list[str]) -> dict[str, int]:
    """Hits per run slug over the runs' trajectories (one query; runs without hits are left out)."""
    totals: dict[str, int] = {}
    rows = Trajectory.objects.filter(run__slug__in=slugs).exclude(contamination={})
    for slug, found in rows.values_list("run__slug", "contamination"):
        totals[slug] = totals.get(slug, 0) + int((found or {}).get("total", 0))
    return totals
