"""Task files: reading and validating MyPCBench task files and rubrics (``taskfile``), the behavioural
task types (``task_types``), OSWorld's task definitions (``osworld``) and the pinned upstream suites
(``upstream_tasks`` with its manifest ``upstream_tasks.json``) and session tasks with hidden intents
(``sessions``).

May use: the shared utilities at the harness root (``safejson``). Nothing else in the harness: every
other room may use this one. Exports the names the rest of the project reads task files with."""

from harness.tasks.osworld import UUID, is_osworld_folder, load_osworld_tasks
from harness.tasks.sessions import (
    EVIDENCE_KINDS,
    TERMINAL_STATUSES,
    SessionFile,
    SessionFileError,
    SessionSpec,
    is_session_file,
    load_sessions,
    read_session_data,
    session_tasks,
    spec_value,
    unresolved_evidence,
    world_record_count,
)
from harness.tasks.task_types import (
    SHIPPED_TYPES,
    SOURCE_DERIVED,
    SOURCE_FILE,
    SOURCE_SHIPPED,
    TYPES,
    ResolvedType,
    load_task_types,
    resolve_type,
)
from harness.tasks.taskfile import (
    RubricSpec,
    TaskFile,
    TaskFileError,
    TaskSpec,
    build_rubric,
    json_kind,
    load_tasks,
    parse_json_text,
)

__all__ = [
    "EVIDENCE_KINDS",
    "TERMINAL_STATUSES",
    "SessionFile",
    "SessionFileError",
    "SessionSpec",
    "is_session_file",
    "load_sessions",
    "read_session_data",
    "session_tasks",
    "spec_value",
    "unresolved_evidence",
    "world_record_count",
    "SHIPPED_TYPES",
    "SOURCE_DERIVED",
    "SOURCE_FILE",
    "SOURCE_SHIPPED",
    "TYPES",
    "UUID",
    "ResolvedType",
    "RubricSpec",
    "TaskFile",
    "TaskFileError",
    "TaskSpec",
    "build_rubric",
    "is_osworld_folder",
    "json_kind",
    "load_osworld_tasks",
    "load_task_types",
    "load_tasks",
    "parse_json_text",
    "resolve_type",
]
