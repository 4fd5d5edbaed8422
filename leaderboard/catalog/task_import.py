"""Import a MyPCBench task suite (tasks, apps, versioned rubric items) from upstream task files.

Reading and validation live in ``harness.tasks.taskfile``; this module turns the result into rows, all or
nothing, and says what changed.
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.utils.text import slugify

from harness.apps import APPS, app_key, normalise_app
from harness.tasks import (
    ResolvedType,
    TaskFileError,
    TaskSpec,
    is_osworld_folder,
    is_session_file,
    load_osworld_tasks,
    load_sessions,
    load_task_types,
    load_tasks,
    resolve_type,
    session_tasks,
)
from leaderboard.catalog.errata import ErratumError, ErratumNote, ItemChange, record_errata, rubric_changes
from leaderboard.models import App, RubricItem, Suite, Task, TypeSource, apps_touched_bin

DEFAULT_SUITE_NAME = "MyPCBench"
DEFAULT_SUITE_VERSION = "eval-round0"
OSWORLD_SUITE_NAME, OSWORLD_SUITE_VERSION = "OSWorld", "test_all"
SHOWN_CHANGES = 20  # changed tasks listed one per line in the report

# Task fields compared on re-import; a difference is reported under the field's name.
# Position is left out: removing one task shifts all later ones, which is not a change to them.
_TASK_FIELDS = (
    "category",
    "behavioural_type",
    "type_source",
    "instruction",
    "bucket",
    "primary_app_id",
    "apps_involved",
    "apps_touched",
    "apps_touched_bin",
    "difficulty",
    "rubric_rule",
    "extra",
)


@dataclass
class ImportSummary:
    """What an import did, for the command's report and for tests."""

    suite: Suite
    suite_created: bool
    source: str
    files: list[str]
    tasks_total: int = 0
    tasks_created: list[str] = field(default_factory=list)
    tasks_changed: dict[str, list[str]] = field(default_factory=dict)  # task id -> what changed
    tasks_unchanged: int = 0
    tasks_moved: int = 0  # tasks whose place in the file changed (counted apart from changes)
    rubric_items: int = 0  # current rubric items of the imported tasks
    rubric_items_written: int = 0  # new RubricItem rows (first versions and new versions)
    new_rubric_versions: dict[str, int] = field(default_factory=dict)  # task id -> new version
    errata: dict[str, list[ItemChange]] = field(default_factory=dict)  # task id -> items its new version changed
    errata_without_reason: list[str] = field(default_factory=list)  # task ids whose erratum says no why
    types: Counter = field(default_factory=Counter)
    types_by_source: Counter = field(default_factory=Counter)
    domains: Counter = field(default_factory=Counter)  # OSWorld suites: tasks per domain (no behavioural types)
    unknown_apps: Counter = field(default_factory=Counter)  # name as written -> tasks naming it
    missing_tasks: list[str] = field(default_factory=list)  # in the suite, absent from this file
    unused_type_ids: list[str] = field(default_factory=list)  # in --task-types, absent from this file

    @property
    def wrote_anything(self) -> bool:
        return bool(self.suite_created or self.tasks_created or self.tasks_changed or self.tasks_moved)

    def lines(self) -> list[str]:
        """A readable report, one line per fact."""
        out = [
            f"Suite {self.suite.name} {self.suite.version} ({self.suite.slug})"
            f"{' created' if self.suite_created else ''} from {self.source}",
            f"Tasks: {self.tasks_total} in file; {len(self.tasks_created)} created, "
            f"{len(self.tasks_changed)} changed, {self.tasks_unchanged} unchanged",
            f"Rubric items: {self.rubric_items} current; {self.rubric_items_written} rows written; "
            f"{len(self.new_rubric_versions)} new rubric version(s)",
        ]
        if self.tasks_changed:
            fields = Counter(what.split(" ")[0] for changes in self.tasks_changed.values() for what in changes)
            out.append("  what changed: " + ", ".join(f"{f} ({n} task(s))" for f, n in fields.most_common()))
            shown = list(self.tasks_changed.items())[:SHOWN_CHANGES]
            out += [f"  changed {task_id}: {', '.join(what)}" for task_id, what in shown]
            if len(self.tasks_changed) > SHOWN_CHANGES:
                out.append(f"  ... and {len(self.tasks_changed) - SHOWN_CHANGES} more changed task(s)")
        if self.errata:
            kinds = Counter(c.change for changes in self.errata.values() for c in changes)
            out.append(
                f"Errata: {sum(kinds.values())} rubric item(s) changed on {len(self.errata)} task(s): "
                + ", ".join(f"{n} {what}" for what, n in kinds.most_common())
            )
        if self.errata_without_reason:
            out.append(
                f"  {len(self.errata_without_reason)} erratum(s) recorded without a reason "
                f"({', '.join(self.errata_without_reason[:SHOWN_CHANGES])}): give one with --erratum-reason "
                'or the task\'s "erratum" field next time'
            )
        if self.tasks_moved:
            out.append(f"{self.tasks_moved} task(s) moved to a new position in the file")
        if self.domains:
            out.append("Domains: " + ", ".join(f"{d} {n}" for d, n in self.domains.most_common()))
        else:
            out.append("Behavioural types: " + ", ".join(f"{t} {n}" for t, n in self.types.most_common()))
            out.append("Type sources: " + ", ".join(f"{s} {n}" for s, n in sorted(self.types_by_source.items())))
        if self.unknown_apps:
            names = ", ".join(f"{name!r} ({n} task{'s' if n != 1 else ''})" for name, n in self.unknown_apps.items())
            out.append(f"Unknown app names (kept as written): {names}")
        if self.missing_tasks:
            out.append(
                f"{len(self.missing_tasks)} task(s) of the suite are not in this file and were kept: "
                + ", ".join(self.missing_tasks)
            )
        if self.unused_type_ids:
            out.append(f"{len(self.unused_type_ids)} id(s) in the task-types file are not in this suite file")
        if not self.wrote_anything:
            out.append("Nothing changed.")
        return out


