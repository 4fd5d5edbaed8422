"""Step search: the steps of visible trajectories whose model text, action line or structured action
(typed text, URLs, keys) hold every word asked for, narrowed by run, task, app, verdict and failure
mode; each hit opens the player at its step. PostgreSQL matches words through a full-text index
(``STEP_DOCUMENT_SQL``, a column migration 0010 adds); SQLite, the development database, matches
substrings. Bounded: the words read, the hits counted (``MAX_HITS``) and a page's size are capped, and
a page costs the same few queries whatever it finds. A visitor's search reads only published steps
(``Step.published`` and its partial indexes, migration 0014), so hidden runs cost it nothing; the
runs the visitor may read still decide, the flag only narrows."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote

from django.db import connection, transaction
from django.db.models import BooleanField, Exists, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.urls import reverse

from leaderboard.catalog.selectors import sees_unpublished
from leaderboard.models import App, Run
from trajectories.models import FailureMode, Judgment, Step
from trajectories.player.payloads import step_app
from trajectories.recording.selectors import readable_runs

MAX_QUERY_CHARS = 200
MAX_WORDS = 8
PER_PAGE = 20
MAX_HITS = 1000  # hits counted and paged through; a search finding more says so and asks for more words
EXCERPT_CHARS = 90  # shown either side of the first word found
DOCUMENT_CHARS = 200_000  # text indexed per step (PostgreSQL refuses tsvectors over 1 MB)

VERDICTS = {
    "passed": "every judged rubric item passed",
    "failed": "some rubric item failed",
}

# The text a step is searched by, as one PostgreSQL expression: model text, the action line and the
# structured action (typed text, URLs) with every run of non-letters turned into a space, so
# "localhost:3016/inbox" is found by "3016" or "inbox". Migration 0010 stores it in the generated
# column DOCUMENT_COLUMN (which the models do not name) under a GIN index.
STEP_DOCUMENT_SQL = (
    "to_tsvector('simple'::regconfig, left(regexp_replace("
    "coalesce(model_text, '') || ' ' || coalesce(action_text, '') || ' ' || coalesce(action::text, ''), "
    "'[^[:alnum:]]+', ' ', 'g'), " + str(DOCUMENT_CHARS) + "))"
)
DOCUMENT_COLUMN = "search_document"
INDEX_NAME = "step_search_document"
PUBLISHED_INDEX_NAME = "step_search_published_document"  # the same over published steps (migration 0014)


@dataclass
class StepHit:
    step: Step
    app: str
    excerpt: tuple[str, str, str]  # before, the word found, after
    excerpt_is_action: bool  # the excerpt is of the action line (the page then does not repeat it)
    verdict: str  # "passed", "failed", "" (not judged)
    player_url: str


@dataclass
class StepSearch:
    query: str = ""
    words: list[str] = field(default_factory=list)
    filters: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    hits: list[StepHit] = field(default_factory=list)
    count: int = 0
    capped: bool = False  # more than MAX_HITS steps match: the first MAX_HITS the database found are shown
    page: int = 1
    pages: int = 0
    run_choices: list[tuple[str, str]] = field(default_factory=list)
    app_choices: list[tuple[str, str]] = field(default_factory=list)

    @property
    def first_rank(self) -> int:
        return (self.page - 1) * PER_PAGE + 1

    @property
    def link_query(self) -> str:
        """The search's parameters for a page link, ready for ``page=`` to follow."""
        params = {"q": self.query, **self.filters}
        return "".join(f"{k}={quote(v)}&" for k, v in params.items() if v)

    @property
    def asked(self) -> bool:
        return bool(self.words or any(self.filters.values()))

    def as_dict(self) -> dict:
        return {
            "query": self.query,
            "words": self.words,
            "filters": {k: v for k, v in self.filters.items() if v},
            "notes": self.notes,
            "count": self.count,
            "capped": self.capped,
            "max_hits": MAX_HITS,
            "page": self.page,
            "pages": self.pages,
            "per_page": PER_PAGE,
            "hits": [
                {
                    "trajectory": hit.step.trajectory_id,
                    "run": hit.step.trajectory.run.slug,
                    "task": hit.step.trajectory.task.task_id,
                    "attempt": hit.step.trajectory.attempt,
                    "step": hit.step.index,
                    "turn": hit.step.turn,
                    "tool": hit.step.tool,
                    "app": hit.app,
                    "action_text": hit.step.action_text,
                    "excerpt": "".join(hit.excerpt),
                    "verdict": hit.verdict,
                    "player_url": hit.player_url,
                }
                for hit in self.hits
            ],
        }


