"""The run page's trajectory table: one row per trajectory with its status, steps so far, how it ended,
its judgments and its score as the leaderboard counts it, a thumbnail of its last screen, and links to
its page and its player. The page
renders these rows and, while a harness run is live, polls them as JSON (trajectories/evaluations/api.py).
A constant number of SQL queries whatever the number of trajectories, steps or judgments."""

from django.db.models import Count, Q
from django.urls import reverse

from leaderboard.models import JudgeConfig, Run
from leaderboard.scoring import outcomes
from leaderboard.scoring.one_trajectory import default_judge_id
from trajectories.models import EndReason, Judgment, Step, Trajectory
from trajectories.recording.selectors import final_screenshots

OPEN = (Trajectory.Status.QUEUED, Trajectory.Status.RUNNING)
NOTED = (Trajectory.Status.ERROR, Trajectory.Status.INTERRUPTED)  # rows that show their error as a note
NOTE_CHARS = 300
# n_steps is counted when a trajectory ends; these may have steps written since.
COUNTED_LIVE = (Trajectory.Status.RUNNING, Trajectory.Status.INTERRUPTED)

# What the judging of one trajectory has come to (the table's score cell says it in words).
NOT_JUDGEABLE = ""  # queued, running, interrupted or errored: nothing to judge
WAITING = "waiting"  # finished, no verdict yet
JUDGING = "judging"  # some current rubric items judged, not all
JUDGE_ERROR = "error"  # a judge call failed on an item: the score is unknown, never a failure
GRADED = "graded"  # the score counts on the leaderboard

_STATUS_LABELS = dict(Trajectory.Status.choices)
_ENDED_LABELS = dict(EndReason.choices)


def _scores(run: Run) -> tuple[int | None, dict[int, float]]:
    return outcomes.graded_scores(run)


def _judging(status: str, judged: int, errors: int, score) -> str:
    if score is not None:
        return GRADED
    if status != Trajectory.Status.FINISHED:
        return NOT_JUDGEABLE
    if errors:
        return JUDGE_ERROR
    return JUDGING if judged else WAITING


def _url_maker(name: str):
    """pk -> URL of a page keyed by a trajectory's pk, reversed once (not once per row)."""
    head, tail = reverse(name, args=[0]).rsplit("/0/", 1)
    return lambda pk: f"{head}/{pk}/{tail}"


def trajectory_rows(run: Run) -> list[dict]:
    """The table's rows in task order, each a plain dict (the JSON the page polls has the same keys)."""
    judge_id, scores = _scores(run)
    # Judgments on current rubric items by the judge the run is scored by (any judge but authors' own
    # verdicts when nothing is judged yet and the run names none).
    jq = Q(judgments__rubric_item__is_current=True) & ~Q(judgments__judge__origin=JudgeConfig.Origin.SELF_REPORTED)
    if judge_id:
        jq &= Q(judgments__judge_id=judge_id)
    rows = list(
        Trajectory.objects.filter(run=run)
        .values(
            "pk",
            "task_id",
            "task__task_id",
            "attempt",
            "world_variant",
            "status",
            "ended_by",
            "n_steps",
            "imported_score",
            "error",
        )
        .annotate(
            judged=Count("judgments", filter=jq),
            passed=Count("judgments", filter=jq & Q(judgments__verdict=Judgment.Verdict.SUCCESS)),
            judge_errors=Count("judgments", filter=jq & Q(judgments__verdict=Judgment.Verdict.ERROR)),
        )
        .order_by("task__position", "task__task_id", "attempt")
    )
    live_ids = [r["pk"] for r in rows if r["status"] in COUNTED_LIVE]
    live_steps = {}
    if live_ids:
        live_steps = dict(
            Step.objects.filter(trajectory_id__in=live_ids)
            .values("trajectory_id")
            .annotate(n=Count("id"))
            .values_list("trajectory_id", "n")
            .order_by()
        )
    thumbnails = final_screenshots(r["pk"] for r in rows)
    detail, player = _url_maker("trajectories:trajectory_detail"), _url_maker("trajectories:trajectory_player")
    out = []
    for r in rows:
        pk, status = r["pk"], r["status"]
        steps = live_steps.get(pk, r["n_steps"]) if status in COUNTED_LIVE else r["n_steps"]
        score = scores.get(pk)
        # an interrupted trajectory did not end by itself: its reason is in the note, not "Unknown"
        not_ended = status in OPEN or (status == Trajectory.Status.INTERRUPTED and r["ended_by"] == EndReason.UNKNOWN)
        out.append(
            {
                "id": pk,
                "task": r["task__task_id"],
                "task_pk": r["task_id"],
                "attempt": r["attempt"],
                "world_variant": r["world_variant"],  # 0: the canonical world
                "status": status,
                "status_display": _STATUS_LABELS.get(status, status),
                "ended_by": "" if not_ended else r["ended_by"],
                "ended_by_display": "" if not_ended else _ENDED_LABELS.get(r["ended_by"], r["ended_by"]),
                "steps": steps,
                "judged": r["judged"],
                "passed": r["passed"],
                "judge_errors": r["judge_errors"],
                "judging": _judging(status, r["judged"], r["judge_errors"], score),
                "score": score,
                "imported_score": r["imported_score"],
                "url": detail(pk),
                "thumbnail": thumbnails.get(pk, ""),  # the last screen recorded (the latest while running)
                # nothing to play until a step is recorded; a running trajectory plays live
                "player_url": player(pk) if steps or status == Trajectory.Status.RUNNING else None,
                "note": r["error"][:NOTE_CHARS] if status in NOTED else "",
            }
        )
    return out


def verdicts_judge(run: Run) -> dict:
    """Whose verdicts the table's judgments and scores count, named above the table (the judge the run
    is scored by, as the leaderboard chooses it), and how many verdicts of the author's own judge the
    run's trajectories carry besides: shown in the player as self-reported, never counted here."""
    judge = None
    judge_id = default_judge_id(run)
    if judge_id is not None:
        judge = JudgeConfig.objects.filter(pk=judge_id).exclude(origin=JudgeConfig.Origin.SELF_REPORTED).first()
    own = Judgment.objects.filter(trajectory__run=run, judge__origin=JudgeConfig.Origin.SELF_REPORTED).count()
    return {
        "name": judge.name if judge else "",
        "origin_label": judge.get_origin_display() if judge else "",
        "self_reported": own,
    }


def summary(rows: list[dict]) -> dict:
    """Counts over the rows: trajectories by status, graded ones, steps recorded so far."""
    by_status = {s: 0 for s in Trajectory.Status.values}
    for row in rows:
        by_status[row["status"]] = by_status.get(row["status"], 0) + 1
    return {
        "total": len(rows),
        "queued": by_status[Trajectory.Status.QUEUED],
        "running": by_status[Trajectory.Status.RUNNING],
        "done": by_status[Trajectory.Status.FINISHED],
        "errored": by_status[Trajectory.Status.ERROR],
        "interrupted": by_status[Trajectory.Status.INTERRUPTED],
        "judged": sum(1 for row in rows if row["judging"] == GRADED),
        "steps": sum(row["steps"] for row in rows),
    }