def _sync_registry() -> dict[str, App]:
    """Make sure every registry app has a row with the registry's facts; return rows by name."""
    rows = {app.name: app for app in App.objects.all()}
    for info in APPS:
        facts = {
            "slug": slugify(info.name),
            "kind": info.kind,
            "port": info.port,
            "internal_name": info.internal_name,
            "analogue": info.analogue,
            "category": info.category,
            "subcategory": info.subcategory,
        }
        row = rows.get(info.name)
        if row is None:
            rows[info.name] = App.objects.create(name=info.name, **facts)
        elif any(getattr(row, k) != v for k, v in facts.items()):
            for k, v in facts.items():
                setattr(row, k, v)
            row.save()
    return rows


class _AppResolver:
    """Names in ``apps_involved`` -> App rows; unknown names get an App(kind=unknown) row."""

    def __init__(self):
        self.rows = _sync_registry()
        self.unknown_by_key = {app_key(a.name): a for a in self.rows.values() if a.kind == App.Kind.UNKNOWN}

    def row(self, name: str) -> App:
        info = normalise_app(name)
        if info is not None:
            return self.rows[info.name]
        key = app_key(name)
        if key not in self.unknown_by_key:
            display = name.strip()
            self.unknown_by_key[key] = App.objects.create(
                name=display, slug=self._free_slug(display), kind=App.Kind.UNKNOWN
            )
        return self.unknown_by_key[key]

    @staticmethod
    def _free_slug(name: str) -> str:
        base = slugify(name) or "app"
        slug, n = base, 1
        while App.objects.filter(slug=slug).exists():
            n += 1
            slug = f"{base}-{n}"
        return slug


def _suite(
    name: str, version: str, source: str, sha256: str, is_demo: bool | None, kind: str = Suite.Kind.MYPCBENCH
) -> tuple[Suite, bool]:
    suite = Suite.objects.filter(name=name, version=version).first()
    created = suite is None
    if created:
        base = slugify(f"{name} {version}") or "suite"
        slug, n = base, 1
        while Suite.objects.filter(slug=slug).exists():
            n += 1
            slug = f"{base}-{n}"
        suite = Suite(name=name, version=version, slug=slug)
    assert suite is not None  # found or made above
    wanted: dict[str, object] = {"source_name": source, "source_hash": sha256, "kind": kind}
    if is_demo is not None:
        wanted["is_demo"] = is_demo
    if created or any(getattr(suite, k) != v for k, v in wanted.items()):
        for k, v in wanted.items():
            setattr(suite, k, v)
        suite.save()
    return suite, created


def _rubric_rows(task: Task, spec: TaskSpec, version: int) -> list[RubricItem]:
    return [
        RubricItem(
            task=task,
            version=version,
            **RubricItem.spec_fields(item),
            is_current=True,
            state_check=item.state_check or {},
        )
        for item in spec.rubric
    ]


