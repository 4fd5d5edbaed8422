"""After an upload is stored: our judge's queueing and progress on the submission's run, the
maintainers' review decisions (approve, reject, ask for changes, withdraw, verified by rerun) with
their log, and what the submissions pages read."""

import logging
from typing import cast

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from leaderboard.catalog.badges import OUR_JUDGING_KEY, VERIFIED_KEY, badge_of, our_judging
from leaderboard.models import JudgeConfig, Run
from trajectories.judging import our_judge
from trajectories.judging.our_judge import request_run_judging
from trajectories.models import Judgment, Submission, Trajectory
from trajectories.recording import contamination
from trajectories.submissions import words

logger = logging.getLogger(__name__)


class ReviewError(ValueError):
    """A status change that does not apply to the submission as it stands."""


# ---------------------------------------------------------------- judging


def _now() -> str:
    return timezone.now().isoformat(timespec="seconds")


def _set_judging(submission: Submission, state: str, note: str) -> None:
    submission.metadata = {**submission.metadata, "judging": {"state": state, "note": note, "at": _now()}}


def queue_judging(submission_id: int) -> Submission | None:
    """Ask our judge to judge the submission's run, or leave a note saying why it is waiting. The
    upload is already stored: a judge that cannot start is a note for maintainers, never a failure."""
    submission = Submission.objects.select_related("run").filter(pk=submission_id).first()
    if submission is None or submission.run is None:
        return submission
    try:
        request_run_judging(submission.run.pk)
    except Exception as exc:  # e.g. no API key configured: keep the upload, say why it waits
        logger.warning("submission %s: judging not started: %s", submission.pk, exc)
        _set_judging(
            submission,
            "awaiting_judge",
            f"Not queued for judging: our judge could not start ({exc}). A maintainer can queue it again "
            "from the admin (Queue for our judge).",
        )
        submission.save(update_fields=["metadata", "updated_at"])
        return submission
    _set_judging(submission, "queued", "Queued for our judge.")
    try:
        submission.metadata["judging"]["judge"] = our_judge.judge_config_for(
            our_judge.build_judge(our_judge.JudgeSpec.from_settings())
        ).name
    except our_judge.JudgingError:  # the judge started a moment ago; progress then falls back to ours
        pass
    if submission.status in (Submission.Status.AWAITING_REVIEW, Submission.Status.VALIDATING):
        submission.status = Submission.Status.JUDGING
    submission.save(update_fields=["metadata", "status", "updated_at"])
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=cast(int, submission.run_id))  # a judged submission has its run
        # the run's badge: "judging" until our judge is done; a run judged before keeps "re-judged"
        if our_judging(run.metadata).get("state") != "judged":
            run.metadata = {**(run.metadata or {}), OUR_JUDGING_KEY: {"state": "judging", "at": _now()}}
            run.save(update_fields=["metadata"])
            submission.run = run
    # an eager or very fast judge may already be done
    return sync_judging_status(submission)


def judging_state(submission: Submission) -> dict:
    return (submission.metadata or {}).get("judging") or {}


def our_judge_for(submission: Submission) -> JudgeConfig | None:
    """The judge configuration of ours judging this submission: the one recorded when judging was
    queued, else ours with the most judgments on the run."""
    run = submission.run
    if run is None:
        return None
    recorded = judging_state(submission).get("judge")
    if recorded:
        found = JudgeConfig.objects.filter(name=recorded, origin=JudgeConfig.Origin.OURS).first()
        if found is not None:
            return found
    return (
        JudgeConfig.objects.filter(origin=JudgeConfig.Origin.OURS, judgments__trajectory__run=run)
        .annotate(n=Count("judgments"))
        .order_by("-n", "name")
        .first()
    )


def judging_progress(submission: Submission) -> dict:
    """How far our judge has got: trajectories fully judged, items judged and in error (from
    judging.judging_progress), and whether every item now has a verdict or an error."""
    config = our_judge_for(submission)
    trajectories = submission.run.trajectories.count() if submission.run else 0
    if config is None:
        return {
            "judge": "",
            "trajectories": trajectories,
            "done": 0,
            "items": 0,
            "judged_items": 0,
            "error_items": 0,
            "complete": False,
            "percent": 0,
        }
    progress = our_judge.judging_progress(cast(Run, submission.run), config)  # our judge was found for its run
    answered = progress["judged_items"] + progress["error_items"]
    progress["judge"] = config.name
    progress["complete"] = bool(progress["items"]) and answered >= progress["items"]
    progress["percent"] = round(100 * min(answered, progress["items"]) / progress["items"]) if progress["items"] else 0
    return progress


