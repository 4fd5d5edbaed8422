"""Mutation testing by group: runs mutmut (configured in pyproject.toml, [tool.mutmut]) on one group of
the code where a silent change would publish wrong numbers or open a door, then prints each function's
mutants killed and the group's score, and writes the surviving mutants' names to mutants/survivors.txt.

    .venv/bin/python bench/mutation.py --list
    .venv/bin/python bench/mutation.py permissions            # about 25 minutes on 2 CPUs
    .venv/bin/python bench/mutation.py validation rubrics     # several groups in one run
    .venv/bin/python bench/mutation.py --report permissions   # the score of the last run, again

It starts from a clean mutants/ folder (mutmut keeps results there) unless --report is given.
`.venv/bin/mutmut show NAME` prints one survivor's change."""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Mutant names are <module>.x_<function>__mutmut_<n>, or <module>.xǁ<Class>ǁ<method>__mutmut_<n>.
GROUPS: dict[str, list[str]] = {
    "scoring": ["leaderboard.scoring.*", "mypcbench_site.page_cache.*", "harness.results.scoring.*"],
    # one trajectory's score and page version (the player, task pages) and what visitors' pages are cached at
    "trajectory": ["leaderboard.scoring.one_trajectory.*", "leaderboard.scoring.public_version.*"],
    "parser": ["harness.judge.parse.*"],
    "retries": [
        "harness.judge.limiter.*",
        "harness.judge.core.xǁJudgeǁ_with_retries*",
        "harness.judge.core.xǁJudgeǁ_backoff*",
        "harness.judge.core.xǁJudgeǁ_permanent_failure*",
    ],
    "archive": ["harness.results.archive.*"],
    "translate": ["harness.actions.translation.*", "harness.actions.commands.*"],
    "validation": ["trajectories.submissions.validation.*"],
    "rubrics": [
        "trajectories.recording.rubric_versions.x_rubric_version_for*",
        "trajectories.recording.rubric_versions.x__same_*",
        "trajectories.recording.rubric_versions.x_same_entries*",
        "trajectories.recording.rubric_versions.x_record_rubric_drift*",
        "trajectories.recording.rubric_versions.x__provider*",
        "leaderboard.catalog.task_import.x__rubric_rows*",
    ],
    "ingest": ["trajectories.recording.ingest.*", "trajectories.recording.rubric_versions.x_imported_judge*"],
    "permissions": [
        "leaderboard.catalog.selectors.x_sees_unpublished*",
        "leaderboard.catalog.selectors.x_visible_runs*",
        "leaderboard.catalog.selectors.x_task_trajectories*",
        "leaderboard.catalog.selectors.x_run_detail*",
        "trajectories.recording.media_access.*",
        "trajectories.submissions.review.x_visible_submissions*",
        "trajectories.judging.labelling.x_can_label*",
        "trajectories.evaluations.views.x_can_manage_runs*",
        "trajectories.evaluations.admin_launch.x_launch_view*",
        "trajectories.evaluations.admin_launch.x_rerun_view*",
        "world.review.services.x_can_review*",
        "trajectories.admin.xǁReadOnlyInlineǁ*",
        "trajectories.admin.xǁJudgmentAdminǁhas_label_permission*",
        "world.admin.xǁReviewAuditAdminǁ*",
    ],
}


def results(patterns: list[str]) -> dict[str, int | None]:
    """Exit code of each mutant of the patterns in mutants/ (0: survived, None: not run)."""
    found: dict[str, int | None] = {}
    for meta in (ROOT / "mutants").rglob("*.meta"):
        for name, code in json.loads(meta.read_text()).get("exit_code_by_key", {}).items():
            if any(fnmatch.fnmatchcase(name, p) for p in patterns):
                found[name] = code
    return found


KILLED = {"killed", "timeout", "caught by type check"}  # a test failed, hung or the type checker refused it
UNCOUNTED = {"not checked", "skipped", "check was interrupted by user"}


def report(patterns: list[str]) -> float | None:
    from mutmut.stats import status_by_exit_code  # the same reading of exit codes as `mutmut results`

    found = {name: status_by_exit_code[code] for name, code in results(patterns).items()}
    found = {name: status for name, status in found.items() if status not in UNCOUNTED}
    if not found:
        print("no results in mutants/ for these groups (run them first)")
        return None
    total, killed = Counter(), Counter()
    for name, status in found.items():
        function = name.split("__mutmut_")[0]
        total[function] += 1
        killed[function] += status in KILLED
    width = max(len(f) for f in total)
    for function in sorted(total):
        print(f"{function:<{width}}  {killed[function]:>4} of {total[function]:>4}")
    score = sum(killed.values()) / sum(total.values())
    print(f"{'all':<{width}}  {sum(killed.values()):>4} of {sum(total.values()):>4}  = {score:.1%} killed")
    survivors = sorted(f"{name}: {status}" for name, status in found.items() if status not in KILLED)
    (ROOT / "mutants" / "survivors.txt").write_text("".join(f"{s}\n" for s in survivors))
    print(f"{len(survivors)} not killed (survived, no tests, suspicious), listed in mutants/survivors.txt")
    return score


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("groups", nargs="*", help=f"one or more of: {', '.join(GROUPS)}")
    parser.add_argument("--list", action="store_true", help="list the groups and their mutant name patterns")
    parser.add_argument("--report", action="store_true", help="print the last run's score, run nothing")
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2, help="mutants tested at once")
    args = parser.parse_args()
    if args.list or not args.groups:
        for group, patterns in GROUPS.items():
            print(f"{group}: {' '.join(patterns)}")
        return 0 if args.list else 2
    unknown = [g for g in args.groups if g not in GROUPS]
    if unknown:
        parser.error(f"no group {', '.join(unknown)} (expected one of: {', '.join(GROUPS)})")
    patterns = [p for g in args.groups for p in GROUPS[g]]
    if not args.report:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)
        env = {**os.environ, "MYPCBENCH_VAR_DIR": tempfile.mkdtemp(prefix="mypcbench-mutation-")}
        mutmut = [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children), *patterns]
        code = subprocess.run(mutmut, cwd=ROOT, env=env).returncode
        if code != 0:
            print(f"mutmut stopped with exit code {code}", file=sys.stderr)
            return code
    return 0 if report(patterns) is not None else 1


if __name__ == "__main__":
    sys.exit(main())
