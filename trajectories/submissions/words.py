"""What the submission page says, in words for whoever reads it: one state at a time (never
"Awaiting review" beside "awaiting our judge"), and, when our judge could not start, plain words for
the author while staff keep the operator's details (which key is missing, what to run)."""

AWAITING_JUDGE_STATUS = "Waiting for our judge"
AUTHOR_AWAITING_NOTE = (
    "Your upload is stored and checked. Our judge is not available on this site right now, so it has not "
    "started on your trajectories; a maintainer will queue them for judging. There is nothing you need to do, "
    "and you can already play back each task below."
)


def status_label(status: str, status_display: str, judging_state: str) -> str:
    """The one state the page leads with."""
    if judging_state == "awaiting_judge" and status in ("awaiting_review", "judging"):
        return AWAITING_JUDGE_STATUS
    return status_display


def judging_note(note: str, judging_state: str, is_staff: bool) -> str:
    """The judging note as this reader should see it: staff get the operator message as it is."""
    if judging_state == "awaiting_judge" and not is_staff:
        return AUTHOR_AWAITING_NOTE
    return note


def live_for(state: dict, is_staff: bool) -> dict:
    """The polled JSON (trajectories.submissions.live_state) reworded for this reader."""
    judging = state.get("judging") or {}
    return {
        **state,
        "status_label": status_label(state.get("status", ""), state.get("status_label", ""), judging.get("state", "")),
        "judging": {**judging, "note": judging_note(judging.get("note", ""), judging.get("state", ""), is_staff)},
    }