def _judging_underway(submission: Submission) -> bool:
    """Whether our judge may still be working for this submission, so progress is worth reading."""
    return (
        submission.status == Submission.Status.JUDGING
        or judging_state(submission).get("state") == "queued"
        or our_judging(cast(Run, submission.run).metadata).get("state") != "judged"  # judged: it has its run
    )


def sync_judging_status(submission: Submission) -> Submission:
    """Once our judge has answered every rubric item (items that ended in error are named in the
    note; a maintainer may queue again): the run records it, so its badge may say "re-judged", and a
    submission being judged moves to "awaiting review". Called after each judged trajectory of a
    submitted run and when the submission is looked at (page, progress poll, API)."""
    if submission.run_id is None or not _judging_underway(submission):
        return submission
    progress = judging_progress(submission)
    if not progress["complete"]:
        return submission
    with transaction.atomic():
        submission = Submission.objects.select_for_update(of=("self",)).select_related("run").get(pk=submission.pk)
        # a judged submission has its run
        submission.run = run = Run.objects.select_for_update().get(pk=cast(int, submission.run_id))
        if not _judging_underway(submission):
            return submission
        run.metadata = {
            **(run.metadata or {}),
            OUR_JUDGING_KEY: {
                "state": "judged",
                "judge": progress["judge"],
                "items": progress["items"],
                "judged_items": progress["judged_items"],
                "error_items": progress["error_items"],
                "at": _now(),
            },
        }
        run.save(update_fields=["metadata"])
        errors = progress["error_items"]
        note = f"Judged by {progress['judge']}: {progress['judged_items']} of {progress['items']} rubric items" + (
            f"; {errors} ended in error (an API error, never a failure; queue our judge again from the admin)"
            if errors
            else "."
        )
        _set_judging(submission, "judged", note)
        submission.metadata["judging"]["judge"] = progress["judge"]
        if submission.status == Submission.Status.JUDGING:
            submission.status = Submission.Status.AWAITING_REVIEW
        submission.save(update_fields=["metadata", "status", "updated_at"])
    return submission


def after_trajectory_judged(trajectory_id: int) -> None:
    """Hook for the judging task: the submission whose run holds this trajectory may be done."""
    submission = Submission.objects.select_related("run").filter(run__trajectories__pk=trajectory_id).first()
    if submission is not None:
        sync_judging_status(submission)


# ---------------------------------------------------------------- review


# What each decision may follow; anything else is refused with a message.
_ALLOWED = {
    "approve": {
        Submission.Status.JUDGING,
        Submission.Status.AWAITING_REVIEW,
        Submission.Status.CHANGES_REQUESTED,
        Submission.Status.REJECTED,
    },
    "reject": {
        Submission.Status.JUDGING,
        Submission.Status.AWAITING_REVIEW,
        Submission.Status.CHANGES_REQUESTED,
        Submission.Status.PUBLISHED,
    },
    "request_changes": {Submission.Status.JUDGING, Submission.Status.AWAITING_REVIEW, Submission.Status.PUBLISHED},
    "withdraw": {
        Submission.Status.JUDGING,
        Submission.Status.AWAITING_REVIEW,
        Submission.Status.CHANGES_REQUESTED,
        Submission.Status.PUBLISHED,
        Submission.Status.REJECTED,
    },
}
_RESULT = {
    "approve": (Submission.Status.PUBLISHED, Run.Publication.PUBLISHED),
    "reject": (Submission.Status.REJECTED, Run.Publication.DRAFT),
    "request_changes": (Submission.Status.CHANGES_REQUESTED, Run.Publication.DRAFT),
    "withdraw": (Submission.Status.WITHDRAWN, Run.Publication.WITHDRAWN),
}


_LABELS = {"approve": "approved", "reject": "rejected", "request_changes": "requested changes", "withdraw": "withdrew"}


def unjudged_warning(submission: Submission) -> str:
    """What publishing this submission now would show, when our judge has not judged all of it: the
    run would sit on the leaderboard without scores (or with figures over part of it). Empty once our
    judge has answered every rubric item. The admin asks for a confirmation showing it."""
    if submission.run_id is None:
        return ""
    progress = judging_progress(submission)
    if progress["complete"] and progress["judged_items"]:
        return ""
    if not progress["judged_items"]:
        return (
            "our judge has not judged it: published now, it shows on the leaderboard without scores (—), "
            "marked “awaiting our judge”, and is not counted among the graded rows"
        )
    return (
        f"our judge has judged only {progress['judged_items']} of {progress['items']} rubric items: published now, "
        "its figures cover only those and it is marked “being judged”"
    )