def _read_task_file(path: str | Path, suite_name: str, suite_version: str):
    """The task file at ``path`` (MyPCBench's, OSWorld's folder, or a session file), whether it is
    OSWorld's, and the suite it goes into: OSWorld's and a session file's own name when the caller
    kept the default."""
    default = (suite_name, suite_version) == (DEFAULT_SUITE_NAME, DEFAULT_SUITE_VERSION)
    if is_osworld_folder(path):  # OSWorld's examples/<domain>/<uuid>.json + test_all.json
        named = (OSWORLD_SUITE_NAME, OSWORLD_SUITE_VERSION) if default else (suite_name, suite_version)
        return load_osworld_tasks(path), True, *named
    if is_session_file(path):  # session tasks: requests with hidden intents (harness.tasks.sessions)
        sessions = load_sessions(path)
        named = (sessions.suite, sessions.suite_version) if default else (suite_name, suite_version)
        return session_tasks(sessions), False, *named
    return load_tasks(path), False, suite_name, suite_version


def _record_errata(summary: ImportSummary, existing: dict[str, Task], new_items: list[RubricItem], note) -> None:
    """Each task's new rubric version recorded as errata item by item, with the task's own note or ``note``."""
    for task_id, changes in summary.errata.items():
        task = existing[task_id]
        rows = [row for row in new_items if row.task_id == task.pk]
        task_erratum = task_note(task, note)
        record_errata(task, task.rubric_version, changes, rows, task_erratum)
        if not task_erratum.reason:
            summary.errata_without_reason.append(task_id)


def import_tasks(
    path: str | Path,
    task_types_path: str | Path | None = None,
    suite_name: str = DEFAULT_SUITE_NAME,
    suite_version: str = DEFAULT_SUITE_VERSION,
    progress: Callable[[int, int], None] | None = None,
    is_demo: bool | None = None,
    erratum: ErratumNote | None = None,
) -> ImportSummary:
    """Import the tasks at ``path`` into the suite ``suite_name`` / ``suite_version``.

    Everything is read and validated before the first write, and the writes are one transaction:
    a TaskFileError (bad task file or task-types file) or any other failure leaves the database as
    it was. Re-importing the same file writes nothing (also without the task-types file used before:
    types that came from such a file are kept); a task whose rubric changed gets a new rubric
    version (old rows stay, no longer current); tasks missing from the file are kept and reported.
    ``progress(done, total)`` is called after each task. Each new rubric version is recorded as an
    erratum item by item (added, removed, reworded, reweighted), with ``erratum``'s reason and source.
    """
    note = (erratum or ErratumNote()).checked()  # a bad link is refused before anything is read
    task_file, osworld, suite_name, suite_version = _read_task_file(path, suite_name, suite_version)
    file_types = load_task_types(task_types_path) if task_types_path else None
    resolved: dict[str, ResolvedType] = {}
    for spec in task_file.tasks:
        # OSWorld tasks have domains, not the paper's behavioural types.
        no_type = ResolvedType("", TypeSource.DERIVED)
        found = no_type if osworld else resolve_type(spec.id, spec.category, file_types)
        if found is None:  # categories are validated, so only a rule change could get here
            raise TaskFileError(spec.source_file, f"{spec.id}.category", "no behavioural type", "a typed category")
        resolved[spec.id] = found

    with transaction.atomic():
        source_name = Path(task_file.files[0]).name if len(task_file.files) == 1 else Path(path).name + "/"
        suite_kind = Suite.Kind.OSWORLD if osworld else Suite.Kind.MYPCBENCH
        suite, suite_created = _suite(suite_name, suite_version, source_name, task_file.sha256, is_demo, suite_kind)
        summary = ImportSummary(suite=suite, suite_created=suite_created, source=str(path), files=task_file.files)
        apps = _AppResolver()
        existing = {t.task_id: t for t in suite.tasks.prefetch_related("apps")}
        current_items: dict[int, list[RubricItem]] = {}
        for item in RubricItem.objects.filter(task__suite=suite, is_current=True).order_by("position"):
            current_items.setdefault(item.task_id, []).append(item)

        new_items: list[RubricItem] = []
        total = len(task_file.tasks)
        for done, spec in enumerate(task_file.tasks, start=1):
            kind = resolved[spec.id]
            task = existing.get(spec.id)
            # Types imported from a --task-types file outrank the shipped and derived ones, so a later
            # import without that file keeps them rather than silently downgrading their source.
            if task is not None and task.type_source == TypeSource.FILE and kind.source != TypeSource.FILE:
                kind = ResolvedType(task.behavioural_type, TypeSource.FILE)
            summary.types[kind.type] += 1
            summary.types_by_source[kind.source] += 1
            if osworld:
                summary.domains[spec.category] += 1
            for name in spec.apps_involved if not osworld else ():
                if normalise_app(name) is None:
                    summary.unknown_apps[name] += 1
            app_rows = {apps.row(name).pk: apps.row(name) for name in spec.apps_involved}
            primary = normalise_app(spec.bucket) if spec.bucket else None
            values = {
                "position": spec.position,
                "category": spec.category,
                "behavioural_type": kind.type,
                "type_source": kind.source,
                "instruction": spec.instruction,
                "bucket": spec.bucket,
                "primary_app_id": apps.rows[primary.name].pk if primary else None,
                "apps_involved": spec.apps_involved,
                "apps_touched": len(spec.apps_involved),
                "apps_touched_bin": apps_touched_bin(len(spec.apps_involved)),
                "difficulty": spec.difficulty,
                "rubric_rule": spec.rubric_rule,
                "extra": spec.extra,
            }
            if task is None:
                task = Task.objects.create(suite=suite, task_id=spec.id, content_hash=spec.content_hash, **values)
                task.apps.set(app_rows.values())
                new_items += _rubric_rows(task, spec, version=1)
                summary.tasks_created.append(spec.id)
            else:
                new_items += _update_task(task, spec, values, app_rows, current_items.get(task.pk, []), summary)
            summary.rubric_items += len(spec.rubric)
            if progress:
                progress(done, total)
        RubricItem.objects.bulk_create(new_items)
        summary.rubric_items_written = len(new_items)
        _record_errata(summary, existing, new_items, note)

    in_file = {spec.id for spec in task_file.tasks}
    summary.tasks_total = len(task_file.tasks)
    summary.missing_tasks = [task_id for task_id in existing if task_id not in in_file]
    summary.unused_type_ids = [task_id for task_id in (file_types or {}) if task_id not in in_file]
    return summary


