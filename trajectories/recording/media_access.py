"""Who may read a stored media file, found from the rows that name it: a screenshot or derivative is
public when any run whose steps name it is published (content-addressed files are shared between
steps), otherwise readable by maintainers and the people behind its runs (the uploading author, the
launching maintainer); an uploaded archive is never public, only its author and maintainers read it.
A name no row owns is nobody's (the view answers 404, as the pages do)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from django.db.models import Q

from leaderboard.catalog.selectors import sees_unpublished
from leaderboard.models import Run
from trajectories.models import Step, Submission

ARCHIVE_FOLDER = "submissions"


@dataclass(frozen=True)
class MediaOwners:
    """What the rows naming one media file say about it."""

    owned: bool = False  # some row names the file
    public: bool = False  # anybody may read it (and caches may keep it)
    readers: frozenset[int] = field(default_factory=frozenset)  # user ids allowed besides maintainers

    def allows(self, user) -> bool:
        if not self.owned:
            return False
        if self.public or sees_unpublished(user):
            return True
        return bool(user is not None and user.is_authenticated and user.pk in self.readers)


NOBODY = MediaOwners()


def clean_name(name: str) -> str | None:
    """The storage name asked for, or None when it cannot be one (absolute, climbing, empty)."""
    if not name or "\\" in name or "\x00" in name or name.startswith("/"):
        return None
    if ".." in PurePosixPath(name).parts:  # pathlib already drops empty and "." parts
        return None
    return name


def _archive_owners(name: str) -> MediaOwners:
    # Archives are kept as submissions/<h[:2]>/<sha256><ext>: the hash finds the row by its unique
    # index; the row must still name this very file.
    digest = PurePosixPath(name).name.split(".", 1)[0]
    sub = Submission.objects.filter(archive_sha256=digest).only("author_id", "metadata").first()
    if sub is None or (sub.metadata or {}).get("archive_file") != name:
        sub = Submission.objects.filter(metadata__archive_file=name).only("author_id").first()
    if sub is None:
        return NOBODY
    return MediaOwners(owned=True, public=False, readers=frozenset({sub.author_id}))


def _step_media_owners(name: str) -> MediaOwners:
    named = Q()
    for column in Step.MEDIA_FIELDS:
        named |= Q(**{f"trajectories__steps__{column}": name})
    runs = list(Run.objects.filter(named).values("pk", "publication", "launched_by_id").distinct())
    if not runs:
        return NOBODY
    if any(r["publication"] == Run.Publication.PUBLISHED for r in runs):
        return MediaOwners(owned=True, public=True)
    readers = {r["launched_by_id"] for r in runs if r["launched_by_id"]}
    readers |= set(Submission.objects.filter(run_id__in=[r["pk"] for r in runs]).values_list("author_id", flat=True))
    return MediaOwners(owned=True, public=False, readers=frozenset(readers))


def media_owners(name: str) -> MediaOwners:
    """Who may read the media file stored under ``name`` (a storage name, e.g. from a URL)."""
    cleaned = clean_name(name)
    if cleaned is None:
        return NOBODY
    if cleaned.startswith(ARCHIVE_FOLDER + "/"):
        return _archive_owners(cleaned)
    return _step_media_owners(cleaned)