def contamination_hits(submission: Submission) -> int:
    """How many contamination hits the trajectories of the submission's run have (0 without a run)."""
    if submission.run_id is None:
        return 0
    rows = Trajectory.objects.filter(run_id=submission.run_id).exclude(contamination={}).only("contamination")
    return sum(contamination.hit_count(t) for t in rows)


def _label(action: str, unjudged: str, hits: int) -> str:
    label = "approved before our judge had judged it all" if unjudged else _LABELS[action]
    if hits:
        label += f"{',' if unjudged else ''} despite {hits} contamination hit{'s' if hits != 1 else ''}"
    return label


def decide(submission: Submission, by, action: str, reason: str = "") -> Submission:
    """Apply a review decision (approve, reject, request_changes; withdraw by the author) and
    append who, when, what and why to the review log."""
    reason = (reason or "").strip()
    if action not in _ALLOWED:
        raise ReviewError(f"unknown decision {action!r} (expected one of {', '.join(_ALLOWED)})")
    if action in ("reject", "request_changes") and not reason:
        raise ReviewError(f"{action.replace('_', ' ')}: a reason is required (the author reads it)")
    unjudged = unjudged_warning(submission) if action == "approve" else ""
    hits = contamination_hits(submission) if action == "approve" else 0
    if hits and not reason:
        raise ReviewError(
            f"approve: its trajectories have {hits} contamination hit{'s' if hits != 1 else ''} (see the flags on "
            "the submission page); give a reason saying why publishing it is still right"
        )
    with transaction.atomic():
        submission = Submission.objects.select_for_update(of=("self",)).select_related("run").get(pk=submission.pk)
        if submission.status not in _ALLOWED[action]:
            raise ReviewError(
                f"submission {submission.pk} is {submission.get_status_display().lower()}; "
                f"cannot {action.replace('_', ' ')} it"
            )
        if action == "approve" and submission.run is None:
            raise ReviewError(f"submission {submission.pk} has no run to publish")
        status, publication = _RESULT[action]
        entry = {
            "at": timezone.now().isoformat(timespec="seconds"),
            "by": by.get_username(),
            "action": action,
            "label": _label(action, unjudged, hits),
            "from": submission.status,
            "to": status,
            "reason": reason,
        }
        submission.status = status
        submission.review_log = [*submission.review_log, entry]
        submission.save(update_fields=["status", "review_log", "updated_at"])
        if submission.run is not None and submission.run.publication != publication:
            submission.run.publication = publication
            submission.run.save(update_fields=["publication"])
    return submission


def mark_verified_by_rerun(submission: Submission, by, rerun_slug: str) -> Submission:
    """A maintainer reran the uploaded configuration with our harness and the numbers held: link
    the rerun (a harness run of the same suite) so the uploaded run carries the "verified" badge."""
    rerun_slug = (rerun_slug or "").strip()
    if not rerun_slug:
        raise ReviewError("mark verified: name the rerun (the slug of the harness run that reproduced it)")
    rerun = Run.objects.filter(slug=rerun_slug).first()
    if rerun is None:
        raise ReviewError(f"mark verified: no run with slug {rerun_slug!r} (expected the slug of our harness's rerun)")
    with transaction.atomic():
        submission = Submission.objects.select_for_update(of=("self",)).select_related("run").get(pk=submission.pk)
        run = submission.run
        if run is None:
            raise ReviewError(f"submission {submission.pk} has no run to verify")
        if rerun.provenance != Run.Provenance.HARNESS:
            raise ReviewError(
                f"mark verified: run {rerun.slug!r} is {rerun.get_provenance_display().lower()} "
                "(expected a run by our harness)"
            )
        if rerun.suite_id != run.suite_id:
            raise ReviewError(
                f"mark verified: run {rerun.slug!r} ran suite {rerun.suite} "
                f"(expected the submission's suite {run.suite})"
            )
        at = timezone.now().isoformat(timespec="seconds")
        run.metadata = {
            **(run.metadata or {}),
            VERIFIED_KEY: {"run": rerun.slug, "run_name": rerun.name, "by": by.get_username(), "at": at},
        }
        run.save(update_fields=["metadata"])
        entry = {
            "at": at,
            "by": by.get_username(),
            "action": "mark_verified",
            "label": f"marked verified by rerun {rerun.slug}",
            "from": submission.status,
            "to": submission.status,
            "reason": "",
        }
        submission.review_log = [*submission.review_log, entry]
        submission.save(update_fields=["review_log", "updated_at"])
    return submission


# ---------------------------------------------------------------- reading


def self_reported_key(task_id: str, attempt: int) -> str:
    """Where a trajectory's self-reported score sits in the run's metadata."""
    return task_id if not attempt else f"{task_id}/attempt_{attempt}"