def task_note(task: Task, default: ErratumNote) -> ErratumNote:
    """The erratum note of one task: its own ``"erratum": {"reason", "source"}`` in the task file (kept
    in ``extra``) when it has one, else ``default`` (the command line's)."""
    own = (task.extra or {}).get("erratum")
    if not isinstance(own, dict):
        return default
    try:
        return ErratumNote(
            str(own.get("reason") or default.reason), str(own.get("source") or default.source_url)
        ).checked()
    except ErratumError as exc:
        raise TaskFileError(f"task {task.task_id}", "erratum.source", str(exc), "an http(s) link") from None


def _update_task(task: Task, spec, values: dict, app_rows: dict, old_items: list[RubricItem], summary: ImportSummary):
    """Bring a stored task up to its spec (its fields, apps and rubric: a changed rubric becomes a new
    version, the old rows no longer current) and count it; the new rubric rows to write."""
    new_items: list[RubricItem] = []
    changes = [f.removesuffix("_id") for f in _TASK_FIELDS if getattr(task, f) != values[f]]
    if {a.pk for a in task.apps.all()} != set(app_rows):
        task.apps.set(app_rows.values())
        changes.append("apps")
    if [i.content_hash for i in old_items] != [i.content_hash for i in spec.rubric]:
        RubricItem.objects.filter(task=task, is_current=True).update(is_current=False)
        task.rubric_version = max(task.rubric_items.values_list("version", flat=True), default=0) + 1
        new_items = _rubric_rows(task, spec, version=task.rubric_version)
        summary.new_rubric_versions[spec.id] = task.rubric_version
        changed = rubric_changes(old_items, spec.rubric)
        if changed:  # items only moved: a new version, no erratum
            summary.errata[spec.id] = changed
        changes.append(f"rubric (now version {task.rubric_version})")
    if task.position != spec.position:
        summary.tasks_moved += 1
    if changes or task.content_hash != spec.content_hash or task.position != spec.position:
        task.position = spec.position
        for f, v in values.items():
            setattr(task, f, v)
        task.content_hash = spec.content_hash
        task.save()
    if changes:
        summary.tasks_changed[spec.id] = changes
    else:
        summary.tasks_unchanged += 1
    return new_items
