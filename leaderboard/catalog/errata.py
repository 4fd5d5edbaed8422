"""Rubric errata: which items a new rubric version changed (added, removed, reworded, reweighted), the
rows that record it with its reason and source, the changelog of a task or a suite, and which current
items keep the verdict a run gave an older version (the rest must be judged again)."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db.models import Max

from leaderboard.models import RubricErratum, RubricItem, Suite, Task

Change = RubricErratum.Change


class ErratumError(ValueError):
    """An erratum's reason or source cannot be used; says which and why."""


@dataclass(frozen=True)
class ErratumNote:
    """Why a rubric changed (``reason``, free text) and where the fix is written up (``source_url``)."""

    reason: str = ""
    source_url: str = ""

    def checked(self) -> "ErratumNote":
        """This note with its fields stripped; an ErratumError naming the field when the source is not
        an http(s) link or the reason is too long to be a note."""
        reason, url = self.reason.strip(), self.source_url.strip()
        if len(reason) > 5000:
            raise ErratumError(f"erratum reason: {len(reason)} characters, at most 5000")
        if url:
            try:
                URLValidator(schemes=["http", "https"])(url)
            except ValidationError:
                raise ErratumError(f"erratum source {url!r}: not an http(s) link") from None
            if len(url) > 500:
                raise ErratumError(f"erratum source: {len(url)} characters, at most 500")
        return ErratumNote(reason, url)


@dataclass(frozen=True)
class ItemChange:
    """One rubric item as an erratum changed it; ``old``/``new`` are the item before and after (None
    for an added or removed item)."""

    rubric_id: str
    change: str
    old: object | None
    new: object | None


def judged_text(item) -> tuple:
    """What a verdict depends on: the words the judge reads and the state check (not the weight, not
    the position). A RubricItem or the harness's RubricSpec."""
    return (item.criterion, item.verification or "", item.state_check or {})


def rubric_changes(old_items: Sequence, new_items: Sequence) -> list[ItemChange]:
    """The items that differ between two versions of one rubric, matched by rubric id: in the new
    order, then the removed ones. Moving an item without changing it is no change."""
    old = {item.rubric_id: item for item in old_items}
    new_ids = {item.rubric_id for item in new_items}
    changes = []
    for item in new_items:
        before = old.get(item.rubric_id)
        if before is None:
            changes.append(ItemChange(item.rubric_id, Change.ADDED, None, item))
        elif judged_text(before) != judged_text(item):
            changes.append(ItemChange(item.rubric_id, Change.REWORDED, before, item))
        elif before.weight != item.weight:
            changes.append(ItemChange(item.rubric_id, Change.REWEIGHTED, before, item))
    changes += [ItemChange(i.rubric_id, Change.REMOVED, i, None) for i in old_items if i.rubric_id not in new_ids]
    return changes


def record_errata(
    task: Task, version: int, changes: Iterable[ItemChange], new_rows: Sequence[RubricItem], note: ErratumNote
) -> list[RubricErratum]:
    """Store one RubricErratum per changed item of ``task``'s new rubric ``version`` (``new_rows``
    saved already); the rows written."""
    by_id = {row.rubric_id: row for row in new_rows}
    rows = [
        RubricErratum(
            task=task,
            version=version,
            rubric_id=c.rubric_id,
            change=c.change,
            old_item=c.old if isinstance(c.old, RubricItem) else None,
            new_item=by_id.get(c.rubric_id) if c.new is not None else None,
            reason=note.reason,
            source_url=note.source_url,
        )
        for c in changes
    ]
    return RubricErratum.objects.bulk_create(rows)


# ---------------------------------------------------------------- carrying verdicts over


def carried_items(task_ids: Iterable[int]) -> dict[int, set[int]]:
    """For each current rubric item of these tasks, the older items of its task (same rubric id, same
    judged text) whose verdict still holds for it: a reweighted or moved item keeps its verdict, a
    reworded or added one has none and is judged again. One query."""
    by_key: dict[tuple, list[RubricItem]] = {}
    current: list[RubricItem] = []
    fields = ("pk", "task_id", "rubric_id", "criterion", "verification", "state_check", "is_current")
    for item in RubricItem.objects.filter(task_id__in=list(task_ids)).only(*fields):
        if item.is_current:
            current.append(item)
        else:
            by_key.setdefault((item.task_id, item.rubric_id), []).append(item)
    return {
        item.pk: {
            old.pk for old in by_key.get((item.task_id, item.rubric_id), []) if judged_text(old) == judged_text(item)
        }
        for item in current
    }


# ---------------------------------------------------------------- the changelog


@dataclass
class ChangelogEntry:
    """One erratum: one new rubric version of one task, with its changed items."""

    task: Task
    version: int
    date: datetime
    reason: str
    source_url: str
    items: list[RubricErratum] = field(default_factory=list)

    @property
    def counts(self) -> str:
        """ "2 reworded, 1 added" for the changed items."""
        seen = [(sum(i.change == what for i in self.items), what) for what in Change.values]
        return ", ".join(f"{n} {what}" for n, what in seen if n)


def changelog(*, task: Task | None = None, suite: Suite | None = None) -> list[ChangelogEntry]:
    """The errata of one task or of every task of one suite, newest first. One query."""
    rows = RubricErratum.objects.select_related("task", "old_item", "new_item").order_by("pk")
    if task is not None:
        rows = rows.filter(task=task)
    elif suite is not None:
        rows = rows.filter(task__suite=suite)
    else:
        raise ValueError("changelog needs a task or a suite")
    entries: dict[tuple[int, int], ChangelogEntry] = {}
    for row in rows:
        key = (row.task_id, row.version)
        if key not in entries:
            entries[key] = ChangelogEntry(row.task, row.version, row.created_at, row.reason, row.source_url)
        entries[key].items.append(row)
    return sorted(entries.values(), key=lambda e: (-e.date.timestamp(), e.task.position, -e.version))


@dataclass(frozen=True)
class SuiteRubricRevision:
    """How far a suite's rubrics have moved: ``errata`` task versions made by errata (0: as first
    imported), ``tasks`` tasks touched, ``latest`` when the newest was recorded."""

    errata: int
    tasks: int
    latest: datetime | None

    @property
    def text(self) -> str:
        if not self.errata:
            return "rubrics as first imported (no errata)"
        when = self.latest.date().isoformat() if self.latest else ""
        return f"{self.errata} erratum{'' if self.errata == 1 else 'a'} on {self.tasks} task(s), latest {when}"


def suite_rubric_revision(suite: Suite | None) -> SuiteRubricRevision:
    """The suite's rubric revision (one query; none for no suite)."""
    if suite is None:
        return SuiteRubricRevision(0, 0, None)
    rows = list(
        RubricErratum.objects.filter(task__suite=suite)
        .values("task_id", "version")
        .annotate(at=Max("created_at"))
        .order_by()
    )
    latest = max((r["at"] for r in rows), default=None)
    return SuiteRubricRevision(len(rows), len({r["task_id"] for r in rows}), latest)