def visible_submissions(user):
    """Staff see every submission; an author sees their own; anybody else none."""
    qs = Submission.objects.select_related("author", "run", "run__model", "run__suite")
    if not user.is_authenticated:
        return qs.none()
    if user.is_staff:
        return qs
    return qs.filter(author=user)


def submission_progress(submission: Submission) -> dict:
    """Trajectories, and how many our judge has judged, with their mean rubric score."""
    run = submission.run
    if run is None:
        return {"trajectories": 0, "judged": 0, "rows": []}
    trajectories = list(run.trajectories.select_related("task").order_by("task__position", "attempt"))
    ours = (
        Judgment.objects.filter(trajectory__run=run, judge__origin=JudgeConfig.Origin.OURS)
        .select_related("rubric_item")
        .order_by("trajectory_id")
    )
    by_trajectory: dict[int, list] = {}
    for judgment in ours:
        by_trajectory.setdefault(judgment.trajectory_id, []).append(judgment)
    own = {
        row["trajectory_id"]: row
        for row in Judgment.objects.filter(trajectory__run=run, judge__origin=JudgeConfig.Origin.SELF_REPORTED)
        .values("trajectory_id")
        .annotate(n=Count("id"), passed=Count("id", filter=Q(verdict="success")))
    }
    rows = []
    for t in trajectories:
        judged = by_trajectory.get(t.pk, [])
        scored = [j for j in judged if j.verdict != "error"]
        score = None
        if scored:
            total = sum(j.rubric_item.normalised_weight for j in scored) or 1.0
            score = sum(j.rubric_item.normalised_weight for j in scored if j.verdict == "success") / total
        self_row = own.get(t.pk)
        rows.append(
            {
                "trajectory": t,
                "judged": len(judged),
                "score": score,
                "self_reported": f"{self_row['passed']}/{self_row['n']}" if self_row else "",
                "self_reported_score": (run.metadata or {})
                .get("self_reported_scores", {})
                .get(self_reported_key(t.task.task_id, t.attempt)),
            }
        )
    return {
        "trajectories": len(trajectories),
        "judged": sum(1 for r in rows if r["judged"]),
        "rows": rows,
    }


def shown_status(submission: Submission, is_staff: bool) -> dict:
    """{"status", "status_label", "status_next"}: the one status the page, the list, the admin and the
    API show for this submission (trajectories.submissions.words), with what happens next for this reader."""
    state = judging_state(submission)
    return words.status_words(
        submission.status, submission.get_status_display(), state.get("state", ""), state.get("note", ""), is_staff
    )


def is_live(submission: Submission) -> bool:
    """Whether the submission page should keep asking for progress: validating or judging, or our
    judge queued and not done yet (a maintainer may approve before it finishes)."""
    return (
        submission.status in (Submission.Status.VALIDATING, Submission.Status.JUDGING)
        or judging_state(submission).get("state") == "queued"
    )


def score_text(score: float | None) -> str:
    """A rubric score as the submission page shows it (as Django's widthratio rounds it)."""
    return "" if score is None else f"{round(score * 100)}%"


def judging_note(submission: Submission, judge_progress: dict) -> str:
    """The judging note the submission page shows: "queued" turns into "being judged" once our
    judge's first answers are in."""
    state = judging_state(submission)
    if state.get("state") == "queued" and judge_progress["judged_items"] + judge_progress["error_items"]:
        return f"Being judged by {judge_progress['judge']}."
    return state.get("note", "")


def live_state(submission: Submission) -> dict:
    """What the submission page updates while it polls: status, the run's badge and publication,
    our judge's progress and each trajectory's score by our judge (plain JSON)."""
    progress = submission_progress(submission)
    judge_progress = judging_progress(submission)
    run = submission.run
    return {
        "id": submission.pk,
        "status": submission.status,
        "status_label": submission.get_status_display(),
        "live": is_live(submission),
        "judging": {
            "state": judging_state(submission).get("state", ""),
            "note": judging_note(submission, judge_progress),
        },
        "judge_progress": judge_progress,
        "trajectories": progress["trajectories"],
        "judged_trajectories": progress["judged"],
        "rows": [
            {
                "trajectory": r["trajectory"].pk,
                "task": r["trajectory"].task.task_id,
                "attempt": r["trajectory"].attempt,
                "judged_items": r["judged"],
                "score": None if r["score"] is None else round(r["score"], 4),
                "score_text": score_text(r["score"]),
            }
            for r in progress["rows"]
        ],
        "badge": badge_of(run).as_dict() if run else None,
        "published": bool(run and run.publication == Run.Publication.PUBLISHED),
    }
