"""State checks: a rubric item's optional command, run on the guest through the Control API when the
trajectory ends, compared with the output it should print; written to the task folder as state_checks.json."""

import json
import os
import re
from datetime import datetime
from pathlib import Path

from harness.control import ControlError
from harness.results import STATE_CHECKS_FILE

PASSED, FAILED, ERROR = "passed", "failed", "error"
OUTPUT_KEPT = 4000  # characters of the command's output stored with the result


def output_matches(output: str, expected: str, match: str) -> bool:
    """exact: the whole output, trailing whitespace ignored; contains: a substring; regex: re.search."""
    if match == "contains":
        return expected in output
    if match == "regex":
        return re.search(expected, output) is not None
    return output.rstrip() == expected.rstrip()


def check_result(check: dict, returncode: int | None, output: str, error: str = "") -> tuple[str, str]:
    """(status, error): a command that did not run cleanly is ``error``, whatever it printed, so a
    broken check never counts as the agent's failure."""
    if error:
        return ERROR, error
    if returncode is None or returncode != 0:
        return ERROR, f"command exited with status {returncode}"
    passed = output_matches(output, check["expected"], check.get("match") or "exact")
    return (PASSED if passed else FAILED), ""


def run_state_checks(execute, rubric) -> list[dict]:
    """Run the state check of every rubric item that has one. ``execute(command, shell)`` returns an
    ExecResult (Environment.execute or ControlClient.execute); an unreachable guest is an ``error`` row."""
    rows = []
    for item in rubric:
        check = getattr(item, "state_check", None)
        if not check:
            continue
        command = check["command"]
        returncode, output, error = None, "", ""
        try:
            result = execute(command, shell=isinstance(command, str))
            returncode, output = result.returncode, result.output or ""
            if result.timed_out:
                error = result.error or "no answer in time"
            elif result.returncode != 0 and result.error:
                error = f"command exited with status {result.returncode}: {result.error[:500]}"
        except ControlError as exc:
            error = f"guest unreachable: {exc}"
        status, why = check_result(check, returncode, output, error)
        rows.append(
            {
                "rubric_id": item.rubric_id,
                "position": item.position,
                "command": command,
                "expected": check["expected"],
                "match": check.get("match") or "exact",
                "status": status,
                "returncode": returncode,
                "output": output[:OUTPUT_KEPT],
                "error": why,
                "checked_at": datetime.now().isoformat(timespec="seconds"),
            }
        )
    return rows


def record_state_checks(task, execute, task_dir, *, finished: bool = True) -> list[dict]:
    """Run ``task``'s state checks and write state_checks.json in ``task_dir``. A trajectory that did
    not finish gets no file (its checks show as not run), and a stale file from an earlier try goes."""
    path = Path(task_dir) / STATE_CHECKS_FILE
    path.unlink(missing_ok=True)
    if not finished or not any(getattr(item, "state_check", None) for item in task.rubric):
        return []
    rows = run_state_checks(execute, task.rubric)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"task_id": task.id, "checks": rows}, ensure_ascii=False, indent=2) + "\n", "utf-8")
    os.replace(tmp, path)
    return rows