FILTERS = ("run", "task", "app", "verdict", "failure_mode")


def query_words(query: str) -> list[str]:
    """The words searched for: runs of letters and digits, lower-cased, in order, no repeats."""
    words: list[str] = []
    for word in re.findall(r"[^\W_]+", query.lower()):
        if word not in words:
            words.append(word)
    return words


def _read(params, result: StepSearch) -> None:
    raw = str(params.get("q") or "")
    if len(raw) > MAX_QUERY_CHARS:
        result.errors.append(
            f"The search is {len(raw)} characters long; at most {MAX_QUERY_CHARS} are read. "
            "Use a few distinctive words."
        )
        raw = raw[:MAX_QUERY_CHARS]
    result.query = " ".join(raw.split())
    words = query_words(result.query)
    if result.query and not words:
        result.errors.append(f"“{result.query}” has no letters or digits to search for.")
    if len(words) > MAX_WORDS:
        result.notes.append(f"Only the first {MAX_WORDS} words are searched for: {' '.join(words[:MAX_WORDS])}.")
        words = words[:MAX_WORDS]
    result.words = words
    # control characters (a NUL PostgreSQL would refuse) are dropped: no id holds them
    result.filters = {
        name: "".join(ch for ch in str(params.get(name) or "") if ch.isprintable()).strip()[:100] for name in FILTERS
    }
    verdict, mode = result.filters["verdict"], result.filters["failure_mode"]
    if verdict and verdict not in VERDICTS:
        result.errors.append(f"Verdict {verdict!r} is not one of: {', '.join(VERDICTS)}.")
    if mode and mode not in FailureMode.values:
        result.errors.append(f"Failure mode {mode!r} is not one of: {', '.join(FailureMode.values)}.")
    page = str(params.get("page") or "1").strip()
    if not re.fullmatch(r"[0-9]{1,9}", page) or int(page) < 1:
        result.errors.append(f"Page {page[:20]!r} is not a page number (1, 2, ...).")
    else:
        result.page = min(int(page), MAX_HITS // PER_PAGE)


def _text_match(words: list[str]) -> Q | RawSQL:
    if connection.vendor == "postgresql":
        sql = f"\"{Step._meta.db_table}\".{DOCUMENT_COLUMN} @@ plainto_tsquery('simple'::regconfig, %s)"
        return RawSQL(sql, [" ".join(words)], output_field=BooleanField())
    match = Q()
    for word in words:
        match &= Q(model_text__icontains=word) | Q(action_text__icontains=word) | Q(action__icontains=word)
    return match


def _judged(**lookups) -> Exists:
    return Exists(Judgment.objects.filter(trajectory_id=OuterRef("trajectory_id"), **lookups))


def visible_steps(user, runs: QuerySet[Run]) -> QuerySet[Step]:
    """The steps of ``runs`` (the runs ``user`` may read). For anyone but maintainers, the published
    steps (``Step.published``: PostgreSQL then reads them through their own indexes instead of stepping
    over every hidden run's steps) and an author's own runs'; the runs still decide, so a flag out of
    step could hide a step, never show one."""
    steps = Step.objects.filter(trajectory__run__in=runs)
    if sees_unpublished(user):
        return steps
    if user is not None and user.is_authenticated and Run.objects.filter(submission__author=user).exists():
        return steps.filter(Q(published=True) | Q(trajectory__run__submission__author=user))
    return steps.filter(published=True)


def matching_steps(result: StepSearch, runs: QuerySet[Run], user=None) -> QuerySet[Step]:
    steps = visible_steps(user, runs)
    if result.words:
        steps = steps.filter(_text_match(result.words))
    f = result.filters
    if f["run"]:
        steps = steps.filter(trajectory__run__slug=f["run"])
    if f["task"]:
        steps = steps.filter(trajectory__task__task_id=f["task"])
    if f["app"]:
        steps = steps.filter(trajectory__task__apps__slug=f["app"])
    if f["verdict"] == "failed":
        steps = steps.filter(_judged(verdict=Judgment.Verdict.FAILURE))
    elif f["verdict"] == "passed":
        steps = steps.filter(_judged()).exclude(_judged(verdict__in=[Judgment.Verdict.FAILURE, Judgment.Verdict.ERROR]))
    if f["failure_mode"]:
        steps = steps.filter(_judged(failure_mode=f["failure_mode"]))
    return steps


def hit_keys(result: StepSearch, runs: QuerySet[Run], user=None) -> list[tuple[int, int, int]]:
    """(trajectory id, step index, step pk) of at most MAX_HITS + 1 matches, sorted: the first the
    database finds, asked for in no order (an order would make it read every match of common words).
    On PostgreSQL through indexes only: a visitor's rare words through the full-text index of
    published steps, common ones by walking the published steps and stopping at the cap. A sequential
    scan would read steps in storage order, hidden runs' steps and all, so it is put off for this one
    query (it changes the plan, never the result)."""
    matches = matching_steps(result, runs, user).order_by().values_list("trajectory_id", "index", "pk")
    if connection.vendor != "postgresql":
        return sorted(matches[: MAX_HITS + 1])
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        keys = sorted(matches[: MAX_HITS + 1])
        cursor.execute("SET LOCAL enable_seqscan TO DEFAULT")  # inside an outer transaction too
    return keys


def excerpt(step: Step, words: list[str]) -> tuple[str, str, str]:
    """Where the first word asked for appears (model text first, then the action), with some text either
    side; the start of the model text (or the action) when no word is asked for or none is found whole."""
    fields = [step.model_text or "", step.action_text or ""]
    for text in fields:
        for word in words:
            found = re.search(re.escape(word), text, re.IGNORECASE)
            if found:
                start, end = found.span()
                before = text[max(0, start - EXCERPT_CHARS) : start]
                after = text[end : end + EXCERPT_CHARS]
                return (
                    ("…" if start > EXCERPT_CHARS else "") + before,
                    text[start:end],
                    after + ("…" if end + EXCERPT_CHARS < len(text) else ""),
                )
    text = next((t for t in fields if t.strip()), "")
    return (text[: 2 * EXCERPT_CHARS] + ("…" if len(text) > 2 * EXCERPT_CHARS else ""), "", "")


def _verdicts(trajectory_ids: set[int]) -> dict[int, str]:
    seen: dict[int, set[str]] = {}
    for tid, verdict in Judgment.objects.filter(trajectory_id__in=trajectory_ids).values_list(
        "trajectory_id", "verdict"
    ):
        seen.setdefault(tid, set()).add(verdict)
    out = {}
    for tid, verdicts in seen.items():
        if Judgment.Verdict.FAILURE in verdicts:
            out[tid] = "failed"
        elif verdicts == {Judgment.Verdict.SUCCESS}:
            out[tid] = "passed"
    return out


def search_steps(user, params) -> StepSearch:
    """One page of the steps matching ``params`` (q, run, task, app, verdict, failure_mode, page) among
    the trajectories ``user`` may read. Problems with the input come back in ``errors``, never raised."""
    result = StepSearch()
    _read(params, result)
    runs = readable_runs(user)
    result.run_choices = list(runs.order_by("name").values_list("slug", "name"))
    result.app_choices = list(App.objects.order_by("name").values_list("slug", "name"))
    run, app = result.filters["run"], result.filters["app"]
    if run and run not in {slug for slug, _ in result.run_choices}:
        result.errors.append(f"No run {run!r} that you may see.")
    if app and app not in {slug for slug, _ in result.app_choices}:
        result.errors.append(f"No app {app!r}; apps are named by their short name, e.g. hoolimail.")
    if result.errors or not result.asked:
        return result
    keys = hit_keys(result, runs, user)
    result.capped = len(keys) > MAX_HITS
    keys = keys[:MAX_HITS]
    result.count = len(keys)
    result.pages = max(1, -(-result.count // PER_PAGE))
    result.page = min(result.page, result.pages)
    start = (result.page - 1) * PER_PAGE
    wanted = [pk for _t, _i, pk in keys[start : start + PER_PAGE]]
    rows = Step.objects.filter(pk__in=wanted).select_related("trajectory__run__model", "trajectory__task__suite")
    by_pk = {s.pk: s for s in rows} if wanted else {}
    found = [by_pk[pk] for pk in wanted if pk in by_pk]
    verdicts = _verdicts({s.trajectory_id for s in found}) if found else {}
    player = reverse("trajectories:trajectory_player", args=[0]).replace("/0/", "/{}/")
    result.hits = [
        StepHit(
            step=s,
            app=step_app(s),
            excerpt=(shown := excerpt(s, result.words)),
            excerpt_is_action=bool(s.action_text) and "".join(shown).strip("…") in s.action_text,
            verdict=verdicts.get(s.trajectory_id, ""),
            player_url=player.format(s.trajectory_id) + f"?step={s.index}",
        )
        for s in found
    ]
    return result
