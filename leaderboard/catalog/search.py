"""Search over what the site holds: tasks (id, instruction, category), runs (name, model) and
trajectories (their task's id, their run's model), visible runs only. Plain substring matching
(case-insensitive) that works the same on SQLite and PostgreSQL; a kind's matches come a page at a
time. The search page (``search_page``) shows them."""

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Q
from django.shortcuts import render

from leaderboard.catalog.selectors import visible_runs
from leaderboard.models import Task
from trajectories.models import Trajectory

MAX_QUERY_CHARS = 200
PER_PAGE = 20
KINDS = ("tasks", "runs", "trajectories")


@dataclass
class SearchResults:
    query: str
    kind: str  # the kind whose pages are turned ("" = the first page of each)
    tasks: Page | None
    runs: Page | None
    trajectories: Page | None

    @property
    def total(self) -> int:
        return sum(p.paginator.count for p in (self.tasks, self.runs, self.trajectories) if p is not None)


def clean_query(raw: str) -> str:
    return " ".join(str(raw or "").split())[:MAX_QUERY_CHARS]


def _words(query: str) -> list[str]:
    return [w for w in query.split(" ") if w][:8]


def _all_words(fields: tuple[str, ...], words: list[str]) -> Q:
    """Rows where every word appears in at least one of the fields."""
    match = Q()
    for word in words:
        one = Q()
        for name in fields:
            one |= Q(**{f"{name}__icontains": word})
        match &= one
    return match


def site_search(user, raw_query: str, kind: str = "", page: str | int = 1) -> SearchResults:
    query = clean_query(raw_query)
    kind = kind if kind in KINDS else ""
    if not query:
        return SearchResults(query, kind, None, None, None)
    words = _words(query)
    runs = visible_runs(user)
    sets = {
        "tasks": Task.objects.filter(_all_words(("task_id", "instruction", "category"), words))
        .select_related("suite")
        .order_by("suite__name", "position", "task_id"),
        "runs": runs.filter(_all_words(("name", "model__name", "agent_type"), words))
        .select_related("model", "suite")
        .order_by("name"),
        "trajectories": Trajectory.objects.filter(run__in=runs)
        .filter(_all_words(("task__task_id", "run__model__name", "run__name"), words))
        .select_related("run", "run__model", "task", "task__suite")
        .order_by("task__task_id", "run__name", "attempt"),
    }
    pages = {name: Paginator(qs, PER_PAGE).get_page(page if name == kind else 1) for name, qs in sets.items()}
    return SearchResults(query, kind, pages["tasks"], pages["runs"], pages["trajectories"])


def search_page(request):
    """/search/: the matches of ?q= (of one ?kind=, a ?page= at a time) among what the visitor may see."""
    results = site_search(
        request.user, request.GET.get("q", ""), request.GET.get("kind", ""), request.GET.get("page", 1)
    )
    return render(request, "leaderboard/search.html", {"results": results})
