"""Results: reading what an agent run leaves behind. Result folders into trajectory bundles (``records``
the records and bundle-format constants, ``bundle`` the task folders and trees, ``judge_files`` the judge
files in them), which layout a folder belongs to (``layouts``), what else a folder holds (``result_files``:
gaps, problems, token usage, tool calls), uploaded archives (``archive``, and ``archive_stream`` for huge
ones read folder by folder) at a share of a CPU (``pacing``), the session format read in one place
(``sessions``: a recorded session as one bundle for import and as the judge's transcript), untrusted names
shown safely (``safe_names``), the rule that turns a run's cells into its headline figures (``scoring``), and
which world variant a trajectory ran on (``world_variant``).

May use: ``harness.tasks`` (rubrics), ``harness.actions`` (the action model) and the shared utilities at
the harness root. Not the guests, backends, agents or the judge, which use this room. Exports the names
the rest of the project reads results with; ``layouts``, ``result_files``, ``archive_stream`` and
``pacing`` are also used as modules (``from harness.results import layouts``)."""

from harness.results.archive import ArchiveError, ArchiveLimits, archive_kind, extract_archive, safe_member_path
from harness.results.archive_stream import iter_task_folders, list_archive
from harness.results.bundle import find_task_dirs, read_results, read_scores, read_task_dir
from harness.results.layouts import LayoutError, classify
from harness.results.pacing import cpu_share, pace
from harness.results.records import (
    FULL_TRAJ_RESULT,
    PER_STEP_RESULT,
    STATE_CHECKS_FILE,
    TASK_SCORE_RESULT,
    TIMESTAMP_FORMAT,
    TRAJ_FILE,
    BundleError,
    JudgeRecord,
    ResultsTree,
    RubricVerdict,
    StepRecord,
    TrajectoryBundle,
    cited_steps_from_text,
    parse_timestamp,
)
from harness.results.result_files import usage_by_kind
from harness.results.safe_names import printable
from harness.results.scoring import PERFECT_THRESHOLD, Figures, is_perfect, run_figures
from harness.results.sessions import (
    SESSION_RECORD,
    SessionFolderError,
    SessionInfo,
    SessionTranscript,
    UserTurn,
    read_session_folder,
)
from harness.results.world_variant import (
    CANONICAL_WORLD,
    WORLD_VARIANT_KEY,
    WorldVariantError,
    attempt_world_variant,
    describe_world_variant,
    parse_world_variants,
    world_variant_of,
    world_variants_words,
)

__all__ = [
    "SESSION_RECORD",
    "SessionFolderError",
    "SessionInfo",
    "SessionTranscript",
    "UserTurn",
    "read_session_folder",
    "CANONICAL_WORLD",
    "WORLD_VARIANT_KEY",
    "WorldVariantError",
    "attempt_world_variant",
    "describe_world_variant",
    "parse_world_variants",
    "world_variant_of",
    "world_variants_words",
    "FULL_TRAJ_RESULT",
    "PERFECT_THRESHOLD",
    "PER_STEP_RESULT",
    "STATE_CHECKS_FILE",
    "TASK_SCORE_RESULT",
    "TIMESTAMP_FORMAT",
    "TRAJ_FILE",
    "ArchiveError",
    "ArchiveLimits",
    "BundleError",
    "Figures",
    "JudgeRecord",
    "LayoutError",
    "ResultsTree",
    "RubricVerdict",
    "StepRecord",
    "TrajectoryBundle",
    "archive_kind",
    "cited_steps_from_text",
    "classify",
    "cpu_share",
    "extract_archive",
    "find_task_dirs",
    "is_perfect",
    "iter_task_folders",
    "list_archive",
    "pace",
    "parse_timestamp",
    "printable",
    "read_results",
    "read_scores",
    "read_task_dir",
    "run_figures",
    "safe_member_path",
    "usage_by_kind",
]
