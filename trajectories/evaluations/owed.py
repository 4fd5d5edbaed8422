"""What a launched run still owes: trajectories to run (again) and judge passes not done, from the
work lease rows (trajectories/queue/leases.py), with since when and why; a run is finished only when
it owes nothing."""

from datetime import datetime

from django.utils import timezone

from trajectories import queue
from trajectories.models import Trajectory, WorkLease

OWED_WORDS = {queue.RUN_TRAJECTORY: "to run", queue.JUDGE_TRAJECTORY: "to judge"}


def owed_work(run_id: int) -> list[dict]:
    """The work the run still owes, oldest first: trajectories to run (again) and judge passes not
    done, each with the task and attempt, since when it is owed and why it was last sent again."""
    ids = {pk: (task_id, attempt) for pk, task_id, attempt in
           Trajectory.objects.filter(run_id=run_id).values_list("pk", "task__task_id", "attempt")}  # fmt: skip
    rows = WorkLease.objects.filter(task__in=list(OWED_WORDS), subject__in=list(ids)).order_by("since", "pk")
    return [
        {
            "what": OWED_WORDS[row.task],
            "trajectory": row.subject,
            "task": ids[row.subject][0],
            "attempt": ids[row.subject][1],
            "since": row.since.isoformat(timespec="seconds"),
            "held": bool(row.holder),
            "note": row.note,
        }
        for row in rows
    ]


def owed_text(owed: list[dict]) -> str:
    """The run page's words for what is still owed: counts, the oldest with since when and why."""
    if not owed:
        return ""
    counts: dict[str, int] = {}
    for work in owed:
        counts[work["what"]] = counts.get(work["what"], 0) + 1
    oldest = owed[0]
    since = timezone.localtime(datetime.fromisoformat(oldest["since"])).strftime("%Y-%m-%d %H:%M:%S")
    text = "Not finished: still owed " + ", ".join(f"{n} {what}" for what, n in counts.items())
    text += f"; the oldest, {oldest['task']} attempt {oldest['attempt'] + 1} {oldest['what']}, since {since}"
    return text + (f" ({oldest['note']})." if oldest["note"] else ".")
